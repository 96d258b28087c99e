//! Every example, built by `cargo test` as it builds every target, started as its own binary
//! (not through a nested `cargo run`, which would wait on cargo's build lock) on `PORT=0`: it
//! prints the address it listens on (`listening on http://ADDR`, or `https://` for `tls`),
//! answers real requests over loopback, and exits cleanly on SIGTERM.
#![cfg(unix)]

use crate::support;

use std::process::{Command, Stdio};

use support::examples::{Example, binary, orders_after_a_trip};
use support::http::{get, http1_client};

#[tokio::test]
async fn hello_answers_and_stops_on_sigterm() {
    let running = Example::start("hello", &[], &[]);
    let reply = get(&http1_client(), &format!("http://{}/", running.addr))
        .await
        .expect("a response");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.text(), "hello, green tea");
    assert!(running.stop().success());
}

#[tokio::test]
async fn orders_answers_and_stops_on_sigterm() {
    // No BILLING_URL: the example starts its own fake billing service.
    let running = Example::start("orders", &[], &[]);
    let client = http1_client();
    let health = get(&client, &format!("http://{}/orders/health", running.addr))
        .await
        .expect("a response");
    assert_eq!(health.status, 200);
    let created = support::http::post(
        &client,
        &format!("http://{}/orders", running.addr),
        &serde_json::json!({ "userId": "u1", "amount": 5 }),
    )
    .await
    .expect("a response");
    assert_eq!(created.status, 201, "{}", created.text());
    // The operator's side: readiness with billing's breaker (built by the order above), and
    // the explain page.
    let ready = get(&client, &format!("http://{}/readyz", running.addr))
        .await
        .expect("a response");
    assert_eq!(ready.status, 200, "{}", ready.text());
    let health: serde_json::Value = serde_json::from_str(&ready.text()).expect("JSON");
    let billing = &health["checks"][0];
    assert_eq!(billing["key"], "billing", "{health}");
    assert_eq!(billing["check"]["status"], "up", "{health}");
    let page = get(&client, &format!("http://{}/_green-tea", running.addr))
        .await
        .expect("a response");
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains("<svg"),
        "the explain page draws the routes"
    );
    assert!(running.stop().success());
}

/// What `orders` prints, on stderr, for a timeout that is not a duration and a mistyped
/// variable (its settings are strict): one report of both, as docs/settings.md shows it.
const ORDERS_BAD_SETTINGS: &str = "\
error[GT0017]: the setting `timeout` of `billingSettings` does not read as `Duration`: not a duration: write a number and a unit, like `2s`, `150ms` or `1m 30s`
  from env BILLING_TIMEOUT: `abc`

error[GT0019]: the variable `BILLING_URLL` is under the settings prefix `BILLING_`, but no field reads it
  help: did you mean `BILLING_URL`?
  note: an error because the sources are strict (`Sources::strict()`)
the graph has 2 problems; nothing was built
";

#[test]
fn orders_reports_every_bad_setting_at_once_and_exits_non_zero() {
    let path = binary("orders");
    // Only these variables, so that nothing else under `BILLING_` joins the report.
    let output = Command::new(&path)
        .env_clear()
        .env("BILLING_TIMEOUT", "abc")
        .env("BILLING_URLL", "http://x")
        .output()
        .unwrap_or_else(|e| panic!("{} does not start: {e}", path.display()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // 1, not 101 (a panic) or a signal; the report as it reads, not a `Debug` dump.
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr, ORDERS_BAD_SETTINGS);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "",
        "nothing started"
    );
}

/// `lock_diff` reads two lockfiles alone (the demo's, and it with a need added) and prints
/// what changed as Markdown; a file that is not a lockfile is exit status 2, said on stderr.
#[test]
fn lock_diff_prints_the_markdown_of_two_lockfiles() {
    let path = binary("lock_diff");
    let base = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/orders.lock");
    let dir = std::env::temp_dir().join(format!("green-tea-lock-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let head = dir.join("head.lock");
    let grown = std::fs::read_to_string(base).unwrap().replace(
        "  needs requestId\n",
        "  needs requestId\n  needs fraudApi\n",
    );
    std::fs::write(&head, grown).unwrap();
    let output = Command::new(&path).arg(base).arg(&head).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(
        stdout.starts_with(
            "## Graph changes\n\n### Routes\n\n- route `POST /orders` now needs `fraudApi`\n"
        ),
        "{stdout}"
    );
    let broken = dir.join("broken.lock");
    std::fs::write(&broken, "not a lockfile\n").unwrap();
    let output = Command::new(&path).arg(base).arg(&broken).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("the lockfile is of format none"),
        "{output:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn billing_upstream_charges_fails_in_its_mode_and_stops_on_sigterm() {
    let client = http1_client();
    let charge = serde_json::json!({ "userId": "u1", "amount": 5 });
    let up = Example::start("billing_upstream", &[], &[]);
    let charged = support::http::post(&client, &format!("{}/charges", up.base()), &charge)
        .await
        .expect("a response");
    assert_eq!(charged.status, 201, "{}", charged.text());
    assert!(up.stop().success());
    let down = Example::start("billing_upstream", &["--mode", "down"], &[]);
    let failed = support::http::post(&client, &format!("{}/charges", down.base()), &charge)
        .await
        .expect("a response");
    assert_eq!(failed.status, 500);
    assert!(down.stop().success());
}

/// `orders`' `/metrics` after traffic and a breaker trip, read with a Prometheus text-format
/// parser: the request histogram (route templates only), the breaker's state and transitions.
#[tokio::test]
async fn orders_metrics_show_the_requests_and_the_breakers_trip() {
    use prom_text_format_parser::{Scrape, Type, ValueType};

    let (_upstream, orders) = orders_after_a_trip().await;
    let client = http1_client();
    let page = get(&client, &format!("{}/metrics", orders.base()))
        .await
        .expect("a response");
    assert_eq!(page.status, 200);
    let text = page.text();
    let scrape = Scrape::parse(&text).unwrap_or_else(|e| panic!("{e:?} in\n{text}"));
    let metric = |name: &str, kind: Type| {
        let found = scrape.metrics.iter().find(|m| m.name == name);
        let found = found.unwrap_or_else(|| panic!("no {name} in\n{text}"));
        assert_eq!(found.kind, kind, "{name}");
        found
    };
    let value = |name: &str, kind: Type, value_type: ValueType, labels: &[(&str, &str)]| {
        let found: Vec<f64> = metric(name, kind)
            .samples
            .iter()
            .filter(|s| s.value.value_type == value_type)
            .filter(|s| {
                labels
                    .iter()
                    .all(|(k, v)| s.labels.iter().any(|l| l.key == *k && l.value == *v))
            })
            .map(|s| s.value.value.as_f64())
            .collect();
        assert_eq!(found.len(), 1, "one {name} {labels:?} in\n{text}");
        found[0]
    };
    let posts = [
        ("http_request_method", "POST"),
        ("http_route", "/orders"),
        ("http_response_status_code", "503"),
    ];
    let count = value(
        "http_server_request_duration_seconds",
        Type::Histogram,
        ValueType::Count,
        &posts,
    );
    assert_eq!(count, 3.0);
    let billing = ("breaker", "billing");
    let state = |state| {
        value(
            "green_tea_breaker_state",
            Type::Gauge,
            ValueType::Sample,
            &[billing, ("state", state)],
        )
    };
    assert_eq!(state("open"), 1.0);
    assert_eq!(state("closed"), 0.0);
    let opened = [billing, ("from", "closed"), ("to", "open")];
    assert_eq!(
        value(
            "green_tea_breaker_transitions_total",
            Type::Counter,
            ValueType::Sample,
            &opened
        ),
        1.0
    );
    let refused = [billing, ("outcome", "not_permitted")];
    assert_eq!(
        value(
            "green_tea_breaker_calls_total",
            Type::Counter,
            ValueType::Sample,
            &refused
        ),
        1.0
    );
    assert!(orders.stop().success());
}

#[tokio::test]
async fn quickstart_runs_to_its_end() {
    let path = binary("quickstart");
    let status = Command::new(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("{} does not start: {e}", path.display()));
    assert!(status.success());
}

/// The shop, with its price cache: an order goes through its region's payments (the breaker
/// and both decorators) and every notifier, and a product's second lookup hits the cache
/// (tests/examples/shop.rs drives the shop further).
#[tokio::test]
async fn shop_takes_an_order_and_stops_on_sigterm() {
    let running = Example::start("shop", &[], &[("SHOP_CACHE", "1")]);
    let client = http1_client();
    let created = support::http::post(
        &client,
        &format!("http://{}/orders", running.addr),
        &serde_json::json!({ "userId": "u1", "productId": "sencha", "quantity": 2 }),
    )
    .await
    .expect("a response");
    assert_eq!(created.status, 201, "{}", created.text());
    let order: serde_json::Value = serde_json::from_str(&created.text()).expect("JSON");
    assert_eq!(order["cents"], 2_400);
    assert_eq!(
        order["notified"].as_array().map(Vec::len),
        Some(2),
        "{order}"
    );
    let stats = get(
        &client,
        &format!("http://{}/payments/eu/stats", running.addr),
    )
    .await
    .expect("a response");
    assert_eq!(
        stats.text(),
        r#"{"asked":1,"breaker":"closed","charged":1}"#
    );
    let product = get(&client, &format!("http://{}/products/sencha", running.addr))
        .await
        .expect("a response");
    let product: serde_json::Value = serde_json::from_str(&product.text()).expect("JSON");
    assert_eq!(
        product["cacheHits"], 1,
        "the order looked it up first: {product}"
    );
    // Its explain page draws the modules and the relay.
    let page = get(&client, &format!("http://{}/_green-tea", running.addr))
        .await
        .expect("a response");
    assert_eq!(page.status, 200);
    let page = page.text();
    for shown in [
        "orders::outbox_relay",
        "payments_eu",
        "notifications",
        "POST /orders",
    ] {
        assert!(page.contains(shown), "no `{shown}` on the explain page");
    }
    assert!(running.stop().success());
}

/// `GET url` with `headers`, read whole.
async fn get_with(url: &str, headers: &[(&str, &str)]) -> support::http::Reply {
    request(http::Method::GET, url, headers, bytes::Bytes::new()).await
}

/// `method url` with `headers` and `body`, read whole.
async fn request(
    method: http::Method,
    url: &str,
    headers: &[(&str, &str)],
    body: impl Into<bytes::Bytes>,
) -> support::http::Reply {
    use http_body_util::BodyExt;
    let mut request = http::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(http_body_util::Full::new(body.into()))
        .unwrap();
    let response = support::http::within("a response", http1_client().request(request))
        .await
        .expect("a response");
    let (parts, body) = response.into_parts();
    support::http::Reply {
        status: parts.status,
        version: parts.version,
        headers: parts.headers,
        body: body.collect().await.expect("a body").to_bytes(),
    }
}

#[tokio::test]
async fn layers_compress_and_allow_cors() {
    let running = Example::start("layers", &[], &[]);
    let url = format!("http://{}/orders", running.addr);
    let reply = get_with(
        &url,
        &[
            ("accept-encoding", "gzip"),
            ("origin", "https://shop.example"),
        ],
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.headers["content-encoding"], "gzip");
    assert_eq!(reply.headers["access-control-allow-origin"], "*");
    assert!(running.stop().success());
}

#[tokio::test]
async fn static_files_serve_beside_the_api() {
    let running = Example::start("static_files", &[], &[]);
    let page = get_with(&format!("http://{}/static/index.html", running.addr), &[]).await;
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains("served by tower-http's ServeDir"),
        "{}",
        page.text()
    );
    let health = get_with(&format!("http://{}/api/health", running.addr), &[]).await;
    assert_eq!(health.json(), serde_json::json!({ "ok": true }));
    assert!(running.stop().success());
}

#[tokio::test]
async fn auth_answers_401_without_a_token_and_the_user_with_one() {
    let running = Example::start("auth", &[], &[]);
    let url = format!("http://{}/me", running.addr);
    let refused = get_with(&url, &[]).await;
    assert_eq!(refused.status, 401);
    assert!(refused.json()["error"].is_string());
    let unknown = get_with(&url, &[("authorization", "Bearer nope")]).await;
    assert_eq!(unknown.status, 401);
    let me = get_with(&url, &[("authorization", "Bearer tea-for-ada")]).await;
    assert_eq!(me.json(), serde_json::json!({ "name": "ada" }));
    assert!(running.stop().success());
}

#[tokio::test]
async fn fallback_answers_unknown_paths_and_a_405_stays() {
    let running = Example::start("fallback", &[], &[]);
    let missing = get_with(&format!("http://{}/nowhere", running.addr), &[]).await;
    assert_eq!(missing.status, 404);
    assert_eq!(
        missing.json(),
        serde_json::json!({ "error": "nothing at /nowhere", "docs": "https://example.invalid/docs" })
    );
    let client = http1_client();
    let not_allowed = support::http::send(
        &client,
        http::Method::DELETE,
        &format!("http://{}/orders", running.addr),
        None,
    )
    .await
    .expect("a response");
    assert_eq!(not_allowed.status, 405);
    assert!(running.stop().success());
}

/// Reads `events` until `buffer` holds a whole server-sent event (it ends with a blank line),
/// and returns it without its blank line.
async fn next_event(events: &mut hyper::body::Incoming, buffer: &mut String) -> String {
    use http_body_util::BodyExt;
    loop {
        if let Some(end) = buffer.find("\n\n") {
            let event = buffer[..end].to_owned();
            buffer.drain(..end + 2);
            return event;
        }
        let frame = support::http::within("an event", events.frame())
            .await
            .expect("the stream goes on")
            .expect("a frame");
        if let Ok(data) = frame.into_data() {
            buffer.push_str(std::str::from_utf8(&data).expect("UTF-8 events"));
        }
    }
}

#[tokio::test]
async fn sse_streams_each_posted_message_as_an_event() {
    use http_body_util::BodyExt;
    let running = Example::start("sse", &[], &[]);
    let open = http::Request::get(format!("http://{}/events", running.addr))
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
    let response = support::http::within("the stream's head", http1_client().request(open))
        .await
        .expect("a response");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut events = response.into_body();
    let mut buffer = String::new();
    assert_eq!(
        next_event(&mut events, &mut buffer).await,
        "event: joined\ndata: welcome to the room"
    );

    // The stream subscribed before its head was sent, so a message posted now reaches it.
    let posted = request(
        http::Method::POST,
        &format!("http://{}/messages", running.addr),
        &[("content-type", "application/json")],
        r#"{"text":"tea is ready"}"#,
    )
    .await;
    assert_eq!(posted.status, 202);
    assert_eq!(posted.json(), serde_json::json!({ "listeners": 1 }));
    assert_eq!(
        next_event(&mut events, &mut buffer).await,
        "event: message\ndata: tea is ready"
    );

    // SIGTERM ends the stream (it does not hold the shutdown until the drain timeout).
    assert!(running.stop().success());
    let end = support::http::within("the stream's end", events.frame()).await;
    assert!(end.is_none(), "the stream ended cleanly: {end:?}");
}

/// The next message of `socket`, as text.
async fn next_text<S>(socket: &mut S) -> String
where
    S: futures_util::Stream<
            Item = Result<
                tokio_tungstenite::tungstenite::Message,
                tokio_tungstenite::tungstenite::Error,
            >,
        > + Unpin,
{
    use futures_util::StreamExt;
    let message = support::http::within("a message", socket.next()).await;
    let message = message.expect("a message").expect("a frame");
    message.into_text().expect("a text").as_str().to_owned()
}

#[tokio::test]
async fn websockets_echo_and_close_on_sigterm() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let running = Example::start("websockets", &[], &[]);
    let url = format!("ws://{}/echo", running.addr);
    let (mut socket, _) = support::http::within(
        "the WebSocket handshake",
        tokio_tungstenite::connect_async(url),
    )
    .await
    .expect("a WebSocket");
    assert_eq!(
        next_text(&mut socket).await,
        "connected: every text you send comes back"
    );
    socket
        .send(Message::text("hello, tea"))
        .await
        .expect("sent");
    assert_eq!(next_text(&mut socket).await, "hello, tea");

    assert!(running.stop().success());
    let goodbye = support::http::within("the close frame", socket.next()).await;
    assert!(
        matches!(goodbye, Some(Ok(Message::Close(_)))),
        "the server said goodbye: {goodbye:?}"
    );
}

#[tokio::test]
async fn tls_serves_https_with_the_certificate_it_made() {
    use green_tea::serve::rustls::pki_types::{CertificateDer, ServerName};
    use green_tea::serve::rustls::{ClientConfig, RootCertStore};
    use http_body_util::{BodyExt, Empty};
    use hyper_util::rt::{TokioExecutor, TokioIo};

    let out = std::env::temp_dir().join(format!("green-tea-tls-{}.der", std::process::id()));
    let running = Example::start("tls", &[], &[("TLS_CERT_OUT", out.to_str().unwrap())]);
    // Written before the example printed its address.
    let der = std::fs::read(&out).expect("the certificate the example wrote");
    let _ = std::fs::remove_file(&out);

    // A client that trusts that certificate and nothing else, offering HTTP/2.
    let mut roots = RootCertStore::empty();
    roots.add(CertificateDer::from(der)).expect("a valid root");
    let mut config = ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(running.addr)
        .await
        .expect("connect");
    let name = ServerName::try_from("localhost").unwrap();
    let tls = support::http::within("the TLS handshake", connector.connect(name, tcp))
        .await
        .expect("a handshake with the certificate trusted");

    let (mut sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tls))
            .await
            .expect("HTTP/2, as ALPN agreed");
    tokio::spawn(connection);
    let hello = http::Request::get("https://localhost/")
        .body(Empty::<bytes::Bytes>::new())
        .unwrap();
    let response = support::http::within("a response", sender.send_request(hello))
        .await
        .expect("a response");
    assert_eq!(response.status(), 200);
    let body = response.into_body().collect().await.expect("a body");
    assert_eq!(body.to_bytes(), "hello over HTTP/2.0");
    drop(sender);
    // Stopped from another thread, so that this runtime keeps driving the client's connection:
    // HTTP/2's graceful shutdown waits for the client to answer the server's GOAWAY and PING.
    let stopped = tokio::task::spawn_blocking(move || running.stop()).await;
    assert!(stopped.expect("stop() panicked").success());
}

/// A `multipart/form-data` body of one file part, with the boundary `tea`.
fn one_file(field: &str, file_name: &str, content: &[u8]) -> Vec<u8> {
    let head = format!(
        "--tea\r\ncontent-disposition: form-data; name=\"{field}\"; filename=\"{file_name}\"\r\n\
         content-type: application/octet-stream\r\n\r\n"
    );
    [head.as_bytes(), content, b"\r\n--tea--\r\n"].concat()
}

#[tokio::test]
async fn upload_takes_a_form_and_a_file_and_refuses_an_oversized_file() {
    let running = Example::start("upload", &[], &[]);
    let url = |path: &str| format!("http://{}{path}", running.addr);
    let post = http::Method::POST;

    let form = [("content-type", "application/x-www-form-urlencoded")];
    let signed = request(
        post.clone(),
        &url("/signup"),
        &form,
        "name=ada&email=ada%40example.com",
    )
    .await;
    assert_eq!(signed.status, 200);
    assert_eq!(
        signed.json(),
        serde_json::json!({ "welcome": "ada", "email": "ada@example.com" })
    );
    let not_an_address = request(post.clone(), &url("/signup"), &form, "name=ada&email=ada").await;
    assert_eq!(not_an_address.status, 400);
    assert_eq!(
        not_an_address.json(),
        serde_json::json!({ "error": "email: not an address" })
    );
    let incomplete = request(post.clone(), &url("/signup"), &form, "name=ada").await;
    assert_eq!(incomplete.status, 422);
    let message = incomplete.json()["error"].as_str().unwrap().to_owned();
    assert!(
        message.starts_with("Failed to deserialize form body"),
        "{message}"
    );

    let multipart = [("content-type", "multipart/form-data; boundary=tea")];
    let small = one_file("notes", "notes.txt", b"green tea\n");
    let stored = request(post.clone(), &url("/upload"), &multipart, small).await;
    assert_eq!(stored.status, 201, "{}", stored.text());
    let notes = serde_json::json!({ "field": "notes", "file_name": "notes.txt", "bytes": 10 });
    assert_eq!(stored.json(), serde_json::json!([notes]));

    let big = one_file("big", "big.bin", &vec![0; 100 * 1024]); // the route takes 64 KiB
    let refused = request(post, &url("/upload"), &multipart, big).await;
    assert_eq!(refused.status, 413);
    assert_eq!(
        refused.json(),
        serde_json::json!({ "error": "the request body is larger than 65536 bytes" })
    );
    let listed = get_with(&url("/upload"), &[]).await;
    assert_eq!(listed.json(), serde_json::json!([notes]));
    assert!(running.stop().success());
}

#[tokio::test]
async fn testing_answers_as_its_own_tests_say() {
    let running = Example::start("testing", &[], &[]);
    let sencha = get_with(&format!("http://{}/teas/1", running.addr), &[]).await;
    assert_eq!(sencha.status, 200);
    assert_eq!(
        sencha.json(),
        serde_json::json!({ "name": "sencha", "grams": 100 })
    );
    let missing = get_with(&format!("http://{}/teas/9", running.addr), &[]).await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json(), serde_json::json!({ "error": "no tea 9" }));
    assert!(running.stop().success());
}

/// The same notes service in axum and in green-tea: the same requests get the same statuses and
/// JSON bodies from both.
#[tokio::test]
async fn from_axum_both_services_answer_alike() {
    use serde_json::json;
    let ada = ("authorization", "Bearer tea-for-ada");
    let bob = ("authorization", "Bearer tea-for-bob");
    let json_body = ("content-type", "application/json");
    let get = http::Method::GET;
    let post = http::Method::POST;
    // (method, path, headers, body, status, JSON answer)
    let exchanges = [
        (
            &get,
            "/notes",
            vec![],
            "",
            401,
            json!({ "error": "a bearer token is required" }),
        ),
        (
            &get,
            "/notes",
            vec![("authorization", "Bearer nope")],
            "",
            401,
            json!({ "error": "unknown token" }),
        ),
        (
            &post,
            "/notes",
            vec![json_body],
            r#"{"text":"no token"}"#,
            401,
            json!({ "error": "a bearer token is required" }),
        ),
        (
            &post,
            "/notes",
            vec![ada, json_body],
            r#"{"text":"buy sencha"}"#,
            201,
            json!({ "id": 1, "text": "buy sencha", "author": "ada" }),
        ),
        (
            &post,
            "/notes",
            vec![bob, json_body],
            r#"{"text":"steep for two minutes"}"#,
            201,
            json!({ "id": 2, "text": "steep for two minutes", "author": "bob" }),
        ),
        (
            &get,
            "/notes",
            vec![ada],
            "",
            200,
            json!([{ "id": 1, "text": "buy sencha", "author": "ada" }]),
        ),
        (
            &get,
            "/notes/1",
            vec![ada],
            "",
            200,
            json!({ "id": 1, "text": "buy sencha", "author": "ada" }),
        ),
        (
            &get,
            "/notes/2",
            vec![ada],
            "",
            404,
            json!({ "error": "no note 2" }),
        ),
        (
            &get,
            "/nowhere",
            vec![],
            "",
            404,
            json!({ "error": "no route for GET /nowhere" }),
        ),
    ];
    for example in ["from_axum_axum", "from_axum_green_tea"] {
        let running = Example::start(example, &[], &[]);
        for (method, path, headers, body, status, answer) in &exchanges {
            let url = format!("http://{}{path}", running.addr);
            let reply = request((*method).clone(), &url, headers, *body).await;
            assert_eq!(reply.status, *status, "{example}: {method} {path}");
            assert_eq!(reply.json(), *answer, "{example}: {method} {path}");
        }
        assert!(running.stop().success(), "{example} stops cleanly");
    }
}

/// Every example in examples/: a file (`hello.rs`), or a directory's `main.rs` (`shop/`), as
/// its name and its path under examples/.
fn example_files() -> Vec<(String, String)> {
    let examples = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples"))
        .expect("the examples directory");
    let mut files = Vec::new();
    for entry in examples {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            files.push((name.clone(), format!("{name}.rs")));
        } else if path.join("main.rs").is_file() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            files.push((name.clone(), format!("{name}/main.rs")));
        }
    }
    files
}

/// Every example in examples/ is started by a test of this file (the two that are not servers,
/// `quickstart` and `testing`'s own tests, included): a new example without a smoke test fails
/// here.
#[test]
fn every_example_is_smoke_run() {
    let this_file = include_str!("smoke.rs");
    let missing: Vec<String> = example_files()
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| !this_file.contains(&format!("\"{name}\"")))
        .collect();
    assert!(
        missing.is_empty(),
        "examples without a smoke test: {missing:?}"
    );
}

/// Every example in examples/ is an example of crates/examples, the package that `cargo run
/// --example NAME` builds: the root's own discovery is off, so a new file not listed there
/// would be built by nothing.
#[test]
fn every_example_is_in_the_examples_package() {
    let manifest = include_str!("../../crates/examples/Cargo.toml");
    let missing: Vec<String> = example_files()
        .into_iter()
        .filter(|(name, file)| {
            !manifest.contains(&format!(
                "name = \"{name}\"\npath = \"../../examples/{file}\""
            ))
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        missing.is_empty(),
        "examples not listed in crates/examples/Cargo.toml: {missing:?}"
    );
}

/// A SIGTERM sent the moment a server prints its address stops it cleanly: each catches its
/// signals before it prints (they used to be caught only once serving began, and a SIGTERM in
/// between was the default action's kill: `billing_upstream`'s smoke test failed so, once).
#[test]
fn every_server_stops_cleanly_on_a_sigterm_sent_the_moment_it_prints_its_address() {
    let servers = [
        "hello",
        "billing_upstream",
        "layers",
        "static_files",
        "auth",
        "fallback",
        "sse",
        "websockets",
        "upload",
        "testing",
        "from_axum_axum",
        "from_axum_green_tea",
        "orders",
    ];
    for name in servers {
        let running = Example::start(name, &[], &[]);
        let status = running.stop();
        assert!(status.success(), "{name}: {status}");
    }
}
