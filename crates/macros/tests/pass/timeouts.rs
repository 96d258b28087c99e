//! `timeout = "..."` on `#[provider]` (both forms) and `#[decorator]`: read at compile time,
//! it becomes the companion's `Provider::build_timeout`; without it, `None` (the app's). In an
//! impl block, a `fn build_timeout(&self, ..) -> Duration` sets it instead, from the needs
//! `provide` takes (`Provider::build_timeout_for`) or from nothing (`Provider::build_timeout`).

use std::sync::Arc;
use std::time::Duration;

use green_tea::error::FailureCause;
use green_tea::prelude::*;

// --- fn form -------------------------------------------------------------------------------

#[provider(provides = "pool", timeout = "5s", discover = false)]
async fn pool() -> u32 {
    7
}

#[provider(
    provides = "replica",
    needs = "pool",
    timeout = "1m 30s",
    discover = false
)]
fn replica(pool: &u32) -> u32 {
    pool + 1
}

#[provider(provides = "untimed", discover = false)]
fn untimed() -> u32 {
    1
}

#[test]
fn a_provider_fn_has_the_timeout_it_declares() {
    assert_eq!(
        Provider::build_timeout(&pool::provider()),
        Some(Duration::from_secs(5))
    );
    assert_eq!(
        Provider::build_timeout(&replica::provider()),
        Some(Duration::from_secs(90))
    );
    assert_eq!(Provider::build_timeout(&untimed::provider()), None);
}

// --- impl form -----------------------------------------------------------------------------

#[derive(Default)]
struct Handshake;

#[provider(provides = "handshake", timeout = "250ms", discover = false)]
impl Handshake {
    async fn provide(&self) -> String {
        "hello".to_owned()
    }

    async fn dispose(&self, _: &String) {}
}

#[derive(Default)]
struct Slow;

#[provider(provides = "slow", timeout = "2h", discover = false)]
impl Slow {
    fn provide(&self) -> u64 {
        2
    }
}

#[derive(Default)]
struct Plain;

#[provider(provides = "plain", discover = false)]
impl Plain {
    fn provide(&self) -> u64 {
        3
    }
}

#[test]
fn a_provider_impl_has_the_timeout_it_declares() {
    assert_eq!(
        Provider::build_timeout(&Handshake),
        Some(Duration::from_millis(250))
    );
    assert_eq!(
        Provider::build_timeout(&Slow),
        Some(Duration::from_secs(7_200))
    );
    assert_eq!(Provider::build_timeout(&Plain), None);
}

// --- decorator -----------------------------------------------------------------------------

#[decorator(decorates = "pool", timeout = "1s 500ms", discover = false)]
async fn warmed(pool: &u32) -> u32 {
    pool * 10
}

#[decorator(decorates = "pool", discover = false)]
fn counted(pool: &u32) -> u32 {
    pool + 100
}

#[test]
fn a_decorator_has_the_timeout_it_declares() {
    assert_eq!(
        Provider::build_timeout(&warmed::decorator()),
        Some(Duration::from_millis(1_500))
    );
    assert_eq!(Provider::build_timeout(&counted::decorator()), None);
}

// --- in a container ------------------------------------------------------------------------

#[provider(provides = "stuck", timeout = "20ms", discover = false)]
async fn stuck() -> u32 {
    // A handshake that never answers.
    std::future::pending::<()>().await;
    0
}

#[tokio::test]
async fn the_container_holds_a_build_to_its_provider_s_timeout() {
    let container = Container::builder()
        .provider(pool::provider())
        .provider(replica::provider())
        .decorator(warmed::decorator())
        .provider(stuck::provider())
        .build()
        .unwrap();
    // Within their time, builds are as without a timeout.
    assert_eq!(*container.get::<u32>("replica").await.unwrap(), 71);
    let err = container.get::<u32>("stuck").await.unwrap_err();
    assert!(
        matches!(
            &err,
            ProvideError::Failed { cause: FailureCause::TimedOut(t), .. }
                if *t == Duration::from_millis(20)
        ),
        "{err}"
    );
    container.close().await.unwrap();
}

// --- `fn build_timeout` in an impl block ---------------------------------------------------

/// Settings that hold a provider's build timeout, as a pool's settings hold its connect
/// timeout.
struct DatabaseSettings {
    build_timeout: Duration,
    url: String,
}

/// A pool whose connection never answers: only its timeout ends its build.
#[derive(Default)]
struct DatabasePool;

#[provider(provides = "database", needs = ["databaseSettings", "replicas?"], discover = false)]
impl DatabasePool {
    async fn provide(&self, settings: &DatabaseSettings, replicas: Option<Arc<u32>>) -> String {
        std::future::pending::<()>().await;
        format!("{} with {replicas:?} replicas", settings.url)
    }

    // The same needs as `provide`, under other names.
    fn build_timeout(&self, settings: &DatabaseSettings, _replicas: Option<Arc<u32>>) -> Duration {
        settings.build_timeout
    }
}

/// A cache whose build timeout is its own, read from nothing but itself.
struct Cache {
    connect: Duration,
    hangs: bool,
}

#[provider(provides = "cache", needs = "databaseSettings", discover = false)]
impl Cache {
    async fn provide(&self, settings: &DatabaseSettings) -> String {
        if self.hangs {
            std::future::pending::<()>().await;
        }
        format!("cache of {}", settings.url)
    }

    fn build_timeout(&self) -> Duration {
        self.connect
    }
}

/// The app: `timeout` is what the settings say of the pool's build.
fn app(timeout: Duration, cache: Cache) -> Container {
    Container::builder()
        .value(
            "databaseSettings",
            DatabaseSettings {
                build_timeout: timeout,
                url: "postgres://db".to_owned(),
            },
        )
        .provider(DatabasePool)
        .provider(cache)
        .build()
        .unwrap()
}

/// The cause of the failed build of `key`, which must time out.
async fn timed_out(container: &Container, key: &str) -> Duration {
    let err = container.get::<String>(key).await.unwrap_err();
    match &err {
        ProvideError::Failed {
            cause: FailureCause::TimedOut(timeout),
            ..
        } => *timeout,
        _ => panic!("{key} did not time out: {err}"),
    }
}

// On tokio's paused clock, a build that waits for nothing else runs until its timeout at once:
// what is checked is which timeout held it, not how long the test took.
#[tokio::test(start_paused = true)]
async fn a_build_timeout_method_reads_its_timeout_from_the_needs() {
    for timeout in [Duration::from_secs(7), Duration::from_millis(1_500)] {
        let cache = Cache {
            connect: Duration::from_secs(1),
            hangs: false,
        };
        let container = app(timeout, cache);
        let started = tokio::time::Instant::now();
        assert_eq!(timed_out(&container, "database").await, timeout);
        assert!(started.elapsed() >= timeout);
        container.close().await.unwrap();
    }
}

#[tokio::test(start_paused = true)]
async fn a_build_timeout_method_without_needs_is_the_provider_s_own() {
    let cache = Cache {
        connect: Duration::from_secs(3),
        hangs: true,
    };
    assert_eq!(
        Provider::build_timeout(&cache),
        Some(Duration::from_secs(3))
    );
    // The pool's timeout in the settings is not the cache's.
    let container = app(Duration::from_secs(60), cache);
    assert_eq!(timed_out(&container, "cache").await, Duration::from_secs(3));
    container.close().await.unwrap();
    // Within it, the build is as without one.
    let cache = Cache {
        connect: Duration::from_secs(3),
        hangs: false,
    };
    let container = app(Duration::from_secs(60), cache);
    assert_eq!(
        *container.get::<String>("cache").await.unwrap(),
        "cache of postgres://db"
    );
    container.close().await.unwrap();
}

#[test]
fn a_build_timeout_method_with_needs_has_no_fixed_timeout() {
    // It is asked once the needs are built (`build_timeout_for`), not before.
    assert_eq!(Provider::build_timeout(&DatabasePool), None);
    // The block's own method is still the block's, called as written.
    let settings = DatabaseSettings {
        build_timeout: Duration::from_secs(9),
        url: String::new(),
    };
    assert_eq!(
        DatabasePool.build_timeout(&settings, None),
        Duration::from_secs(9)
    );
}
