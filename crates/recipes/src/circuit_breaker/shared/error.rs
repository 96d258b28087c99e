//! Why a shared breaker could not be made: settings it refuses, and a Cluster or sentinels none
//! of whose nodes answered.

/// Why a shared breaker could not be made. Redis being unreachable is not one: the breaker then
/// starts on local state and shares once Redis answers.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SharedError {
    /// A trial's lease is the call timeout plus a margin, so sharing needs a call timeout.
    #[error(
        "a shared breaker needs a call timeout (`Config::call_timeout`): its trial lease is built on it"
    )]
    NoCallTimeout,
    /// The URL is not one redis-rs accepts.
    #[error("invalid Redis URL `{url}`: {reason}")]
    InvalidUrl {
        /// The URL, without any password.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The breaker's name is empty: its keys' hash tag would be `{}`, which Redis ignores, so
    /// on a Cluster its keys would hash whole, to different slots, and every script would fail
    /// with `CROSSSLOT`.
    #[error(
        "a shared breaker needs a name (`Config::name`): it is its keys' hash tag, and an empty one puts them in different Cluster slots"
    )]
    EmptyName,
    /// The breaker's name holds `{` or `}`: the hash tag would end early (or start again), and
    /// the keys would not share a slot.
    #[error(
        "the breaker's name `{name}` holds `{{` or `}}`: it is its keys' hash tag (`prefix:{{name}}:...`), which braces would cut short"
    )]
    BraceInName {
        /// The name.
        name: String,
    },
    /// The key prefix holds `{` or `}`: the prefix's braces would be the hash tag, so every
    /// breaker would be in the prefix's slot (one primary for all), or none in one.
    #[error(
        "the key prefix `{prefix}` holds `{{` or `}}`: the breaker's name is the keys' hash tag, and braces in the prefix would take its place"
    )]
    BraceInPrefix {
        /// The prefix.
        prefix: String,
    },
    /// A Cluster none of whose seeds answered, or sentinels none of which answered (or knew
    /// the service), when the breaker was made: there is nothing to learn the slots or the
    /// primary from. (One node that is down is not an error: the breaker starts on local state.)
    #[error("cannot reach {topology}: {reason}")]
    Unreachable {
        /// The topology, without any password.
        topology: String,
        /// What the client said.
        reason: String,
    },
}
