//! How a breaker shares its state: where Redis is, how often to refresh, how long a claim may
//! wait, the quorum, and the timeouts that keep Redis from ever stalling a call.

use std::time::Duration;

use super::error::SharedError;

/// The shared store's settings. Only the URL is required; the defaults suit a fleet of a few
/// to a few dozen instances.
///
/// ```
/// use green_tea_recipes::circuit_breaker::shared::SharedConfig;
/// use std::time::Duration;
/// let shared = SharedConfig::new("redis://127.0.0.1:6379/")
///     .refresh_interval(Duration::from_millis(500))
///     .quorum(2);
/// # let _ = shared;
/// ```
#[derive(Clone)]
pub struct SharedConfig {
    pub(crate) url: String,
    pub(crate) prefix: String,
    pub(crate) instance: Option<String>,
    pub(crate) refresh_interval: Duration,
    pub(crate) claim_timeout: Duration,
    pub(crate) claim_timeouts_to_degrade: u32,
    pub(crate) quorum: u32,
    pub(crate) failure_window: Duration,
    pub(crate) lease_margin: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) response_timeout: Duration,
}

impl SharedConfig {
    /// Shares through the Redis that `url` names, in one of three topologies (see
    /// [`Topology`]):
    ///
    /// - one node: `redis://[user:password@]host:port/db` or `redis+unix:///path`;
    /// - a Redis Cluster: `redis+cluster://[user:password@]host:port,host:port,...`, the seed
    ///   nodes (any of the cluster's; the client learns the rest from them);
    /// - behind Sentinel: `redis+sentinel://[user:password@]host:port,host:port,.../service`,
    ///   the sentinels and the service (master) name they monitor; the user and password are
    ///   the data nodes', not the sentinels'.
    ///
    /// The URL is read when the breaker is made; a URL of none of these is refused then
    /// ([`SharedError::InvalidUrl`]).
    pub fn new(url: impl Into<String>) -> Self {
        SharedConfig {
            url: url.into(),
            prefix: "green-tea:breaker".to_owned(),
            instance: None,
            refresh_interval: Duration::from_millis(250),
            claim_timeout: Duration::from_millis(50),
            claim_timeouts_to_degrade: 3,
            quorum: 1,
            failure_window: Duration::from_secs(60),
            lease_margin: Duration::from_millis(250),
            connect_timeout: Duration::from_millis(500),
            response_timeout: Duration::from_millis(500),
        }
    }

    /// Every key starts with `prefix:{name}:` (default `green-tea:breaker`), the breaker's name
    /// as the hash tag, so one breaker's keys share a Redis Cluster slot (and each script,
    /// which touches all of them, runs on one node). A prefix holding `{` or `}` would move the
    /// hash tag (every breaker in the prefix's slot, or none in one), so it is refused when the
    /// breaker is made ([`SharedError::BraceInPrefix`]), on every topology: a prefix that works
    /// on one node works on a cluster.
    pub fn prefix(mut self, prefix: &str) -> Self {
        self.prefix = prefix.to_owned();
        self
    }

    /// This instance's id in the quorum set (default: host name, process id and a random
    /// suffix, so two breakers in one process count as two instances).
    pub fn instance(mut self, id: &str) -> Self {
        self.instance = Some(id.to_owned());
        self
    }

    /// How often the shared view is read in the background (default 250 ms): a fleet-wide
    /// open, close or hold reaches this instance within it.
    pub fn refresh_interval(mut self, every: Duration) -> Self {
        self.refresh_interval = every.max(Duration::from_millis(1));
        self
    }

    /// The longest a call waits to claim the fleet's trial lease (default 50 ms). A claim that
    /// takes longer fails its call fast, as if another instance held the trial; `degrade_after`
    /// such timeouts in a row switch the breaker to local state until Redis answers in time.
    pub fn claim_timeout(mut self, timeout: Duration, degrade_after: u32) -> Self {
        self.claim_timeout = timeout;
        self.claim_timeouts_to_degrade = degrade_after.max(1);
        self
    }

    /// Opens the fleet only when the failures came from at least `instances` distinct instances
    /// within the failure window (default 1). Below it, an instance opens only itself.
    pub fn quorum(mut self, instances: u32) -> Self {
        self.quorum = instances.max(1);
        self
    }

    /// How long the fleet's failure count lives, from its first failure (default 60 s).
    pub fn failure_window(mut self, window: Duration) -> Self {
        self.failure_window = window.max(Duration::from_millis(1));
        self
    }

    /// Added to the call timeout to make a trial's lease (default 250 ms).
    pub fn lease_margin(mut self, margin: Duration) -> Self {
        self.lease_margin = margin;
        self
    }

    /// Bounds connecting to Redis and each reply (defaults 500 ms each). The background work
    /// waits at most this; calls never do (only a claim, bounded by its own timeout).
    pub fn timeouts(mut self, connect: Duration, response: Duration) -> Self {
        self.connect_timeout = connect;
        self.response_timeout = response;
        self
    }

    /// Where, for banners and `explain`: the topology and its addresses, never a password.
    ///
    /// ```
    /// use green_tea_recipes::circuit_breaker::shared::SharedConfig;
    /// let one = SharedConfig::new("redis://:secret@127.0.0.1:6379/");
    /// assert_eq!(one.location(), "redis://…@127.0.0.1:6379/");
    /// let cluster = SharedConfig::new("redis+cluster://127.0.0.1:7000,127.0.0.1:7001");
    /// assert_eq!(cluster.location(), "Redis Cluster 127.0.0.1:7000,127.0.0.1:7001");
    /// let sentinel = SharedConfig::new("redis+sentinel://127.0.0.1:26379/orders");
    /// assert_eq!(sentinel.location(), "Redis Sentinel `orders` at 127.0.0.1:26379");
    /// let unix = SharedConfig::new("redis+unix:///run/redis.sock?db=2&pass=secret");
    /// assert_eq!(unix.location(), "redis+unix:///run/redis.sock?db=2&pass=…");
    /// // A `?` in the password, an encoded parameter name: hidden too.
    /// let odd = SharedConfig::new("redis://:se?cret@127.0.0.1:6379/");
    /// assert_eq!(odd.location(), "redis://…@127.0.0.1:6379/");
    /// let encoded = SharedConfig::new("redis+unix:///run/redis.sock?pas%73=secret");
    /// assert_eq!(encoded.location(), "redis+unix:///run/redis.sock?pas%73=…");
    /// // Nor does its `Debug`.
    /// assert!(!format!("{one:?}{unix:?}{odd:?}{encoded:?}").contains("cret"));
    /// ```
    pub fn location(&self) -> String {
        match self.topology() {
            Ok(topology) => topology.to_string(),
            Err(_) => without_password(&self.url),
        }
    }

    /// The topology the URL names, or why it names none.
    ///
    /// ```
    /// use green_tea_recipes::circuit_breaker::shared::{SharedConfig, Topology};
    /// let shared = SharedConfig::new("redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/orders");
    /// let Topology::Sentinel { sentinels, service } = shared.topology().unwrap() else {
    ///     unreachable!()
    /// };
    /// assert_eq!(sentinels, ["10.0.0.1:26379", "10.0.0.2:26379"]);
    /// assert_eq!(service, "orders");
    /// assert!(SharedConfig::new("redis+cluster://").topology().is_err());
    /// ```
    pub fn topology(&self) -> Result<Topology, SharedError> {
        Topology::of_url(&self.url)
    }
}

/// Every setting, the URL without its password.
impl std::fmt::Debug for SharedConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedConfig")
            .field("url", &without_password(&self.url))
            .field("prefix", &self.prefix)
            .field("instance", &self.instance)
            .field("refresh_interval", &self.refresh_interval)
            .field("claim_timeout", &self.claim_timeout)
            .field("claim_timeouts_to_degrade", &self.claim_timeouts_to_degrade)
            .field("quorum", &self.quorum)
            .field("failure_window", &self.failure_window)
            .field("lease_margin", &self.lease_margin)
            .field("connect_timeout", &self.connect_timeout)
            .field("response_timeout", &self.response_timeout)
            .finish()
    }
}

/// Where a shared breaker's state lives: what [`SharedConfig::new`]'s URL names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Topology {
    /// One Redis (`redis://`, `redis+unix://`); with replicas or not, the breaker talks to this
    /// one.
    Single {
        /// The URL, without any password.
        url: String,
    },
    /// A Redis Cluster, found from its seed nodes (`redis+cluster://`). Each breaker's keys
    /// are in one slot, served by one primary; replicas are never read.
    Cluster {
        /// The seeds, `host:port`.
        seeds: Vec<String>,
    },
    /// A primary found through Sentinel by its service name (`redis+sentinel://`), found again
    /// after a failover.
    Sentinel {
        /// The sentinels, `host:port`.
        sentinels: Vec<String>,
        /// The name the sentinels monitor the primary by.
        service: String,
    },
}

impl Topology {
    /// The topology `url` names (see [`SharedConfig::new`]).
    pub fn of_url(url: &str) -> Result<Topology, SharedError> {
        let invalid = |reason: &str| SharedError::InvalidUrl {
            url: without_password(url),
            reason: reason.to_owned(),
        };
        let (scheme, rest) = url.split_once("://").ok_or_else(|| {
            invalid("no scheme: expected redis://, redis+cluster:// or redis+sentinel://")
        })?;
        match scheme {
            "redis" | "rediss" | "redis+unix" | "unix" => Ok(Topology::Single {
                url: without_password(url),
            }),
            "redis+cluster" => {
                let (_, hosts) = split_userinfo(rest);
                let hosts = hosts.trim_end_matches('/');
                if hosts.contains('/') {
                    return Err(invalid(
                        "a cluster URL names its seeds only (a Cluster has no numbered databases)",
                    ));
                }
                let seeds = addresses(hosts).map_err(|reason| invalid(&reason))?;
                Ok(Topology::Cluster { seeds })
            }
            "redis+sentinel" => {
                let (_, rest) = split_userinfo(rest);
                let (hosts, service) = rest.split_once('/').ok_or_else(|| {
                    invalid("a sentinel URL ends with the service name: redis+sentinel://host:port/service")
                })?;
                let service = service.trim_end_matches('/');
                if service.is_empty() || service.contains('/') {
                    return Err(invalid(
                        "a sentinel URL ends with one service name: redis+sentinel://host:port/service",
                    ));
                }
                let sentinels = addresses(hosts).map_err(|reason| invalid(&reason))?;
                Ok(Topology::Sentinel {
                    sentinels,
                    service: service.to_owned(),
                })
            }
            other => Err(invalid(&format!(
                "unknown scheme `{other}`: expected redis://, redis+unix://, redis+cluster:// or redis+sentinel://"
            ))),
        }
    }
}

impl std::fmt::Display for Topology {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Topology::Single { url } => f.write_str(url),
            Topology::Cluster { seeds } => write!(f, "Redis Cluster {}", seeds.join(",")),
            Topology::Sentinel { sentinels, service } => {
                write!(f, "Redis Sentinel `{service}` at {}", sentinels.join(","))
            }
        }
    }
}

/// `(user:password, the rest)` of what follows `scheme://`.
pub(crate) fn split_userinfo(rest: &str) -> (Option<&str>, &str) {
    match rest.rsplit_once('@') {
        Some((userinfo, hosts)) => (Some(userinfo), hosts),
        None => (None, rest),
    }
}

/// `host:port,host:port`, each with a port, at least one.
fn addresses(hosts: &str) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    for address in hosts.split(',') {
        let address = address.trim();
        let Some((host, port)) = address.rsplit_once(':') else {
            return Err(format!("`{address}` has no port (host:port)"));
        };
        if host.is_empty() || port.parse::<u16>().map_or(true, |port| port == 0) {
            return Err(format!("`{address}` is not host:port"));
        }
        found.push(address.to_owned());
    }
    if found.is_empty() {
        return Err("no address".to_owned());
    }
    Ok(found)
}

/// `url` with any password replaced by `…`: the userinfo's (everything up to the last `@`,
/// so a `?` or `/` in a password hides with it), then a `pass` or `password` query
/// parameter's (as a `redis+unix://` URL carries it; the name compared percent-decoded, as
/// redis-rs reads it).
fn without_password(url: &str) -> String {
    let (head, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (format!("{scheme}://"), rest),
        None => (String::new(), url),
    };
    let (mut hidden, rest) = match split_userinfo(rest) {
        (Some(_), hosts) if head.is_empty() => (String::new(), hosts),
        (Some(_), hosts) => (format!("{head}…@"), hosts),
        (None, rest) => (head, rest),
    };
    let Some((path, query)) = rest.split_once('?') else {
        hidden.push_str(rest);
        return hidden;
    };
    let params: Vec<String> = query
        .split('&')
        .map(|param| match param.split_once('=') {
            Some((key, _)) if is_password_key(key) => format!("{key}=…"),
            _ => param.to_owned(),
        })
        .collect();
    hidden.push_str(path);
    hidden.push('?');
    hidden.push_str(&params.join("&"));
    hidden
}

/// Whether a URL's query parameter named `key` is the password (`pass` or `password`,
/// percent-decoded as redis-rs reads it).
fn is_password_key(key: &str) -> bool {
    let key = percent_encoding::percent_decode_str(key).decode_utf8_lossy();
    key == "pass" || key == "password"
}
