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
                if let Some(rest) = line.strip_prefix("listening on http://") {
                    if let Some(found) = found.take() {
                        let _ = found.send(rest.trim().to_owned());
                    }
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
