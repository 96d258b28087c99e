//! Without the `metrics` feature: the names the dispatch uses, measuring nothing. A [`Meter`]
//! cannot exist, so the code that would use one is compiled out.

use std::time::Instant;

use http::StatusCode;

use green_tea_core::__private::sibling::RouteId;

/// See the `metrics` feature's version. (Made, never read, without the feature.)
#[derive(Clone, Copy)]
#[allow(dead_code)]
pub(crate) enum Matched {
    Route(RouteId),
    Path(u32),
    Unmatched,
    BuiltIn(super::built_in::paths::BuiltInRoute),
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
    pub(crate) fn start(_app: &super::AppInner, _parts: &http::request::Parts) -> Self {
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

/// `request` through the app's global `layered`.
pub(crate) fn through_layers(
    _app: &super::AppInner,
    layered: super::Layered,
    request: http::Request<axum_core::body::Body>,
) -> impl std::future::Future<Output = crate::response::Reply> + Send + use<> {
    crate::layer::through(layered, request)
}
