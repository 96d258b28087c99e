//! Testing a green-tea app three ways, in this file's own tests: in process with
//! `TestClient`, with a provider replaced by an override, and over real HTTP on a loopback port.
//!
//! ```sh
//! cargo run --example testing
//! curl http://127.0.0.1:3000/teas/1
//! cargo test --example testing       # runs the tests at the bottom of this file
//! ```
//!
//! The app is made by one function, `app()`, which `main` serves and every test builds: tests
//! change what the app is made of at the app level (`override_value`, `override_provider`),
//! never by mocking modules.

use std::collections::BTreeMap;

use green_tea::prelude::*;
use serde::Serialize;

#[derive(Clone, Serialize)]
struct Tea {
    name: String,
    grams: u32,
}

/// The teas on sale, by id. In a real service this provider would open a database pool: the
/// thing a test wants to replace.
struct Catalog(BTreeMap<u32, Tea>);

impl Catalog {
    fn of<'a>(teas: impl IntoIterator<Item = (u32, &'a str, u32)>) -> Catalog {
        let teas = teas.into_iter().map(|(id, name, grams)| {
            let name = name.to_owned();
            (id, Tea { name, grams })
        });
        Catalog(teas.collect())
    }
}

#[provider(provides = "catalog")]
fn catalog() -> Catalog {
    Catalog::of([(1, "sencha", 100), (2, "genmaicha", 250)])
}

struct Teas;

#[route("/teas")]
impl Teas {
    #[get("/{id}")]
    async fn show(
        Path(id): Path<u32>,
        #[needs("catalog")] catalog: &Catalog,
    ) -> Result<Json<Tea>, HttpError> {
        let tea = catalog.0.get(&id).cloned();
        tea.map(Json)
            .ok_or_else(|| HttpError::not_found(format!("no tea {id}")))
    }
}

/// Everything the service is made of; `main` serves it, the tests build it with changes.
fn app() -> AppBuilder {
    App::builder()
        .provider(catalog::provider())
        .routes(Teas::routes())
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

#[cfg(test)]
mod tests {
    use super::*;
    use green_tea::test::TestClient;
    use serde_json::{Value, json};

    /// 1. In process: `TestClient` sends requests straight into the app (routing, extractors,
    /// providers and error bodies are the real ones; there is no socket).
    #[tokio::test]
    async fn answers_in_process() {
        let app = app().build().unwrap();
        let client = TestClient::new(app.clone());

        let sencha = client.get("/teas/1").send().await;
        assert_eq!(sencha.status(), 200);
        assert_eq!(
            sencha.json::<Value>(),
            json!({ "name": "sencha", "grams": 100 })
        );

        let missing = client.get("/teas/9").send().await;
        assert_eq!(missing.status(), 404);
        assert_eq!(missing.json::<Value>(), json!({ "error": "no tea 9" }));

        let bad = client.get("/teas/green").send().await;
        assert_eq!(bad.status(), 400);
        assert_eq!(
            bad.json::<Value>(),
            json!({ "error": "invalid path parameter `id`: \"green\" is not a valid u32" })
        );
        app.close().await.unwrap();
    }

    /// 2a. `override_value`: the catalog replaced by a ready value. `build()` checks that the
    /// key exists and the type is the same, and `explain` shows the override.
    #[tokio::test]
    async fn a_test_brings_its_own_catalog() {
        let app = app()
            .override_value("catalog", Catalog::of([(1, "test tea", 1)]))
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        let tea = client.get("/teas/1").send().await;
        assert_eq!(
            tea.json::<Value>(),
            json!({ "name": "test tea", "grams": 1 })
        );
        assert_eq!(client.get("/teas/2").send().await.status(), 404);
        let explained = app.explain("/teas/1").unwrap();
        assert!(explained.routes[0].providers.nodes[0].overridden);
        app.close().await.unwrap();
    }

    /// A catalog whose database is down: its provider fails to build.
    #[provider(provides = "catalog")]
    async fn unreachable_catalog() -> Result<Catalog, BoxError> {
        Err("connection refused (the database is down)".into())
    }

    /// 2b. `override_provider`: the catalog replaced by another provider, here one that fails.
    /// The client gets a 500 that tells nothing of the cause (that goes to the log), and a
    /// failed build is not cached: every request tries again.
    #[tokio::test]
    async fn a_catalog_that_fails_to_build_is_a_500() {
        let app = app()
            .override_provider(unreachable_catalog::provider())
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        for _ in 0..2 {
            let failed = client.get("/teas/1").send().await;
            assert_eq!(failed.status(), 500);
            assert_eq!(
                failed.json::<Value>(),
                json!({ "error": "internal server error" })
            );
        }
        app.close().await.unwrap();
    }

    /// 3. Over real HTTP: served on a free port of 127.0.0.1, asked by hyper's client, stopped
    /// by a signal of the test's own (where `main` waits for Ctrl-C or SIGTERM).
    #[tokio::test]
    async fn answers_over_loopback() {
        use bytes::Bytes;
        use http_body_util::{BodyExt, Empty};
        use hyper_util::client::legacy::Client;
        use hyper_util::rt::TokioExecutor;

        let app = app().build().unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn({
            let app = app.clone();
            async move {
                let signal = async {
                    let _ = stopped.await;
                };
                app.serve_until(listener, signal).await
            }
        });

        let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
        let url = format!("http://{addr}/teas/2").parse().unwrap();
        let response = client.get(url).await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "application/json");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let tea: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(tea, json!({ "name": "genmaicha", "grams": 250 }));

        stop.send(()).unwrap();
        server.await.unwrap().unwrap(); // drained, then closed: no error
    }
}
