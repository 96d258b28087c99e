use std::time::Duration;

use green_tea::prelude::*;

struct DatabaseSettings {
    build_timeout: Duration,
}

#[derive(Default)]
struct DatabasePool;

#[provider(provides = "database", needs = "databaseSettings", timeout = "5s")]
impl DatabasePool {
    async fn provide(&self, settings: &DatabaseSettings) -> String {
        format!("{:?}", settings.build_timeout)
    }

    fn build_timeout(&self, settings: &DatabaseSettings) -> Duration {
        settings.build_timeout
    }
}

fn main() {}
