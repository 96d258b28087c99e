//! `discover = false`: the struct needs no `Default` and no `fn new()`; a `new` that takes
//! parameters, or is async, is the user's own.
#![deny(warnings)]

use green_tea::prelude::*;

struct Database {
    url: String,
}

#[provider(provides = "database", discover = false)]
impl Database {
    async fn new(url: &str) -> Self {
        Database {
            url: url.to_owned(),
        }
    }

    fn provide(&self) -> String {
        self.url.clone()
    }
}

#[provider(provides = "port", discover = false)]
fn port() -> u16 {
    3000
}

#[tokio::test(flavor = "current_thread")]
async fn compiles_and_runs() {
    let container = Container::builder()
        .provider(Database::new("postgres://db").await)
        .provider(port::provider())
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("database").await.unwrap(),
        "postgres://db"
    );
    container.close().await.unwrap();
}
