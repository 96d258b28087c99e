//! How the models run. loom's variables (`LOOM_MAX_PREEMPTIONS`, `LOOM_MAX_BRANCHES`, ...)
//! override what is set here.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// A preemption bound no execution of the small models reaches (they stop finding new
/// interleavings at 8). Not `None`: loom's unbounded search skips the extra backtracking it
/// adds under a bound, and explores fewer interleavings (95 instead of 183 for the racing
/// failures).
const UNREACHED: usize = 100;

/// Explores every interleaving loom's search reaches: for models small enough that this takes
/// well under a second.
pub(crate) fn exhaustive(model: impl Fn() + Sync + Send + 'static) {
    run(Some(UNREACHED), model);
}

/// Explores the interleavings with at most `preemptions` preemptions: for models whose full
/// search takes too long for every CI run.
pub(crate) fn bounded(preemptions: usize, model: impl Fn() + Sync + Send + 'static) {
    run(Some(preemptions), model);
}

/// Runs `model` under loom and says how many interleavings it ran (shown with `--nocapture`).
fn run(preemptions: Option<usize>, model: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = preemptions;
    }
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    builder.check(move || {
        counted.fetch_add(1, Relaxed);
        model();
    });
    println!(
        "{} interleavings, preemption bound {:?}",
        runs.load(Relaxed),
        builder.preemption_bound
    );
}
