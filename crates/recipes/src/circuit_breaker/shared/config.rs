//! How a breaker shares its state: where Redis is, how often to refresh, how long a claim may
//! wait, the quorum, and the timeouts that keep Redis from ever stalling a call.

use std::time::Duration;

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
#[derive(Clone, Debug)]
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
    /// Shares through the Redis at `url`: `redis://host:port/db` or `redis+unix:///path`.
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
    /// as the hash tag, so one breaker's keys share a Redis Cluster slot.
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

    /// Where, for banners and `explain`: the URL without any password.
    pub fn location(&self) -> String {
        match self.url.split_once('@') {
            Some((scheme_and_user, host)) => match scheme_and_user.split_once("://") {
                Some((scheme, _)) => format!("{scheme}://…@{host}"),
                None => host.to_owned(),
            },
            None => self.url.clone(),
        }
    }
}
