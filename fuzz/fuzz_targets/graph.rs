//! Arbitrary graphs through `ContainerBuilder::build_with`, `start`/`get` and `close`: the
//! property of crates/core/tests/graph/arbitrary.rs, with the fuzzer choosing the graph.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../crates/core/tests/graph/arbitrary.rs"]
mod graph_arbitrary;

fuzz_target!(|data: &[u8]| {
    let input = green_tea_fuzz::draw(data, graph_arbitrary::graph_input());
    if let Err(failure) = graph_arbitrary::check(&input) {
        panic!("{failure}\n{input:#?}");
    }
});
