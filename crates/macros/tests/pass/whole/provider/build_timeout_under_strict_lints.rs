//! Documented, public impl blocks whose `fn build_timeout` reads `provide`'s needs (a `&String`
//! among them) or nothing, under strict lints.
#![forbid(unsafe_code)]
#![deny(missing_docs, warnings)]

use std::sync::Arc;
use std::time::Duration;

use green_tea::prelude::*;

/// A pool's settings.
#[derive(Debug)]
pub struct PoolSettings {
    /// How long connecting may take.
    pub connect_timeout: Duration,
}

/// A pool, whose build timeout is a setting.
#[derive(Debug, Default)]
pub struct Pool;

#[provider(provides = "pool", needs = ["poolSettings", "poolName"])]
impl Pool {
    /// Connects.
    pub async fn provide(&self, settings: Arc<PoolSettings>, name: &String) -> String {
        format!("{name} within {:?}", settings.connect_timeout)
    }

    /// As long as the settings say.
    pub fn build_timeout(&self, settings: Arc<PoolSettings>, _name: &String) -> Duration {
        settings.connect_timeout
    }
}

/// A cache, whose build timeout is its own.
#[derive(Debug, Default)]
pub struct Cache;

#[provider(provides = "cache")]
impl Cache {
    /// Warms up.
    pub fn provide(&self) -> String {
        "warm".to_owned()
    }

    /// Two seconds.
    pub const fn build_timeout(&self) -> Duration {
        Duration::from_secs(2)
    }
}

#[tokio::test]
async fn compiles_and_runs() {
    let container = Container::builder()
        .value(
            "poolSettings",
            PoolSettings {
                connect_timeout: Duration::from_secs(5),
            },
        )
        .value("poolName", "main".to_owned())
        .provider(Pool)
        .provider(Cache)
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("pool").await.unwrap(),
        "main within 5s"
    );
    assert_eq!(*container.get::<String>("cache").await.unwrap(), "warm");
    container.close().await.unwrap();
}
