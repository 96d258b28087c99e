//! The futures of a step's methods, for state (the step and the values it handles) that is
//! `Send + Sync`. When it is not, `check` reports it once, and the stand-in keeps it from
//! failing again at every future that holds it. (A provider's futures are core's.)

use std::future::Future;

use green_tea_core::__private::TypeProbe;
use green_tea_http::{StepFuture, StepResult};

/// For state `S: Send + Sync + 'static`: the future, boxed once.
pub trait SharedStepState {
    /// A waiting step's future, boxed once.
    fn step_future<'a, F: Future<Output = StepResult> + Send + 'a>(
        &self,
        future: F,
    ) -> StepFuture<'a>;
}

impl<S: Send + Sync + 'static> SharedStepState for &TypeProbe<S> {
    fn step_future<'a, F: Future<Output = StepResult> + Send + 'a>(
        &self,
        future: F,
    ) -> StepFuture<'a> {
        StepFuture::new(future)
    }
}

/// The stand-in for state that is not `Send + Sync`: never runs.
pub trait UnsharedStepState {
    /// Never runs.
    fn step_future<'a, F: Future<Output = StepResult> + 'a>(&self, future: F) -> StepFuture<'a>;
}

impl<S> UnsharedStepState for TypeProbe<S> {
    fn step_future<'a, F: Future<Output = StepResult> + 'a>(&self, _: F) -> StepFuture<'a> {
        unreachable!("state that is not `Send + Sync` fails to compile")
    }
}
