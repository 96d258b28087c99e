//! tower-http layers on a green-tea app: CORS, gzip compression and request tracing around
//! every route, served by green-tea's own server (its limits, drain and close kept).
//!
//! ```sh
//! cargo run --example layers
//! curl -i -H 'accept-encoding: gzip' -H 'origin: https://shop.example' http://127.0.0.1:3000/orders
//! ```

use green_tea::prelude::*;
use std::io::IsTerminal;
use tower_http::compression::CompressionLayer;
use tower_http::cors::CorsLayer;
use tower_http::trace::TraceLayer;

struct Orders;

#[route("/orders")]
impl Orders {
    #[get("/")]
    async fn list() -> Json<Vec<serde_json::Value>> {
        let orders = (1..=50)
            .map(|id| serde_json::json!({ "id": id, "state": "shipped" }))
            .collect();
        Json(orders)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_ansi(colour())
        .with_max_level(tracing::Level::DEBUG)
        .with_target(false)
        .init();
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let app = App::builder()
        .routes(Orders::routes())
        .layer(CompressionLayer::new())
        .layer(CorsLayer::permissive())
        .layer(TraceLayer::new_for_http()) // the last added sees the request first
        .build()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    served.await?;
    Ok(())
}

/// Colour only for a person at a terminal, and never with `NO_COLOR` set
/// (<https://no-color.org>): a file, a pipe or a log collector gets text without escape codes.
fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
