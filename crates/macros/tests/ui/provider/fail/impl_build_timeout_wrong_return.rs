use green_tea::prelude::*;

struct CacheSettings {
    connect_ms: u64,
}

#[derive(Default)]
struct Cache;

#[provider(provides = "cache", needs = "cacheSettings")]
impl Cache {
    fn provide(&self, settings: &CacheSettings) -> u64 {
        settings.connect_ms
    }

    // Milliseconds, where a `Duration` is asked for.
    fn build_timeout(&self, settings: &CacheSettings) -> u64 {
        settings.connect_ms
    }
}

fn main() {}
