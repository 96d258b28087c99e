//! Static files beside an API: tower-http's `ServeDir` mounted under `/static`, routes under
//! `/api`. A route under the mount's prefix would be a build error.
//!
//! ```sh
//! cargo run --example static_files
//! curl http://127.0.0.1:3000/static/index.html
//! curl http://127.0.0.1:3000/api/health
//! ```

use green_tea::prelude::*;
use tower_http::services::ServeDir;

struct Api;

#[route("/api")]
impl Api {
    #[get("/health")]
    async fn health() -> Json<serde_json::Value> {
        Json(serde_json::json!({ "ok": true }))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    // The files beside this example, found from its package (crates/examples in green-tea's
    // repository); in a crate of your own, a path of yours.
    let files = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/static");
    let app = App::builder()
        .routes(Api::routes())
        .nest_service("/static", ServeDir::new(files))
        .build()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    served.await?;
    Ok(())
}
