//! Forms and uploads with axum's own extractors: `Form<T>` for an
//! `application/x-www-form-urlencoded` body, `Multipart` for files, under a body limit of the
//! route's own. Bad input is a JSON error: an oversized upload 413, a form that does not parse
//! 422, a broken multipart body 400.
//!
//! ```sh
//! cargo run --example upload
//! curl -d 'name=ada&email=ada@example.com' http://127.0.0.1:3000/signup
//! curl -F 'notes=@README.md' http://127.0.0.1:3000/upload
//! head -c 100000 /dev/zero > big.bin && curl -F 'big=@big.bin' http://127.0.0.1:3000/upload  # 413
//! curl http://127.0.0.1:3000/upload                          # what was uploaded
//! ```

use std::sync::Mutex;

use axum::Form;
use axum::extract::Multipart;
use axum::extract::multipart::MultipartError;
use green_tea::prelude::*;
use serde::{Deserialize, Serialize};

/// The largest upload `POST /upload` takes; past it the answer is a JSON 413.
const UPLOAD_LIMIT: usize = 64 * 1024;

/// What was uploaded so far (a real service would write the files somewhere).
#[derive(Default)]
struct Uploads(Mutex<Vec<Stored>>);

#[derive(Clone, Serialize)]
struct Stored {
    field: String,
    file_name: Option<String>,
    bytes: usize,
}

#[provider(provides = "uploads")]
fn uploads() -> Uploads {
    Uploads::default()
}

/// The form of `POST /signup`.
#[derive(Deserialize)]
struct Signup {
    name: String,
    email: String,
}

struct Forms;

#[route("/")]
impl Forms {
    /// axum's `Form<T>` reads the body (a body extractor goes last among the extractors).
    /// A body that does not fit `Signup` is answered before this runs: a JSON 422 with axum's
    /// message.
    #[post("/signup")]
    async fn signup(Form(signup): Form<Signup>) -> Result<Json<serde_json::Value>, HttpError> {
        if !signup.email.contains('@') {
            return Err(HttpError::bad_request("email: not an address"));
        }
        Ok(Json(serde_json::json!({
            "welcome": signup.name,
            "email": signup.email,
        })))
    }

    /// Each part of a `multipart/form-data` body, read as it arrives. A `content-length` over
    /// the limit is a 413 before this runs; a body that grows past it while streaming fails
    /// in `next_field` or `bytes`, and is answered with its status (413) as JSON.
    #[post("/upload", body_limit = UPLOAD_LIMIT)]
    async fn upload(
        mut multipart: Multipart,
        #[needs("uploads")] uploads: &Uploads,
    ) -> Result<(StatusCode, Json<Vec<Stored>>), HttpError> {
        let mut stored = Vec::new();
        while let Some(field) = multipart.next_field().await.map_err(refused)? {
            let name = field.name().unwrap_or("").to_owned();
            let file_name = field.file_name().map(str::to_owned);
            let bytes = field.bytes().await.map_err(refused)?;
            stored.push(Stored {
                field: name,
                file_name,
                bytes: bytes.len(),
            });
        }
        uploads.0.lock().unwrap().extend(stored.iter().cloned());
        Ok((StatusCode::CREATED, Json(stored)))
    }

    /// Everything uploaded so far.
    #[get("/upload")]
    async fn list(#[needs("uploads")] uploads: &Uploads) -> Json<Vec<Stored>> {
        Json(uploads.0.lock().unwrap().clone())
    }
}

/// A multipart body that breaks while being read: its status (400, or 413 past the limit) and
/// message, as green-tea's JSON error.
fn refused(error: MultipartError) -> HttpError {
    HttpError::with_status(error.status(), error.body_text())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let app = App::builder()
        .provider(uploads::provider())
        .routes(Forms::routes())
        .build()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    served.await?;
    Ok(())
}
