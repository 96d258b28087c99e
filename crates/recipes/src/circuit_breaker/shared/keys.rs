//! One breaker's keys, all under the hash tag `{name}` so its scripts run in one Redis Cluster
//! slot. Every script receives all of them, in this order.

/// `prefix:{name}:fails`, `:quorum`, `:open`, `:gen`, `:closed`, `:hold`, this instance's
/// `:counted:<instance>:<run>`, `:lease:1`...
#[derive(Clone, Debug)]
pub(crate) struct Keys(Vec<String>);

impl Keys {
    /// `run` tells this breaker from an earlier one with the same instance id (a restart): its
    /// count of failures sent starts again at zero.
    pub(crate) fn new(prefix: &str, name: &str, trials: u32, instance: &str, run: u32) -> Self {
        let base = format!("{prefix}:{{{name}}}");
        let mut keys: Vec<String> = ["fails", "quorum", "open", "gen", "closed", "hold"]
            .iter()
            .map(|key| format!("{base}:{key}"))
            .collect();
        keys.push(format!("{base}:counted:{instance}:{run:08x}"));
        keys.extend((1..=trials.max(1)).map(|slot| format!("{base}:lease:{slot}")));
        Keys(keys)
    }

    pub(crate) fn all(&self) -> &[String] {
        &self.0
    }

    /// The hash-tagged base, for messages.
    pub(crate) fn base(&self) -> &str {
        self.0[0].trim_end_matches(":fails")
    }
}

#[cfg(test)]
mod tests {
    use super::Keys;

    #[test]
    fn every_key_carries_the_breakers_hash_tag() {
        let keys = Keys::new("gt", "billing", 2, "web-1", 0xab);
        assert_eq!(keys.all().len(), 9);
        assert!(keys.all().iter().all(|k| k.starts_with("gt:{billing}:")));
        assert_eq!(keys.all()[6], "gt:{billing}:counted:web-1:000000ab");
        assert_eq!(keys.all()[8], "gt:{billing}:lease:2");
        assert_eq!(keys.base(), "gt:{billing}");
    }
}
