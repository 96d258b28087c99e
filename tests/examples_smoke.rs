//! Every example, built by `cargo test` as it builds every target, started as its own binary
//! (not through a nested `cargo run`, which would wait on cargo's build lock) on `PORT=0`: it
//! prints the address it listens on, answers one real request over loopback, and exits cleanly
//! on SIGTERM.
#![cfg(unix)]

mod support;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::http::{get, http1_client};

/// The example's binary, beside this test's in cargo's target directory
/// (`target/<profile>/examples/<name>`).
fn example(name: &str) -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    let profile_dir = test
        .parent()
        .and_then(|deps| deps.parent())
        .expect("a test binary lives in target/<profile>/deps");
    profile_dir.join("examples").join(name)
}

/// A running example; killed if the test fails before it is stopped.
struct Running {
    child: Child,
    addr: SocketAddr,
}

impl Running {
    /// Starts `name` on `PORT=0` with `env`, and reads its stdout up to `listening on http://`.
    fn start(name: &str, env: &[(&str, &str)]) -> Running {
        let path = example(name);
        assert!(path.exists(), "{} was not built", path.display());
        let mut child = Command::new(&path)
            .env("PORT", "0")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", path.display()));
        let stdout = child.stdout.take().expect("piped stdout");
        // The rest of its output is drained by a thread, so that it never blocks on a full pipe.
        let (found, address) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("listening on http://")
                    && let Some(found) = found.take()
                {
                    let _ = found.send(rest.trim().to_owned());
                }
            }
        });
        let addr = address
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("{name} printed no `listening on http://` line"));
        let addr = addr.parse().expect("a socket address");
        Running { child, addr }
    }

    /// SIGTERM, then its exit status (within a hang guard).
    fn stop(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -TERM {pid}");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the example") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the example did not exit on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn hello_answers_and_stops_on_sigterm() {
    let running = Running::start("hello", &[]);
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
    let running = Running::start("orders", &[]);
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
    assert!(running.stop().success());
}

#[tokio::test]
async fn quickstart_runs_to_its_end() {
    let path = example("quickstart");
    let status = Command::new(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("{} does not start: {e}", path.display()));
    assert!(status.success());
}

/// `GET url` with `headers`, read whole.
async fn get_with(url: &str, headers: &[(&str, &str)]) -> support::http::Reply {
    use http_body_util::BodyExt;
    let mut request = http::Request::get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(http_body_util::Full::new(bytes::Bytes::new()))
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
    let running = Running::start("layers", &[]);
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
    let running = Running::start("static_files", &[]);
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
    let running = Running::start("auth", &[]);
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
    let running = Running::start("fallback", &[]);
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
