//! The connection to Redis, in each topology: one node (a `ConnectionManager`, which reconnects
//! to it), a Cluster (redis-rs's cluster client: the slot map, MOVED and ASK, never a replica)
//! or the primary behind Sentinel (found by service name, and found again after a failover).
//! The store sends every command through [`Link::query`]; nothing here waits without a bound
//! (the callers bound every round trip).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::sentinel::{SentinelClient, SentinelNodeConnectionInfo, SentinelServerType};
use redis::{
    AsyncConnectionConfig, Cmd, ConnectionAddr, ErrorKind, RedisError, RedisResult,
    ServerErrorKind, Value,
};

use super::SharedError;
use super::config::{Topology, split_userinfo};

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
    /// far more often a wrong list than an outage.
    pub(crate) async fn connect(url: &str, bounds: Bounds) -> Result<Link, SharedError> {
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
                let nodes: Vec<String> = seeds
                    .iter()
                    .map(|seed| match userinfo {
                        Some(userinfo) => format!("redis://{userinfo}@{seed}/"),
                        None => format!("redis://{seed}/"),
                    })
                    .collect();
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
                let sentinel_urls: Vec<String> = sentinels
                    .iter()
                    .map(|at| format!("redis://{at}/"))
                    .collect();
                let mut info = redis::RedisConnectionInfo::default();
                if let Some(userinfo) = userinfo {
                    let (user, password) = match userinfo.split_once(':') {
                        Some((user, password)) => (user, Some(password)),
                        None => (userinfo, None),
                    };
                    if !user.is_empty() {
                        info = info.set_username(user);
                    }
                    if let Some(password) = password.filter(|p| !p.is_empty()) {
                        info = info.set_password(password);
                    }
                }
                let client = SentinelClient::build(
                    sentinel_urls,
                    service.clone(),
                    Some(SentinelNodeConnectionInfo::default().set_redis_connection_info(info)),
                    SentinelServerType::Master,
                )
                .map_err(invalid)?;
                let sentinel = Sentinel {
                    client: tokio::sync::Mutex::new(client),
                    current: Mutex::new(None),
                    checked: Mutex::new(Instant::now()),
                    config: AsyncConnectionConfig::new()
                        .set_connection_timeout(Some(bounds.connect))
                        .set_response_timeout(Some(bounds.response)),
                };
                // The sentinels must answer now; the primary need not (it may be failing
                // over): the breaker then starts on local state and finds it later.
                match tokio::time::timeout(bounds.round_trip, sentinel.discover()).await {
                    Ok(Ok(_)) => {}
                    Ok(Err(error)) if is_sentinel_unreachable(&error) => {
                        return Err(unreachable(error.to_string()));
                    }
                    Ok(Err(error)) => {
                        tracing::warn!(%error, "shared breaker: the sentinels' primary did not answer yet");
                    }
                    Err(_) => {
                        return Err(unreachable(format!(
                            "no sentinel answered within {:?}",
                            bounds.round_trip
                        )));
                    }
                }
                Ok(Link::Sentinel(Arc::new(sentinel)))
            }
        }
    }

    /// Behind Sentinel, at most once a second (`RECHECK`): asks the sentinels which node is
    /// the primary, and moves there if it is not the one this talks to. A failover demotes the
    /// old primary to a replica that still answers reads, so without this an instance that
    /// only refreshes would go on reading a replica until it next wrote (a write answers
    /// `READONLY`, which moves it at once). The background task calls it before each round;
    /// calls never do. Elsewhere nothing: the Cluster client follows the slot map itself.
    pub(crate) async fn maintain(&self) {
        if let Link::Sentinel(sentinel) = self {
            sentinel.recheck().await;
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

/// The primary behind Sentinel. redis-rs finds it by service name but its connection stays on
/// that one node, so this keeps the connection and drops it on the errors that say the primary
/// moved (a connection lost or refused, `READONLY` from a demoted primary, a timeout): the
/// next command asks the sentinels again.
pub(crate) struct Sentinel {
    /// Asked one at a time: concurrent rediscoveries would race to replace `current`.
    client: tokio::sync::Mutex<SentinelClient>,
    current: Mutex<Option<(ConnectionAddr, MultiplexedConnection)>>,
    /// When the sentinels were last asked which node is the primary.
    checked: Mutex<Instant>,
    config: AsyncConnectionConfig,
}

/// How often the background task asks the sentinels whether the primary moved.
const RECHECK: Duration = Duration::from_secs(1);

impl Sentinel {
    async fn query(&self, cmd: &Cmd) -> RedisResult<Value> {
        let current = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|(_, conn)| conn.clone());
        let mut conn = match current {
            Some(conn) => conn,
            None => self.discover().await?,
        };
        let reply = cmd.query_async(&mut conn).await;
        if let Err(error) = &reply
            && primary_moved(error)
        {
            *self.current.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
        reply
    }

    /// Asks the sentinels for the primary and connects to it.
    async fn discover(&self) -> RedisResult<MultiplexedConnection> {
        let mut client = self.client.lock().await;
        if let Some((_, conn)) = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            return Ok(conn.clone()); // found meanwhile, by the one this waited for
        }
        let primary = client.async_get_client().await?;
        self.connect(primary).await
    }

    async fn connect(&self, primary: redis::Client) -> RedisResult<MultiplexedConnection> {
        let addr = primary.get_connection_info().addr().clone();
        let conn = primary
            .get_multiplexed_async_connection_with_config(&self.config)
            .await?;
        *self.checked.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = Some((addr, conn.clone()));
        Ok(conn)
    }

    /// See [`Link::maintain`].
    async fn recheck(&self) {
        if self
            .checked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .elapsed()
            < RECHECK
        {
            return;
        }
        let mut client = self.client.lock().await;
        *self.checked.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        let Ok(primary) = client.async_get_client().await else {
            return; // the sentinels did not answer: keep the node there is
        };
        let moved = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|(addr, _)| addr != primary.get_connection_info().addr());
        if moved {
            tracing::info!(primary = %primary.get_connection_info().addr(), "shared breaker: the sentinels name a new primary");
            if self.connect(primary).await.is_err() {
                *self.current.lock().unwrap_or_else(PoisonError::into_inner) = None;
            }
        }
    }
}

/// Whether `error` says the node behind Sentinel may no longer be the primary.
fn primary_moved(error: &RedisError) -> bool {
    error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
        || error.is_unrecoverable_error()
        || matches!(
            error.kind(),
            ErrorKind::Server(ServerErrorKind::ReadOnly | ServerErrorKind::MasterDown)
        )
}

/// Whether `error` came from asking the sentinels (none answered, or none knows the service),
/// rather than from the primary they named.
fn is_sentinel_unreachable(error: &RedisError) -> bool {
    matches!(
        error.kind(),
        ErrorKind::MasterNameNotFoundBySentinel
            | ErrorKind::EmptySentinelList
            | ErrorKind::InvalidClientConfig
    ) || error.is_connection_refusal()
}

/// The kinds of error the store counts (`green_tea.breaker.store.errors`'s `kind`): a
/// redirect the client could not follow within its retries, `TRYAGAIN` (a slot's keys moving),
/// `CLUSTERDOWN` (a slot without a primary, as during a failover), a script the node had not
/// got (handled: the body is sent), `READONLY` (a demoted primary), no answer within the bound,
/// a connection lost or refused, and anything else.
pub(crate) const ERROR_KINDS: [&str; 8] = [
    "moved",
    "tryagain",
    "clusterdown",
    "noscript",
    "readonly",
    "timeout",
    "connection",
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

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
