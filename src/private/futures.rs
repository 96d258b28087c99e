//! The futures of a provider's and a step's methods, for state (the provider or step and the
//! values it handles) that is `Send + Sync`. When it is not, the trait's own `Send + Sync`
//! bound, or `check`, reports it once, and these stand-ins keep it from failing again at
//! every future that holds it.

use std::future::Future;
use std::pin::Pin;

use green_tea_http::{StepFuture, StepResult};

use super::probe::TypeProbe;

/// For state `S: Send + Sync + 'static`: the futures as they are.
pub trait SharedState {
    /// A provider method's future, unchanged.
    fn provider_future<F: Future + Send>(&self, future: F) -> F;
    /// A waiting step's future, boxed once.
    fn step_future<'a, F: Future<Output = StepResult> + Send + 'a>(
        &self,
        future: F,
    ) -> StepFuture<'a>;
}

impl<S: Send + Sync + 'static> SharedState for &TypeProbe<S> {
    fn provider_future<F: Future + Send>(&self, future: F) -> F {
        future
    }
    fn step_future<'a, F: Future<Output = StepResult> + Send + 'a>(
        &self,
        future: F,
    ) -> StepFuture<'a> {
        StepFuture::new(future)
    }
}

/// The stand-ins for state that is not `Send + Sync`: never run.
pub trait UnsharedState {
    /// Never runs.
    fn provider_future<'a, F: Future + 'a>(
        &self,
        future: F,
    ) -> Pin<Box<dyn Future<Output = F::Output> + Send + 'a>>;
    /// Never runs.
    fn step_future<'a, F: Future<Output = StepResult> + 'a>(&self, future: F) -> StepFuture<'a>;
}

impl<S> UnsharedState for TypeProbe<S> {
    fn provider_future<'a, F: Future + 'a>(
        &self,
        _: F,
    ) -> Pin<Box<dyn Future<Output = F::Output> + Send + 'a>> {
        unreachable!("state that is not `Send + Sync` fails to compile")
    }
    fn step_future<'a, F: Future<Output = StepResult> + 'a>(&self, _: F) -> StepFuture<'a> {
        unreachable!("state that is not `Send + Sync` fails to compile")
    }
}
