//! The smallest green-tea service: one route.
//!
//! ```sh
//! cargo run --example hello        # PORT=0 picks a free port
//! curl http://127.0.0.1:3000/
//! ```

use green_tea::prelude::*;

struct Hello;

#[route("/")]
impl Hello {
    #[get("/")]
    async fn hello() -> &'static str {
        "hello, green tea"
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let app = App::builder().routes(Hello::routes()).build()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    served.await?; // Ctrl-C or SIGTERM: drain, then close
    Ok(())
}
