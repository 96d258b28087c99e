//! One `build()` of a 10,000-declaration graph, for callgrind to count: the `core` bench's
//! graph (`plain`), the same size with the graph's vocabulary (`vocabulary`): a fifth of
//! the declarations contribute to one of 50 lists that providers need, a tenth are
//! decorators, and a tenth have two optional needs, one of them absent; the plain graph's
//! providers in 100 modules of 100 (`modules`); or the plain graph under six switches, every
//! 100th provider on under one with an alternative under the other outcome (`switched`)
//! (`shared/shapes.rs`).
//!
//! ```text
//! cargo bench --bench graph_shapes --no-run
//! valgrind --tool=callgrind --toggle-collect='*ContainerBuilder*build*' <binary> vocabulary
//! <binary> modules 30    # 30 builds, each of a fresh graph: build()'s median and fastest time
//! ```
//!
//! Figures and method in docs/benchmarks.md.

use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "shared/shapes.rs"]
mod shapes;

use green_tea::ContainerBuilder;
use shapes::{N, modules, plain, switched, vocabulary};

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let graph: fn() -> ContainerBuilder = match which.as_str() {
        "plain" => plain,
        "vocabulary" => vocabulary,
        "modules" => modules,
        "switched" => switched,
        _ => {
            eprintln!(
                "usage: graph_shapes plain|vocabulary|modules|switched [builds] (cargo bench \
                 passes --bench: nothing to do)"
            );
            return;
        }
    };
    let builds: usize = match std::env::args().nth(2) {
        Some(n) => n.parse().expect("a number of builds"),
        None => 1,
    };
    let mut times: Vec<Duration> = (0..builds)
        .map(|_| {
            let builder = graph();
            let start = Instant::now();
            let container = black_box(builder.build().unwrap_or_else(|e| panic!("{e}")));
            let took = start.elapsed();
            assert!(container.keys().len() >= N * 7 / 10);
            took
        })
        .collect();
    if builds > 1 {
        times.sort_unstable();
        println!(
            "{which}: build() median {:.2?}, fastest {:.2?} ({builds} builds)",
            times[builds / 2],
            times[0]
        );
    }
}
