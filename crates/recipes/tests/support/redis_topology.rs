//! A throwaway Redis Cluster or Redis Sentinel set per test, on 127.0.0.1, for the tests that
//! need a topology to change under them: a primary that fails over, a slot that moves. Each
//! server runs in a temp directory of its own (its log, `nodes.conf` or `sentinel.conf` there),
//! without persistence (`--save '' --appendonly no`), and is killed (SIGKILL) and its directory
//! removed when the topology is dropped. A test never talks to a Redis it did not start.
//!
//! Every wait is a poll with an overall deadline of [`WAIT`]; one that runs out panics, naming
//! what it waited for, with every server's view (`CLUSTER NODES`, what the sentinels say) and
//! the last lines of its log, so that a CI failure can be read without running it again.
//!
//! A Sentinel set can also be started with its replica behind a relay that a test holds
//! ([`RedisSentinels::start_with_held_replica`]): the primary then acknowledges writes the
//! replica never gets, and a failover loses them, for real.
//!
//! Where `redis-server` or `redis-cli` is missing the tests that need them skip (with a note on
//! stderr), except when `GREEN_TEA_REQUIRE_TOOLS=1` (CI's `.ci/run` sets it): then missing is a
//! failure. Process management and `redis-cli` only (no Redis client in it), like
//! `support/redis.rs`, the single-server helper.
#![allow(dead_code)] // each test file uses its own part

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::hash::BuildHasher;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long any wait may take before it panics: generous, as CI machines are slow and shared.
/// On an idle 2-core machine a 3 + 3 cluster forms in 2.5 to 4 s and fails over in about 2 s,
/// the sentinels' set starts in 3 to 4.5 s and promotes in about 2 s after a kill.
pub(crate) const WAIT: Duration = Duration::from_secs(30);

/// How often a wait asks again.
const POLL: Duration = Duration::from_millis(25);

/// How many lines of a server's log a timeout prints.
const LOG_TAIL: usize = 30;

/// The slots of a Redis Cluster.
const SLOTS: u32 = 16384;

/// The service the sentinels monitor.
const SERVICE: &str = "gt-primary";

/// The ACL user the sentinels of a [held replica's](RedisSentinels::start_with_held_replica)
/// set log in to its data servers as (`sentinel auth-user`; see [`sentinel_user`]).
const SENTINEL_USER: &str = "gt-sentinel";

/// [`SENTINEL_USER`]'s password (`sentinel auth-pass`).
const SENTINEL_PASS: &str = "gt-sentinel-pass";

// ---------------------------------------------------------------------------------------------
// Ports

/// Every port handed out in this process (a cluster node's bus port too), so that two
/// topologies of one test binary never pick the same one; never given back.
static TAKEN: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());

/// A port of 127.0.0.1 that is free now, and its bus port (`port + 10000`, which a cluster node
/// binds as well) if `with_bus`: random in 20000..=55535, so that the bus port is a port too.
/// Free only when checked: a server that then fails to bind it is started again on another
/// (see [`Node::spawn`]).
fn free_port(with_bus: bool) -> u16 {
    static DRAW: AtomicU64 = AtomicU64::new(0);
    let mut taken = TAKEN.lock().unwrap_or_else(PoisonError::into_inner);
    for _ in 0..10_000 {
        let random = std::hash::RandomState::new().hash_one(DRAW.fetch_add(1, Ordering::Relaxed));
        let port = 20000 + (random % (55535 - 20000 + 1)) as u16;
        let needed: &[u16] = if with_bus {
            &[port, port + 10000]
        } else {
            &[port]
        };
        let free = needed
            .iter()
            .all(|&p| !taken.contains(&p) && TcpListener::bind(("127.0.0.1", p)).is_ok());
        if free {
            taken.extend(needed);
            return port;
        }
    }
    panic!("no free port in 20000..=55535 on 127.0.0.1");
}

// ---------------------------------------------------------------------------------------------
// Tools

/// Whether `redis-server` and `redis-cli` are installed; if not, panics when they are required
/// (see the module), or says on stderr that the test skips.
fn tools_present() -> bool {
    let found = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if found("redis-server") && found("redis-cli") {
        return true;
    }
    assert!(
        std::env::var("GREEN_TEA_REQUIRE_TOOLS").as_deref() != Ok("1"),
        "redis-server or redis-cli is missing and GREEN_TEA_REQUIRE_TOOLS=1 requires them \
         (Debian: apt-get install -y redis-server redis-tools)"
    );
    eprintln!(
        "skipped: redis-server or redis-cli is not installed \
         (Debian: apt-get install redis-server redis-tools)"
    );
    false
}

/// `redis-cli -h 127.0.0.1 -p <port> -e <args>`: its stdout, trimmed, or what it said on
/// failure. `-e` makes an error reply a failure too (without it redis-cli exits 0 on one).
fn try_cli(port: u16, args: &[&str]) -> Result<String, String> {
    let output = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-e"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("redis-cli does not run: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if output.status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "{}{stdout}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// [`try_cli`], panicking on failure with what redis-cli said.
fn cli(port: u16, args: &[&str]) -> String {
    try_cli(port, args).unwrap_or_else(|e| panic!("redis-cli -p {port} {}: {e}", args.join(" ")))
}

/// Runs the write `args` on the server on `port`, then `WAIT 1 5000` on the same connection
/// (redis-cli reading both from stdin); panics on an error reply, or if no replica has the write
/// after 5 s. `WAIT` counts the replicas that have *this connection's* writes: on a connection
/// of its own (another redis-cli) it counts every connected replica at once, even one that has
/// not received the write, so a write then a separate `WAIT` proves nothing.
fn write_replicated(port: u16, args: &[&str]) {
    let quoted: Vec<String> = args
        .iter()
        .map(|arg| {
            let escaped = arg
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
                .replace('\r', "\\r");
            format!("\"{escaped}\"")
        })
        .collect();
    let script = format!("{}\nWAIT 1 5000\n", quoted.join(" "));
    // `--no-raw`: an error reply prints as `(error) ...`, told apart from a string.
    let mut child = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "--no-raw"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("redis-cli runs");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin
        .write_all(script.as_bytes())
        .expect("redis-cli reads its commands");
    drop(stdin);
    let output = child.wait_with_output().expect("redis-cli ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let replicas = stdout
        .trim()
        .lines()
        .last()
        .and_then(|line| line.strip_prefix("(integer) "))
        .and_then(|n| n.parse::<u64>().ok());
    assert!(
        output.status.success() && !stdout.contains("(error)") && replicas.is_some_and(|n| n >= 1),
        "{} then WAIT 1 5000 on 127.0.0.1:{port}: no replica has it\n{stdout}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The `master_repl_offset` of the primary on `primary_port`, and the offset its replica on
/// `replica_port` has acknowledged, if it lists that replica online
/// (`slave0:ip=127.0.0.1,port=<replica>,state=online,offset=<acked>,lag=0`).
fn replica_offsets(primary_port: u16, replica_port: u16) -> Option<(u64, Option<u64>)> {
    let info = try_cli(primary_port, &["INFO", "replication"]).ok()?;
    let offset = info_field(&info, "master_repl_offset")?.parse().ok()?;
    let port = format!("port={replica_port}");
    let acked = info
        .lines()
        .filter(|line| line.starts_with("slave"))
        .filter_map(|line| line.trim_end().split_once(':'))
        .map(|(_, fields)| fields.split(',').collect::<Vec<_>>())
        .find(|fields| fields.contains(&port.as_str()) && fields.contains(&"state=online"))
        .and_then(|fields| {
            fields
                .iter()
                .find_map(|f| f.strip_prefix("offset="))?
                .parse()
                .ok()
        });
    Some((offset, acked))
}

/// Proves that replicas are in sync: not only `master_link_status:up`, which a replica says as
/// soon as it has loaded its primary's snapshot, but streaming. After a full sync (diskless)
/// the primary streams the writes that followed the snapshot from the replica's first
/// `REPLCONF ACK` after the primary has seen the transfer end; the replica sends one as soon as
/// it has loaded the snapshot, which can reach the primary before that, and then the next only
/// a second later. A write in that second, then a kill of the primary, and the write is lost,
/// though the replica was "up" (seen here: 3 runs in 8 lost it). So a replica is in sync once
/// its primary has its acknowledgement of an offset beyond the one the primary had reached when
/// the link was seen up: bytes that came through the stream (the primary pings its replicas
/// every second, see [`data_server`], so its offset moves).
#[derive(Default)]
struct SyncProof {
    /// Replica's port → its primary's offset when its link was first seen up.
    linked_at: BTreeMap<u16, u64>,
}

impl SyncProof {
    /// Whether the replica on `replica` is in sync with the primary on `primary`; its first
    /// call with the link up records where the proof starts.
    fn in_sync(&mut self, primary: u16, replica: u16) -> bool {
        self.in_sync_through(primary, primary, replica)
    }

    /// [`in_sync`](Self::in_sync) for a replica that replicates from `upstream` (its
    /// `master_port`: a [`Relay`] in front of `primary`) rather than from `primary` itself.
    fn in_sync_through(&mut self, primary: u16, upstream: u16, replica: u16) -> bool {
        let up =
            replication(replica).is_some_and(|r| r.primary_port == Some(upstream) && r.link_up);
        let Some((offset, acked)) = replica_offsets(primary, replica).filter(|_| up) else {
            self.linked_at.remove(&replica);
            return false;
        };
        match self.linked_at.get(&replica) {
            Some(&linked) => acked.is_some_and(|acked| acked > linked),
            None => {
                self.linked_at.insert(replica, offset);
                false
            }
        }
    }
}

/// `field` of an `INFO` reply (`role` → `master`).
fn info_field<'a>(info: &'a str, field: &str) -> Option<&'a str> {
    info.lines()
        .filter_map(|line| line.trim_end().split_once(':'))
        .find(|(name, _)| *name == field)
        .map(|(_, value)| value)
}

/// A server's `INFO replication`, the part the waits read.
struct Replication {
    primary: bool,
    /// A replica's primary (`master_port`).
    primary_port: Option<u16>,
    /// A replica's `master_link_status:up`: connected, its primary's snapshot loaded (not yet
    /// proof that it gets the writes that follow: see [`SyncProof`]).
    link_up: bool,
}

/// The server's `INFO replication`, or `None` if it does not answer.
fn replication(port: u16) -> Option<Replication> {
    let info = try_cli(port, &["INFO", "replication"]).ok()?;
    Some(Replication {
        primary: info_field(&info, "role")? == "master",
        primary_port: info_field(&info, "master_port").and_then(|p| p.parse().ok()),
        link_up: info_field(&info, "master_link_status") == Some("up"),
    })
}

/// Command name → `calls`, from `INFO commandstats` (`cmdstat_evalsha:calls=3,...` →
/// `evalsha` → 3; a subcommand as Redis prints it, `script|load`). A command not called since
/// the start or the last `CONFIG RESETSTAT` is absent.
fn commandstats(port: u16) -> BTreeMap<String, u64> {
    cli(port, &["INFO", "commandstats"])
        .lines()
        .filter_map(|line| {
            let (name, stats) = line.trim_end().strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = stats
                .split(',')
                .find_map(|stat| stat.strip_prefix("calls="))?
                .parse()
                .ok()?;
            Some((name.to_ascii_lowercase(), calls))
        })
        .collect()
}

/// `CONFIG RESETSTAT`: the command stats (and the other counters of `INFO`) start from zero.
fn reset_stats(port: u16) {
    cli(port, &["CONFIG", "RESETSTAT"]);
}

/// Polls `check` every [`POLL`] until it gives a value; after [`WAIT`], panics naming `what`,
/// followed by `diagnostics()`.
fn wait_for<T>(
    what: &str,
    diagnostics: impl FnOnce() -> String,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(value) = check() {
            return value;
        }
        if Instant::now() >= deadline {
            panic!("waited {WAIT:?} for {what}, in vain\n{}", diagnostics());
        }
        std::thread::sleep(POLL);
    }
}

// ---------------------------------------------------------------------------------------------
// Node

/// One `redis-server` process (a cluster node, a plain primary or replica, or a sentinel): its
/// port, its own directory, and its log there. Killed and its directory removed when dropped.
struct Node {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
    log: PathBuf,
}

impl Node {
    /// Makes a directory `<temp>/<prefix>-<pid>-<n>`, then starts `command(port, dir)` there on
    /// a free port, its stdout and stderr to `redis.log`, and waits until it answers `PING`. A
    /// server that exits because its port was taken in between is started again on another.
    fn spawn(prefix: &str, with_bus: bool, command: impl Fn(u16, &Path) -> Command) -> Node {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "{prefix}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory for redis-server");
        let log = dir.join("redis.log");
        let mut node = Node {
            child: None,
            port: 0,
            dir,
            log,
        };
        for _ in 0..5 {
            node.port = free_port(with_bus);
            let out = File::create(&node.log).expect("redis-server's log file");
            let err = out.try_clone().expect("redis-server's log file, twice");
            let child = command(node.port, &node.dir)
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err)
                .spawn()
                .expect("redis-server starts");
            // Recorded before waiting, so that a server that never answers is still killed.
            node.child = Some(child);
            if node.wait_ready() {
                return node;
            }
            node.kill();
            let log = std::fs::read_to_string(&node.log).unwrap_or_default();
            assert!(
                log.contains("Address already in use"),
                "redis-server on port {} exited\n{}",
                node.port,
                node.log_tail()
            );
        }
        panic!("redis-server found no free port in 5 tries");
    }

    /// Waits until it answers `PING` (true), or exits (false: the caller reads the log).
    fn wait_ready(&mut self) -> bool {
        let port = self.port;
        let deadline = Instant::now() + WAIT;
        loop {
            if try_cli(port, &["PING"]).as_deref() == Ok("PONG") {
                return true;
            }
            let child = self.child.as_mut().expect("just started");
            if child.try_wait().is_ok_and(|status| status.is_some()) {
                return false;
            }
            assert!(
                Instant::now() < deadline,
                "redis-server on port {port} did not answer PING within {WAIT:?}\n{}",
                self.log_tail()
            );
            std::thread::sleep(POLL);
        }
    }

    fn is_alive(&self) -> bool {
        self.child.is_some()
    }

    /// SIGKILL: nothing is saved, the process is gone before this returns. It stays dead.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The last [`LOG_TAIL`] lines of its log, under a heading naming it.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(LOG_TAIL)..].join("\n");
        let state = if self.is_alive() { "running" } else { "killed" };
        format!(
            "--- 127.0.0.1:{} ({state}), {}:\n{tail}",
            self.port,
            self.log.display()
        )
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The flags every data server gets: loopback only, no persistence, a full sync that starts at
/// once (`repl-diskless-sync-delay 0`; Redis 7 otherwise waits 5 s for more replicas to join
/// the same transfer, which every first sync and every resync after a failover pays), and a
/// ping to its replicas every second instead of 10 (`repl-ping-replica-period 1`), which is
/// what lets [`SyncProof`] see a replica in sync within a second or two.
fn data_server(port: u16, dir: &Path) -> Command {
    let mut command = Command::new("redis-server");
    command
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .args(["--repl-diskless-sync-delay", "0"])
        .args(["--repl-ping-replica-period", "1"])
        .arg("--dir")
        .arg(dir)
        .args(["--daemonize", "no"]);
    command
}

/// Adds the user the sentinels log in as ([`SENTINEL_USER`]) to a data server's `command`:
/// every command, except, if not `may_repoint`, `REPLICAOF` and `SLAVEOF` with another first
/// argument than `NO`. Such a server may be promoted by a sentinel (`REPLICAOF NO ONE`) but
/// not pointed at another primary. For a replica behind a [`Relay`]: a sentinel sees it
/// replicate from another address than the primary's and, at its next `INFO` of it (within
/// 10 s), sends it `REPLICAOF <primary>` (`+fix-slave-config` in its log), and the replica,
/// streaming from the primary directly, gets the held writes after all (seen: 10 s after the
/// sentinels found it). Refused, the sentinel tries again every 10 s, in vain, harmlessly.
/// The default user, what tests connect as, stays unrestricted.
fn sentinel_user(command: &mut Command, may_repoint: bool) {
    command
        .args(["--user", SENTINEL_USER, "on", &format!(">{SENTINEL_PASS}")])
        .args(["allchannels", "+@all"]);
    if !may_repoint {
        command.args(["-slaveof", "-replicaof", "+slaveof|no", "+replicaof|no"]);
    }
}

// ---------------------------------------------------------------------------------------------
// Cluster

/// A running Redis Cluster of 127.0.0.1 nodes, formed and agreed on before a test sees it.
pub(crate) struct RedisCluster {
    nodes: Vec<ClusterNode>,
    seeds: Vec<u16>,
}

/// A node and its cluster id (`CLUSTER MYID`, asked once: it stays while the node lives).
struct ClusterNode {
    node: Node,
    id: String,
}

/// One line of `CLUSTER NODES`.
struct NodeEntry {
    port: u16,
    flags: String,
    slots: Vec<(u16, u16)>,
}

impl NodeEntry {
    fn has_flag(&self, flag: &str) -> bool {
        self.flags.split(',').any(|f| f == flag)
    }
}

/// A node's view of who serves which slots: `(first, last, primary's port)`, sorted; the same
/// ownership always prints the same ranges, so two views agree if and only if they are equal.
type SlotMap = Vec<(u16, u16, u16)>;

/// Parses `CLUSTER NODES` (`<id> <ip:port@bus> <flags> <primary> <ping> <pong> <epoch> <link>
/// <slots>...`), skipping a slot being moved (`[5798->-<id>]`, `[5798-<-<id>]`).
fn parse_cluster_nodes(text: &str) -> Vec<NodeEntry> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let address = fields.get(1)?.split('@').next()?;
            let port = address.rsplit(':').next()?.parse().ok()?;
            let slots = fields
                .iter()
                .skip(8)
                .filter(|s| !s.starts_with('['))
                .filter_map(|s| match s.split_once('-') {
                    Some((first, last)) => Some((first.parse().ok()?, last.parse().ok()?)),
                    None => s.parse().ok().map(|slot| (slot, slot)),
                })
                .collect();
            Some(NodeEntry {
                port,
                flags: (*fields.get(2)?).to_owned(),
                slots,
            })
        })
        .collect()
}

fn slot_map(entries: &[NodeEntry]) -> SlotMap {
    let mut map: SlotMap = entries
        .iter()
        .filter(|e| e.has_flag("master"))
        .flat_map(|e| e.slots.iter().map(|&(first, last)| (first, last, e.port)))
        .collect();
    map.sort_unstable();
    map
}

fn owner(map: &SlotMap, slot: u16) -> Option<u16> {
    map.iter()
        .find(|&&(first, last, _)| (first..=last).contains(&slot))
        .map(|&(_, _, port)| port)
}

/// One live node's answers, for a wait to judge.
struct View {
    port: u16,
    info: String,
    map: SlotMap,
    entries: Vec<NodeEntry>,
    text: String,
}

impl RedisCluster {
    /// Starts `primaries × (1 + replicas_per_primary)` nodes, makes them a cluster
    /// (`redis-cli --cluster create`) and waits until every node says `cluster_state:ok` with
    /// all 16384 slots served, every node knows every other, every replica is in sync with its
    /// primary, and every node's `CLUSTER NODES` gives each slot the same primary; or `None` if
    /// the tools are missing and not required (see the module):
    /// `let Some(cluster) = RedisCluster::start(3, 1) else { return };`
    ///
    /// `--cluster-node-timeout 500`: a primary is judged failed, and its replica elected, in
    /// about a second or two. `--cluster-replica-validity-factor 0`: a replica fails over
    /// however long ago it last heard from its primary. `--cluster-require-full-coverage no`:
    /// while one primary is down and its replica not yet elected, the other primaries keep
    /// serving their slots (with `yes`, every node would refuse every key until the failover
    /// ends) — the partial outage a client of a real cluster sees, which the breaker's tests
    /// observe.
    pub(crate) fn start(primaries: usize, replicas_per_primary: usize) -> Option<RedisCluster> {
        assert!(
            primaries >= 3,
            "redis-cli --cluster create needs 3 primaries"
        );
        if !tools_present() {
            return None;
        }
        let count = primaries * (1 + replicas_per_primary);
        let nodes: Vec<ClusterNode> = (0..count)
            .map(|_| {
                let node = Node::spawn("gt-cluster", true, |port, dir| {
                    let mut command = data_server(port, dir);
                    command
                        .args(["--cluster-enabled", "yes"])
                        .args(["--cluster-config-file", "nodes.conf"])
                        .args(["--cluster-node-timeout", "500"])
                        .args(["--cluster-replica-validity-factor", "0"])
                        .args(["--cluster-require-full-coverage", "no"]);
                    command
                });
                let id = cli(node.port, &["CLUSTER", "MYID"]);
                ClusterNode { node, id }
            })
            .collect();
        let mut cluster = RedisCluster {
            nodes,
            seeds: Vec::new(),
        };
        let addresses: Vec<String> = cluster
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.node.port))
            .collect();
        let created = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addresses)
            .args(["--cluster-replicas", &replicas_per_primary.to_string()])
            .arg("--cluster-yes")
            .stdin(Stdio::null())
            .output()
            .expect("redis-cli runs");
        assert!(
            created.status.success(),
            "redis-cli --cluster create {} failed:\n{}{}\n{}",
            addresses.join(" "),
            String::from_utf8_lossy(&created.stdout),
            String::from_utf8_lossy(&created.stderr),
            cluster.diagnostics()
        );
        let mut proof = SyncProof::default();
        wait_for(
            "the new cluster to form (state ok, 16384 slots served, every node known, replicas \
             in sync, one slot map)",
            || cluster.diagnostics(),
            || {
                cluster
                    .formed(primaries, replicas_per_primary, &mut proof)
                    .then_some(())
            },
        );
        cluster.seeds = cluster.primaries();
        Some(cluster)
    }

    /// Whether the cluster is whole: see [`start`](Self::start).
    fn formed(&self, primaries: usize, replicas_per_primary: usize, proof: &mut SyncProof) -> bool {
        let Some(views) = self.views() else {
            return false;
        };
        let whole = views.iter().all(|view| {
            view.entries.len() == self.nodes.len()
                && view.entries.iter().all(|e| {
                    ["fail", "fail?", "handshake", "noaddr"]
                        .iter()
                        .all(|flag| !e.has_flag(flag))
                })
                && view.entries.iter().filter(|e| e.has_flag("master")).count() == primaries
        });
        let Some(roles) = views
            .iter()
            .map(|view| replication(view.port).map(|r| (view.port, r)))
            .collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        let replicated = roles.iter().filter(|(_, r)| r.primary).all(|(port, _)| {
            roles
                .iter()
                .filter(|(_, r)| !r.primary && r.primary_port == Some(*port) && r.link_up)
                .count()
                == replicas_per_primary
        });
        // Every replica asked (`&=`, no short cut), so that each proof starts as early as it can.
        let mut in_sync = true;
        for (replica, r) in &roles {
            if let Some(primary) = r.primary_port.filter(|_| !r.primary) {
                in_sync &= proof.in_sync(primary, *replica);
            }
        }
        whole && replicated && in_sync && Self::agreed(&views)
    }

    /// Whether every view says `cluster_state:ok` with every slot served, and all give the same
    /// slot map, which covers every slot.
    fn agreed(views: &[View]) -> bool {
        let Some(first) = views.first() else {
            return false;
        };
        let covered: u32 = first
            .map
            .iter()
            .map(|&(low, high, _)| u32::from(high - low) + 1)
            .sum();
        covered == SLOTS
            && views.iter().all(|view| {
                info_field(&view.info, "cluster_state") == Some("ok")
                    && info_field(&view.info, "cluster_slots_ok") == Some("16384")
                    && view.map == first.map
            })
    }

    /// `CLUSTER INFO` and `CLUSTER NODES` of every live node, or `None` if one does not answer.
    fn views(&self) -> Option<Vec<View>> {
        self.live()
            .map(|n| {
                let port = n.node.port;
                let info = try_cli(port, &["CLUSTER", "INFO"]).ok()?;
                let text = try_cli(port, &["CLUSTER", "NODES"]).ok()?;
                let entries = parse_cluster_nodes(&text);
                Some(View {
                    port,
                    info,
                    map: slot_map(&entries),
                    entries,
                    text,
                })
            })
            .collect()
    }

    fn live(&self) -> impl Iterator<Item = &ClusterNode> {
        self.nodes.iter().filter(|n| n.node.is_alive())
    }

    fn any_live_port(&self) -> u16 {
        self.live().next().expect("a live node").node.port
    }

    fn node(&self, port: u16) -> &ClusterNode {
        self.nodes
            .iter()
            .find(|n| n.node.port == port)
            .unwrap_or_else(|| panic!("no node of this cluster on port {port}"))
    }

    /// Every node's `CLUSTER NODES` and log tail, for a panic.
    fn diagnostics(&self) -> String {
        self.nodes
            .iter()
            .map(|n| {
                let view = if n.node.is_alive() {
                    try_cli(n.node.port, &["CLUSTER", "NODES"]).unwrap_or_else(|e| e)
                } else {
                    "(killed)".to_owned()
                };
                format!(
                    "=== 127.0.0.1:{} {}\nCLUSTER NODES:\n{view}\n{}",
                    n.node.port,
                    n.id,
                    n.node.log_tail()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `127.0.0.1:<port>` of the primaries the cluster was created with (still these after one
    /// is killed: a client is given its seeds once).
    pub(crate) fn seeds(&self) -> Vec<String> {
        self.seeds
            .iter()
            .map(|port| format!("127.0.0.1:{port}"))
            .collect()
    }

    /// `redis+cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,...` of the [seeds](Self::seeds): the
    /// scheme the shared breaker's store accepts for a cluster.
    pub(crate) fn url(&self) -> String {
        format!("redis+cluster://{}", self.seeds().join(","))
    }

    /// The slot of `key` (`CLUSTER KEYSLOT`: the hash of its `{tag}` if it has one).
    pub(crate) fn slot_of(&self, key: &str) -> u16 {
        cli(self.any_live_port(), &["CLUSTER", "KEYSLOT", key])
            .parse()
            .expect("CLUSTER KEYSLOT answers a number")
    }

    /// The port of the primary that serves `slot`, as every live primary's `CLUSTER NODES`
    /// agrees (waiting until they do). Right after a kill that is still the killed node, until
    /// the cluster fails over: see [`wait_for_failover`](Self::wait_for_failover).
    pub(crate) fn primary_of_slot(&self, slot: u16) -> u16 {
        let primaries = self.primaries();
        wait_for(
            &format!("the live primaries {primaries:?} to agree on slot {slot}'s primary"),
            || self.diagnostics(),
            || {
                let owners: BTreeSet<u16> = primaries
                    .iter()
                    .map(|&p| {
                        let text = try_cli(p, &["CLUSTER", "NODES"]).ok()?;
                        owner(&slot_map(&parse_cluster_nodes(&text)), slot)
                    })
                    .collect::<Option<_>>()?;
                match owners.len() {
                    1 => owners.first().copied(),
                    _ => None,
                }
            },
        )
    }

    /// The ports of the live nodes that are primaries (`role:master`), in the order started.
    pub(crate) fn primaries(&self) -> Vec<u16> {
        self.live()
            .map(|n| n.node.port)
            .filter(|&port| replication(port).is_some_and(|r| r.primary))
            .collect()
    }

    /// The ports of the live nodes that replicate `primary_port` (by their own `INFO
    /// replication`), in the order started.
    pub(crate) fn replicas_of(&self, primary_port: u16) -> Vec<u16> {
        self.live()
            .map(|n| n.node.port)
            .filter(|&port| {
                replication(port)
                    .is_some_and(|r| !r.primary && r.primary_port == Some(primary_port))
            })
            .collect()
    }

    /// SIGKILLs the node on `port`. It stays dead (its directory goes when the cluster drops).
    pub(crate) fn kill(&mut self, port: u16) {
        let index = self
            .nodes
            .iter()
            .position(|n| n.node.port == port)
            .unwrap_or_else(|| panic!("no node of this cluster on port {port}"));
        self.nodes[index].node.kill();
    }

    /// Waits until `slot` is served by a live node other than `dead_port` that answers
    /// `role:master`, and every live node says `cluster_state:ok` with every slot served and
    /// gives the same slot map; returns that node's port.
    pub(crate) fn wait_for_failover(&self, slot: u16, dead_port: u16) -> u16 {
        wait_for(
            &format!(
                "slot {slot} to fail over from 127.0.0.1:{dead_port} to a live primary, agreed \
                 by every live node"
            ),
            || self.diagnostics(),
            || {
                let views = self.views()?;
                let port = owner(&views.first()?.map, slot)?;
                let serves = port != dead_port
                    && self.live().any(|n| n.node.port == port)
                    && replication(port).is_some_and(|r| r.primary);
                (serves && Self::agreed(&views)).then_some(port)
            },
        )
    }

    /// The first step of moving `slot` from the primary on `from_port` to the one on
    /// `to_port`: `CLUSTER SETSLOT <slot> IMPORTING <from>` on the target, then `MIGRATING
    /// <to>` on the source. From now on the source answers `ASK` for a key of the slot it does
    /// not hold, and the target serves such a key to a client that sent `ASKING`.
    pub(crate) fn begin_migration(&self, slot: u16, from_port: u16, to_port: u16) {
        let slot = slot.to_string();
        let from = &self.node(from_port).id;
        let to = &self.node(to_port).id;
        cli(to_port, &["CLUSTER", "SETSLOT", &slot, "IMPORTING", from]);
        cli(from_port, &["CLUSTER", "SETSLOT", &slot, "MIGRATING", to]);
    }

    /// Moves the keys of `slot` the source still holds to the target (`CLUSTER GETKEYSINSLOT`,
    /// 100 at a time, each batch one `MIGRATE ... KEYS`); returns how many moved. May be called
    /// again, between a test's requests. (A key with a newline in it is not handled: redis-cli
    /// prints one key a line.)
    pub(crate) fn migrate_keys(&self, slot: u16, from_port: u16, to_port: u16) -> usize {
        let slot = slot.to_string();
        let to = to_port.to_string();
        let mut moved = 0;
        loop {
            let listed = cli(from_port, &["CLUSTER", "GETKEYSINSLOT", &slot, "100"]);
            let keys: Vec<&str> = listed.lines().filter(|k| !k.is_empty()).collect();
            if keys.is_empty() {
                return moved;
            }
            let mut args = vec!["MIGRATE", "127.0.0.1", &to, "", "0", "5000", "KEYS"];
            args.extend(&keys);
            // NOKEY: they expired or were deleted in between; none moved.
            if cli(from_port, &args) != "NOKEY" {
                moved += keys.len();
            }
        }
    }

    /// The last step: moves any key left (the source refuses to give up a slot it holds keys
    /// of), then `CLUSTER SETSLOT <slot> NODE <to>` on the target, the source and every other
    /// live primary, in that order, and waits until every live node gives the slot to the
    /// target and none marks it as moving.
    pub(crate) fn finish_migration(&self, slot: u16, to_port: u16) {
        let from_port = self.primary_of_slot(slot);
        let mut order = vec![to_port];
        if from_port != to_port {
            self.migrate_keys(slot, from_port, to_port);
            order.push(from_port);
        }
        order.extend(
            self.primaries()
                .into_iter()
                .filter(|&p| p != to_port && p != from_port),
        );
        let slot_text = slot.to_string();
        let to = &self.node(to_port).id;
        for port in order {
            cli(port, &["CLUSTER", "SETSLOT", &slot_text, "NODE", to]);
        }
        let moving = format!("[{slot}-");
        wait_for(
            &format!("every live node to give slot {slot} to 127.0.0.1:{to_port}"),
            || self.diagnostics(),
            || {
                let views = self.views()?;
                let done = views.iter().all(|view| {
                    owner(&view.map, slot) == Some(to_port) && !view.text.contains(&moving)
                });
                (done && Self::agreed(&views)).then_some(())
            },
        );
    }

    /// Moves `slot`, and its keys, from its current primary to the one on `to_port`:
    /// [`begin_migration`](Self::begin_migration), [`migrate_keys`](Self::migrate_keys),
    /// [`finish_migration`](Self::finish_migration).
    pub(crate) fn reshard(&self, slot: u16, to_port: u16) {
        let from_port = self.primary_of_slot(slot);
        if from_port == to_port {
            return;
        }
        self.begin_migration(slot, from_port, to_port);
        self.migrate_keys(slot, from_port, to_port);
        self.finish_migration(slot, to_port);
    }

    /// Command name → calls on the node on `port`, since it started or the last
    /// [`reset_stats`](Self::reset_stats): `evalsha`, `evalsha_ro`, `get`, `script|load`...
    /// (a command never called is absent).
    pub(crate) fn commandstats(&self, port: u16) -> BTreeMap<String, u64> {
        commandstats(port)
    }

    /// `CONFIG RESETSTAT` on the node on `port`.
    pub(crate) fn reset_stats(&self, port: u16) {
        reset_stats(port);
    }

    /// The write `args` on the primary on `port`, then `WAIT 1 5000` on the same connection:
    /// panics on an error reply or if no replica has it after 5 s. What makes a write survive a
    /// kill of its primary that follows (a `WAIT` of another connection does not wait for it).
    pub(crate) fn write_replicated(&self, port: u16, args: &[&str]) {
        write_replicated(port, args);
    }

    /// `redis-cli -p <port> <args>`: its output, trimmed; panics with what it said if it fails
    /// or Redis answers an error. `-c` as the first arg follows `MOVED` and `ASK`.
    pub(crate) fn cli(&self, port: u16, args: &[&str]) -> String {
        cli(port, args)
    }
}

// ---------------------------------------------------------------------------------------------
// Relay

/// A TCP relay on 127.0.0.1 between a replica and its primary, for a test that needs a
/// failover to lose acknowledged writes: the replica replicates from the relay's port
/// (`--replicaof 127.0.0.1 <relay>`), and each connection it opens there is forwarded to the
/// primary over one of the relay's own, two threads a connection (one each way).
///
/// Once [held](ReplicaHold::hold), what the primary sends the replica (its replication stream:
/// the writes it acknowledged, its pings) is still read from the primary, but dropped, never
/// forwarded, not even later: the hold is never lifted. Both connections stay open, so the
/// replica's link stays up (until its `repl-timeout`, 60 s without a byte) and Sentinel still
/// judges it fit to be promoted. What the replica sends its primary (`REPLCONF ACK <offset>`
/// every second) keeps flowing, so the primary's view stays true: the replica online, its
/// acknowledged offset stuck where the hold left it (and a `WAIT` for a later write counts it
/// out). Reading the held side, rather than leaving its bytes in the socket, is how the relay
/// sees the primary die: the read ends, and the relay closes the replica's connection, as a
/// direct link would be closed; a connection the replica opens while held is closed at once.
///
/// Dropped: its listener and every connection are closed and its threads joined.
struct Relay {
    port: u16,
    shared: Arc<RelayShared>,
    acceptor: Option<JoinHandle<()>>,
}

/// What a relay's threads and its [`ReplicaHold`] share.
struct RelayShared {
    /// Where the primary listens.
    primary_port: u16,
    /// Whether held. A forwarded write to the replica is made with this lock held, so that
    /// [`ReplicaHold::hold`] waits for one in progress, and no byte read after it is forwarded.
    held: Mutex<bool>,
    /// Bytes read from the primary while held, and dropped.
    withheld: AtomicU64,
    /// Connections the replica opened (those closed at once while held included).
    accepted: AtomicU64,
    /// Set when the relay drops: the acceptor ends.
    stop: AtomicBool,
    /// A clone of every socket of every connection, so that a drop can shut them down (which
    /// ends the threads blocked reading them).
    sockets: Mutex<Vec<TcpStream>>,
    /// The threads forwarding, joined on drop.
    pumps: Mutex<Vec<JoinHandle<()>>>,
}

impl RelayShared {
    fn is_held(&self) -> bool {
        *self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forwards a connection the replica opened to a new one to the primary; closes it if held
    /// or if the primary does not answer (it was killed).
    fn relay(self: &Arc<Self>, replica: TcpStream) {
        self.accepted.fetch_add(1, Ordering::SeqCst);
        if self.is_held() {
            return;
        }
        let address = (std::net::Ipv4Addr::LOCALHOST, self.primary_port).into();
        let Ok(primary) = TcpStream::connect_timeout(&address, Duration::from_secs(1)) else {
            return;
        };
        let clones = (|| {
            for socket in [&replica, &primary] {
                socket.set_nodelay(true)?;
                // A write blocked that long (a peer that stopped reading) ends the connection,
                // rather than a hold() waiting for it.
                socket.set_write_timeout(Some(WAIT))?;
            }
            Ok::<_, std::io::Error>([
                replica.try_clone()?,
                primary.try_clone()?,
                replica.try_clone()?,
                primary.try_clone()?,
            ])
        })();
        let Ok([replica_in, primary_out, replica_kept, primary_kept]) = clones else {
            return;
        };
        self.sockets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend([replica_kept, primary_kept]);
        let down = Arc::clone(self);
        let up = Arc::clone(self);
        let threads = [
            std::thread::spawn(move || down.pump(primary, replica, true)),
            std::thread::spawn(move || up.pump(replica_in, primary_out, false)),
        ];
        self.pumps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(threads);
    }

    /// Copies `from` to `to` until either ends, then shuts both down (so that the other
    /// direction ends too). `from_primary`: the direction a hold stops, whose bytes read while
    /// held are counted and dropped.
    fn pump(&self, mut from: TcpStream, mut to: TcpStream, from_primary: bool) {
        let mut buffer = vec![0; 64 * 1024];
        loop {
            let n = match from.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            if from_primary {
                let held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
                if *held {
                    self.withheld.fetch_add(n as u64, Ordering::SeqCst);
                    continue;
                }
                if to.write_all(&buffer[..n]).is_err() {
                    break;
                }
            } else if to.write_all(&buffer[..n]).is_err() {
                break;
            }
        }
        let _ = from.shutdown(Shutdown::Both);
        let _ = to.shutdown(Shutdown::Both);
    }
}

impl Relay {
    /// Listens on a free port of 127.0.0.1 (another if that one was taken in between) and
    /// forwards every connection made there to the primary on `primary_port`, not held.
    fn start(primary_port: u16) -> Relay {
        let listener = (0..5)
            .find_map(|_| TcpListener::bind(("127.0.0.1", free_port(false))).ok())
            .expect("the relay found no free port in 5 tries");
        let port = listener.local_addr().expect("a bound listener").port();
        let shared = Arc::new(RelayShared {
            primary_port,
            held: Mutex::new(false),
            withheld: AtomicU64::new(0),
            accepted: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            sockets: Mutex::new(Vec::new()),
            pumps: Mutex::new(Vec::new()),
        });
        let accepting = Arc::clone(&shared);
        let acceptor = std::thread::spawn(move || {
            for replica in listener.incoming() {
                if accepting.stop.load(Ordering::SeqCst) {
                    return;
                }
                if let Ok(replica) = replica {
                    accepting.relay(replica);
                }
            }
        });
        Relay {
            port,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// A handle on its hold, for a test.
    fn hold_handle(&self) -> ReplicaHold {
        ReplicaHold {
            shared: Arc::clone(&self.shared),
            port: self.port,
        }
    }

    /// One line on it, for a panic.
    fn diagnostics(&self) -> String {
        let shared = &self.shared;
        format!(
            "=== relay 127.0.0.1:{} -> 127.0.0.1:{}: {}, {} bytes withheld, {} connections \
             accepted\n",
            self.port,
            shared.primary_port,
            if shared.is_held() {
                "held"
            } else {
                "forwarding"
            },
            shared.withheld.load(Ordering::SeqCst),
            shared.accepted.load(Ordering::SeqCst)
        )
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wakes the acceptor, which then sees `stop`.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        let sockets = std::mem::take(
            &mut *self
                .shared
                .sockets
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for socket in sockets {
            let _ = socket.shutdown(Shutdown::Both);
        }
        let pumps = std::mem::take(
            &mut *self
                .shared
                .pumps
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for pump in pumps {
            let _ = pump.join();
        }
    }
}

/// The hold on the [`Relay`] between a [`RedisSentinels::start_with_held_replica`] set's
/// primary and its replica: from [`hold`](Self::hold) on, nothing the primary sends reaches
/// the replica, while the replica stays connected and fit to be promoted. The relay belongs to
/// the set (it stops when the set drops); this handle only holds it.
pub(crate) struct ReplicaHold {
    shared: Arc<RelayShared>,
    port: u16,
}

impl ReplicaHold {
    /// Holds the relay, for good: no byte of what the primary sends after this returns (a
    /// write it acknowledges, a ping) reaches the replica, now or later. A forwarding in
    /// progress finishes first; the replica may still apply bytes forwarded before.
    pub(crate) fn hold(&self) {
        *self
            .shared
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = true;
    }

    /// Whether [`hold`](Self::hold) was called.
    pub(crate) fn is_held(&self) -> bool {
        self.shared.is_held()
    }

    /// How many bytes the relay has read from the primary since the hold, and dropped: once
    /// the replica's offset plus these reach the primary's offset after a write, the relay has
    /// read that write, and it can never reach the replica.
    pub(crate) fn withheld_bytes(&self) -> u64 {
        self.shared.withheld.load(Ordering::SeqCst)
    }

    /// The relay's port: the replica's `master_port`.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }
}

// ---------------------------------------------------------------------------------------------
// Sentinel

/// A running primary, its replica, and three sentinels monitoring them as `gt-primary`
/// (quorum 2), all on 127.0.0.1, with every sentinel aware of the replica and of the others
/// before a test sees them.
pub(crate) struct RedisSentinels {
    /// The primary started, then its replica.
    data: Vec<Node>,
    sentinels: Vec<Node>,
    /// Between the replica and the primary, in a set of
    /// [`start_with_held_replica`](RedisSentinels::start_with_held_replica). Declared last:
    /// dropped once the servers are dead.
    relay: Option<Relay>,
}

/// The flat `key value` lines of `SENTINEL REPLICAS` / `SENTINEL SENTINELS`, one map per entry
/// (each starts with `name`).
fn sentinel_entries(text: &str) -> Vec<BTreeMap<String, String>> {
    flat_entries(text, "name")
}

/// The flat `key value` lines of a list of maps as redis-cli prints it (`SENTINEL REPLICAS`,
/// `ACL LOG`), one map per entry, each starting with the key `first`.
fn flat_entries(text: &str, first: &str) -> Vec<BTreeMap<String, String>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut entries: Vec<BTreeMap<String, String>> = Vec::new();
    for pair in lines.chunks(2) {
        let [key, value] = pair else { break };
        if *key == first || entries.is_empty() {
            entries.push(BTreeMap::new());
        }
        let entry = entries.last_mut().expect("one");
        entry.insert((*key).to_owned(), (*value).to_owned());
    }
    entries
}

impl RedisSentinels {
    /// Starts a primary, a replica of it (`--replicaof`, `--replica-priority 100`), waits until
    /// the replica is in sync, then starts three sentinels (`redis-server <conf> --sentinel`,
    /// each with its own writable `sentinel.conf`: down after 500 ms, failover timeout 2 s) and
    /// waits until each knows the replica and the two other sentinels, without which none
    /// could fail over; or `None` if the tools are missing and not required (see the module):
    /// `let Some(sentinels) = RedisSentinels::start() else { return };`
    ///
    /// The sentinels start after the replica is in sync: a sentinel learns of replicas from
    /// the primary's `INFO`, asked at once and then every 10 s.
    pub(crate) fn start() -> Option<RedisSentinels> {
        Self::launch(false)
    }

    /// The set of [`start`](Self::start), except that the replica replicates through a
    /// [`Relay`] (`--replicaof 127.0.0.1 <relay>`), which the returned [`ReplicaHold`] can
    /// hold: after [`hold`](ReplicaHold::hold) the primary acknowledges writes the replica
    /// never gets, and a [`kill_primary`](Self::kill_primary) then promotes the replica without
    /// them. The sentinels know the replica by its own port, which it gives its primary
    /// (`REPLCONF listening-port`), and the primary lists in its `INFO`; they log in to the
    /// data servers as [`SENTINEL_USER`], which may promote the replica but not point it at
    /// the primary directly (see [`sentinel_user`]: Sentinel would, 10 s after it found it).
    /// Hold for less than the replica's `repl-timeout` (60 s), after which it drops a link
    /// that sends nothing. The same timeouts as [`start`](Self::start), and one failover (see
    /// [`failover`](Self::failover)).
    /// `let Some((sentinels, hold)) = RedisSentinels::start_with_held_replica() else { return };`
    pub(crate) fn start_with_held_replica() -> Option<(RedisSentinels, ReplicaHold)> {
        let set = Self::launch(true)?;
        let hold = set
            .relay
            .as_ref()
            .expect("launched with a relay")
            .hold_handle();
        Some((set, hold))
    }

    /// [`start`](Self::start), the replica through a [`Relay`] if `relayed`.
    fn launch(relayed: bool) -> Option<RedisSentinels> {
        if !tools_present() {
            return None;
        }
        let primary = Node::spawn("gt-sentinel", false, |port, dir| {
            let mut command = data_server(port, dir);
            if relayed {
                sentinel_user(&mut command, true);
            }
            command
        });
        let relay = relayed.then(|| Relay::start(primary.port));
        let upstream = relay.as_ref().map_or(primary.port, |r| r.port);
        let upstream_text = upstream.to_string();
        let replica = Node::spawn("gt-sentinel", false, |port, dir| {
            let mut command = data_server(port, dir);
            command
                .args(["--replicaof", "127.0.0.1", &upstream_text])
                .args(["--replica-priority", "100"]);
            if relayed {
                sentinel_user(&mut command, false);
            }
            command
        });
        let mut set = RedisSentinels {
            data: vec![primary, replica],
            sentinels: Vec::new(),
            relay,
        };
        let mut proof = SyncProof::default();
        let (primary_port, replica_port) = (set.data[0].port, set.data[1].port);
        wait_for(
            "the replica to be in sync with the primary",
            || set.diagnostics(),
            || {
                proof
                    .in_sync_through(primary_port, upstream, replica_port)
                    .then_some(())
            },
        );
        for _ in 0..3 {
            let sentinel = Node::spawn("gt-sentinel", false, |port, dir| {
                let conf = dir.join("sentinel.conf");
                let mut text = format!(
                    "port {port}\n\
                     bind 127.0.0.1\n\
                     sentinel resolve-hostnames no\n\
                     sentinel monitor {SERVICE} 127.0.0.1 {primary_port} 2\n\
                     sentinel down-after-milliseconds {SERVICE} 500\n\
                     sentinel failover-timeout {SERVICE} 2000\n\
                     sentinel parallel-syncs {SERVICE} 1\n\
                     dir {}\n",
                    dir.display()
                );
                if relayed {
                    text.push_str(&format!(
                        "sentinel auth-user {SERVICE} {SENTINEL_USER}\n\
                         sentinel auth-pass {SERVICE} {SENTINEL_PASS}\n"
                    ));
                }
                std::fs::write(&conf, text).expect("sentinel.conf");
                let mut command = Command::new("redis-server");
                command.arg(&conf).arg("--sentinel");
                command
            });
            set.sentinels.push(sentinel);
        }
        let replica = format!("127.0.0.1:{replica_port}");
        wait_for(
            "every sentinel to know the replica and the two other sentinels",
            || set.diagnostics(),
            || set.sentinels_know(&replica).then_some(()),
        );
        Some(set)
    }

    /// Whether every live sentinel lists `replica` (not down) and two other sentinels.
    fn sentinels_know(&self, replica: &str) -> bool {
        self.live_sentinels().all(|port| {
            let Ok(replicas) = try_cli(port, &["SENTINEL", "REPLICAS", SERVICE]) else {
                return false;
            };
            let known = sentinel_entries(&replicas).iter().any(|e| {
                e.get("name").is_some_and(|name| name == replica)
                    && e.get("flags")
                        .is_some_and(|f| !f.contains("s_down") && !f.contains("disconnected"))
            });
            let others = try_cli(port, &["SENTINEL", "SENTINELS", SERVICE])
                .is_ok_and(|text| sentinel_entries(&text).len() == 2);
            known && others
        })
    }

    fn live_sentinels(&self) -> impl Iterator<Item = u16> + '_ {
        self.sentinels
            .iter()
            .filter(|n| n.is_alive())
            .map(|n| n.port)
    }

    /// What each live sentinel gives as the primary's port (`None`: no answer).
    fn votes(&self) -> Vec<Option<u16>> {
        self.live_sentinels()
            .map(|port| {
                try_cli(port, &["SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE])
                    .ok()?
                    .lines()
                    .last()?
                    .parse()
                    .ok()
            })
            .collect()
    }

    /// The port every live sentinel gives, if they all give the same one.
    fn unanimous(&self) -> Option<u16> {
        let votes = self.votes();
        let first = (*votes.first()?)?;
        votes.iter().all(|&v| v == Some(first)).then_some(first)
    }

    /// What each server says of its role, what each sentinel says, and every log tail, for a
    /// panic.
    fn diagnostics(&self) -> String {
        let mut text = String::new();
        if let Some(relay) = &self.relay {
            text.push_str(&relay.diagnostics());
        }
        for node in &self.data {
            let role = match replication(node.port) {
                None => "no answer".to_owned(),
                Some(r) if r.primary => "role:master".to_owned(),
                Some(r) => format!(
                    "role:slave of {:?}, link {}",
                    r.primary_port,
                    if r.link_up { "up" } else { "down" }
                ),
            };
            text.push_str(&format!(
                "=== data 127.0.0.1:{}: {role}\n{}\n",
                node.port,
                node.log_tail()
            ));
        }
        for node in &self.sentinels {
            let ask = |args: &[&str]| try_cli(node.port, args).unwrap_or_else(|e| e);
            text.push_str(&format!(
                "=== sentinel 127.0.0.1:{}\nGET-MASTER-ADDR-BY-NAME: {}\nREPLICAS:\n{}\n\
                 SENTINELS:\n{}\n{}\n",
                node.port,
                ask(&["SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE]).replace('\n', ":"),
                ask(&["SENTINEL", "REPLICAS", SERVICE]),
                ask(&["SENTINEL", "SENTINELS", SERVICE]),
                node.log_tail()
            ));
        }
        text
    }

    /// `gt-primary`: the name the sentinels monitor the primary by.
    pub(crate) fn service(&self) -> &str {
        SERVICE
    }

    /// `127.0.0.1:<port>` of each sentinel.
    pub(crate) fn sentinel_addrs(&self) -> Vec<String> {
        self.sentinels
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect()
    }

    /// `redis+sentinel://127.0.0.1:<s1>,127.0.0.1:<s2>,127.0.0.1:<s3>/gt-primary`: the scheme
    /// the shared breaker's store accepts for a primary found through Sentinel.
    pub(crate) fn url(&self) -> String {
        format!(
            "redis+sentinel://{}/{}",
            self.sentinel_addrs().join(","),
            self.service()
        )
    }

    /// The ports of the two data servers: the primary started, then its replica (whatever
    /// their roles are now).
    pub(crate) fn data_ports(&self) -> Vec<u16> {
        self.data.iter().map(|n| n.port).collect()
    }

    /// The primary's port, as a majority of the sentinels give it (`SENTINEL
    /// GET-MASTER-ADDR-BY-NAME`; waiting until a majority agrees).
    pub(crate) fn primary_port(&self) -> u16 {
        wait_for(
            "a majority of the sentinels to agree on the primary",
            || self.diagnostics(),
            || {
                let votes = self.votes();
                let majority = self.sentinels.len() / 2 + 1;
                votes
                    .iter()
                    .flatten()
                    .find(|&&port| votes.iter().filter(|&&v| v == Some(port)).count() >= majority)
                    .copied()
            },
        )
    }

    /// `SENTINEL FAILOVER gt-primary` (asked again while the sentinel refuses, e.g. it has not
    /// yet judged the replica fit), then waits until every sentinel gives the other server as
    /// the primary, it answers `role:master`, the old primary has become its replica and is in
    /// sync (see [`SyncProof`]), and every sentinel lists the old primary as a replica: so that
    /// a second failover can follow, and a write to the new primary then reaches the old one.
    /// Returns the new primary's port.
    ///
    /// The sentinels switch within about a second; then the old primary, which still answers
    /// `role:master` (no one told it otherwise), is made a replica by a sentinel only once it
    /// has reported that role for 8 s (Sentinel's fixed `SENTINEL_PUBLISH_PERIOD * 4`, not
    /// configurable): this returns after about 10 s.
    ///
    /// In a [`start_with_held_replica`](Self::start_with_held_replica) set, one failover only,
    /// the replica's promotion: the sentinels may not re-point it (see [`sentinel_user`]), so
    /// a failover back would never end.
    pub(crate) fn failover(&self) -> u16 {
        let old = self.primary_port();
        let new = self
            .data_ports()
            .into_iter()
            .find(|&p| p != old)
            .expect("the other data server");
        let asker = self.live_sentinels().next().expect("a live sentinel");
        let old_address = format!("127.0.0.1:{old}");
        let mut accepted = false;
        let mut proof = SyncProof::default();
        wait_for(
            &format!(
                "the sentinels to fail over from 127.0.0.1:{old} to 127.0.0.1:{new}, and \
                 127.0.0.1:{old} to become its replica, in sync"
            ),
            || self.diagnostics(),
            || {
                if !accepted {
                    accepted = try_cli(asker, &["SENTINEL", "FAILOVER", SERVICE]).is_ok();
                    return None;
                }
                let switched = self.unanimous() == Some(new)
                    && replication(new).is_some_and(|r| r.primary)
                    && self.sentinels_know(&old_address);
                if !switched {
                    return None;
                }
                proof.in_sync(new, old).then_some(new)
            },
        )
    }

    /// SIGKILLs the current primary (it stays dead) and waits until every live sentinel gives
    /// another server as the primary and it answers `role:master`; returns its port. With two
    /// data servers that is the other one, which then has no replica left.
    pub(crate) fn kill_primary(&mut self) -> u16 {
        let old = self.kill_primary_now();
        self.wait_promoted(old)
    }

    /// SIGKILL the primary and return at once, with its port: for a test that looks at the
    /// moment before the sentinels act. [`wait_promoted`](Self::wait_promoted) waits for the
    /// rest.
    pub(crate) fn kill_primary_now(&mut self) -> u16 {
        let old = self.primary_port();
        self.data
            .iter_mut()
            .find(|n| n.port == old)
            .expect("the primary is one of the data servers")
            .kill();
        old
    }

    /// Waits until the sentinels agree on a live primary other than the killed `old`; its port.
    pub(crate) fn wait_promoted(&self, old: u16) -> u16 {
        wait_for(
            &format!("the sentinels to promote another server than the killed 127.0.0.1:{old}"),
            || self.diagnostics(),
            || {
                let new = self.unanimous()?;
                let alive = self.data.iter().any(|n| n.port == new && n.is_alive());
                (alive && replication(new).is_some_and(|r| r.primary)).then_some(new)
            },
        )
    }

    /// Command name → calls on the server on `port` (see [`RedisCluster::commandstats`]).
    pub(crate) fn commandstats(&self, port: u16) -> BTreeMap<String, u64> {
        commandstats(port)
    }

    /// `CONFIG RESETSTAT` on the server on `port`.
    pub(crate) fn reset_stats(&self, port: u16) {
        reset_stats(port);
    }

    /// The write `args` on the primary on `port`, then `WAIT 1 5000` on the same connection:
    /// panics on an error reply or if no replica has it after 5 s. What makes a write survive a
    /// kill of its primary that follows (a `WAIT` of another connection does not wait for it).
    pub(crate) fn write_replicated(&self, port: u16, args: &[&str]) {
        write_replicated(port, args);
    }

    /// The offset the primary on `primary` says its replica on `replica` has acknowledged
    /// (`REPLCONF ACK`), if it lists that replica online: behind a held [`Relay`], stuck at
    /// most where the hold left it.
    pub(crate) fn acked_offset(&self, primary: u16, replica: u16) -> Option<u64> {
        replica_offsets(primary, replica).and_then(|(_, acked)| acked)
    }

    /// Waits until the [`Relay`] of a [`start_with_held_replica`](Self::start_with_held_replica)
    /// set has read the primary's stream up to `offset` (the primary's
    /// [`repl_offset`](Self::repl_offset) after a write) while held: the replica's offset plus
    /// the bytes the relay dropped reach it. The stream is read in order, so the write's bytes
    /// are among those dropped, which the relay never forwards; the primary's pings and the
    /// sentinels' hellos keep the stream moving, so this ends. Panics if the set has no relay,
    /// or the relay is not held.
    pub(crate) fn wait_withheld(&self, offset: u64) {
        let relay = self.relay.as_ref().expect("a set with a held replica");
        assert!(relay.shared.is_held(), "the relay is not held");
        let replica = self.data[1].port;
        wait_for(
            &format!("the held relay to have read the primary's stream up to offset {offset}"),
            || self.diagnostics(),
            || {
                let applied = self.repl_offset(replica);
                (applied + relay.shared.withheld.load(Ordering::SeqCst) >= offset).then_some(())
            },
        );
    }

    /// Waits until a sentinel has tried to point the replica of a
    /// [`start_with_held_replica`](Self::start_with_held_replica) set at the primary directly
    /// (`+fix-slave-config`: Sentinel does so at its first `INFO` of the replica 10 s after it
    /// found it, and every 10 s after), and been refused (see [`sentinel_user`]): the replica's
    /// `ACL LOG` lists a `slaveof` or `replicaof` of [`SENTINEL_USER`]. For a test that proves
    /// the hold outlasts that, rather than hoping it ends before. About 10 s after the start.
    pub(crate) fn wait_repoint_refused(&self) {
        assert!(self.relay.is_some(), "a set with a held replica");
        let replica = self.data[1].port;
        wait_for(
            &format!(
                "a sentinel to be refused a REPLICAOF of the replica 127.0.0.1:{replica} (its \
                 ACL LOG)"
            ),
            || {
                let log = try_cli(replica, &["ACL", "LOG"]).unwrap_or_else(|e| e);
                format!(
                    "ACL LOG of 127.0.0.1:{replica}:\n{log}\n{}",
                    self.diagnostics()
                )
            },
            || {
                let log = try_cli(replica, &["ACL", "LOG"]).ok()?;
                let refused = flat_entries(&log, "count").iter().any(|entry| {
                    entry
                        .get("username")
                        .is_some_and(|user| user == SENTINEL_USER)
                        && entry
                            .get("object")
                            .is_some_and(|command| command == "slaveof" || command == "replicaof")
                });
                refused.then_some(())
            },
        );
    }

    /// The `master_repl_offset` of the data server on `port`: on a primary, where its
    /// replication stream has reached (the bytes of every write it propagated, and of its
    /// pings); on a replica, how much of its primary's stream it has applied. A replica that
    /// lacks a write has an offset below the primary's offset right after it.
    pub(crate) fn repl_offset(&self, port: u16) -> u64 {
        let info = cli(port, &["INFO", "replication"]);
        info_field(&info, "master_repl_offset")
            .and_then(|offset| offset.parse().ok())
            .unwrap_or_else(|| panic!("no master_repl_offset in 127.0.0.1:{port}'s INFO\n{info}"))
    }

    /// `redis-cli -p <port> <args>` (a data server's or a sentinel's): its output, trimmed;
    /// panics with what it said if it fails or Redis answers an error.
    pub(crate) fn cli(&self, port: u16, args: &[&str]) -> String {
        cli(port, args)
    }
}
