//! Raw bytes from the fuzzer on one connection to a served app (the server's own HTTP/1 and
//! HTTP/2 builders, over an in-memory duplex): the property of
//! crates/http/tests/dispatch_arbitrary.rs, `check_bytes`, with the fuzzer writing the bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../crates/http/tests/dispatch_arbitrary.rs"]
mod dispatch_arbitrary;

fuzz_target!(|data: &[u8]| {
    green_tea_fuzz::tolerate_panic(dispatch_arbitrary::BUILT_TO_PANIC);
    if let Err(failure) = dispatch_arbitrary::check_bytes(data) {
        panic!("{failure}");
    }
});
