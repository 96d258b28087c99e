//! The scripts, one per transition (`scripts/*.lua`, Redis 7.0 commands only), and how they are
//! called: `EVALSHA` with the script's body sent again after `NOSCRIPT` (a restarted Redis has
//! lost its script cache); the refresh with `EVALSHA_RO`, so it is a read even to Redis.

use redis::aio::ConnectionManager;
use redis::{RedisResult, Script, ServerErrorKind, Value};

use super::keys::Keys;

/// The arguments every script takes first (`ARGV[1..8]`), fixed per breaker but the jitter.
#[derive(Clone, Debug)]
pub(crate) struct Common {
    pub(crate) instance: String,
    pub(crate) threshold: u32,
    pub(crate) quorum: u32,
    pub(crate) window_ms: u64,
    pub(crate) base_ms: u64,
    pub(crate) cap_ms: u64,
    pub(crate) lease_ms: u64,
}

/// Each transition's script, hashed once.
pub(crate) struct Scripts {
    pub(crate) failure: Script,
    pub(crate) claim: Script,
    pub(crate) release: Script,
    pub(crate) reset: Script,
    pub(crate) hold: Script,
    refresh: Script,
}

impl Scripts {
    pub(crate) fn new() -> Self {
        Scripts {
            failure: Script::new(include_str!("scripts/failure.lua")),
            claim: Script::new(include_str!("scripts/claim.lua")),
            release: Script::new(include_str!("scripts/release.lua")),
            reset: Script::new(include_str!("scripts/reset.lua")),
            hold: Script::new(include_str!("scripts/hold.lua")),
            refresh: Script::new(include_str!("scripts/refresh.lua")),
        }
    }

    /// Runs a transition's `script` (`EVALSHA`, then the body after `NOSCRIPT`).
    pub(crate) async fn run(
        &self,
        conn: &mut ConnectionManager,
        script: &Script,
        keys: &Keys,
        common: &Common,
        extra: &[&str],
    ) -> RedisResult<Vec<Value>> {
        let mut invocation = script.prepare_invoke();
        for key in keys.all() {
            invocation.key(key);
        }
        invocation
            .arg(&common.instance)
            .arg(common.threshold)
            .arg(common.quorum)
            .arg(common.window_ms)
            .arg(common.base_ms)
            .arg(common.cap_ms)
            .arg(fastrand::f64())
            .arg(common.lease_ms);
        for arg in extra {
            invocation.arg(*arg);
        }
        let reply: Value = invocation.invoke_async(conn).await?;
        Ok(into_array(reply))
    }

    /// The refresh: `EVALSHA_RO`, loading the script after `NOSCRIPT`.
    pub(crate) async fn refresh(
        &self,
        conn: &mut ConnectionManager,
        keys: &Keys,
    ) -> RedisResult<Vec<Value>> {
        let mut command = redis::cmd("EVALSHA_RO");
        command
            .arg(self.refresh.get_hash())
            .arg(keys.all().len())
            .arg(keys.all());
        let reply: Value = match command.query_async(conn).await {
            Err(error) if error.kind() == redis::ErrorKind::Server(ServerErrorKind::NoScript) => {
                self.refresh.load_async(conn).await?;
                command.query_async(conn).await?
            }
            other => other?,
        };
        Ok(into_array(reply))
    }
}

fn into_array(reply: Value) -> Vec<Value> {
    match reply {
        Value::Array(items) => items,
        other => vec![other],
    }
}

/// A reply's element `at` as text (`""` if absent or not text).
pub(crate) fn text(reply: &[Value], at: usize) -> &str {
    match reply.get(at) {
        Some(Value::BulkString(bytes)) => std::str::from_utf8(bytes).unwrap_or(""),
        Some(Value::SimpleString(text)) => text,
        _ => "",
    }
}

/// A reply's element `at` as a number (0 if absent or not a number).
pub(crate) fn number(reply: &[Value], at: usize) -> i64 {
    match reply.get(at) {
        Some(Value::Int(n)) => *n,
        Some(Value::BulkString(bytes)) => std::str::from_utf8(bytes)
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(0),
        _ => 0,
    }
}
