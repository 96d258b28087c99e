//! The circuit breaker's closed path (one state word changed by compare-exchange, no lock)
//! racing its state machine (under the lock), through the breaker's public calls. The clock is
//! a `ManualClock` that never moves: an open breaker stays open, and no model depends on time.

use std::future::Future;
use std::pin::pin;
use std::sync::Mutex as StdMutex;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, Ordering};
use loom::thread;

use crate::circuit_breaker::{
    BreakerError, BreakerState, CircuitBreaker, Config, Counters, ManualClock, Outcome,
};
use crate::model;

/// The transitions a breaker announced: (from, to, failures counted).
type Log = std::sync::Arc<StdMutex<Vec<(BreakerState, BreakerState, u32)>>>;

/// A breaker on a clock that never moves, logging its transitions. (The log is a std `Mutex`:
/// the callback does no loom operation while it holds it, so loom never switches threads
/// there and it adds nothing to the model.)
fn breaker(threshold: u32) -> (CircuitBreaker, Log) {
    let log = Log::default();
    let seen = std::sync::Arc::clone(&log);
    let breaker = CircuitBreaker::new(
        Config::new(threshold, Duration::from_secs(30))
            .clock(ManualClock::new())
            .on_transition(move |t| seen.lock().unwrap().push((t.from, t.to, t.failures))),
    );
    (breaker, log)
}

/// Runs a call whose operation is ready at once (no call timeout, so no runtime is needed).
fn ready<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => unreachable!("these operations never wait"),
    }
}

/// One call whose result `classify` calls `outcome`; `during` runs inside the operation, after
/// the call was admitted and before it settles.
fn call_with(
    breaker: &CircuitBreaker,
    outcome: Outcome,
    during: impl FnOnce(),
) -> Result<(), BreakerError<()>> {
    ready(breaker.call_classified(
        || async move {
            during();
            match outcome {
                Outcome::Success => Ok(()),
                _ => Err(()),
            }
        },
        move |_| outcome,
    ))
}

fn call(breaker: &CircuitBreaker, outcome: Outcome) -> Result<(), BreakerError<()>> {
    call_with(breaker, outcome, || {})
}

/// Lets a thread just spawned run first. loom's search reorders two accesses only after one
/// execution showed them conflicting; a thread spawned mid-call would otherwise start only when
/// the caller waits for it, after the call settled, and the search would never put it before
/// the settle (without this, the stale-success model ran one interleaving).
fn let_it_start() {
    thread::yield_now();
}

/// Every call was refused or admitted, and every admitted one was settled exactly once.
fn assert_every_call_accounted_for(counters: Counters, calls: u64) {
    assert_eq!(counters.admitted + counters.rejected, calls, "{counters:?}");
    assert_eq!(
        counters.admitted,
        counters.successes + counters.failures + counters.ignored + counters.stale,
        "{counters:?}"
    );
}

/// Two failures race on a closed breaker whose threshold is 2: both are counted (neither is
/// lost to the other's compare-exchange) and it opens exactly once, announced once.
#[test]
fn racing_failures_at_the_threshold_open_it_exactly_once() {
    model::exhaustive(|| {
        let (breaker, log) = breaker(2);
        let other = breaker.clone();
        let theirs = thread::spawn(move || call(&other, Outcome::Failure));
        let mine = call(&breaker, Outcome::Failure);
        let theirs = theirs.join().unwrap();

        assert_eq!(
            (mine, theirs),
            (Err(BreakerError::Inner(())), Err(BreakerError::Inner(())))
        );
        assert_eq!(breaker.state(), BreakerState::Open);
        let counters = breaker.counters();
        assert_eq!(
            (counters.failures, counters.stale, counters.opened),
            (2, 0, 1),
            "{counters:?}"
        );
        assert_every_call_accounted_for(counters, 2);
        assert_eq!(
            *log.lock().unwrap(),
            [(BreakerState::Closed, BreakerState::Open, 2)]
        );
    });
}

/// One failure short of the threshold, a success races the failure that would open it. Either
/// order is fine; a lost update is not (a success that counted but did not reset, a failure
/// not counted, a reset that lands on a breaker the failure opened).
#[test]
fn a_success_racing_the_failure_that_would_open_it() {
    model::exhaustive(|| {
        let (breaker, log) = breaker(2);
        call(&breaker, Outcome::Failure).unwrap_err();
        let other = breaker.clone();
        let success = thread::spawn(move || call(&other, Outcome::Success));
        let failure = call(&breaker, Outcome::Failure);
        let success = success.join().unwrap();

        assert_eq!(failure, Err(BreakerError::Inner(())));
        let counters = breaker.counters();
        assert_every_call_accounted_for(counters, 3);
        if breaker.state() == BreakerState::Closed {
            // The success came first and reset the count; the failure counted one: one more
            // failure opens it.
            assert_eq!(success, Ok(()));
            assert_eq!(
                (counters.successes, counters.opened),
                (1, 0),
                "{counters:?}"
            );
            call(&breaker, Outcome::Failure).unwrap_err();
            assert_eq!(breaker.state(), BreakerState::Open);
        } else {
            // The failure opened it first: the success was refused, or admitted and stale.
            assert_eq!(breaker.state(), BreakerState::Open);
            assert_eq!(
                (counters.successes, counters.opened),
                (0, 1),
                "{counters:?}"
            );
            assert_eq!(counters.stale + counters.rejected, 1, "{counters:?}");
            assert_eq!(success.is_err(), counters.rejected == 1);
            assert_eq!(
                *log.lock().unwrap(),
                [(BreakerState::Closed, BreakerState::Open, 2)]
            );
            assert!(
                call(&breaker, Outcome::Success).unwrap_err().is_open(),
                "open means open to every caller"
            );
        }
    });
}

/// A failure admitted by a closed breaker settles while an operator holds it open and releases
/// it (two new generations). Counted before the hold, it is forgotten by the release; after,
/// it is stale. Either way the released breaker starts from zero: one failure does not open it
/// at threshold 2.
#[test]
fn a_stale_failure_does_not_count_in_a_newer_generation() {
    model::exhaustive(|| {
        let (breaker, _) = breaker(2);
        let operator = breaker.clone();
        let mut hold = None;
        let failure = call_with(&breaker, Outcome::Failure, || {
            // Admitted now (generation 0); the operator acts while it runs and settles.
            hold = Some(thread::spawn(move || {
                operator.force_open();
                operator.release();
            }));
            let_it_start();
        });
        hold.unwrap().join().unwrap();

        assert_eq!(failure, Err(BreakerError::Inner(())));
        assert_eq!(breaker.state(), BreakerState::Closed);
        let counters = breaker.counters();
        assert_eq!(counters.failures + counters.stale, 1, "{counters:?}");
        assert_every_call_accounted_for(counters, 1);
        call(&breaker, Outcome::Failure).unwrap_err();
        assert_eq!(
            breaker.state(),
            BreakerState::Closed,
            "a stale failure counted"
        );
        call(&breaker, Outcome::Failure).unwrap_err();
        assert_eq!(breaker.state(), BreakerState::Open);
    });
}

/// A success admitted by a closed breaker settles while another call's failure opens it (a new
/// generation, threshold 1). Before the opening it only counts; after, it is stale: it never
/// closes the breaker that opened after it was admitted.
#[test]
fn a_stale_success_does_not_close_a_newer_generation() {
    model::exhaustive(|| {
        let (breaker, log) = breaker(1);
        let other = breaker.clone();
        let mut failing = None;
        let success = call_with(&breaker, Outcome::Success, || {
            failing = Some(thread::spawn(move || call(&other, Outcome::Failure)));
            let_it_start();
        });
        let failure = failing.unwrap().join().unwrap();

        assert_eq!((success, failure), (Ok(()), Err(BreakerError::Inner(()))));
        assert_eq!(
            breaker.state(),
            BreakerState::Open,
            "a stale success closed it"
        );
        let counters = breaker.counters();
        assert_eq!((counters.opened, counters.failures), (1, 1), "{counters:?}");
        assert_every_call_accounted_for(counters, 2);
        assert_eq!(
            *log.lock().unwrap(),
            [(BreakerState::Closed, BreakerState::Open, 1)]
        );
        assert!(call(&breaker, Outcome::Success).unwrap_err().is_open());
    });
}

/// Past its open window, a breaker lets one trial through; another call races it. The other
/// call is refused while the trial runs, or admitted once the trial's success has closed the
/// breaker, whether it reads the closed word or asks the machine. Either way the closed
/// breaker counts it like any other: the closing published a word of its new generation.
#[test]
fn a_call_racing_the_trial_that_closes_it() {
    model::exhaustive(|| {
        let clock = ManualClock::new();
        let log = Log::default();
        let seen = std::sync::Arc::clone(&log);
        let breaker = CircuitBreaker::new(
            Config::new(1, Duration::from_secs(30))
                .clock(clock.clone())
                .on_transition(move |t| seen.lock().unwrap().push((t.from, t.to, t.failures))),
        );
        call(&breaker, Outcome::Failure).unwrap_err();
        clock.set(Duration::from_secs(30)); // the window elapsed: the next call is a trial
        let other = breaker.clone();
        let theirs = thread::spawn(move || call(&other, Outcome::Success));
        let mine = call(&breaker, Outcome::Success);
        let theirs = theirs.join().unwrap();

        assert_eq!(breaker.state(), BreakerState::Closed);
        let counters = breaker.counters();
        assert_every_call_accounted_for(counters, 3);
        let refused = [&mine, &theirs].iter().filter(|r| r.is_err()).count() as u64;
        assert_eq!(
            (counters.rejected, counters.successes, counters.stale),
            (refused, 2 - refused, 0),
            "{counters:?}"
        );
        assert!(refused <= 1, "the trial itself was refused");
        assert_eq!(
            *log.lock().unwrap(),
            [
                (BreakerState::Closed, BreakerState::Open, 1),
                (BreakerState::Open, BreakerState::HalfOpen, 1),
                (BreakerState::HalfOpen, BreakerState::Closed, 0),
            ]
        );
        call(&breaker, Outcome::Failure).unwrap_err();
        assert_eq!(
            breaker.state(),
            BreakerState::Open,
            "closed, and counting again"
        );
    });
}

/// `force_open` races a call on a closed breaker. The call may go through (then it settles or
/// is stale), but a call that starts after it learned that `force_open` returned is refused:
/// the hold reaches a caller that reads the word without the lock.
#[test]
fn force_open_racing_a_closed_call() {
    model::exhaustive(|| {
        let (breaker, log) = breaker(2);
        let forced = Arc::new(AtomicBool::new(false));
        let (other, seen) = (breaker.clone(), Arc::clone(&forced));
        let caller = thread::spawn(move || {
            // Acquire: if it reads `true`, it happens after `force_open` returned.
            let after_the_hold = seen.load(Ordering::Acquire);
            let result = call(&other, Outcome::Failure);
            if after_the_hold {
                assert!(
                    matches!(result, Err(BreakerError::Open { .. })),
                    "admitted after force_open returned: {result:?}"
                );
            }
            result
        });
        breaker.force_open();
        forced.store(true, Ordering::Release);
        caller.join().unwrap().ok();

        assert_eq!(breaker.state(), BreakerState::ForcedOpen);
        let counters = breaker.counters();
        assert_every_call_accounted_for(counters, 1);
        assert_eq!(counters.opened, 0, "a hold is not an opening");
        assert_eq!(
            *log.lock().unwrap(),
            [(BreakerState::Closed, BreakerState::ForcedOpen, 0)]
        );
        assert!(call(&breaker, Outcome::Success).unwrap_err().is_open());
    });
}
