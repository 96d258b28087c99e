//! Arbitrary requests into a served `App`: never a panic, never a 5xx but from the two routes
//! built to fail, every error a JSON `{"error": ...}`, and every connection ends.
//!
//! Two ways in. Raw bytes (pipelined HTTP/1 heads and bodies, cut, corrupted, or an HTTP/2
//! preface) over an in-memory `tokio::io::duplex` connection, served by the server's own
//! HTTP/1 and HTTP/2 builders (`green_tea_http::ConnectionBuilders`: header count and head
//! size, HTTP/2 header list size and keep-alive pings), with the client either
//! half-closing after its bytes or staying silent, on a paused clock so that the server's
//! timeouts pass in no time. `App::serve` cannot take an in-memory stream, so this drives the
//! connection itself, with two stand-ins: the server tells HTTP/1 from HTTP/2 by peeking at the
//! socket (`serve/protocol.rs`, tested there and over loopback in tests/http/hostile.rs), here
//! the harness reads the first bytes and hands them back; and the server ends idle connections with its own
//! sweeper (`serve/connections.rs`), here hyper's HTTP/1 head-read timer and a first-request
//! deadline end them at the same timeout.
//! Requests go through `App::handle`, not the private `handle_hyper`. And structured
//! requests (arbitrary method, path, query, headers and body) straight into `App::handle`.
//!
//! CI runs a few hundred cases of each; `PROPTEST_CASES` runs more. The cargo-fuzz targets
//! `dispatch` (raw bytes from the fuzzer) and `dispatch_structured` (in `fuzz/`) call the same
//! `check_exchange` and `check_request`.

use std::convert::Infallible;
use std::io::Cursor;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum_core::body::Body;
use green_tea_core::ProviderFn;
use green_tea_http::{
    App, ConnectionBuilders, Guard, HttpError, Json, Limits, Path, Query, RequestContext, Route,
    StepFn,
};
use http::{HeaderName, HeaderValue, Method, Request, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::Deserialize;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf};

/// Paths whose routes are built to fail: a handler that returns 500, one that panics.
const BUILT_TO_FAIL: [&str; 2] = ["/fail", "/panic"];
/// What `/panic` panics with (the fuzz targets let this one panic through libFuzzer's hook).
pub(crate) const BUILT_TO_PANIC: &str = "this route is built to panic";
/// The most response bytes read from one connection.
const MAX_OUTPUT: u64 = 1 << 20;
/// Virtual time a connection may take; every server timeout is well within it.
const CONNECTION_LIMIT: Duration = Duration::from_secs(600);

/// What the billing provider hands out.
struct Billing {
    currency: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Order {
    user_id: String,
    amount: u64,
}

#[derive(Deserialize)]
struct UserOrder {
    user: String,
    order: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Sort {
    Asc,
    Desc,
}

#[derive(Deserialize)]
struct Search {
    q: Option<String>,
    page: Option<u32>,
    sort: Option<Sort>,
}

/// A small app with one route of each kind: JSON body, path parameters, query, a guard, a
/// catch-all, a body limit, and the two built to fail.
pub(crate) fn app() -> App {
    App::builder()
        .value("currency", String::from("EUR"))
        .provider(
            ProviderFn::new("billing", |needs| async move {
                Ok(Billing {
                    currency: needs.get::<String>(0)?.to_string(),
                })
            })
            .needs::<String>("currency"),
        )
        .step(StepFn::new("requestId", |parts, _needs| {
            match parts.headers.get("x-request-id") {
                None => Ok(String::from("generated")),
                Some(value) => value
                    .to_str()
                    .ok()
                    .filter(|v| !v.is_empty() && v.len() <= 64)
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        HttpError::bad_request("x-request-id must be 1 to 64 visible characters")
                    }),
            }
        }))
        .step(Guard::new("requireAdmin", |parts, _needs| {
            match parts.headers.get("x-role") {
                Some(role) if role == "admin" => Ok(()),
                _ => Err(HttpError::forbidden("admins only")),
            }
        }))
        .route(
            Route::post("/orders", |mut request: RequestContext| async move {
                let id = request.need::<String>(0)?;
                let billing = request.need::<Billing>(1)?;
                let order: Order = request.json().await?;
                if order.amount == 0 {
                    return Err(HttpError::new(422, "amount must be positive"));
                }
                Ok((
                    StatusCode::CREATED,
                    Json(json!({
                        "requestId": *id,
                        "userId": order.user_id,
                        "amount": order.amount,
                        "currency": billing.currency,
                    })),
                ))
            })
            .needs::<String>("requestId")
            .needs::<Billing>("billing"),
        )
        .route(Route::get(
            "/orders/{id}",
            |mut request: RequestContext| async move {
                let Path(id) = request.extract::<Path<u64>>().await?;
                if id > 1000 {
                    return Err(HttpError::not_found(format!("no order {id}")).into());
                }
                Ok::<_, axum_core::response::Response>(Json(json!({ "id": id })))
            },
        ))
        .route(
            Route::delete("/orders/{id}", |mut request: RequestContext| async move {
                let Path(_id) = request.extract::<Path<u64>>().await?;
                Ok::<_, axum_core::response::Response>(StatusCode::NO_CONTENT)
            })
            .step("requireAdmin"),
        )
        .route(Route::get(
            "/users/{user}/orders/{order}",
            |mut request: RequestContext| async move {
                let Path(found) = request.extract::<Path<UserOrder>>().await?;
                Ok::<_, axum_core::response::Response>(Json(
                    json!({ "user": found.user, "order": found.order }),
                ))
            },
        ))
        .route(Route::get(
            "/search",
            |mut request: RequestContext| async move {
                let Query(search) = request.extract::<Query<Search>>().await?;
                let descending = matches!(search.sort, Some(Sort::Desc));
                Ok::<_, axum_core::response::Response>(Json(json!({
                    "q": search.q,
                    "page": search.page.unwrap_or(1),
                    "descending": descending,
                })))
            },
        ))
        .route(Route::put(
            "/notes/{*rest}",
            |mut request: RequestContext| async move {
                let text = request.text().await?;
                Ok::<_, HttpError>(Json(json!({ "chars": text.chars().count() })))
            },
        ))
        .route(
            Route::post("/echo", |mut request: RequestContext| async move {
                let bytes = request.bytes().await?;
                Ok::<_, HttpError>(Json(json!({ "bytes": bytes.len() })))
            })
            .body_limit(64),
        )
        .route(Route::get("/fail", |_request: RequestContext| async {
            HttpError::internal()
        }))
        .route(Route::get("/panic", |_request: RequestContext| async {
            if true {
                std::panic::panic_any(BUILT_TO_PANIC);
            }
            StatusCode::OK
        }))
        .build()
        .expect("a valid app")
}

/// The server's own connection builders (`green_tea_http::ConnectionBuilders`: header count
/// and head size, HTTP/2 header list size and keep-alive pings), plus hyper's HTTP/1 head-read
/// timer standing in for the server's idle-connection sweeper.
fn connection_builders(limits: &Limits) -> ConnectionBuilders {
    let mut builders = ConnectionBuilders::new(limits);
    builders
        .http1
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    builders
}

/// Reads a connection's first bytes until they tell the HTTP/2 preface from HTTP/1 (as the
/// server does by peeking at the socket, `serve/protocol.rs`): whether it is HTTP/2, and the
/// bytes read, to be handed to hyper before the rest.
async fn detect_protocol(read: &mut ReadHalf<DuplexStream>) -> (bool, Vec<u8>) {
    let mut first = Vec::with_capacity(H2_PREFACE.len());
    while first.len() < H2_PREFACE.len() && H2_PREFACE.starts_with(&first) {
        let mut more = [0; H2_PREFACE.len()];
        match read.read(&mut more[..H2_PREFACE.len() - first.len()]).await {
            Ok(0) | Err(_) => break,
            Ok(n) => first.extend_from_slice(&more[..n]),
        }
    }
    (first == H2_PREFACE, first)
}

/// One connection's worth of traffic.
#[derive(Debug)]
pub(crate) struct Exchange {
    /// What the server wrote back (at most `MAX_OUTPUT` bytes).
    output: Vec<u8>,
    /// Each response the app produced: the request path and the status.
    answered: Vec<(String, StatusCode)>,
    /// Whether the server ended the connection within `CONNECTION_LIMIT`.
    ended: bool,
}

/// Serves one connection whose client sends `bytes`, then half-closes (`half_close`) or
/// stays open and silent. Call on a runtime with a paused clock.
pub(crate) async fn exchange(app: &App, bytes: &[u8], half_close: bool) -> Exchange {
    let (client, server) = tokio::io::duplex(16 * 1024);
    let answered = Arc::new(Mutex::new(Vec::new()));
    let served = Arc::new(AtomicBool::new(false));
    let service = {
        let (app, answered, served) = (app.clone(), Arc::clone(&answered), Arc::clone(&served));
        hyper::service::service_fn(move |request: Request<Incoming>| {
            served.store(true, Ordering::Relaxed);
            let (app, answered) = (app.clone(), Arc::clone(&answered));
            async move {
                let path = request.uri().path().to_owned();
                let response = app.handle(request.map(Body::new)).await;
                answered.lock().unwrap().push((path, response.status()));
                Ok::<_, Infallible>(response)
            }
        })
    };
    let limits = Limits::default();
    let builders = connection_builders(&limits);
    let connection = async move {
        let (mut read, write) = tokio::io::split(server);
        let (http2, first) = detect_protocol(&mut read).await;
        let io = TokioIo::new(tokio::io::join(Cursor::new(first).chain(read), write));
        if http2 {
            #[cfg(feature = "http2")]
            let _ = builders.http2.serve_connection(io, service).await;
            // Without the feature the server tells the client HTTP/1.1 is required and closes
            // the connection (`serve/mod.rs`); the harness closes it.
            #[cfg(not(feature = "http2"))]
            drop((io, service));
        } else {
            let _ = builders
                .http1
                .serve_connection(io, service)
                .with_upgrades()
                .await;
        }
    };
    // As the server's sweeper does (`serve/connections.rs`): a connection that starts no
    // request within the head read timeout is dropped.
    let mut server = tokio::spawn(async move {
        tokio::pin!(connection);
        tokio::select! {
            _ = &mut connection => {}
            () = tokio::time::sleep(limits.header_read_timeout) => {
                if served.load(Ordering::Relaxed) {
                    let _ = connection.await;
                }
            }
        }
    });
    let (mut read, mut write) = tokio::io::split(client);
    let bytes = bytes.to_vec();
    let writer = async move {
        // The server may stop reading (it answered an error and closed): not the client's
        // problem.
        let _ = write.write_all(&bytes).await;
        if half_close {
            let _ = write.shutdown().await;
        }
        write // a silent client keeps its end open until the exchange is over
    };
    let reader = async move {
        let mut output = Vec::new();
        let _ = (&mut read).take(MAX_OUTPUT).read_to_end(&mut output).await;
        output
    };
    let mut output = Vec::new();
    let ended = tokio::time::timeout(CONNECTION_LIMIT, async {
        let (_write, read) = tokio::join!(writer, reader);
        output = read;
        let _ = (&mut server).await;
    })
    .await
    .is_ok();
    server.abort();
    let answered = answered.lock().unwrap().clone();
    Exchange {
        output,
        answered,
        ended,
    }
}

fn built_to_fail(path: &str) -> bool {
    BUILT_TO_FAIL.contains(&path)
}

/// The HTTP/2 connection preface, which tells an HTTP/2 connection from an HTTP/1 one.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Serves `bytes` both ways (half-closed, and silent) and checks each exchange.
pub(crate) fn check_bytes(bytes: &[u8]) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async {
        let app = app();
        for half_close in [true, false] {
            let exchange = exchange(&app, bytes, half_close).await;
            check_exchange(bytes, half_close, &exchange)?;
        }
        app.close()
            .await
            .map_err(|e| TestCaseError::fail(format!("close after traffic: {e}")))
    })
}

pub(crate) fn check_exchange(
    bytes: &[u8],
    half_close: bool,
    exchange: &Exchange,
) -> Result<(), TestCaseError> {
    let designed = exchange
        .answered
        .iter()
        .filter(|(path, status)| status.is_server_error() && built_to_fail(path))
        .count();
    for (path, status) in &exchange.answered {
        prop_assert!(
            !status.is_server_error() || built_to_fail(path),
            "{status} for {path}; sent {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    // hyper answers parse errors itself (400, 414, 431); no 5xx may come from anywhere else.
    let output = &exchange.output;
    let server_errors = (0..output.len())
        .filter(|&i| i == 0 || output[i - 1] == b'\n')
        .filter(|&i| {
            let line = &output[i..];
            (line.starts_with(b"HTTP/1.1 5") || line.starts_with(b"HTTP/1.0 5"))
                && line.get(12).is_some_and(|b| *b == b' ')
        })
        .count();
    prop_assert!(
        server_errors <= designed,
        "{server_errors} 5xx status line(s) on the wire; sent {:?}, got {:?}",
        String::from_utf8_lossy(bytes),
        String::from_utf8_lossy(output)
    );
    // Every connection ends: half-closed, or silent (an HTTP/1 one at the head read timeout,
    // an HTTP/2 one when its pings go unanswered, one that never starts a request at the
    // first-request deadline).
    prop_assert!(
        exchange.ended,
        "the connection was still open after {CONNECTION_LIMIT:?} (half-closed: {half_close}); sent {:?}",
        String::from_utf8_lossy(bytes)
    );
    Ok(())
}

/// A request built from parts, for `App::handle`.
#[derive(Clone, Debug)]
pub(crate) struct RequestInput {
    method: Vec<u8>,
    path: String,
    query: Option<String>,
    headers: Vec<(&'static str, Vec<u8>)>,
    body: Vec<u8>,
}

/// Sends `input` through `App::handle` and checks the answer.
pub(crate) fn check_request(input: &RequestInput) -> Result<(), TestCaseError> {
    let Ok(method) = Method::from_bytes(&input.method) else {
        return Ok(());
    };
    let uri = match &input.query {
        Some(query) => format!("{}?{query}", input.path),
        None => input.path.clone(),
    };
    let Ok(mut request) = Request::builder()
        .method(method)
        .uri(&uri)
        .body(Body::from(input.body.clone()))
    else {
        return Ok(()); // not a request line hyper would have accepted
    };
    for (name, value) in &input.headers {
        if let Ok(value) = HeaderValue::from_bytes(value) {
            request
                .headers_mut()
                .append(HeaderName::from_static(name), value);
        }
    }
    let path = request.uri().path().to_owned();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async {
        let app = app();
        let response = app.handle(request).await;
        let status = response.status();
        let (parts, body) = response.into_parts();
        let body = tokio::time::timeout(Duration::from_secs(60), body.collect())
            .await
            .map_err(|_| TestCaseError::fail("the response body never ended"))?
            .map_err(|e| TestCaseError::fail(format!("the response body failed: {e}")))?
            .to_bytes();
        prop_assert!(
            !status.is_server_error() || built_to_fail(&path),
            "{status} for {uri}: {}",
            String::from_utf8_lossy(&body)
        );
        if status.is_client_error() || status.is_server_error() {
            prop_assert_eq!(
                parts.headers.get("content-type").map(|v| v.as_bytes()),
                Some(&b"application/json"[..]),
                "{} {}",
                status,
                uri
            );
            let error: serde_json::Value = serde_json::from_slice(&body)
                .map_err(|e| TestCaseError::fail(format!("{status} for {uri}: not JSON: {e}")))?;
            prop_assert!(error["error"].is_string(), "{status} for {uri}: {error}");
        }
        if status == StatusCode::METHOD_NOT_ALLOWED {
            prop_assert!(parts.headers.contains_key("allow"), "405 without Allow");
        }
        app.close()
            .await
            .map_err(|e| TestCaseError::fail(format!("close: {e}")))
    })
}

// Strategies. No `prop_oneof!`: its unchosen branches fork the RNG, which under the fuzz
// targets' pass-through RNG halves the fuzzer's bytes at every choice; ranges index tables.

fn one_of<T: Clone + std::fmt::Debug + 'static>(table: &'static [T]) -> impl Strategy<Value = T> {
    (0..table.len()).prop_map(move |i| table[i].clone())
}

/// Methods, the routed ones more often.
const METHODS: &[&str] = &[
    "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS", "BREW",
    "G\u{e9}T", "",
];
/// The routes (method and path template, `{}` for a parameter), so that most requests reach one.
const ROUTES: &[(&str, &str)] = &[
    ("POST", "/orders"),
    ("POST", "/orders"),
    ("GET", "/orders/{}"),
    ("DELETE", "/orders/{}"),
    ("GET", "/users/{}/orders/{}"),
    ("GET", "/search"),
    ("PUT", "/notes/{}"),
    ("PUT", "/notes/{}/{}"),
    ("POST", "/echo"),
    ("GET", "/fail"),
    ("GET", "/panic"),
];
/// Path segments and parameter values.
const SEGMENTS: &[&str] = &[
    "orders",
    "users",
    "search",
    "notes",
    "echo",
    "fail",
    "panic",
    "1",
    "42",
    "1001",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "+7",
    "%31",
    "%ff",
    "%2F",
    "%zz",
    "%",
    "\u{e9}",
    "a%20b",
    "a+b",
    "a&b=c",
    "",
    "{id}",
    "..",
    "*",
    "%00",
];
const QUERIES: &[&str] = &[
    "q=tea",
    "page=2",
    "page=-1",
    "page=99999999999",
    "sort=asc",
    "sort=desc",
    "sort=bogus",
    "q=%ff",
    "%zz",
    "&&",
    "q",
    "page=",
    "q=a+b",
    "q=%E2%82%AC",
];
const HEADER_NAMES: &[&str] = &[
    "content-type",
    "x-request-id",
    "x-role",
    "content-length",
    "accept",
    "transfer-encoding",
    "expect",
    "connection",
];
const HEADER_VALUES: &[&str] = &[
    "application/json",
    "application/json; charset=utf-8",
    "application/problem+json",
    "APPLICATION/JSON",
    "text/plain",
    "admin",
    "guest",
    "",
    "0",
    "5",
    "chunked",
    "100-continue",
    "close",
    "\u{e9}",
];
const BODIES: &[&str] = &[
    "",
    r#"{"userId":"u1","amount":12}"#,
    r#"{"userId":"u1","amount":12}"#,
    r#"{"userId":"u1","amount":12}"#,
    r#"{"userId":"u1","amount":0}"#,
    r#"{"userId":"u1","amount":-3}"#,
    r#"{"userId":"u1","amount":18446744073709551616}"#,
    r#"{"userId":"u1","amount":12,"extra":true}"#,
    r#"{"userId":"u1""#,
    "[]",
    "null",
    "not json",
    "\u{e9}t\u{e9}",
];

fn header() -> impl Strategy<Value = (&'static str, Vec<u8>)> {
    (
        one_of(HEADER_NAMES),
        0..HEADER_VALUES.len() + 1,
        proptest::collection::vec(any::<u8>(), 0..12),
    )
        .prop_map(|(name, value, raw)| {
            let value = match HEADER_VALUES.get(value) {
                Some(v) => v.as_bytes().to_vec(),
                None => raw,
            };
            (name, value)
        })
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    (
        0..BODIES.len() + 1,
        proptest::collection::vec(any::<u8>(), 0..100),
        0_usize..200,
    )
        .prop_map(|(which, raw, repeat)| match BODIES.get(which) {
            Some(b) => b.as_bytes().to_vec(),
            // Raw bytes, some of them past /echo's 64-byte limit.
            None => raw
                .iter()
                .copied()
                .cycle()
                .take(raw.len() * (1 + repeat / 50))
                .collect(),
        })
}

/// A route's method and path with parameter values filled in (three times in four), or any
/// method and any segments.
fn method_and_path() -> impl Strategy<Value = (&'static str, String)> {
    (
        0..ROUTES.len() * 4 / 3,
        one_of(METHODS),
        proptest::collection::vec(one_of(SEGMENTS), 0..5),
        0_u8..10,
    )
        .prop_map(|(route, method, segments, trailing)| {
            let (method, mut path) = match ROUTES.get(route) {
                Some(&(method, template)) => {
                    let mut values = segments.iter().chain(std::iter::repeat(&"7"));
                    let mut path = String::new();
                    for (i, piece) in template.split("{}").enumerate() {
                        if i > 0 {
                            path.push_str(values.next().unwrap());
                        }
                        path.push_str(piece);
                    }
                    (method, path)
                }
                None => (method, format!("/{}", segments.join("/"))),
            };
            if trailing == 0 {
                path.push('/');
            }
            (method, path)
        })
}

/// An arbitrary request for `App::handle`.
pub(crate) fn request_input() -> impl Strategy<Value = RequestInput> {
    (
        method_and_path(),
        0..QUERIES.len() * 2,
        proptest::collection::vec(one_of(QUERIES), 0..3),
        0_u8..4,
        proptest::collection::vec(header(), 0..4),
        body(),
    )
        .prop_map(|((method, path), query, extra, usual, mut headers, body)| {
            // Usually the headers the routes look for.
            if usual & 1 == 0 {
                headers.insert(0, ("content-type", b"application/json".to_vec()));
            }
            if usual & 2 == 0 {
                headers.insert(0, ("x-role", b"admin".to_vec()));
            }
            let query = QUERIES.get(query).map(|first| {
                let mut parts = vec![*first];
                parts.extend(extra);
                parts.join("&")
            });
            RequestInput {
                method: method.as_bytes().to_vec(),
                path,
                query,
                headers,
                body,
            }
        })
}

/// Raw bytes on the wire: one to three HTTP/1 requests built from `RequestInput`s, with a
/// length that may disagree with the body, chunked framing, a bad version, then perhaps cut
/// short or corrupted; or the HTTP/2 preface and garbage.
pub(crate) fn wire_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec((request_input(), 0_u8..8, 0_u8..16), 1..4),
        0_u8..10,
        any::<usize>(),
        any::<u8>(),
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(requests, damage, at, byte, garbage)| {
            let mut wire = Vec::new();
            if damage == 9 {
                wire.extend_from_slice(H2_PREFACE);
                wire.extend_from_slice(&garbage);
                return wire;
            }
            for (request, framing, version) in requests {
                wire.extend_from_slice(&request.method);
                wire.push(b' ');
                wire.extend_from_slice(request.path.as_bytes());
                if let Some(query) = &request.query {
                    wire.push(b'?');
                    wire.extend_from_slice(query.as_bytes());
                }
                let version: &[u8] = match version {
                    0 => b" HTTP/1.0",
                    1 => b" HTTP/2.0",
                    2 => b" HTTP/1.1x",
                    _ => b" HTTP/1.1",
                };
                wire.extend_from_slice(version);
                wire.extend_from_slice(b"\r\nhost: fuzz\r\n");
                for (name, value) in &request.headers {
                    wire.extend_from_slice(name.as_bytes());
                    wire.extend_from_slice(b": ");
                    wire.extend_from_slice(value);
                    wire.extend_from_slice(b"\r\n");
                }
                let body = &request.body;
                match framing {
                    // No framing header: a body is then the next request's bytes.
                    0 => {}
                    // A length that is too short or too long.
                    1 => wire.extend_from_slice(
                        format!("content-length: {}\r\n", body.len() / 2).as_bytes(),
                    ),
                    2 => wire.extend_from_slice(
                        format!("content-length: {}\r\n", body.len() + 10).as_bytes(),
                    ),
                    3 => wire.extend_from_slice(b"transfer-encoding: chunked\r\n"),
                    _ => wire.extend_from_slice(
                        format!("content-length: {}\r\n", body.len()).as_bytes(),
                    ),
                }
                wire.extend_from_slice(b"\r\n");
                if framing == 3 {
                    wire.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
                    wire.extend_from_slice(body);
                    wire.extend_from_slice(b"\r\n0\r\n\r\n");
                } else {
                    wire.extend_from_slice(body);
                }
            }
            match damage {
                // Cut short anywhere.
                0 | 1 => wire.truncate(at % (wire.len() + 1)),
                // One byte changed.
                2 | 3 if !wire.is_empty() => {
                    let i = at % wire.len();
                    wire[i] = byte;
                }
                // Garbage appended.
                4 => wire.extend_from_slice(&garbage),
                _ => {}
            }
            wire
        })
}

/// Every case on a fresh runtime; `PROPTEST_CASES` overrides the CI count.
fn config(ci_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = ci_cases;
    }
    config
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn arbitrary_bytes_on_a_connection_never_get_a_5xx(bytes in wire_bytes()) {
        check_bytes(&bytes)?;
    }

    #[test]
    fn arbitrary_requests_never_get_a_5xx(input in request_input()) {
        check_request(&input)?;
    }
}

#[test]
fn the_routes_built_to_fail_do_fail() {
    check_bytes(b"GET /orders/7 HTTP/1.1\r\nhost: a\r\n\r\n").unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async {
        let app = app();
        let exchange = exchange(
            &app,
            b"GET /fail HTTP/1.1\r\nhost: a\r\n\r\nGET /panic HTTP/1.1\r\nhost: a\r\n\r\nPOST /orders HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\ncontent-length: 27\r\n\r\n{\"userId\":\"u1\",\"amount\":12}",
            // Silent, not half-closed: hyper (half_close off, as `serve` leaves it) drops
            // pipelined requests still unread when the client half-closes.
            false,
        )
        .await;
        let statuses: Vec<u16> = exchange.answered.iter().map(|(_, s)| s.as_u16()).collect();
        assert_eq!(statuses, [500, 500, 201], "{exchange:?}");
        assert!(exchange.ended);
        app.close().await.unwrap();
    });
}

#[cfg(feature = "http2")]
#[test]
fn an_http2_request_with_prior_knowledge_is_answered_too() {
    // The preface, an empty SETTINGS frame, and HEADERS (END_STREAM | END_HEADERS) on stream 1
    // with `GET /orders/7` in HPACK: indexed :method GET and :scheme http, literal :path and
    // :authority. (fuzz/seeds/dispatch/h2-get-order holds the same bytes.)
    let mut wire = H2_PREFACE.to_vec();
    wire.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    let block = [&[0x82, 0x86, 0x44, 9][..], b"/orders/7", &[0x41, 1], b"a"].concat();
    wire.extend_from_slice(&[0, 0, block.len() as u8, 1, 5, 0, 0, 0, 1]);
    wire.extend_from_slice(&block);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async {
        let app = app();
        let silent = exchange(&app, &wire, false).await;
        assert_eq!(silent.answered, [("/orders/7".to_owned(), StatusCode::OK)]);
        assert!(
            silent.ended,
            "its pings unanswered, an HTTP/2 connection ends"
        );
        // Half-closed, hyper's HTTP/2 server ends the connection before it answers.
        assert!(exchange(&app, &wire, true).await.ended);
        app.close().await.unwrap();
    });
    check_bytes(&wire).unwrap();
}
