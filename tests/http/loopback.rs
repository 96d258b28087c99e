//! Real HTTP over loopback: an app served with `serve_until`, driven by hyper-util's client.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use green_tea::extract::RequestContext;
use green_tea::http::StatusCode;
use green_tea::routing::Route;
use green_tea::{App, HttpError, Json};
use green_tea::{BoxError, Descriptor, Needs, Provided, Provider, ProviderFn};
use http_body_util::{BodyExt, Empty};
#[cfg(feature = "http2")]
use hyper::Method;
use hyper::{Request, Version};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::json;
use support::http::{Server, get, http1_client, post, within};
#[cfg(feature = "http2")]
use support::http::{http2_client, join_all, spawn_send};
use support::{Log, Probe, Service};

/// The upstream billing client. Tests replace it with one that records its charges.
struct BillingApi {
    charges: Log,
}

/// What handlers ask for: the only way to reach `billingApi`.
struct Billing {
    api: Arc<BillingApi>,
    audit: Arc<Service>,
}

impl Billing {
    fn charge(&self, user: &str, amount: u64) {
        assert!(
            !self.audit.is_disposed(),
            "charged through a disposed audit"
        );
        self.api.charges.push(format!("charge {user} {amount}"));
    }
}

/// Provides `billing` from `billingApi` and `audit`; counts its builds, logs build and dispose.
struct BillingProvider {
    log: Log,
    provides: Arc<AtomicUsize>,
}

impl Provider for BillingProvider {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new("billing")
            .provides::<Billing>("billing")
            .needs::<BillingApi>("billingApi")
            .needs::<Service>("audit")
    }

    async fn provide(&self, needs: Needs<'_>) -> Result<Provided, BoxError> {
        self.provides.fetch_add(1, Ordering::SeqCst);
        self.log.push("provide billing");
        Ok(Provided::one(Billing {
            api: needs.get(0)?,
            audit: needs.get(1)?,
        }))
    }

    async fn dispose(&self, _provided: &Provided) -> Result<(), BoxError> {
        self.log.push("dispose billing");
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Order {
    user_id: String,
    amount: u64,
}

/// What a test reads after the app moved into the server.
struct Fixture {
    app: App,
    log: Log,
    charges: Log,
    billing_builds: Arc<AtomicUsize>,
    audit_builds: Arc<AtomicUsize>,
}

/// The reference page's Orders app, with `billingApi` overridden by a fake.
fn orders_app() -> Fixture {
    let (log, charges) = (Log::default(), Log::default());
    let billing_builds = Arc::new(AtomicUsize::new(0));
    let audit = Probe::new("audit", &[], &log);
    let audit_builds = audit.counter();
    let real_billing_api = ProviderFn::new("billingApi", |_| async {
        Err::<BillingApi, BoxError>("the real billing API is out of reach in tests".into())
    });
    let app = App::builder()
        .provider(real_billing_api)
        .provider(audit)
        .provider(BillingProvider {
            log: log.clone(),
            provides: Arc::clone(&billing_builds),
        })
        .override_value(
            "billingApi",
            BillingApi {
                charges: charges.clone(),
            },
        )
        .route(
            Route::post("/orders", |mut request: RequestContext| async move {
                let billing = request.need::<Billing>(0)?;
                let order: Order = request.json().await?;
                billing.charge(&order.user_id, order.amount);
                Ok::<_, HttpError>((
                    StatusCode::CREATED,
                    Json(json!({ "ok": true, "userId": order.user_id, "charged": order.amount })),
                ))
            })
            .needs::<Billing>("billing")
            .named("Orders::create"),
        )
        .route(Route::get("/orders/health", |_: RequestContext| async {
            Json(json!({ "ok": true }))
        }))
        .route(Route::get("/panic", |_: RequestContext| async {
            panic!("the handler blew up") as &str
        }))
        .build()
        .expect("the orders app is a valid graph");
    Fixture {
        app,
        log,
        charges,
        billing_builds,
        audit_builds,
    }
}

fn order() -> serde_json::Value {
    json!({ "userId": "u1", "amount": 5 })
}

fn built_flags(app: &App, path: &str) -> Vec<(String, bool)> {
    let explain = app.explain(path).expect("the path is routed");
    explain.routes[0]
        .providers
        .nodes
        .iter()
        .map(|n| (n.name.clone(), n.built))
        .collect()
}

#[tokio::test]
async fn orders_charge_the_overridden_billing_api_over_loopback() {
    let fixture = orders_app();
    let server = Server::start(&fixture.app).await;
    let client = http1_client();

    for _ in 0..3 {
        let reply = post(&client, &server.url("/orders"), &order())
            .await
            .expect("the server answers");
        assert_eq!(reply.status, 201, "{}", reply.text());
        assert_eq!(reply.headers["content-type"], "application/json");
        assert_eq!(
            reply.json(),
            json!({ "ok": true, "userId": "u1", "charged": 5 })
        );
    }
    assert_eq!(
        fixture.charges.events(),
        ["charge u1 5"; 3],
        "the fake took every charge"
    );
    assert_eq!(
        fixture.billing_builds.load(Ordering::SeqCst),
        1,
        "billing is built once"
    );

    let explain = fixture.app.explain("/orders").unwrap();
    let nodes = &explain.routes[0].providers.nodes;
    assert!(nodes.iter().all(|n| n.built), "{explain}");
    let api = nodes
        .iter()
        .find(|n| n.provides[0].key == "billingApi")
        .unwrap();
    assert!(api.overridden, "the fake shows as an override");

    server
        .stop()
        .await
        .expect("serve_until returns Ok after the signal");
    assert!(fixture.app.is_closed(), "serve_until closed the app");
    assert_eq!(
        fixture.log.events(),
        [
            "provide audit",
            "provide billing",
            "dispose billing",
            "dispose audit"
        ],
        "disposed in reverse: billing before the audit it needs"
    );
}

#[tokio::test]
async fn the_health_route_never_builds_billing() {
    let fixture = orders_app();
    let server = Server::start(&fixture.app).await;
    let client = http1_client();

    for _ in 0..5 {
        let reply = get(&client, &server.url("/orders/health"))
            .await
            .expect("the server answers");
        assert_eq!(
            (reply.status.as_u16(), reply.json()),
            (200, json!({ "ok": true }))
        );
    }
    assert_eq!(fixture.billing_builds.load(Ordering::SeqCst), 0);
    assert_eq!(fixture.audit_builds.load(Ordering::SeqCst), 0);
    assert!(
        fixture.log.events().is_empty(),
        "{:?}",
        fixture.log.events()
    );
    let flags = built_flags(&fixture.app, "/orders");
    assert_eq!(
        flags.len(),
        3,
        "POST /orders builds billingApi, audit and billing: {flags:?}"
    );
    assert!(flags.iter().all(|(_, built)| !built), "{flags:?}");

    // The same server then builds the slice for the route that needs it.
    let reply = post(&client, &server.url("/orders"), &order())
        .await
        .unwrap();
    assert_eq!(reply.status, 201);
    assert!(
        built_flags(&fixture.app, "/orders")
            .iter()
            .all(|(_, built)| *built)
    );

    server.stop().await.unwrap();
}

#[cfg(feature = "http2")]
#[tokio::test]
async fn http2_with_prior_knowledge_is_served() {
    let fixture = orders_app();
    let server = Server::start(&fixture.app).await;
    let client = http2_client();

    let url = |path: &str| server.url(path);
    let orders: Vec<_> = (0..4)
        .map(|_| spawn_send(&client, Method::POST, url("/orders"), Some(order())))
        .collect();
    let health: Vec<_> = (0..4)
        .map(|_| spawn_send(&client, Method::GET, url("/orders/health"), None))
        .collect();
    let orders = join_all(orders).await;
    let health = join_all(health).await;
    for reply in orders {
        let reply = reply.expect("the server speaks HTTP/2");
        assert_eq!(
            (reply.version, reply.status.as_u16()),
            (Version::HTTP_2, 201)
        );
        assert_eq!(reply.json()["charged"], 5);
    }
    for reply in health {
        let reply = reply.expect("the server speaks HTTP/2");
        assert_eq!(
            (reply.version, reply.status.as_u16()),
            (Version::HTTP_2, 200)
        );
    }
    assert_eq!(fixture.charges.events().len(), 4);
    assert_eq!(fixture.billing_builds.load(Ordering::SeqCst), 1);

    server.stop().await.unwrap();
}

/// Without the feature `http2`, a client that starts HTTP/2 is told in HTTP/2's own terms that
/// HTTP/1.1 is required (the server's SETTINGS, then GOAWAY with HTTP_1_1_REQUIRED), and the
/// connection is closed: no request is served, nothing is built, and HTTP/1.1 is served as
/// ever. (With the feature, the test above serves it.)
#[cfg(not(feature = "http2"))]
#[tokio::test]
async fn without_the_http2_feature_an_http2_client_is_told_http1_is_required() {
    let fixture = orders_app();
    let server = Server::start(&fixture.app).await;
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (mut sender, connection) = within("the HTTP/2 handshake", h2::client::handshake(tcp))
        .await
        .expect("the client's preface written");
    let connection = tokio::spawn(connection);
    let request = hyper::Request::post(server.url("/orders"))
        .body(())
        .unwrap();
    let refused = match sender.send_request(request, true) {
        Ok((response, _)) => within("the answer", response)
            .await
            .expect_err("no response over HTTP/2"),
        Err(refused) => refused,
    };
    assert_eq!(
        refused.reason(),
        Some(h2::Reason::HTTP_1_1_REQUIRED),
        "{refused}"
    );
    let ended = within("the connection's end", connection)
        .await
        .unwrap()
        .expect_err("a connection ended by the server's GOAWAY");
    assert_eq!(
        ended.reason(),
        Some(h2::Reason::HTTP_1_1_REQUIRED),
        "{ended}"
    );
    assert_eq!(fixture.billing_builds.load(Ordering::SeqCst), 0);

    let reply = get(&http1_client(), &server.url("/orders/health"))
        .await
        .unwrap();
    assert_eq!(
        (reply.version, reply.status.as_u16()),
        (Version::HTTP_11, 200)
    );
    server.stop().await.unwrap();
}

/// The refusal's bytes, as a client that reads them by hand sees them: an empty SETTINGS frame
/// (type 4), then GOAWAY (type 7) for no stream with HTTP_1_1_REQUIRED (0xd), then the server
/// waits for the client to close. One that never does holds no close: `close()` ends it as it
/// ends an idle HTTP/1 connection, long before its head read timeout (an hour here).
#[cfg(not(feature = "http2"))]
#[tokio::test]
async fn without_the_http2_feature_a_refused_client_that_stays_does_not_hold_close() {
    use green_tea::serve::Limits;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let mut limits = Limits::default();
    limits.header_read_timeout = Duration::from_secs(3600);
    let app = App::builder()
        .route(Route::get("/", |_: RequestContext| async { "hello" }))
        .limits(limits)
        .build()
        .unwrap();
    let server = Server::start(&app).await;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0; 26];
    within("the refusal", stream.read_exact(&mut answer))
        .await
        .unwrap();
    let (settings, goaway) = answer.split_at(9);
    assert_eq!((&settings[..3], settings[3]), (&[0, 0, 0][..], 4));
    assert_eq!((&goaway[..3], goaway[3]), (&[0, 0, 8][..], 7));
    assert_eq!(
        goaway[9..13],
        [0, 0, 0, 0],
        "the last stream id: none was opened"
    );
    assert_eq!(goaway[13..], [0, 0, 0, 0xd], "HTTP_1_1_REQUIRED");
    let mut rest = [0; 1];
    let eof = within("the server's FIN", stream.read(&mut rest)).await;
    assert_eq!(eof.unwrap(), 0);

    within(
        "close with the refused client still connected",
        server.stop(),
    )
    .await
    .unwrap();
    drop(stream);
}

#[tokio::test]
async fn a_panicking_handler_leaves_the_connection_serving() {
    let fixture = orders_app();
    let server = Server::start(&fixture.app).await;

    // One connection, two requests on it: the panic must not end the connection.
    let stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1 handshake");
    let connection = tokio::spawn(connection);
    let request = |path: &str| {
        Request::get(path)
            .header("host", server.addr.to_string())
            .body(Empty::<Bytes>::new())
            .unwrap()
    };

    let panicked = within("GET /panic", sender.send_request(request("/panic")))
        .await
        .unwrap();
    assert_eq!(panicked.status(), 500);
    let body = panicked.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
        json!({ "error": "internal server error" })
    );

    within("the connection is ready again", sender.ready())
        .await
        .expect("the connection is still open");
    let health = within(
        "GET /orders/health",
        sender.send_request(request("/orders/health")),
    )
    .await
    .unwrap();
    assert_eq!(health.status(), 200);

    drop(sender);
    let _ = within("the client connection ends", connection).await;
    server.stop().await.expect("a panic is not a close failure");
}

#[tokio::test]
async fn serve_until_returns_once_the_app_is_closed() {
    let fixture = orders_app();
    let server = Server::start(&fixture.app).await;
    let listener = server.listener.clone();
    let reply = post(&http1_client(), &server.url("/orders"), &order())
        .await
        .unwrap();
    assert_eq!(reply.status, 201);
    assert!(
        listener.is_open().await,
        "the listener is open while serving"
    );

    within("close()", fixture.app.close())
        .await
        .expect("a clean close");
    server
        .finished()
        .await
        .expect("serve_until returns Ok when close() stops it");
    assert_eq!(fixture.log.names("dispose"), ["billing", "audit"]);
    assert!(
        !listener.is_open().await,
        "the listener is gone once serve_until returned"
    );
}

#[tokio::test]
async fn serving_a_closed_app_returns_at_once() {
    let fixture = orders_app();
    fixture.app.close().await.unwrap();
    let server = Server::start(&fixture.app).await;
    let listener = server.listener.clone();
    // Issue 41, point 1: a closed app is not served; `serve_until` says so at once rather
    // than accepting and draining in the same breath.
    let served = server.finished().await;
    assert!(
        matches!(
            served,
            Err(green_tea::Error::Provide(green_tea::ProvideError::Closed))
        ),
        "serve_until on a closed app returns Closed: {served:?}"
    );
    assert!(!listener.is_open().await, "nothing listens");
}
