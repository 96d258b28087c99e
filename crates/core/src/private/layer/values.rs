//! The values a request reads, by the ids its route's plan holds: a provider's value once
//! built (or built now), a step's view of its needs, a list's or a map's members, and what a
//! step provides checked and handed over. The request path: what is hot is inlined.

use std::future::Future;
use std::sync::Arc;

use crate::container::Container;
use crate::error::ProvideError;
use crate::key::{Key, KeySpec};
use crate::value::{Needs, Provided};

pub use crate::ids::{AppValue, Id, IdVec, LocalId, RouteId, Source, StepId};
pub use crate::value::AnyValue;

/// The value `at` if its provider is built.
pub fn value(container: &Container, at: AppValue) -> Option<&AnyValue> {
    container.inner.value(at)
}

/// The value `at` if its provider is built; `Err(Closed)` once the container is closed.
pub fn try_value(container: &Container, at: AppValue) -> Result<Option<&AnyValue>, ProvideError> {
    container.inner.try_value(at)
}

/// Builds the provider of `at` (and what it needs), or joins the build under way.
pub fn build(
    container: &Container,
    at: AppValue,
) -> impl Future<Output = Result<(), ProvideError>> + Send + 'static {
    container.inner.ensure(at.provider())
}

/// The start ran past its budget (`timeout`): what is still building and what each waits on,
/// as the error says it; those builds are stopped and the container marked closed (the caller
/// closes it, disposing what was built).
pub fn start_timed_out(container: &Container, timeout: std::time::Duration) -> ProvideError {
    container.inner.start_timed_out(timeout)
}

/// Builds now the providers of `values` and what they need, independent ones concurrently; on
/// failure, disposes what was built and closes the container.
pub fn build_now(
    container: &Container,
    values: &[AppValue],
) -> impl Future<Output = Result<(), ProvideError>> + Send + 'static {
    let inner = Arc::clone(&container.inner);
    let roots: Vec<_> = values.iter().map(|v| v.provider()).collect();
    async move { inner.build_now(roots).await }
}

/// Where `key`'s value lives, if something provides it.
pub fn locate(container: &Container, key: &str) -> Option<AppValue> {
    container.inner.locate(key).ok()
}

/// The key of the value `at` (qualified, for a module's key).
pub fn value_key(container: &Container, at: AppValue) -> &Key {
    &container.inner.spec(at).key
}

/// A request's view of a step's or handler's needs: `sources` read from the app's providers
/// (which must be built) or from `locals`, the request's own values.
pub fn needs<'a>(
    container: &'a Container,
    specs: &'a [KeySpec],
    sources: &'a [Source],
    locals: &'a [AnyValue],
) -> Needs<'a> {
    Needs::of_request(specs, sources, locals, &container.inner.slots)
}

/// The value `source` names: a provider's (if built) or one of the request's `locals`.
#[inline]
pub fn source_value<'a>(
    container: &'a Container,
    locals: &'a [AnyValue],
    source: Source,
) -> Option<&'a AnyValue> {
    crate::value::source_value(&container.inner.slots, locals, source)
}

/// `value` as a list of `T`, if it is a collection of `T`.
#[inline]
pub fn all<T: Send + Sync + 'static>(value: &AnyValue) -> Option<crate::All<'_, T>> {
    crate::value::Members::all(value)
}

/// `value` as a map of `T` by name, if it is a collection of `T`.
#[inline]
pub fn by_name<T: Send + Sync + 'static>(value: &AnyValue) -> Option<crate::ByName<'_, T>> {
    crate::value::Members::by_name(value)
}

/// Checks that `provided` holds one value per spec, of its type.
#[inline]
pub fn check_provided(provided: &Provided, specs: &[KeySpec]) -> Result<(), String> {
    provided.check_against(specs)
}

/// Hands `provided`'s values, in order, to `push`.
#[inline]
pub fn append_provided(provided: Provided, push: impl FnMut(AnyValue)) {
    provided.append_to(push)
}
