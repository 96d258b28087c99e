//! A throwaway `redis-server` per test: on a Unix socket in a directory of its own (`--port 0`,
//! so no TCP port is taken and a restart cannot race anyone for one), without persistence
//! (`--save '' --appendonly no`), killed when dropped. A test never talks to a Redis it did not
//! start.
//!
//! Where `redis-server` is missing the tests that need it skip (with a note on stderr), except
//! when `GREEN_TEA_REQUIRE_TOOLS=1` (CI's `.ci/run` sets it): then missing is a failure.
//! Shared by the recipes crate's tests and the workspace's (`#[path]`): one helper, process management only (no Redis client in it).
#![allow(dead_code)] // each test file uses its own part

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// A running `redis-server`.
pub(crate) struct RedisServer {
    child: Option<Child>,
    dir: PathBuf,
    socket: PathBuf,
}

impl RedisServer {
    /// Starts one, or `None` if `redis-server` is missing and not required (see the module):
    /// `let Some(server) = RedisServer::start() else { return };`
    pub(crate) fn start() -> Option<RedisServer> {
        let found = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            assert!(
                std::env::var("GREEN_TEA_REQUIRE_TOOLS").as_deref() != Ok("1"),
                "redis-server is missing and GREEN_TEA_REQUIRE_TOOLS=1 requires it \
                 (Debian: apt-get install -y redis-server)"
            );
            eprintln!(
                "skipped: redis-server is not installed (Debian: apt-get install redis-server)"
            );
            return None;
        }
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gt-redis-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory for redis-server");
        let socket = dir.join("redis.sock");
        let mut server = RedisServer {
            child: None,
            dir,
            socket,
        };
        server.spawn();
        Some(server)
    }

    /// `redis+unix:///…/redis.sock`.
    pub(crate) fn url(&self) -> String {
        format!("redis+unix://{}", self.socket.display())
    }

    pub(crate) fn socket(&self) -> &Path {
        &self.socket
    }

    /// Kills it (SIGKILL: nothing is saved, every key and the script cache are lost).
    pub(crate) fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_file(&self.socket);
    }

    /// Starts it again on the same socket, empty.
    pub(crate) fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    /// SIGSTOP: a black hole (connections stay open, nothing answers).
    pub(crate) fn pause_process(&self) {
        self.signal("-STOP");
    }

    /// SIGCONT.
    pub(crate) fn resume_process(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        let pid = self.child.as_ref().expect("running").id().to_string();
        let sent = Command::new("kill").args([signal, &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill {signal} {pid}");
    }

    /// Starts the process and waits for its "ready to accept connections" line.
    fn spawn(&mut self) {
        let mut child = Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(&self.socket)
            .args([
                "--unixsocketperm",
                "700",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (ready, is_ready) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut ready = Some(ready);
            // Drained to the end, so that the server never blocks on a full pipe.
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if line
                    .to_ascii_lowercase()
                    .contains("ready to accept connections")
                    && let Some(ready) = ready.take()
                {
                    let _ = ready.send(());
                }
            }
        });
        // Recorded before waiting, so that a server that never gets ready is still killed.
        self.child = Some(child);
        is_ready
            .recv_timeout(Duration::from_secs(30))
            .expect("redis-server printed no \"ready to accept connections\"");
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        if let Some(child) = &self.child {
            // A stopped process must be continued to die cleanly on some kernels.
            let _ = Command::new("kill")
                .args(["-CONT", &child.id().to_string()])
                .status();
        }
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
