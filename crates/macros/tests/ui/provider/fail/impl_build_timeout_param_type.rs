use std::sync::Arc;
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

    // `provide` takes `&DatabaseSettings`, and its second need is not a `Duration`.
    fn build_timeout(&self, settings: Arc<DatabaseSettings>, _url: &Duration) -> Duration {
        settings.build_timeout
    }
}

fn main() {}
