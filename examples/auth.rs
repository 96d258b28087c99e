//! An auth step: a bearer token checked against a provider's table; no token or an unknown
//! one is a 401 JSON error, and the signed-in user is a request value any handler or step can
//! need.
//!
//! ```sh
//! cargo run --example auth
//! curl -i http://127.0.0.1:3000/me                                   # 401
//! curl -i -H 'authorization: Bearer tea-for-ada' http://127.0.0.1:3000/me
//! ```

use std::collections::HashMap;

use green_tea::prelude::*;
use http::HeaderMap;

/// Who a token belongs to (a real app would read a database or verify a JWT here).
struct Tokens(HashMap<&'static str, &'static str>);

#[provider(provides = "tokens")]
fn tokens() -> Tokens {
    Tokens(HashMap::from([
        ("tea-for-ada", "ada"),
        ("tea-for-bob", "bob"),
    ]))
}

#[derive(Debug)]
struct User {
    name: String,
}

/// Runs on every request whose route needs `user`, before its handler.
#[step(provides = "user", needs = ["tokens"])]
fn bearer(tokens: &Tokens, headers: &HeaderMap) -> Result<User, HttpError> {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| HttpError::unauthorized("a bearer token is required"))?;
    let name = tokens
        .0
        .get(token)
        .ok_or_else(|| HttpError::unauthorized("unknown token"))?;
    Ok(User {
        name: (*name).to_owned(),
    })
}

struct Me;

#[route("/me")]
impl Me {
    #[get("/")]
    async fn me(#[needs("user")] user: &User) -> Json<serde_json::Value> {
        Json(serde_json::json!({ "name": user.name }))
    }
}

/// The service; its shape is locked in `examples/auth.lock` (the examples' tests check it).
pub(crate) fn app() -> AppBuilder {
    App::builder()
        .provider(tokens::provider())
        .step(bearer::step())
        .routes(Me::routes())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let app = app().build()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    served.await?;
    Ok(())
}
