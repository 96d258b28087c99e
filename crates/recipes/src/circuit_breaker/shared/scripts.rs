//! The scripts, one per transition (`scripts/*.lua`, Redis 7.0 commands only), and how they are
//! called: `EVALSHA`, and after `NOSCRIPT` the same call as `EVAL` with the script's body (a
//! restarted Redis, or a replica promoted by a failover, has not got the script: Redis 7 does
//! not send `SCRIPT LOAD` to replicas). `EVAL` runs on the node the key routes to alone, where a
//! `SCRIPT LOAD` on a Cluster would need every node to answer; and it leaves the script in that
//! node's cache, so the next `EVALSHA` finds it. The refresh runs `EVALSHA_RO` (`EVAL_RO`): a
//! read even to Redis. Behind Sentinel, where the link knows when it moves to another node,
//! each primary is given every script ([`BODIES`]) before its first command.

use redis::{Cmd, RedisResult, Script, ServerErrorKind, Value};

use super::keys::Keys;
use super::link::Link;

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

/// A script's body and its hash.
pub(crate) struct Lua {
    body: &'static str,
    hash: String,
}

impl Lua {
    fn new(body: &'static str) -> Self {
        Lua {
            body,
            hash: Script::new(body).get_hash().to_owned(),
        }
    }
}

/// Every script's body: what the link gives a primary it moves to behind Sentinel (`SCRIPT
/// LOAD`) before its first command.
pub(crate) const BODIES: [&str; 6] = [FAILURE, CLAIM, RELEASE, RESET, HOLD, REFRESH];

const FAILURE: &str = include_str!("scripts/failure.lua");
const CLAIM: &str = include_str!("scripts/claim.lua");
const RELEASE: &str = include_str!("scripts/release.lua");
const RESET: &str = include_str!("scripts/reset.lua");
const HOLD: &str = include_str!("scripts/hold.lua");
const REFRESH: &str = include_str!("scripts/refresh.lua");

/// Each transition's script, hashed once.
pub(crate) struct Scripts {
    pub(crate) failure: Lua,
    pub(crate) claim: Lua,
    pub(crate) release: Lua,
    pub(crate) reset: Lua,
    pub(crate) hold: Lua,
    refresh: Lua,
}

/// How a call went besides its reply: whether it met `NOSCRIPT` on the way (and ran the body).
pub(crate) type Reloaded = bool;

impl Scripts {
    pub(crate) fn new() -> Self {
        Scripts {
            failure: Lua::new(FAILURE),
            claim: Lua::new(CLAIM),
            release: Lua::new(RELEASE),
            reset: Lua::new(RESET),
            hold: Lua::new(HOLD),
            refresh: Lua::new(REFRESH),
        }
    }

    /// Runs a transition's `script` (`EVALSHA`, then `EVAL` after `NOSCRIPT`).
    pub(crate) async fn run(
        &self,
        link: &Link,
        script: &Lua,
        keys: &Keys,
        common: &Common,
        extra: &[&str],
    ) -> RedisResult<(Vec<Value>, Reloaded)> {
        let args = |command: &mut Cmd| {
            command
                .arg(keys.all().len())
                .arg(keys.all())
                .arg(&common.instance)
                .arg(common.threshold)
                .arg(common.quorum)
                .arg(common.window_ms)
                .arg(common.base_ms)
                .arg(common.cap_ms)
                .arg(fastrand::f64())
                .arg(common.lease_ms);
            for arg in extra {
                command.arg(*arg);
            }
        };
        call(link, script, ("EVALSHA", "EVAL"), args).await
    }

    /// The refresh: `EVALSHA_RO`, then `EVAL_RO` after `NOSCRIPT`.
    pub(crate) async fn refresh(
        &self,
        link: &Link,
        keys: &Keys,
    ) -> RedisResult<(Vec<Value>, Reloaded)> {
        let args = |command: &mut Cmd| {
            command.arg(keys.all().len()).arg(keys.all());
        };
        call(link, &self.refresh, ("EVALSHA_RO", "EVAL_RO"), args).await
    }
}

/// `by_hash` with the script's hash, then `by_body` with its body if the node has not got it.
async fn call(
    link: &Link,
    script: &Lua,
    (by_hash, by_body): (&str, &str),
    args: impl Fn(&mut Cmd),
) -> RedisResult<(Vec<Value>, Reloaded)> {
    let mut command = redis::cmd(by_hash);
    command.arg(&script.hash);
    args(&mut command);
    match link.query(&command).await {
        Err(error) if error.kind() == redis::ErrorKind::Server(ServerErrorKind::NoScript) => {
            let mut command = redis::cmd(by_body);
            command.arg(script.body);
            args(&mut command);
            Ok((into_array(link.query(&command).await?), true))
        }
        reply => Ok((into_array(reply?), false)),
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
