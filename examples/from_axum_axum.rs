//! A small notes service in plain axum: the "before" of docs/coming-from-axum.md. Its "after",
//! the same service in green-tea, is `from_axum_green_tea`; both answer the same requests with
//! the same statuses and JSON bodies.
//!
//! ```sh
//! cargo run --example from_axum_axum
//! curl -i -H 'authorization: Bearer tea-for-ada' -H 'content-type: application/json' \
//!      -d '{"text":"buy sencha"}' http://127.0.0.1:3000/notes
//! curl -i -H 'authorization: Bearer tea-for-ada' http://127.0.0.1:3000/notes/1
//! ```
//!
//! Every `/notes` route needs a bearer token (401 without one); each user sees only their own
//! notes (someone else's is a 404, as a missing one); an unknown path is a JSON 404.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use axum::extract::{Path, Request, State};
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};

#[derive(Clone, Serialize)]
struct Note {
    id: u64,
    text: String,
    author: String,
}

/// The body of `POST /notes`.
#[derive(Deserialize)]
struct NewNote {
    text: String,
}

/// Who is calling, put in the request's extensions by the `bearer` middleware.
#[derive(Clone)]
struct User(String);

/// The notes, by id.
#[derive(Default)]
struct Notes {
    last_id: u64,
    by_id: BTreeMap<u64, Note>,
}

/// Everything the handlers share, cloned into each request: axum's `State`.
#[derive(Clone)]
struct AppState {
    notes: Arc<Mutex<Notes>>,
    tokens: Arc<HashMap<&'static str, &'static str>>,
}

/// The service's one error shape: `{"error": ...}` with a status.
fn error(status: StatusCode, message: impl Into<String>) -> Response {
    let body = serde_json::json!({ "error": message.into() });
    (status, Json(body)).into_response()
}

/// Middleware: the bearer token checked against the table; the user goes into the request's
/// extensions for the handlers' `Extension<User>`.
async fn bearer(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let Some(token) = token else {
        return error(StatusCode::UNAUTHORIZED, "a bearer token is required");
    };
    let Some(name) = state.tokens.get(token) else {
        return error(StatusCode::UNAUTHORIZED, "unknown token");
    };
    request.extensions_mut().insert(User((*name).to_owned()));
    next.run(request).await
}

/// `GET /notes`: the caller's notes.
async fn list(State(state): State<AppState>, Extension(user): Extension<User>) -> Json<Vec<Note>> {
    let notes = state.notes.lock().unwrap();
    let mine = notes.by_id.values().filter(|n| n.author == user.0);
    Json(mine.cloned().collect())
}

/// `POST /notes`: a new note by the caller, 201.
async fn create(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Json(new): Json<NewNote>, // the body: last
) -> (StatusCode, Json<Note>) {
    let mut notes = state.notes.lock().unwrap();
    notes.last_id += 1;
    let note = Note {
        id: notes.last_id,
        text: new.text,
        author: user.0,
    };
    notes.by_id.insert(note.id, note.clone());
    (StatusCode::CREATED, Json(note))
}

/// `GET /notes/{id}`: one of the caller's notes, or 404.
async fn show(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(id): Path<u64>,
) -> Result<Json<Note>, Response> {
    let notes = state.notes.lock().unwrap();
    match notes.by_id.get(&id) {
        Some(note) if note.author == user.0 => Ok(Json(note.clone())),
        _ => Err(error(StatusCode::NOT_FOUND, format!("no note {id}"))),
    }
}

/// Unknown paths: a JSON 404 (axum's own is an empty body).
async fn not_found(method: Method, uri: Uri) -> Response {
    let message = format!("no route for {method} {}", uri.path());
    error(StatusCode::NOT_FOUND, message)
}

fn app() -> Router {
    let state = AppState {
        notes: Arc::default(),
        tokens: Arc::new(HashMap::from([
            ("tea-for-ada", "ada"),
            ("tea-for-bob", "bob"),
        ])),
    };
    Router::new()
        .route("/notes", get(list).post(create))
        .route("/notes/{id}", get(show))
        // Only the routes above: the fallback answers 404 without a token.
        .route_layer(middleware::from_fn_with_state(state.clone(), bearer))
        .fallback(not_found)
        .with_state(state)
}

/// Ctrl-C or SIGTERM (axum leaves the signals to you; green-tea's `serve` listens for both),
/// caught from this call on: made before the address is printed, so that a SIGTERM sent the
/// moment it is out is a graceful stop.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let terminate = signal(SignalKind::terminate()).ok();
        let interrupt = signal(SignalKind::interrupt()).ok();
        let received = |caught: Option<tokio::signal::unix::Signal>| async move {
            match caught {
                Some(mut caught) => {
                    caught.recv().await;
                }
                None => std::future::pending().await,
            }
        };
        async move {
            tokio::select! {
                () = received(terminate) => {}
                () = received(interrupt) => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let signal = shutdown_signal();
    println!("listening on http://{addr}");
    axum::serve(listener, app())
        .with_graceful_shutdown(signal)
        .await?;
    Ok(())
}
