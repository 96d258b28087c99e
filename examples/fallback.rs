//! A custom fallback: the paths no route matches get the app's own JSON 404, from a route
//! with needs like any other (a path that exists with another method stays a 405).
//!
//! ```sh
//! cargo run --example fallback
//! curl -i http://127.0.0.1:3000/nowhere
//! ```

use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list() -> Json<Vec<u32>> {
        Json(vec![1, 2, 3])
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let fallback = Route::fallback(|request: RequestContext| async move {
        let docs = request.need::<String>(0)?;
        let path = request.parts().uri.path().to_owned();
        Ok::<_, HttpError>((
            StatusCode::NOT_FOUND,
            Json(serde_json::json!({ "error": format!("nothing at {path}"), "docs": *docs })),
        ))
    })
    .needs::<String>("docsUrl");
    let app = App::builder()
        .value("docsUrl", String::from("https://example.invalid/docs"))
        .routes(Orders::routes())
        .fallback(fallback)
        .build()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    served.await?;
    Ok(())
}
