//! A closed breaker counts failures without its lock, with compare-exchanges on one atomic word.
//! These races check that nothing is lost or doubled: threads started together by a barrier,
//! and assertions that hold for every interleaving (no timing, no sleeps).

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

use green_tea_recipes::circuit_breaker::{
    BreakerError, BreakerState, CircuitBreaker, Config, ManualClock, Outcome, Transition,
};

const THREADS: usize = 4;

/// Runs a call whose operation is ready at once (no call timeout, so no runtime is needed).
fn ready<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => unreachable!("these operations never wait"),
    }
}

fn call(breaker: &CircuitBreaker, outcome: Outcome) -> Result<(), BreakerError<()>> {
    ready(breaker.call_classified(
        || async move {
            match outcome {
                Outcome::Success => Ok(()),
                _ => Err(()),
            }
        },
        move |_| outcome,
    ))
}

/// A breaker on a clock that never moves (it stays open once opened), recording transitions.
fn breaker(threshold: u32) -> (CircuitBreaker, Arc<Mutex<Vec<Transition>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let breaker = CircuitBreaker::new(
        Config::new(threshold, Duration::from_secs(30))
            .clock(ManualClock::new())
            .on_transition(move |t| log.lock().unwrap().push(t.clone())),
    );
    (breaker, seen)
}

/// Runs `each` on `THREADS` threads released together.
/// Every call was either refused or admitted, and every admitted one was settled exactly once.
fn assert_every_call_accounted_for(breaker: &CircuitBreaker, calls: u64) {
    let counters = breaker.counters();
    assert_eq!(counters.admitted + counters.rejected, calls);
    assert_eq!(
        counters.admitted,
        counters.successes + counters.failures + counters.ignored + counters.stale
    );
}

fn race(each: impl Fn(usize) + Sync) {
    let barrier = Barrier::new(THREADS);
    thread::scope(|s| {
        for n in 0..THREADS {
            let (barrier, each) = (&barrier, &each);
            s.spawn(move || {
                barrier.wait();
                each(n);
            });
        }
    });
}

#[test]
fn failures_from_many_threads_open_it_exactly_once() {
    const CALLS: usize = 200;
    const THRESHOLD: u32 = 100;
    for round in 0..20 {
        let (breaker, transitions) = breaker(THRESHOLD);
        race(|_| {
            for _ in 0..CALLS {
                let _ = call(&breaker, Outcome::Failure);
            }
        });
        let counters = breaker.counters();
        assert_eq!(breaker.state(), BreakerState::Open, "round {round}");
        assert_eq!(counters.opened, 1, "round {round}");
        // Exactly the failures that reached the threshold count; results of calls admitted
        // before it opened and settled after are stale; the rest were refused.
        assert_eq!(counters.failures, u64::from(THRESHOLD), "round {round}");
        assert_eq!(counters.admitted, counters.failures + counters.stale);
        assert_eq!(
            counters.admitted + counters.rejected,
            (THREADS * CALLS) as u64
        );
        let transitions = transitions.lock().unwrap();
        assert_eq!(transitions.len(), 1, "round {round}");
        assert_eq!(
            (
                transitions[0].from,
                transitions[0].to,
                transitions[0].failures
            ),
            (BreakerState::Closed, BreakerState::Open, THRESHOLD)
        );
    }
}

#[test]
fn concurrent_failures_below_the_threshold_are_all_counted() {
    const CALLS: usize = 500;
    let below = (THREADS * CALLS) as u32;
    for round in 0..10 {
        let (breaker, transitions) = breaker(below + 1);
        race(|_| {
            for _ in 0..CALLS {
                call(&breaker, Outcome::Failure).unwrap_err();
            }
        });
        assert_eq!(breaker.state(), BreakerState::Closed, "round {round}");
        assert_eq!(breaker.counters().failures, u64::from(below));
        // Had one increment been lost, this failure would not reach the threshold.
        call(&breaker, Outcome::Failure).unwrap_err();
        assert_eq!(breaker.state(), BreakerState::Open, "round {round}");
        assert_eq!(transitions.lock().unwrap()[0].failures, below + 1);
    }
}

#[test]
fn a_forced_closed_breaker_counts_every_failure_and_never_opens() {
    const CALLS: usize = 500;
    let (breaker, transitions) = breaker(1);
    breaker.force_closed();
    race(|_| {
        for _ in 0..CALLS {
            call(&breaker, Outcome::Failure).unwrap_err();
        }
    });
    assert_eq!(breaker.state(), BreakerState::ForcedClosed);
    let counters = breaker.counters();
    assert_eq!(
        (counters.failures, counters.opened, counters.stale),
        ((THREADS * CALLS) as u64, 0, 0)
    );
    breaker.release();
    call(&breaker, Outcome::Failure).unwrap_err();
    assert_eq!(
        breaker.state(),
        BreakerState::Open,
        "released with nothing counted"
    );
    assert_eq!(transitions.lock().unwrap().len(), 3);
}

/// One failure short of the threshold, a success and a failure race. Either order is fine; a
/// lost update is not: a success that counted but did not reset, or a failure not counted.
#[test]
fn a_success_racing_the_failure_that_would_open_it() {
    const THRESHOLD: u32 = 3;
    for round in 0..1000 {
        let (breaker, _) = breaker(THRESHOLD);
        for _ in 1..THRESHOLD {
            call(&breaker, Outcome::Failure).unwrap_err();
        }
        let barrier = Barrier::new(2);
        let (success, failure) = thread::scope(|s| {
            let success = s.spawn(|| {
                barrier.wait();
                call(&breaker, Outcome::Success)
            });
            let failure = s.spawn(|| {
                barrier.wait();
                call(&breaker, Outcome::Failure)
            });
            (success.join().unwrap(), failure.join().unwrap())
        });
        assert_eq!(failure, Err(BreakerError::Inner(())), "round {round}");
        let counters = breaker.counters();
        if breaker.state() == BreakerState::Closed {
            // The success came first and reset the count; the failure counted one.
            assert_eq!(success, Ok(()), "round {round}");
            assert_eq!((counters.successes, counters.opened), (1, 0));
            for _ in 2..THRESHOLD {
                call(&breaker, Outcome::Failure).unwrap_err();
            }
            assert_eq!(breaker.state(), BreakerState::Closed, "round {round}");
            call(&breaker, Outcome::Failure).unwrap_err();
            assert_eq!(breaker.state(), BreakerState::Open, "round {round}");
        } else {
            // The failure opened it first: the success was refused, or admitted and stale.
            assert_eq!(breaker.state(), BreakerState::Open, "round {round}");
            assert_eq!((counters.successes, counters.opened), (0, 1));
            assert_eq!(counters.stale + counters.rejected, 1, "round {round}");
            assert_eq!(success.is_err(), counters.rejected == 1);
            assert!(
                call(&breaker, Outcome::Success).unwrap_err().is_open(),
                "round {round}: open means open to every caller"
            );
        }
    }
}

#[test]
fn force_open_stops_the_calls_that_start_after_it() {
    const AFTER: usize = 100;
    let (breaker, _) = breaker(3);
    let forced = AtomicBool::new(false);
    let calls = AtomicU64::new(0);
    let barrier = Barrier::new(THREADS + 1);
    thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                barrier.wait();
                let mut refused_after = 0;
                while refused_after < AFTER {
                    // Read before the call: if `force_open` had returned, the call must fail fast.
                    let was_forced = forced.load(Ordering::SeqCst);
                    let result = call(&breaker, Outcome::Success);
                    calls.fetch_add(1, Ordering::Relaxed);
                    if was_forced {
                        assert!(matches!(result, Err(BreakerError::Open { .. })));
                        refused_after += 1;
                    }
                }
            });
        }
        barrier.wait();
        // Let the callers get going on the fast path first (a count, not a time).
        while breaker.counters().successes < 1000 {
            thread::yield_now();
        }
        breaker.force_open();
        forced.store(true, Ordering::SeqCst);
    });
    assert_eq!(breaker.state(), BreakerState::ForcedOpen);
    let counters = breaker.counters();
    assert_eq!(counters.admitted + counters.rejected, calls.into_inner());
    assert_eq!(counters.admitted, counters.successes + counters.stale);
    assert!(counters.rejected >= (THREADS * AFTER) as u64);
    assert_eq!(counters.opened, 0, "a hold is not an opening");
}

/// Successes and failures racing through many openings and closings. However they interleave,
/// an open breaker is open to every caller afterwards: no caller's update of the count survives
/// the opening it raced with.
#[test]
fn racing_outcomes_through_many_openings_leave_a_consistent_breaker() {
    const CALLS: usize = 5000;
    for round in 0..20 {
        let clock = ManualClock::new();
        let breaker =
            CircuitBreaker::new(Config::new(2, Duration::from_millis(10)).clock(clock.clone()));
        race(|n| {
            for i in 0..CALLS {
                let outcome = if (n + i) % 3 == 0 {
                    Outcome::Success
                } else {
                    Outcome::Failure
                };
                let _ = call(&breaker, outcome);
                if n == 0 && i % 8 == 0 {
                    clock.advance(Duration::from_millis(10));
                }
            }
        });
        assert_every_call_accounted_for(&breaker, (THREADS * CALLS) as u64);
        let counters = breaker.counters();
        assert!(
            counters.opened > 0,
            "round {round}: it opened at least once"
        );
        // Back to time zero, before every opening: an open breaker's window has not elapsed.
        clock.set(Duration::ZERO);
        match breaker.state() {
            BreakerState::Open => assert!(
                call(&breaker, Outcome::Success).unwrap_err().is_open(),
                "round {round}: open, yet a call went through"
            ),
            BreakerState::Closed => {
                call(&breaker, Outcome::Failure).unwrap_err();
                call(&breaker, Outcome::Failure).unwrap_err();
                assert_eq!(breaker.state(), BreakerState::Open, "round {round}");
            }
            BreakerState::HalfOpen => {}
            other => panic!("round {round}: {other}"),
        }
    }
}

/// Every kind of call, holds and clock moves at once. Whatever the interleaving, every admitted
/// call is settled exactly once, and every opening is announced once.
#[test]
fn under_mixed_load_every_call_is_accounted_for() {
    const CALLS: usize = 2000;
    let clock = ManualClock::new();
    let openings = Arc::new(AtomicU64::new(0));
    let count = Arc::clone(&openings);
    let breaker = CircuitBreaker::new(
        Config::new(3, Duration::from_millis(10))
            .half_open_trials(2)
            .clock(clock.clone())
            .on_transition(move |t| {
                if t.to == BreakerState::Open {
                    count.fetch_add(1, Ordering::Relaxed);
                }
            }),
    );
    race(|n| {
        for i in 0..CALLS {
            let outcome = match (n + i) % 5 {
                0 => Outcome::Success,
                1 => Outcome::Ignored,
                _ => Outcome::Failure,
            };
            let _ = call(&breaker, outcome);
            match (n, i % 100) {
                (0, 0) => clock.advance(Duration::from_millis(10)),
                (1, 50) => breaker.force_closed(),
                (1, 60) => breaker.release(),
                (2, 99) => breaker.force_open(),
                (3, 0) => breaker.release(),
                _ => {}
            }
        }
    });
    assert_every_call_accounted_for(&breaker, (THREADS * CALLS) as u64);
    let counters = breaker.counters();
    assert_eq!(counters.opened, openings.load(Ordering::Relaxed));

    // Whatever happened, it still follows the reference semantics from here.
    breaker.release();
    for _ in 0..2 {
        call(&breaker, Outcome::Failure).unwrap_err();
    }
    assert_eq!(breaker.state(), BreakerState::Closed);
    call(&breaker, Outcome::Failure).unwrap_err();
    assert_eq!(breaker.state(), BreakerState::Open);
}
