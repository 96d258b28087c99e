//! Requests built from fuzzer-chosen parts (method, path, query, headers, body) straight into
//! `App::handle`: the property of crates/http/tests/dispatch_arbitrary.rs, `check_request`.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../crates/http/tests/dispatch_arbitrary.rs"]
mod dispatch_arbitrary;

fuzz_target!(|data: &[u8]| {
    green_tea_fuzz::tolerate_panic(dispatch_arbitrary::BUILT_TO_PANIC);
    let input = green_tea_fuzz::draw(data, dispatch_arbitrary::request_input());
    if let Err(failure) = dispatch_arbitrary::check_request(&input) {
        panic!("{failure}\n{input:#?}");
    }
});
