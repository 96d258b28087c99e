//! `timeout = "..."` on `#[provider]` (both forms) and `#[decorator]`: read at compile time,
//! it becomes the companion's `Provider::build_timeout`; without it, `None` (the app's).

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
