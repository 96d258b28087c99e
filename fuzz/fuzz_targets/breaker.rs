//! The circuit breaker against its reference model over fuzzer-chosen configurations and
//! interleavings of calls, results, drops, holds and clock moves: the property of
//! crates/recipes/tests/breaker/arbitrary.rs, `check`.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../crates/recipes/tests/breaker/arbitrary.rs"]
mod breaker_arbitrary;

fuzz_target!(|data: &[u8]| {
    let (setup, ops) = green_tea_fuzz::draw(data, breaker_arbitrary::scenario());
    if let Err(failure) = breaker_arbitrary::check(&setup, &ops) {
        panic!("{failure}\n{setup:#?}\n{ops:?}");
    }
});
