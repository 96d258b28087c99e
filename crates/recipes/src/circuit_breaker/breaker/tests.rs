use std::sync::Mutex;
use std::time::Duration;

use super::super::clock::ManualClock;
use super::super::config::OpenDuration;
use super::*;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn breaker(threshold: u32, reset_ms: u64) -> (CircuitBreaker, ManualClock) {
    let clock = ManualClock::new();
    let breaker = CircuitBreaker::new(Config::new(threshold, ms(reset_ms)).clock(clock.clone()));
    (breaker, clock)
}

async fn fail(b: &CircuitBreaker) -> Result<&'static str, BreakerError<&'static str>> {
    b.call(|| async { Err("down") }).await
}

async fn succeed(b: &CircuitBreaker) -> Result<&'static str, BreakerError<&'static str>> {
    b.call(|| async { Ok("ok") }).await
}

/// The reference guide's "Testing it", in Rust.
#[tokio::test]
async fn the_reference_test() {
    let clock = ManualClock::new(); // let clock = 0;
    let breaker = CircuitBreaker::new(Config::new(2, ms(1000)).clock(clock.clone()));

    assert_eq!(fail(&breaker).await, Err(BreakerError::Inner("down")));
    assert_eq!(fail(&breaker).await, Err(BreakerError::Inner("down")));
    assert_eq!(breaker.state(), BreakerState::Open);

    clock.set(ms(2000)); // window elapsed
    assert_eq!(succeed(&breaker).await, Ok("ok"));
    assert_eq!(breaker.state(), BreakerState::Closed);
}

#[tokio::test]
async fn while_open_it_fails_fast_without_calling() {
    let (breaker, clock) = breaker(1, 1000);
    fail(&breaker).await.unwrap_err();
    clock.advance(ms(400));
    let mut called = false;
    let refused = breaker
        .call(|| {
            called = true;
            async { Ok::<_, ()>(()) }
        })
        .await;
    assert!(!called, "the operation was not called");
    assert_eq!(
        refused,
        Err(BreakerError::Open {
            retry_after: ms(600)
        })
    );
    assert_eq!(breaker.counters().rejected, 1);
}

#[tokio::test]
async fn failures_must_be_consecutive() {
    let (breaker, _) = breaker(3, 1000);
    fail(&breaker).await.unwrap_err();
    fail(&breaker).await.unwrap_err();
    succeed(&breaker).await.unwrap(); // resets the count
    fail(&breaker).await.unwrap_err();
    fail(&breaker).await.unwrap_err();
    assert_eq!(breaker.state(), BreakerState::Closed);
    fail(&breaker).await.unwrap_err();
    assert_eq!(breaker.state(), BreakerState::Open);
}

#[tokio::test]
async fn a_failed_trial_reopens_at_once_for_a_new_window() {
    let (breaker, clock) = breaker(3, 1000);
    for _ in 0..3 {
        fail(&breaker).await.unwrap_err();
    }
    clock.set(ms(1000));
    fail(&breaker).await.unwrap_err(); // the trial
    assert_eq!(breaker.state(), BreakerState::Open);
    clock.set(ms(1999));
    assert!(
        succeed(&breaker).await.unwrap_err().is_open(),
        "a fresh window from the failed trial"
    );
    clock.set(ms(2000));
    succeed(&breaker).await.unwrap();
    assert_eq!(breaker.state(), BreakerState::Closed);
}

#[tokio::test]
async fn half_open_admits_one_trial_and_the_rest_fail_fast() {
    let (breaker, clock) = breaker(1, 1000);
    fail(&breaker).await.unwrap_err();
    clock.set(ms(1000));
    let gate = tokio::sync::Notify::new();
    let trial = breaker.call(|| async {
        gate.notified().await;
        Ok::<_, &str>("ok")
    });
    tokio::pin!(trial);
    // Poll the trial until it waits on the gate: it holds the one slot.
    assert!(futures_poll(trial.as_mut()).is_none());
    assert_eq!(breaker.state(), BreakerState::HalfOpen);
    assert!(
        succeed(&breaker).await.unwrap_err().is_open(),
        "the slot is taken"
    );
    gate.notify_one();
    assert_eq!(trial.await, Ok("ok"));
    assert_eq!(breaker.state(), BreakerState::Closed);
}

#[tokio::test]
async fn a_dropped_trial_frees_its_slot() {
    let (breaker, clock) = breaker(1, 1000);
    fail(&breaker).await.unwrap_err();
    clock.set(ms(1000));
    {
        let trial = breaker.call(std::future::pending::<Result<(), ()>>);
        tokio::pin!(trial);
        assert!(futures_poll(trial.as_mut()).is_none());
    } // dropped mid-call
    succeed(&breaker).await.expect("the slot was freed");
    assert_eq!(breaker.state(), BreakerState::Closed);
}

#[tokio::test]
async fn a_hung_trial_loses_its_slot_when_its_lease_expires_and_its_result_is_ignored() {
    let (breaker, clock) = breaker(1, 1000);
    fail(&breaker).await.unwrap_err();
    clock.set(ms(1000));
    let gate = tokio::sync::Notify::new();
    let hung = breaker.call(|| async {
        gate.notified().await;
        Ok::<_, &str>("late")
    });
    tokio::pin!(hung);
    assert!(futures_poll(hung.as_mut()).is_none());

    clock.set(ms(2000)); // the lease (no call timeout: the open window) ran out
    assert!(
        succeed(&breaker).await.unwrap_err().is_open(),
        "the hung trial counted as a failure"
    );
    assert_eq!(breaker.state(), BreakerState::Open);

    gate.notify_one();
    assert_eq!(hung.await, Ok("late"), "the caller still gets its result");
    assert_eq!(
        breaker.state(),
        BreakerState::Open,
        "but an earlier generation's result is ignored"
    );
    assert_eq!(breaker.counters().stale, 1);
    clock.set(ms(3000));
    succeed(&breaker).await.unwrap();
    assert_eq!(breaker.state(), BreakerState::Closed);
}

#[tokio::test]
async fn ignored_outcomes_neither_trip_nor_close_it() {
    let (breaker, clock) = breaker(2, 1000);
    let not_found =
        || breaker.call_classified(|| async { Err::<(), u16>(404) }, |_| Outcome::Ignored);
    for _ in 0..5 {
        assert_eq!(not_found().await, Err(BreakerError::Inner(404)));
    }
    assert_eq!(breaker.state(), BreakerState::Closed);
    fail(&breaker).await.unwrap_err();
    fail(&breaker).await.unwrap_err();
    clock.set(ms(1000));
    not_found().await.unwrap_err(); // a trial that says nothing
    assert_eq!(
        breaker.state(),
        BreakerState::HalfOpen,
        "ignored does not close it"
    );
    succeed(&breaker).await.expect("and it freed its slot");
    assert_eq!(breaker.state(), BreakerState::Closed);
    assert_eq!(breaker.counters().ignored, 6);
}

#[tokio::test(start_paused = true)]
async fn the_call_timeout_cancels_the_call_and_counts_as_a_failure() {
    let breaker = CircuitBreaker::new(Config::new(1, ms(1000)).call_timeout(ms(50)));
    let slow = breaker.call(|| async {
        tokio::time::sleep(ms(10_000)).await;
        Ok::<_, ()>(())
    });
    assert_eq!(slow.await, Err(BreakerError::Timeout(ms(50))));
    assert_eq!(breaker.state(), BreakerState::Open);
    assert_eq!(breaker.counters().timeouts, 1);
}

#[tokio::test]
async fn exponential_open_durations_grow_with_jitter_up_to_the_cap() {
    let clock = ManualClock::new();
    let breaker = CircuitBreaker::new(
        Config::new(1, ms(100))
            .open_duration(OpenDuration::Exponential {
                base: ms(100),
                cap: ms(1000),
            })
            .jitter_seed(7)
            .clock(clock.clone()),
    );
    let mut windows = Vec::new();
    for _ in 0..6 {
        fail(&breaker).await.unwrap_err(); // opens (the first) or fails the trial (re-opens)
        let BreakerError::Open { retry_after } = succeed(&breaker).await.unwrap_err() else {
            panic!("open");
        };
        windows.push(retry_after);
        clock.advance(retry_after);
    }
    for (n, window) in windows.iter().enumerate() {
        let upper = ms(100 * (1 << n)).min(ms(1000));
        assert!(
            *window >= ms(100) && *window <= upper,
            "opening {n}: {window:?}"
        );
    }
    succeed(&breaker).await.unwrap();
    fail(&breaker).await.unwrap_err();
    let BreakerError::Open { retry_after } = succeed(&breaker).await.unwrap_err() else {
        panic!()
    };
    assert!(retry_after <= ms(100), "closing resets the growth");
}

#[tokio::test]
async fn transitions_reach_the_callback_outside_the_lock() {
    let clock = ManualClock::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let slot: Arc<Mutex<Option<CircuitBreaker>>> = Arc::default();
    let (seen_in, slot_in) = (Arc::clone(&seen), Arc::clone(&slot));
    let breaker = CircuitBreaker::new(Config::new(1, ms(1000)).clock(clock.clone()).on_transition(
        move |t| {
            // Reading the breaker here would deadlock if the callback ran under its lock.
            let state = slot_in.lock().unwrap().as_ref().map(CircuitBreaker::state);
            seen_in.lock().unwrap().push((t.from, t.to, state));
        },
    ));
    *slot.lock().unwrap() = Some(breaker.clone());
    fail(&breaker).await.unwrap_err();
    clock.set(ms(1000));
    succeed(&breaker).await.unwrap();
    use BreakerState::*;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (Closed, Open, Some(Open)),
            (Open, HalfOpen, Some(HalfOpen)),
            (HalfOpen, Closed, Some(Closed))
        ]
    );
    let counters = breaker.counters();
    assert_eq!(
        (
            counters.admitted,
            counters.successes,
            counters.failures,
            counters.opened
        ),
        (2, 1, 1, 1)
    );
    *slot.lock().unwrap() = None; // break the cycle
}

#[tokio::test]
async fn operators_can_hold_it_open_or_closed() {
    let (breaker, _) = breaker(1, 1000);
    breaker.force_open();
    assert!(succeed(&breaker).await.unwrap_err().is_open());
    breaker.force_closed();
    for _ in 0..5 {
        fail(&breaker).await.unwrap_err();
    }
    assert_eq!(
        breaker.state(),
        BreakerState::ForcedClosed,
        "nothing opens a forced-closed breaker"
    );
    breaker.release();
    assert_eq!(breaker.state(), BreakerState::Closed);
    fail(&breaker).await.unwrap_err();
    assert_eq!(breaker.state(), BreakerState::Open);
}

/// How many times the breaker has taken its lock.
fn locks(breaker: &CircuitBreaker) -> u64 {
    breaker
        .shared
        .locks
        .load(std::sync::atomic::Ordering::Relaxed)
}

async fn ignored(b: &CircuitBreaker) -> Result<(), BreakerError<u16>> {
    b.call_classified(|| async { Err(404) }, |_| Outcome::Ignored)
        .await
}

#[tokio::test]
async fn a_closed_breaker_admits_and_settles_without_its_lock() {
    let (breaker, _) = breaker(3, 1000);
    succeed(&breaker).await.unwrap();
    fail(&breaker).await.unwrap_err();
    fail(&breaker).await.unwrap_err();
    ignored(&breaker).await.unwrap_err();
    succeed(&breaker).await.unwrap(); // resets the count
    fail(&breaker).await.unwrap_err();
    fail(&breaker).await.unwrap_err();
    {
        let dropped = breaker.call(std::future::pending::<Result<(), ()>>);
        tokio::pin!(dropped);
        assert!(futures_poll(dropped.as_mut()).is_none());
    }
    assert_eq!(locks(&breaker), 0, "every call so far took the fast path");
    assert_eq!(
        breaker.counters(),
        Counters {
            admitted: 8,
            successes: 2,
            failures: 4,
            ignored: 1,
            ..Counters::default()
        }
    );

    fail(&breaker).await.unwrap_err(); // the third in a row opens it, under the lock
    assert!(locks(&breaker) > 0);
    assert_eq!(breaker.state(), BreakerState::Open);
    assert_eq!(breaker.counters().opened, 1);
}

#[tokio::test]
async fn a_forced_closed_breaker_only_counts_and_without_its_lock() {
    let (breaker, _) = breaker(1, 1000);
    breaker.force_closed();
    let held = locks(&breaker);
    for _ in 0..5 {
        fail(&breaker).await.unwrap_err();
    }
    succeed(&breaker).await.unwrap();
    assert_eq!(locks(&breaker), held);
    assert_eq!(breaker.state(), BreakerState::ForcedClosed);
    let counters = breaker.counters();
    assert_eq!((counters.failures, counters.opened), (5, 0));

    breaker.release();
    assert_eq!(breaker.state(), BreakerState::Closed);
    fail(&breaker).await.unwrap_err();
    assert_eq!(
        breaker.state(),
        BreakerState::Open,
        "released with no count"
    );
}

#[tokio::test]
async fn a_release_while_closed_resets_the_count() {
    let (breaker, _) = breaker(3, 1000);
    fail(&breaker).await.unwrap_err();
    fail(&breaker).await.unwrap_err();
    breaker.release();
    fail(&breaker).await.unwrap_err();
    fail(&breaker).await.unwrap_err();
    assert_eq!(breaker.state(), BreakerState::Closed);
    fail(&breaker).await.unwrap_err();
    assert_eq!(breaker.state(), BreakerState::Open);
}

type Reply = Result<&'static str, &'static str>;

/// A call that will finish with whatever is sent to it.
fn in_flight(
    breaker: &CircuitBreaker,
) -> (
    tokio::sync::oneshot::Sender<Reply>,
    impl Future<Output = Result<&'static str, BreakerError<&'static str>>> + '_,
) {
    let (send, receive) = tokio::sync::oneshot::channel();
    (send, breaker.call(|| async { receive.await.unwrap() }))
}

#[tokio::test]
async fn results_of_calls_admitted_before_a_change_are_stale_and_change_nothing() {
    let (breaker, clock) = breaker(1, 1000);
    let (finish_a, a) = in_flight(&breaker);
    let (finish_b, b) = in_flight(&breaker);
    tokio::pin!(a, b);
    assert!(futures_poll(a.as_mut()).is_none());
    assert!(futures_poll(b.as_mut()).is_none());

    fail(&breaker).await.unwrap_err(); // opens: a and b belong to the closed generation
    finish_a.send(Ok("late")).unwrap();
    finish_b.send(Err("late")).unwrap();
    assert_eq!(futures_poll(a.as_mut()), Some(Ok("late")));
    assert_eq!(
        futures_poll(b.as_mut()),
        Some(Err(BreakerError::Inner("late")))
    );
    assert_eq!(
        breaker.state(),
        BreakerState::Open,
        "a late success does not close it"
    );
    let counters = breaker.counters();
    assert_eq!(
        (counters.stale, counters.successes, counters.failures),
        (2, 0, 1)
    );

    clock.set(ms(1000));
    succeed(&breaker).await.unwrap();
    let (finish_c, c) = in_flight(&breaker);
    tokio::pin!(c);
    assert!(futures_poll(c.as_mut()).is_none());
    breaker.force_closed(); // a hold starts a new generation too
    finish_c.send(Err("late")).unwrap();
    futures_poll(c.as_mut()).unwrap().unwrap_err();
    assert_eq!(breaker.counters().stale, 3);
    breaker.release();
    assert_eq!(breaker.state(), BreakerState::Closed);
}

/// Polls a future once; `Some` if it finished.
fn futures_poll<F: Future>(future: std::pin::Pin<&mut F>) -> Option<F::Output> {
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    match future.poll(&mut cx) {
        std::task::Poll::Ready(v) => Some(v),
        std::task::Poll::Pending => None,
    }
}
