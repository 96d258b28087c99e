//! green-tea's `build()`: `green-tea-build plain|vocabulary|modules|switched` registers one of the
//! root's 10,000-declaration graphs (`benches/shared/shapes.rs`, the graph_shapes bench's,
//! compiled here as it is) and builds it once. `bench/cg-check.sh` counts the build alone under
//! callgrind (`--toggle-collect='*ContainerBuilder*build*'`) and compares it with its baseline
//! rows, so that no change spends the headroom `build()` was given (docs/benchmarks.md, "Headroom
//! in build()") without the check saying so.

use std::hint::black_box;

#[path = "../../../../benches/shared/shapes.rs"]
mod shapes;

use green_tea::ContainerBuilder;
use shapes::{N, modules, plain, switched, vocabulary};

fn main() {
    let shape = std::env::args().nth(1).unwrap_or_default();
    let graph: fn() -> ContainerBuilder = match shape.as_str() {
        "plain" => plain,
        "vocabulary" => vocabulary,
        "modules" => modules,
        "switched" => switched,
        _ => {
            eprintln!("usage: green-tea-build plain|vocabulary|modules|switched");
            std::process::exit(2);
        }
    };
    let builder = graph();
    let container = black_box(builder.build().unwrap_or_else(|e| panic!("{e}")));
    assert!(container.keys().len() >= N * 7 / 10);
}
