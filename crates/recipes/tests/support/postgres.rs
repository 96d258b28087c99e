//! A throwaway PostgreSQL server per test: Debian's `postgresql` package (its `initdb`,
//! `pg_ctl` and `postgres`, found in `/usr/lib/postgresql/<version>/bin`, off PATH), a cluster
//! in a temp directory of its own, listening on a free port of 127.0.0.1 (and a Unix socket in
//! that directory), with `fsync=off` (a test's data need not survive the machine's crash; it
//! does survive the server's, as a commit's WAL is written to the OS before it returns: no
//! `synchronous_commit=off`, which would lose the last commits to `stop()`), stopped and
//! deleted when dropped. [`Postgres::stop`] / [`Postgres::start`] take it down and up again on
//! the same port and data, for outage tests.
//!
//! The server refuses to run as root, and CI runs as root: then every command runs as the
//! `postgres` user (`runuser -u postgres --`, the package creates the user), in a directory it
//! owns. `initdb` runs once per test process; each server copies that cluster.
//!
//! Where PostgreSQL is missing the tests that need it skip (with a note on stderr), except when
//! `GREEN_TEA_REQUIRE_TOOLS=1` (CI's `.ci/run` sets it): then missing is a failure.
//! Process management only: no PostgreSQL client in it (the URL is for sqlx).
#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// A running (or stopped) PostgreSQL server of a test's own.
pub(crate) struct Postgres {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    running: bool,
}

impl Postgres {
    /// Starts one, or `None` if PostgreSQL is missing and not required (see the module):
    /// `let Some(pg) = Postgres::start_new() else { return };`
    pub(crate) fn start_new() -> Option<Postgres> {
        let Some(bin) = bin_dir() else {
            assert!(
                std::env::var("GREEN_TEA_REQUIRE_TOOLS").as_deref() != Ok("1"),
                "PostgreSQL is missing (no /usr/lib/postgresql/*/bin/initdb) and \
                 GREEN_TEA_REQUIRE_TOOLS=1 requires it (Debian: apt-get install -y postgresql)"
            );
            eprintln!("skipped: PostgreSQL is not installed (Debian: apt-get install postgresql)");
            return None;
        };
        let template = template(&bin);
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gt-pg-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory for PostgreSQL");
        let copied = Command::new("cp")
            .arg("-a")
            .arg(template.join("data"))
            .arg(dir.join("data"))
            .status();
        assert!(
            copied.is_ok_and(|s| s.success()),
            "copying the template cluster"
        );
        give_to_postgres(&dir);
        let mut server = Postgres {
            bin,
            dir,
            port: free_port(),
            running: false,
        };
        server.start();
        Some(server)
    }

    /// `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication: no password).
    pub(crate) fn url(&self) -> String {
        self.url_of("postgres")
    }

    /// The URL of database `name` on this server (see [`create_database`](Self::create_database)).
    pub(crate) fn url_of(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates database `name` (`createdb`) and returns its URL: several apps on one server,
    /// each with its own schema.
    pub(crate) fn create_database(&self, name: &str) -> String {
        let out = self.run(
            "createdb",
            &[
                "-h".as_ref(),
                self.dir.as_os_str(),
                "-p".as_ref(),
                self.port.to_string().as_ref(),
                "-U".as_ref(),
                "postgres".as_ref(),
                name.as_ref(),
            ],
        );
        assert!(out.status.success(), "createdb {name}: {}", stderr(&out));
        self.url_of(name)
    }

    /// The port it listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// Whether it is running.
    pub(crate) fn is_running(&self) -> bool {
        self.running
    }

    /// Stops it at once (`pg_ctl stop -m immediate`: every connection is cut, no checkpoint),
    /// as a crash would; the data stays, for [`start`](Self::start).
    pub(crate) fn stop(&mut self) {
        if !self.running {
            return;
        }
        let data = self.dir.join("data");
        let out = self.run(
            "pg_ctl",
            &[
                "stop".as_ref(),
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "-w".as_ref(),
            ],
        );
        assert!(out.status.success(), "pg_ctl stop: {}", stderr(&out));
        self.running = false;
    }

    /// Starts it (again) on the same port and data, and waits until it accepts connections
    /// (`pg_ctl start -w`, after crash recovery if it was stopped by [`stop`](Self::stop)).
    pub(crate) fn start(&mut self) {
        if self.running {
            return;
        }
        let data = self.dir.join("data");
        let log = self.dir.join("postgres.log");
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off \
             -c full_page_writes=off -c shared_buffers=16MB",
            self.port,
            self.dir.display()
        );
        let out = self.run(
            "pg_ctl",
            &[
                "start".as_ref(),
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                log.as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-w".as_ref(),
                "-t".as_ref(),
                "60".as_ref(),
            ],
        );
        assert!(
            out.status.success(),
            "pg_ctl start: {}\n{}",
            stderr(&out),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        self.running = true;
    }

    /// Runs `program` of the server's bin directory, as `postgres` when we are root.
    fn run(&self, program: &str, args: &[&std::ffi::OsStr]) -> Output {
        as_postgres(&self.bin.join(program))
            .args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{program} does not run: {e}"))
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if self.running {
            let data = self.dir.join("data");
            let _ = as_postgres(&self.bin.join("pg_ctl"))
                .args(["stop", "-m", "immediate", "-w", "-D"])
                .arg(&data)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The newest `/usr/lib/postgresql/<version>/bin` that has `initdb`.
fn bin_dir() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

/// One `initdb` per test process, copied by each server.
fn template(bin: &Path) -> PathBuf {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    TEMPLATE
        .get_or_init(|| {
            remove_stale_templates();
            let dir = std::env::temp_dir().join(format!("gt-pg-{}-template", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("a directory for the template cluster");
            give_to_postgres(&dir);
            let out = as_postgres(&bin.join("initdb"))
                .arg("-D")
                .arg(dir.join("data"))
                .args(["-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
                .args(["--locale", "C"])
                .current_dir(&dir)
                .stdin(Stdio::null())
                .output()
                .expect("initdb runs");
            assert!(out.status.success(), "initdb: {}", stderr(&out));
            dir
        })
        .clone()
}

/// A test process's template outlives it (a static is never dropped): those of processes that
/// have ended are removed when the next one makes its own.
fn remove_stale_templates() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("gt-pg-"))
            .and_then(|n| n.strip_suffix("-template"))
        else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether this process runs as root (`id -u`).
fn is_root() -> bool {
    static ROOT: OnceLock<bool> = OnceLock::new();
    *ROOT.get_or_init(|| {
        Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|out| out.stdout.trim_ascii() == b"0")
    })
}

/// `program`, run as `postgres` (through `runuser`) when we are root, else as ourselves.
fn as_postgres(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// Makes `dir` the `postgres` user's when we are root, so the server can write there.
fn give_to_postgres(dir: &Path) {
    if is_root() {
        let chowned = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(dir)
            .status();
        assert!(
            chowned.is_ok_and(|s| s.success()),
            "chown postgres {}",
            dir.display()
        );
    }
}

/// A port free now on 127.0.0.1 (the kernel's pick; another process could take it before the
/// server binds, which `pg_ctl start` would report).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free port")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
