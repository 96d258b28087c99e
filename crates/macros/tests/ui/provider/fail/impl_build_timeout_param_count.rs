use std::time::Duration;

use green_tea::prelude::*;

struct DatabaseSettings {
    build_timeout: Duration,
}

#[derive(Default)]
struct DatabasePool;

#[provider(provides = "database", needs = ["databaseSettings", "databaseUrl"])]
impl DatabasePool {
    async fn provide(&self, settings: &DatabaseSettings, url: &String) -> String {
        format!("{url} within {:?}", settings.build_timeout)
    }

    fn build_timeout(&self, settings: &DatabaseSettings) -> Duration {
        settings.build_timeout
    }
}

fn main() {}
