//! A provider's metrics (feature `metrics`): its `built` gauge, registered when the container
//! is built, and the durations of its builds and disposes.

use std::time::Duration;

use ::metrics::{Gauge, SharedString, gauge, histogram};

use crate::descriptor::Descriptor;
use crate::error::FailureCause;
use crate::metric::{
    PROVIDER_BUILD_DURATION, PROVIDER_BUILT, PROVIDER_DISPOSE_DURATION, failure_outcome,
};

/// One provider's handle. (Its name label is made again for the rare build and dispose
/// histograms rather than kept: every container's build makes one per provider.)
pub(crate) struct ProviderMetrics {
    built: Gauge,
}

/// The `provider` label of the provider `descriptor` describes: its name (a static one is not
/// copied), qualified by its module's path (`payments_eu::gateway`, so that two registrations
/// of one module are two providers; the key named after it, which the graph made already, is
/// shared).
#[inline]
fn label(descriptor: &Descriptor) -> SharedString {
    match (descriptor.module(), &descriptor.name) {
        (None, std::borrow::Cow::Borrowed(name)) => SharedString::from(*name),
        (None, std::borrow::Cow::Owned(name)) => {
            // A provider made by hand is usually named after its key (`ProviderFn::new(key)`):
            // the key's shared text then serves, rather than a copy of the name.
            let named_after = descriptor.provides.first().and_then(|spec| {
                let shared = spec.key.as_shared()?;
                (**shared == **name).then_some(shared)
            });
            match named_after {
                Some(shared) => SharedString::from(std::sync::Arc::clone(shared)),
                None => SharedString::from(name.clone()),
            }
        }
        (Some(path), _) => module_label(descriptor, path),
    }
}

#[inline(never)]
fn module_label(descriptor: &Descriptor, path: &str) -> SharedString {
    let name = &*descriptor.name;
    let named_after = descriptor.provides.iter().find_map(|spec| {
        let shared = spec.key.as_shared()?;
        let rest = crate::module::relative_to(shared, path)?;
        (rest == name).then_some(shared)
    });
    match named_after {
        Some(shared) => SharedString::from(std::sync::Arc::clone(shared)),
        None => SharedString::from(descriptor.qualified_name().into_owned()),
    }
}

impl ProviderMetrics {
    /// Registers the provider's gauge with the recorder installed now, at 0 (not built).
    /// Inlined into `build()`'s loop over providers: out of line, its key's drop went out of
    /// line too, 0.23M instructions a 10k build.
    #[inline]
    pub(crate) fn register(descriptor: &Descriptor) -> Self {
        let built = gauge!(PROVIDER_BUILT, "provider" => label(descriptor));
        built.set(0.0);
        ProviderMetrics { built }
    }

    /// The provider `descriptor` describes was built, after `took`.
    pub(crate) fn built(&self, descriptor: &Descriptor, took: Duration) {
        build_duration(descriptor, "success", took);
        self.built.set(1.0);
    }

    /// A build of the provider `descriptor` describes failed after `took`.
    pub(crate) fn build_failed(
        &self,
        descriptor: &Descriptor,
        took: Duration,
        cause: &FailureCause,
    ) {
        build_duration(descriptor, failure_outcome(cause), took);
    }

    /// A dispose of the provider `descriptor` describes ended after `took`, having failed with `failure`
    /// if any. (Builds and disposes are rare: their histograms are looked up when they happen,
    /// so that an app's output has no empty series for the outcomes it never meets.)
    ///
    /// `replaced`: the dispose is of a generation a reload replaced (or one it abandoned),
    /// and the provider's gauge is the generation's that serves.
    pub(crate) fn disposed(
        &self,
        descriptor: &Descriptor,
        took: Duration,
        failure: Option<&FailureCause>,
        replaced: bool,
    ) {
        let outcome = failure.map_or("success", failure_outcome);
        let labels = [("provider", label(descriptor)), ("outcome", outcome.into())];
        histogram!(PROVIDER_DISPOSE_DURATION, &labels).record(took.as_secs_f64());
        if !replaced {
            self.built.set(0.0);
        }
    }
}

fn build_duration(descriptor: &Descriptor, outcome: &'static str, took: Duration) {
    let labels = [("provider", label(descriptor)), ("outcome", outcome.into())];
    histogram!(PROVIDER_BUILD_DURATION, &labels).record(took.as_secs_f64());
}

/// A container's reload (an app counts its own): the `green_tea.reloads` counter by
/// `outcome`, and the `green_tea.generation` gauge at `serving`, the generation that serves
/// after it (`None`: not the container's to say, an app's container refused).
pub(crate) fn reloaded(outcome: &'static str, serving: Option<u64>) {
    use crate::metric::{GENERATION, RELOADS};
    ::metrics::counter!(RELOADS, "outcome" => outcome).increment(1);
    if let Some(serving) = serving {
        // A generation is a count: exact as an `f64` far past any container's reloads.
        #[allow(clippy::cast_precision_loss)]
        gauge!(GENERATION).set(serving as f64);
    }
}
