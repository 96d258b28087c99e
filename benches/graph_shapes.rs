//! One `build()` of a 10,000-declaration graph, for callgrind to count: the `core` bench's
//! graph (`plain`), or the same size with the graph's vocabulary (`vocabulary`): a fifth of
//! the declarations contribute to one of 50 lists that providers need, a tenth are
//! decorators, and a tenth have two optional needs, one of them absent (`shared/shapes.rs`).
//!
//! ```text
//! cargo bench --bench graph_shapes --no-run
//! valgrind --tool=callgrind --toggle-collect='*ContainerBuilder*build*' <binary> vocabulary
//! ```
//!
//! Figures and method in docs/benchmarks.md.

use std::hint::black_box;

#[path = "shared/shapes.rs"]
mod shapes;

use shapes::{N, modules, plain, vocabulary};

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let builder = match which.as_str() {
        "plain" => plain(),
        "vocabulary" => vocabulary(),
        "modules" => modules(),
        _ => {
            eprintln!(
                "usage: graph_shapes plain|vocabulary|modules (cargo bench passes --bench: nothing to do)"
            );
            return;
        }
    };
    let container = black_box(builder.build().unwrap_or_else(|e| panic!("{e}")));
    assert!(container.keys().len() >= N * 7 / 10);
}
