//! Without the `metrics` feature: the names the dispatch uses, measuring nothing. A [`Meter`]
//! cannot exist, so the code that would use one is compiled out.

use std::sync::Arc;
use std::time::Instant;

use axum_core::body::Body;
use http::{Method, Request, StatusCode};

use green_tea_core::__private::layer::values::RouteId;

use super::built_in::paths::{BuiltIn, BuiltInRoute};
use crate::layer::Layered;
use crate::response::Reply;

/// No handles to keep.
pub(crate) struct AppMetrics;

impl AppMetrics {
    /// Registers nothing.
    pub(crate) fn register<'a>(
        _routes: impl IntoIterator<Item = &'a str>,
        _paths: impl IntoIterator<Item = &'a str>,
        _built_in: &BuiltIn,
    ) -> Self {
        AppMetrics
    }
}

/// See the `metrics` feature's version. (Made, never read, without the feature.)
#[derive(Clone, Copy)]
#[allow(dead_code)]
pub(crate) enum Matched {
    Route(RouteId),
    Path(u32),
    Unmatched,
    BuiltIn(BuiltInRoute),
}

/// Never made.
pub(crate) enum Meter {}

impl Meter {
    pub(crate) fn finish(self, _started: Instant, _status: StatusCode) {
        match self {}
    }
}

/// Measures nothing.
pub(crate) struct Measure;

impl Measure {
    #[inline]
    pub(crate) fn start(_metrics: &Arc<AppMetrics>, _has_layers: bool, _method: &Method) -> Self {
        Measure
    }

    #[inline]
    pub(crate) fn matched(&mut self, _matched: Matched) {}

    #[inline]
    pub(crate) fn answered(self, _status: StatusCode) {}

    #[inline]
    pub(crate) fn into_meter(self) -> Option<(Meter, Instant)> {
        None
    }
}

/// Not measured either.
pub(crate) struct AroundLayers;

impl AroundLayers {
    /// `matched` is not asked: nothing is labelled.
    #[inline]
    pub(crate) fn start(
        _metrics: &Arc<AppMetrics>,
        _request: &Request<Body>,
        _matched: impl FnOnce(&Method, &str) -> Matched,
    ) -> Self {
        AroundLayers
    }

    /// `request` through the app's global `layered`.
    pub(crate) fn through(
        self,
        layered: Layered,
        request: Request<Body>,
    ) -> impl std::future::Future<Output = Reply> + Send + use<> {
        crate::layer::through(layered, request)
    }
}
