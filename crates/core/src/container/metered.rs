//! A provider's metrics (feature `metrics`): its `built` gauge, registered when the container
//! is built, and the durations of its builds and disposes.

use std::time::Duration;

use ::metrics::{Gauge, SharedString, gauge, histogram};

use crate::descriptor::Descriptor;
use crate::error::FailureCause;
use crate::metric::{
    PROVIDER_BUILD_DURATION, PROVIDER_BUILT, PROVIDER_DISPOSE_DURATION, failure_outcome,
};

/// One provider's handles.
pub(crate) struct ProviderMetrics {
    name: SharedString,
    built: Gauge,
}

impl ProviderMetrics {
    /// Registers the provider's gauge with the recorder installed now, at 0 (not built).
    pub(crate) fn register(descriptor: &Descriptor) -> Self {
        let name = SharedString::from(descriptor.name.clone());
        let built = gauge!(PROVIDER_BUILT, "provider" => name.clone());
        built.set(0.0);
        ProviderMetrics { name, built }
    }

    /// A build succeeded after `took`.
    pub(crate) fn built(&self, took: Duration) {
        self.build_duration("success", took);
        self.built.set(1.0);
    }

    /// A build failed after `took`.
    pub(crate) fn build_failed(&self, took: Duration, cause: &FailureCause) {
        self.build_duration(failure_outcome(cause), took);
    }

    /// A dispose ended after `took`, having failed with `failure` if any. (Builds and
    /// disposes are rare: their histograms are looked up when they happen, so that an app's
    /// output has no empty series for the outcomes it never meets.)
    pub(crate) fn disposed(&self, took: Duration, failure: Option<&FailureCause>) {
        let outcome = failure.map_or("success", failure_outcome);
        let labels = [("provider", self.name.clone()), ("outcome", outcome.into())];
        histogram!(PROVIDER_DISPOSE_DURATION, &labels).record(took.as_secs_f64());
        self.built.set(0.0);
    }

    fn build_duration(&self, outcome: &'static str, took: Duration) {
        let labels = [("provider", self.name.clone()), ("outcome", outcome.into())];
        histogram!(PROVIDER_BUILD_DURATION, &labels).record(took.as_secs_f64());
    }
}
