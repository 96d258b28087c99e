//! The futures of a provider's methods, for state (the provider and the values it handles)
//! that is `Send + Sync`. When it is not, `Provider`'s own `Send + Sync` bound, or `check`,
//! reports it once, and the stand-in keeps it from failing again at every future that holds
//! it. (A step's futures are the facade's: `Step` is the HTTP layer's.)

use std::future::Future;
use std::pin::Pin;

use super::probe::TypeProbe;

/// For state `S: Send + Sync + 'static`: the future as it is.
pub trait SharedProviderState {
    /// A provider method's future, unchanged.
    fn provider_future<F: Future + Send>(&self, future: F) -> F;
}

impl<S: Send + Sync + 'static> SharedProviderState for &TypeProbe<S> {
    fn provider_future<F: Future + Send>(&self, future: F) -> F {
        future
    }
}

/// The stand-in for state that is not `Send + Sync`: never runs.
pub trait UnsharedProviderState {
    /// Never runs.
    fn provider_future<'a, F: Future + 'a>(
        &self,
        future: F,
    ) -> Pin<Box<dyn Future<Output = F::Output> + Send + 'a>>;
}

impl<S> UnsharedProviderState for TypeProbe<S> {
    fn provider_future<'a, F: Future + 'a>(
        &self,
        _: F,
    ) -> Pin<Box<dyn Future<Output = F::Output> + Send + 'a>> {
        unreachable!("state that is not `Send + Sync` fails to compile")
    }
}
