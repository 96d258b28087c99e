//! Half-open admits exactly one trial, however many callers arrive at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use green_tea_recipes::circuit_breaker::{
    BreakerError, BreakerState, CircuitBreaker, Config, ManualClock,
};
use tokio::sync::{Barrier, Notify};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_concurrent_callers_get_exactly_one_trial() {
    const CALLERS: usize = 64;
    for round in 0..20 {
        let clock = ManualClock::new();
        let breaker =
            CircuitBreaker::new(Config::new(1, Duration::from_secs(1)).clock(clock.clone()));
        breaker
            .call(|| async { Err::<(), _>("down") })
            .await
            .unwrap_err();
        clock.set(Duration::from_secs(1)); // the window elapsed: half-open next

        let barrier = Arc::new(Barrier::new(CALLERS));
        let release = Arc::new(Notify::new());
        let called = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..CALLERS)
            .map(|_| {
                let (breaker, barrier, release, called) = (
                    breaker.clone(),
                    Arc::clone(&barrier),
                    Arc::clone(&release),
                    Arc::clone(&called),
                );
                tokio::spawn(async move {
                    barrier.wait().await;
                    breaker
                        .call(|| async {
                            called.fetch_add(1, Ordering::SeqCst);
                            release.notified().await; // the trial holds its slot until released
                            Ok::<_, &str>(())
                        })
                        .await
                })
            })
            .collect();
        // Every caller but the trial fails fast; wait until they have.
        while breaker.counters().rejected < (CALLERS - 1) as u64 {
            tokio::task::yield_now().await;
        }
        release.notify_one();
        let mut trials = 0;
        for task in tasks {
            match task.await.unwrap() {
                Ok(()) => trials += 1,
                Err(BreakerError::Open { .. }) => {}
                Err(other) => panic!("round {round}: {other:?}"),
            }
        }
        assert_eq!(trials, 1, "round {round}");
        assert_eq!(
            called.load(Ordering::SeqCst),
            1,
            "round {round}: one operation ran"
        );
        assert_eq!(breaker.state(), BreakerState::Closed);
    }
}
