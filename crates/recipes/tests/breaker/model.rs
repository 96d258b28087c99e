//! The breaker against a small reference model of the guide's semantics, over random
//! sequences of calls, outcomes and clock moves (sequential calls, so one trial at a time).

use std::time::Duration;

use green_tea_recipes::circuit_breaker::{
    BreakerError, BreakerState, CircuitBreaker, Config, ManualClock, Outcome,
};
use proptest::prelude::*;

/// The reference guide's `CircuitBreaker`, transcribed, with "ignored" outcomes added.
struct Model {
    threshold: u32,
    reset: u64,
    state: BreakerState,
    failures: u32,
    opened_at: u64,
}

impl Model {
    /// `None`: refused without calling. `Some(())`: called.
    fn call(&mut self, now: u64, outcome: Outcome) -> Option<()> {
        if self.state == BreakerState::Open {
            if now - self.opened_at < self.reset {
                return None;
            }
            self.state = BreakerState::HalfOpen;
        }
        match outcome {
            Outcome::Success => {
                self.state = BreakerState::Closed;
                self.failures = 0;
            }
            Outcome::Failure => {
                self.failures += 1;
                if self.state == BreakerState::HalfOpen || self.failures >= self.threshold {
                    self.state = BreakerState::Open;
                    self.opened_at = now;
                }
            }
            Outcome::Ignored => {}
        }
        Some(())
    }
}

#[derive(Clone, Debug)]
enum Step {
    Advance(u64),
    Call(Outcome),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0_u64..1500).prop_map(Step::Advance),
        prop_oneof![
            Just(Outcome::Success),
            Just(Outcome::Failure),
            Just(Outcome::Ignored)
        ]
        .prop_map(Step::Call),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_breaker_matches_the_reference_model(
        threshold in 1_u32..5,
        reset in 1_u64..1000,
        steps in proptest::collection::vec(step(), 1..80),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let clock = ManualClock::new();
        let breaker = CircuitBreaker::new(Config::new(threshold, Duration::from_millis(reset)).clock(clock.clone()));
        let mut model = Model { threshold, reset, state: BreakerState::Closed, failures: 0, opened_at: 0 };
        let mut now = 0;
        for step in steps {
            match step {
                Step::Advance(by) => {
                    now += by;
                    clock.set(Duration::from_millis(now));
                }
                Step::Call(outcome) => {
                    let mut called = false;
                    let result = runtime.block_on(breaker.call_classified(
                        || { called = true; async { Err::<(), ()>(()) } },
                        |_| outcome,
                    ));
                    let expected = model.call(now, outcome);
                    prop_assert_eq!(called, expected.is_some());
                    prop_assert_eq!(matches!(result, Err(BreakerError::Open { .. })), expected.is_none());
                }
            }
            // The model has no separate half-open-between-calls state: a breaker whose window
            // elapsed reads as open in both until the next call.
            prop_assert_eq!(breaker.state(), model.state);
        }
    }
}
