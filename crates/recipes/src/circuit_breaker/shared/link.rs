//! The connection to Redis, in each topology: one node (a `ConnectionManager`, which reconnects
//! to it), a Cluster (redis-rs's cluster client: the slot map, MOVED and ASK, never a replica)
//! or the primary behind Sentinel (found by service name, and found again after a failover).
//! The store sends every command through [`Link::query`]; nothing here waits without a bound
//! (the callers bound every round trip).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::{
    AsyncConnectionConfig, Cmd, ConnectionAddr, ConnectionInfo, ErrorKind, IntoConnectionInfo,
    RedisError, RedisResult, ServerErrorKind, Value,
};

use super::config::{Topology, split_userinfo};
use super::error::SharedError;

/// What bounds the link's own waits, from the breaker's settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    pub(crate) connect: Duration,
    pub(crate) response: Duration,
    /// The longest background round trip (connect + response): nothing waits longer.
    pub(crate) round_trip: Duration,
    /// The retries' longest wait (the refresh interval): a retry never waits past the next
    /// round.
    pub(crate) retry_wait: Duration,
}

/// A connection to the breaker's Redis, whatever the topology; cloning is cheap.
#[derive(Clone)]
pub(crate) enum Link {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
    Sentinel(Arc<Sentinel>),
}

impl Link {
    /// Connects as `url` says. One node: lazily (a Redis that is down now is not an error:
    /// the breaker starts on local state). A Cluster or Sentinel: the slot map or the primary's
    /// address is learnt now, within the bounds, and a seed list or sentinel list none of
    /// whose addresses answers is refused ([`SharedError::Unreachable`]): the breaker could
    /// not find anything to share through, and every address of a list being down at once is
    /// far more often a wrong list than an outage. Behind Sentinel, each primary the link
    /// moves to is given `scripts` (`SCRIPT LOAD`) before its first command.
    pub(crate) async fn connect(
        url: &str,
        bounds: Bounds,
        scripts: &'static [&'static str],
    ) -> Result<Link, SharedError> {
        let topology = Topology::of_url(url)?;
        // The user and password, where a cluster or sentinel URL has them (one node's URL is
        // redis-rs's to read).
        let (userinfo, _) = split_userinfo(url.split_once("://").map_or("", |(_, rest)| rest));
        let invalid = |error: RedisError| SharedError::InvalidUrl {
            url: topology.to_string(),
            reason: error.to_string(),
        };
        let unreachable = |reason: String| SharedError::Unreachable {
            topology: topology.to_string(),
            reason,
        };
        match &topology {
            Topology::Single { .. } => {
                let client = redis::Client::open(url).map_err(invalid)?;
                let manager = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(bounds.connect))
                    .set_response_timeout(Some(bounds.response))
                    .set_number_of_retries(1)
                    .set_max_delay(bounds.retry_wait);
                let conn =
                    ConnectionManager::new_lazy_with_config(client, manager).map_err(invalid)?;
                Ok(Link::Single(conn))
            }
            Topology::Cluster { seeds } => {
                let nodes: Vec<String> =
                    seeds.iter().map(|seed| node_url(userinfo, seed)).collect();
                let retry_wait = millis(bounds.retry_wait).max(2);
                let client = ClusterClientBuilder::new(nodes)
                    // Enough to follow a MOVED and then an ASK during a reshard, or a
                    // TRYAGAIN; not the default 16 retries waiting up to minutes. Each waits
                    // 1 ms to the refresh interval, and the whole request is bounded by the
                    // round trip besides (a claim by its own, shorter timeout).
                    .retries(3)
                    .min_retry_wait(1)
                    .max_retry_wait(retry_wait)
                    .retry_wait_formula(10, 2)
                    .connection_timeout(bounds.connect)
                    .response_timeout(bounds.response)
                    .overall_response_timeout(Some(bounds.round_trip))
                    .build()
                    .map_err(invalid)?;
                // Not `read_from_replicas`: a refresh from a lagging replica would see a state
                // the primary has left.
                let connecting = client.get_async_connection();
                match tokio::time::timeout(bounds.round_trip, connecting).await {
                    Ok(Ok(conn)) => Ok(Link::Cluster(conn)),
                    Ok(Err(error)) => Err(unreachable(error.to_string())),
                    Err(_) => Err(unreachable(format!(
                        "no seed answered within {:?}",
                        bounds.round_trip
                    ))),
                }
            }
            Topology::Sentinel { sentinels, service } => {
                // The data nodes' user and password, decoded by redis-rs as for one node's
                // URL; the address is replaced by the primary's each time one is found.
                let node = node_url(userinfo, &sentinels[0])
                    .as_str()
                    .into_connection_info()
                    .map_err(invalid)?;
                let sentinels = sentinels
                    .iter()
                    .map(|at| redis::Client::open(format!("redis://{at}/")))
                    .collect::<RedisResult<Vec<_>>>()
                    .map_err(invalid)?;
                let sentinel = Arc::new(Sentinel {
                    sentinels,
                    service: service.clone(),
                    node,
                    scripts,
                    config: AsyncConnectionConfig::new()
                        .set_connection_timeout(Some(bounds.connect))
                        .set_response_timeout(Some(bounds.response)),
                    asking: tokio::sync::Mutex::new(Asking::default()),
                    current: Mutex::new(None),
                    connections: AtomicU64::new(0),
                });
                // The sentinels must answer now, and one of them must know the service; the
                // primary need not (it may be down, a failover under way): the breaker then
                // starts on local state and finds the primary later. Each sentinel is asked
                // within a round trip, and the node it names checked within another.
                let count = u32::try_from(sentinel.sentinels.len()).unwrap_or(u32::MAX);
                let each = bounds.round_trip.saturating_mul(count.saturating_mul(2));
                let found = {
                    let mut asking = sentinel.asking.lock().await;
                    tokio::time::timeout(each, sentinel.find(&mut asking, None)).await
                };
                match found {
                    Ok(Ok(Found::Primary(primary))) => *sentinel.current() = Some(primary),
                    Ok(Ok(Found::Unconfirmed(error))) => {
                        tracing::warn!(%error, "shared breaker: the primary the sentinels name did not answer yet");
                    }
                    Ok(Ok(Found::Same)) => {}
                    Ok(Err(error)) => return Err(unreachable(error.to_string())),
                    Err(_) => {
                        return Err(unreachable(format!("no sentinel answered within {each:?}")));
                    }
                }
                Sentinel::watch(&sentinel);
                Ok(Link::Sentinel(sentinel))
            }
        }
    }

    /// Sends `cmd` (routed by its first key on a Cluster; to the current primary behind
    /// Sentinel). The caller bounds the wait.
    pub(crate) async fn query(&self, cmd: &Cmd) -> RedisResult<Value> {
        match self {
            Link::Single(conn) => cmd.query_async(&mut conn.clone()).await,
            Link::Cluster(conn) => cmd.query_async(&mut conn.clone()).await,
            Link::Sentinel(sentinel) => sentinel.query(cmd).await,
        }
    }
}

/// The primary behind Sentinel. The sentinels are asked for it by service name (`SENTINEL
/// GET-MASTER-ADDR-BY-NAME`, on one kept connection to one sentinel, the next one tried when
/// it fails), and the node a sentinel names must say it is the primary (`ROLE`; if it does not,
/// the next sentinel is asked: one may lag a failover). The connection is kept until an error
/// says the primary moved (a connection lost or refused, `READONLY` from a demoted primary) or
/// `TIMEOUTS_TO_RECONNECT` commands in a row went unanswered (a connection that died silently,
/// as behind a firewall that forgot it): the next command asks again. A task of its own also
/// asks once a second (`RECHECK`), because a demoted primary still answers reads.
pub(crate) struct Sentinel {
    sentinels: Vec<redis::Client>,
    service: String,
    /// The data nodes' settings (user, password); the address is the primary's.
    node: ConnectionInfo,
    /// The scripts' bodies, loaded on each primary before its first command.
    scripts: &'static [&'static str],
    config: AsyncConnectionConfig,
    /// One asking at a time: concurrent askers would race to replace `current`.
    asking: tokio::sync::Mutex<Asking>,
    current: Mutex<Option<Primary>>,
    /// Connections made to primaries, to tell them apart.
    connections: AtomicU64,
}

/// The sentinel connection kept between askings, and which sentinel it is to.
#[derive(Default)]
struct Asking {
    at: usize,
    conn: Option<MultiplexedConnection>,
}

/// The primary this talks to, on one connection.
#[derive(Clone)]
struct Primary {
    /// Which connection: a failed command forgets its own, never a newer one to the same
    /// address.
    id: u64,
    addr: ConnectionAddr,
    conn: MultiplexedConnection,
    /// Commands unanswered in a row on it.
    timeouts: Arc<AtomicU32>,
}

/// What asking the sentinels found.
enum Found {
    /// The first sentinel to name a node named the one this talks to.
    Same,
    /// A node a sentinel named, which says it is the primary: connected.
    Primary(Primary),
    /// The sentinels named nodes, none of which answered as the primary (down, or not yet
    /// promoted): why the last did not.
    Unconfirmed(RedisError),
}

/// How often the sentinels are asked whether the primary moved.
const RECHECK: Duration = Duration::from_secs(1);

/// Commands unanswered in a row after which the primary's connection is made again.
const TIMEOUTS_TO_RECONNECT: u32 = 3;

impl Sentinel {
    async fn query(&self, cmd: &Cmd) -> RedisResult<Value> {
        let current = self.current().clone();
        let primary = match current {
            Some(primary) => primary,
            None => self.discover().await?,
        };
        let reply = cmd.query_async(&mut primary.conn.clone()).await;
        match &reply {
            Err(error) if primary_moved(error) => self.forget(primary.id),
            Err(error) if error.is_timeout() => {
                if primary.timeouts.fetch_add(1, SeqCst) + 1 >= TIMEOUTS_TO_RECONNECT {
                    self.forget(primary.id);
                }
            }
            // An answer, an error reply included: the connection works.
            _ => primary.timeouts.store(0, SeqCst),
        }
        reply
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Option<Primary>> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drops connection `id`, unless another one has replaced it meanwhile.
    fn forget(&self, id: u64) {
        let mut current = self.current();
        if current.as_ref().is_some_and(|primary| primary.id == id) {
            *current = None;
        }
    }

    /// Asks the sentinels for the primary and connects to it.
    async fn discover(&self) -> RedisResult<Primary> {
        let mut asking = self.asking.lock().await;
        if let Some(primary) = self.current().clone() {
            return Ok(primary); // found meanwhile, by the one this waited for
        }
        match self.find(&mut asking, None).await? {
            Found::Primary(primary) => {
                *self.current() = Some(primary.clone());
                Ok(primary)
            }
            Found::Unconfirmed(error) => Err(error),
            Found::Same => Err(RedisError::from((
                ErrorKind::Io,
                "the primary's connection was dropped meanwhile",
            ))),
        }
    }

    /// Asks each sentinel in turn, the kept connection's first (each bounded by the connect
    /// and response timeouts), until one names `current` or a node that says it is the
    /// primary. An error if none answers, or none knows the service.
    async fn find(
        &self,
        asking: &mut Asking,
        current: Option<&ConnectionAddr>,
    ) -> RedisResult<Found> {
        let count = self.sentinels.len();
        let (mut unknown, mut last_error, mut unconfirmed) = (0, None, None);
        let mut tried: Vec<ConnectionAddr> = Vec::new();
        for step in 0..count {
            let at = (asking.at + step) % count;
            let kept = if step == 0 { asking.conn.take() } else { None };
            let (conn, named) = match self.ask(at, kept).await {
                Ok(answer) => answer,
                Err(error) => {
                    last_error = Some(error);
                    continue;
                }
            };
            let Some(addr) = named else {
                unknown += 1;
                continue;
            };
            if current == Some(&addr) {
                *asking = Asking {
                    at,
                    conn: Some(conn),
                };
                return Ok(Found::Same);
            }
            if tried.contains(&addr) {
                continue; // it did not answer as the primary a moment ago
            }
            tried.push(addr.clone());
            match self.connect_primary(addr).await {
                Ok(primary) => {
                    *asking = Asking {
                        at,
                        conn: Some(conn),
                    };
                    return Ok(Found::Primary(primary));
                }
                Err(error) => unconfirmed = Some(error),
            }
        }
        asking.at = (asking.at + 1) % count;
        if let Some(error) = unconfirmed {
            return Ok(Found::Unconfirmed(error));
        }
        match last_error {
            Some(error) if unknown == 0 => Err(error),
            _ => Err(RedisError::from((
                ErrorKind::MasterNameNotFoundBySentinel,
                "no sentinel that answered knows the service",
                format!("`{}`: {unknown} of {count} answered nil", self.service),
            ))),
        }
    }

    /// Sentinel `at`'s answer (`None`: it knows no such service), on `kept` or a new
    /// connection, and the connection.
    async fn ask(
        &self,
        at: usize,
        kept: Option<MultiplexedConnection>,
    ) -> RedisResult<(MultiplexedConnection, Option<ConnectionAddr>)> {
        let mut conn = match kept {
            Some(conn) => conn,
            None => {
                self.sentinels[at]
                    .get_multiplexed_async_connection_with_config(&self.config)
                    .await?
            }
        };
        let named: Option<(String, u16)> = redis::cmd("SENTINEL")
            .arg("GET-MASTER-ADDR-BY-NAME")
            .arg(&self.service)
            .query_async(&mut conn)
            .await?;
        Ok((
            conn,
            named.map(|(host, port)| ConnectionAddr::Tcp(host, port)),
        ))
    }

    /// Connects to the node at `addr`, which must say it is the primary (a sentinel's answer
    /// can lag a failover), and gives it the scripts.
    async fn connect_primary(&self, addr: ConnectionAddr) -> RedisResult<Primary> {
        let client = redis::Client::open(self.node.clone().set_addr(addr.clone()))?;
        let mut conn = client
            .get_multiplexed_async_connection_with_config(&self.config)
            .await?;
        let role: Vec<Value> = redis::cmd("ROLE").query_async(&mut conn).await?;
        if !matches!(role.first(), Some(Value::BulkString(role)) if role == b"master") {
            return Err(RedisError::from((
                ErrorKind::Server(ServerErrorKind::ReadOnly),
                "the node the sentinels name is not a primary (yet)",
                addr.to_string(),
            )));
        }
        // A promoted replica has none of the scripts (Redis 7 does not send `SCRIPT LOAD` to
        // replicas). Loaded now, in one round trip before the node is used, the first failure
        // batch after a failover is counted in one round trip like any other, instead of
        // waiting for `NOSCRIPT` and the resend of its body, while the fleet's next calls pass
        // uncounted (issue 41: 6 calls reached a down upstream in a trip at threshold 3 over 3
        // instances, one more than the documented bound). A node that refuses the load (an ACL
        // without `SCRIPT`) is still used: `NOSCRIPT` then sends each body once, as before.
        let mut load = redis::pipe();
        for body in self.scripts {
            load.cmd("SCRIPT").arg("LOAD").arg(*body);
        }
        if let Err(error) = load.query_async::<Vec<String>>(&mut conn).await {
            tracing::warn!(primary = %addr, %error, "shared breaker: the scripts could not be loaded on the primary; each is sent whole once instead");
        }
        Ok(Primary {
            id: self.connections.fetch_add(1, SeqCst),
            addr,
            conn,
            timeouts: Arc::default(),
        })
    }

    /// Asks the sentinels once a second, in a task of its own (a sentinel that does not answer
    /// delays no refresh), until the link is dropped.
    fn watch(sentinel: &Arc<Sentinel>) {
        let sentinel = Arc::downgrade(sentinel);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(RECHECK).await;
                let Some(sentinel) = sentinel.upgrade() else {
                    return;
                };
                sentinel.recheck().await;
            }
        });
    }

    /// Moves to the primary the sentinels name if it is not the one this talks to (or this
    /// talks to none) and it says it is the primary. Otherwise (the same node, no node that
    /// answers as the primary yet, no sentinel answering) keeps the node there is: a demoted
    /// one answers writes `READONLY`, which moves the link at once.
    async fn recheck(&self) {
        let mut asking = self.asking.lock().await;
        let current = self.current().as_ref().map(|primary| primary.addr.clone());
        if let Ok(Found::Primary(primary)) = self.find(&mut asking, current.as_ref()).await {
            if let Some(old) = &current {
                tracing::info!(primary = %primary.addr, old = %old, "shared breaker: the sentinels name a new primary");
            }
            *self.current() = Some(primary);
        }
    }
}

/// Whether `error` says the node behind Sentinel may no longer be the primary. Not a timeout
/// alone: a slow primary is still the primary (the once-a-second recheck moves the link if the
/// sentinels have failed it over, and `TIMEOUTS_TO_RECONNECT` in a row make it again).
fn primary_moved(error: &RedisError) -> bool {
    if error.is_timeout() {
        return false;
    }
    error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_unrecoverable_error()
        || matches!(
            error.kind(),
            ErrorKind::Server(ServerErrorKind::ReadOnly | ServerErrorKind::MasterDown)
        )
}

/// The kinds of error the store counts (`green_tea.breaker.store.errors`'s `kind`): a
/// redirect the client could not follow within its retries, `TRYAGAIN` (a slot's keys moving),
/// `CLUSTERDOWN` (a slot without a primary, as during a failover), a script the node had not
/// got (handled: the body is sent), `READONLY` (a demoted primary), no answer within the bound,
/// a connection lost or refused, the sentinels naming no primary (none knows the service),
/// and anything else.
pub(crate) const ERROR_KINDS: [&str; 9] = [
    "moved",
    "tryagain",
    "clusterdown",
    "noscript",
    "readonly",
    "timeout",
    "connection",
    "sentinel",
    "other",
];

/// What went wrong with a command, as the metric's `kind` says it.
pub(crate) fn error_kind(error: &RedisError) -> &'static str {
    match error.kind() {
        ErrorKind::Server(ServerErrorKind::Moved | ServerErrorKind::Ask) => "moved",
        ErrorKind::Server(ServerErrorKind::TryAgain) => "tryagain",
        ErrorKind::Server(ServerErrorKind::ClusterDown | ServerErrorKind::MasterDown) => {
            "clusterdown"
        }
        ErrorKind::Server(ServerErrorKind::NoScript) => "noscript",
        ErrorKind::Server(ServerErrorKind::ReadOnly) => "readonly",
        ErrorKind::MasterNameNotFoundBySentinel
        | ErrorKind::NoValidReplicasFoundBySentinel
        | ErrorKind::EmptySentinelList => "sentinel",
        _ if error.is_timeout() => "timeout",
        _ if error.is_io_error()
            || error.is_connection_dropped()
            || error.is_connection_refusal()
            || matches!(error.kind(), ErrorKind::ClusterConnectionNotFound) =>
        {
            "connection"
        }
        _ => "other",
    }
}

/// A data node's URL at `addr` with the topology URL's user and password (still
/// percent-encoded: redis-rs decodes them as in one node's URL).
fn node_url(userinfo: Option<&str>, addr: &str) -> String {
    match userinfo {
        Some(userinfo) => format!("redis://{userinfo}@{addr}/"),
        None => format!("redis://{addr}/"),
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentinel_urls_password_is_percent_decoded_for_the_data_nodes() {
        let node = |userinfo| {
            node_url(userinfo, "127.0.0.1:26379")
                .as_str()
                .into_connection_info()
                .unwrap()
        };
        let app = node(Some("app:p%40ss%3Aword"));
        assert_eq!(app.redis_settings().username(), Some("app"));
        assert_eq!(app.redis_settings().password(), Some("p@ss:word"));
        let anonymous = node(Some(":s%2Fecret"));
        assert_eq!(anonymous.redis_settings().username(), None);
        assert_eq!(anonymous.redis_settings().password(), Some("s/ecret"));
        assert_eq!(node(None).redis_settings().password(), None);
    }

    #[test]
    fn the_sentinels_naming_no_primary_is_its_own_kind() {
        let error = RedisError::from((ErrorKind::MasterNameNotFoundBySentinel, "none"));
        assert_eq!(error_kind(&error), "sentinel");
        let error = RedisError::from((ErrorKind::Server(ServerErrorKind::ReadOnly), "demoted"));
        assert_eq!(error_kind(&error), "readonly");
        assert!(primary_moved(&error));
        let timeout = RedisError::from(std::io::Error::from(std::io::ErrorKind::TimedOut));
        assert_eq!(error_kind(&timeout), "timeout");
        assert!(
            !primary_moved(&timeout),
            "a slow primary is still the primary"
        );
    }
}
