//! The examples as processes, for the tests that run them: the binary cargo built beside the
//! test (never a nested `cargo run`, which would wait on cargo's build lock), on `PORT=0`, its
//! address read from the `listening on http://ADDR` (or `https://`) line every example prints.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An example's binary, beside the running test's in cargo's target directory
/// (`target/<profile>/examples/<name>`).
pub fn binary(name: &str) -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    let profile_dir = test
        .parent()
        .and_then(|deps| deps.parent())
        .expect("a test binary lives in target/<profile>/deps");
    profile_dir.join("examples").join(name)
}

/// A running example: its address and everything it printed. Killed when dropped (a test
/// that fails before stopping it leaves nothing behind).
pub struct Example {
    child: Child,
    pub addr: SocketAddr,
    output: Arc<Mutex<Vec<String>>>,
}

impl Example {
    /// Starts `name` with `args` and `env`, once it printed its address.
    pub fn start(name: &str, args: &[&str], env: &[(&str, &str)]) -> Example {
        Example::start_until(name, args, env, "listening on ")
    }

    /// The same, once it also printed a line containing `banner_end` (after the address, when
    /// what it prints after it matters to the test: `orders`' explain).
    pub fn start_until(
        name: &str,
        args: &[&str],
        env: &[(&str, &str)],
        banner_end: &str,
    ) -> Example {
        let path = binary(name);
        assert!(path.exists(), "{} was not built", path.display());
        let mut child = Command::new(&path)
            .args(args)
            .env("PORT", "0")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", path.display()));
        let stdout = child.stdout.take().expect("piped stdout");
        let output = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&output);
        let banner_end = banner_end.to_owned();
        let (ready, address) = std::sync::mpsc::channel();
        // The rest of its output is read too, so that it never blocks on a full pipe.
        std::thread::spawn(move || {
            let (mut ready, mut addr) = (Some(ready), None::<String>);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let listening = line.split_once("listening on ").and_then(|(_, rest)| {
                    rest.strip_prefix("http://")
                        .or_else(|| rest.strip_prefix("https://"))
                });
                if let Some(rest) = listening {
                    addr.get_or_insert_with(|| rest.trim().to_owned());
                }
                let banner_done = line.contains(&banner_end);
                lines.lock().unwrap().push(line);
                if banner_done
                    && let Some(addr) = &addr
                    && let Some(ready) = ready.take()
                {
                    let _ = ready.send(addr.clone());
                }
            }
        });
        let addr = address
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("{name} printed no `listening on http(s)://` line"));
        Example {
            child,
            addr: addr.parse().expect("a socket address"),
            output,
        }
    }

    /// `http://ADDR`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Whether a line it printed so far contains `text`.
    pub fn printed(&self, text: &str) -> bool {
        self.output.lock().unwrap().iter().any(|l| l.contains(text))
    }

    /// Sends it the signal `name` (`HUP`), as `kill -HUP` would.
    pub fn signal(&self, name: &str) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args([&format!("-{name}"), &pid])
            .status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -{name} {pid}");
    }

    /// SIGTERM, then its exit status (within a hang guard).
    pub fn stop(mut self) -> ExitStatus {
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

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `orders` in front of a `billing_upstream` that is down, with a breaker threshold of 2, after
/// three orders: two failures reached billing and opened the breaker, the third was refused.
/// Both processes, which stop when dropped.
pub async fn orders_after_a_trip() -> (Example, Example) {
    let upstream = Example::start("billing_upstream", &["--mode", "down"], &[]);
    let billing_url = upstream.base();
    let orders = Example::start(
        "orders",
        &[],
        &[
            ("BILLING_URL", billing_url.as_str()),
            ("BILLING_BREAKER_THRESHOLD", "2"),
        ],
    );
    let client = super::http::http1_client();
    let order = serde_json::json!({ "userId": "u1", "amount": 5 });
    for _ in 0..3 {
        let reply = super::http::post(&client, &format!("{}/orders", orders.base()), &order)
            .await
            .expect("a response");
        assert_eq!(reply.status, 503, "{}", reply.text());
    }
    (upstream, orders)
}
