//! Request metrics (feature `metrics`): `http.server.request.duration` and
//! `http.server.active_requests`, named and labelled by the OpenTelemetry HTTP conventions.
//!
//! A request is measured where the app first sees it: around the dispatch of an app without
//! global layers, around the layers of one with them (the dispatch inside then only says
//! which route it took). Every label comes from the app's own table: the route's template,
//! never the request's path; the method from the conventions' list (any other is `_OTHER`);
//! the status. The handles are kept: a route's template is made a label once at `build()`,
//! and each method and status the route answers registers its histogram the first time it is
//! seen, so a request allocates nothing for its metrics.

use std::cell::Cell;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use ::metrics::{Gauge, Histogram, Label, SharedString, gauge, histogram};
use axum_core::body::Body;
use http::{Method, Request, StatusCode};

use green_tea_core::__private::layer::values::{IdVec, RouteId};
use green_tea_core::metric::{
    HTTP_SERVER_ACTIVE_REQUESTS, HTTP_SERVER_REQUEST_DURATION, UNMATCHED_ROUTE,
};

use super::built_in::paths::{BuiltIn, BuiltInRoute};
use crate::layer::Layered;
use crate::response::Reply;

/// The methods the conventions name; any other is labelled [`OTHER_METHOD`].
const METHODS: [Method; 9] = [
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PUT,
    Method::DELETE,
    Method::CONNECT,
    Method::OPTIONS,
    Method::TRACE,
    Method::PATCH,
];
const OTHER_METHOD: &str = "_OTHER";

/// How many (method, status) pairs a route keeps handles for; a route that answers more
/// registers the rest on every request (allocating their labels), which stays correct.
const KEPT: usize = 16;

/// Which label set of `http.route` a request ends in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Matched {
    /// A route (or the fallback, or a mounted service): its template.
    Route(RouteId),
    /// A path without a route for the method (a 405): the path's template.
    Path(u32),
    /// No route: a 404, or a 503 from a closing app.
    Unmatched,
    /// A built-in route (health, the explain page): its path.
    BuiltIn(BuiltInRoute),
}

/// The app's request metrics: the handles of every route, registered at `build()` with the
/// recorder installed then.
pub(crate) struct AppMetrics {
    active: [Gauge; METHODS.len() + 1],
    routes: IdVec<RouteId, RouteLabels>,
    paths: Box<[RouteLabels]>,
    unmatched: RouteLabels,
    /// In [`BuiltInRoute::ALL`]'s order; `None` for one the app does not serve.
    built_in: [Option<RouteLabels>; BuiltInRoute::ALL.len()],
}

impl AppMetrics {
    /// The handles for the routes' and the paths' templates, in id order, and for the
    /// built-in routes' paths.
    pub(crate) fn register<'a>(
        routes: impl IntoIterator<Item = &'a str>,
        paths: impl IntoIterator<Item = &'a str>,
        built_in: &BuiltIn,
    ) -> Self {
        let active = std::array::from_fn(
            |index| gauge!(HTTP_SERVER_ACTIVE_REQUESTS, "http.request.method" => method_label(index as u8)),
        );
        let labels = |template: &str| RouteLabels::new(SharedString::from(template.to_owned()));
        AppMetrics {
            active,
            routes: routes.into_iter().map(labels).collect(),
            paths: paths.into_iter().map(labels).collect(),
            unmatched: RouteLabels::new(SharedString::const_str(UNMATCHED_ROUTE)),
            built_in: BuiltInRoute::ALL.map(|route| built_in.path(route).map(labels)),
        }
    }

    fn labels(&self, matched: Matched) -> &RouteLabels {
        match matched {
            Matched::Route(id) => &self.routes[id],
            Matched::Path(index) => &self.paths[index as usize],
            Matched::Unmatched => &self.unmatched,
            Matched::BuiltIn(route) => {
                let labels = &self.built_in[route as usize];
                labels.as_ref().unwrap_or(&self.unmatched)
            }
        }
    }
}

/// The histograms of one `http.route`, by method and status, each registered the first time
/// it is needed and kept (lock-free once filled: a slot is claimed once and never changes).
struct RouteLabels {
    route: SharedString,
    kept: [OnceLock<Kept>; KEPT],
}

struct Kept {
    method: u8,
    status: StatusCode,
    duration: Histogram,
}

impl RouteLabels {
    fn new(route: SharedString) -> Self {
        RouteLabels {
            route,
            kept: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    fn record(&self, method: u8, status: StatusCode, seconds: f64) {
        for slot in &self.kept {
            // The first free slot is claimed for this pair; a slot another pair claimed
            // first is passed over.
            let kept = slot.get_or_init(|| Kept {
                method,
                status,
                duration: self.register(method, status),
            });
            if kept.method == method && kept.status == status {
                kept.duration.record(seconds);
                return;
            }
        }
        self.register(method, status).record(seconds);
    }

    fn register(&self, method: u8, status: StatusCode) -> Histogram {
        let mut labels = vec![
            Label::new("http.request.method", method_label(method)),
            Label::new("http.route", self.route.clone()),
            Label::new("http.response.status_code", status_label(status)),
        ];
        if status.is_server_error() {
            // The conventions' `error.type` for a 5xx with no more specific error: the
            // status code.
            labels.push(Label::new("error.type", status_label(status)));
        }
        histogram!(HTTP_SERVER_REQUEST_DURATION, labels)
    }
}

fn method_index(method: &Method) -> u8 {
    let index = METHODS.iter().position(|known| known == method);
    index.unwrap_or(METHODS.len()) as u8
}

fn method_label(index: u8) -> SharedString {
    let known = METHODS.get(usize::from(index));
    SharedString::const_str(known.map_or(OTHER_METHOD, Method::as_str))
}

fn status_label(status: StatusCode) -> SharedString {
    SharedString::from(status.as_str().to_owned())
}

/// One request being measured: counted active until dropped; its duration recorded by
/// [`finish`](Self::finish). Small, since the request's future holds it: the clock read at
/// its start is kept beside it, where the request's span also reads it.
pub(crate) struct Meter {
    metrics: Arc<AppMetrics>,
    pub(crate) matched: Matched,
    method: u8,
}

impl Meter {
    /// Starts measuring a request with `method`, received at the `Instant` returned.
    #[inline]
    pub(crate) fn start(metrics: &Arc<AppMetrics>, method: &Method) -> (Self, Instant) {
        let method = method_index(method);
        metrics.active[usize::from(method)].increment(1.0);
        let meter = Meter {
            metrics: Arc::clone(metrics),
            matched: Matched::Unmatched,
            method,
        };
        (meter, Instant::now())
    }

    /// The request received at `started` is answered with `status`.
    #[inline]
    pub(crate) fn finish(self, started: Instant, status: StatusCode) {
        let seconds = started.elapsed().as_secs_f64();
        self.metrics
            .labels(self.matched)
            .record(self.method, status, seconds);
    }
}

impl Drop for Meter {
    /// Answered or abandoned (the client went away), the request is no longer active.
    fn drop(&mut self) {
        self.metrics.active[usize::from(self.method)].decrement(1.0);
    }
}

/// How the dispatch measures a request: itself, or (inside the app's global layers) by saying
/// which route it took to the measurement around them.
pub(crate) struct Measure {
    meter: Option<(Meter, Instant)>,
}

impl Measure {
    /// For a request the dispatch has just received, in an app with global layers or without.
    #[inline]
    pub(crate) fn start(metrics: &Arc<AppMetrics>, has_layers: bool, method: &Method) -> Self {
        // An app with global layers is measured around them (`AroundLayers`), whichever way
        // the request came: the dispatch only says which route it took.
        if has_layers {
            return Measure { meter: None };
        }
        Measure {
            meter: Some(Meter::start(metrics, method)),
        }
    }

    /// The request took `matched`.
    #[inline]
    pub(crate) fn matched(&mut self, matched: Matched) {
        match &mut self.meter {
            Some((meter, _)) => meter.matched = matched,
            // Said to the measurement around the layers. From a task of its own (a layer
            // that hands requests to one, as tower's `Buffer` does) nothing reads it, and the
            // route found before the layers stands.
            None => TAKEN.set(Some(matched)),
        }
    }

    /// It was answered at once with `status`.
    pub(crate) fn answered(self, status: StatusCode) {
        if let Some((meter, started)) = self.meter {
            meter.finish(started, status);
        }
    }

    /// What measures the rest of the request, with when it was received, if the dispatch
    /// measures it.
    #[inline]
    pub(crate) fn into_meter(self) -> Option<(Meter, Instant)> {
        self.meter
    }
}

thread_local! {
    /// While a request's global layers are polled (see [`Measured`]): the route the dispatch
    /// inside them took, if it took one. A cell per thread rather than an entry in the
    /// request's extensions, which would cost a request three allocations (the map, the
    /// entry's box, a shared slot); `tokio::task_local!` measured more instructions a request
    /// (docs/benchmarks.md), for a scope this future opens and closes itself.
    static TAKEN: Cell<Option<Matched>> = const { Cell::new(None) };
}

/// A request about to go through the app's global layers, measured around them.
pub(crate) struct AroundLayers {
    meter: Meter,
    started: Instant,
}

impl AroundLayers {
    /// Starts measuring `request`, labelled with what `matched` finds for its method and path
    /// as it arrives (the app's routing), or, when the dispatch inside the layers took another
    /// route (a layer rewrote the path), that one; a request a layer answers itself keeps the
    /// first.
    pub(crate) fn start(
        metrics: &Arc<AppMetrics>,
        request: &Request<Body>,
        matched: impl FnOnce(&Method, &str) -> Matched,
    ) -> Self {
        let (mut meter, started) = Meter::start(metrics, request.method());
        meter.matched = matched(request.method(), request.uri().path());
        AroundLayers { meter, started }
    }

    /// `request` through `layered`, measured.
    pub(crate) fn through(
        self,
        layered: Layered,
        request: Request<Body>,
    ) -> impl std::future::Future<Output = Reply> + Send + use<> {
        Measured {
            layers: crate::layer::through(layered, request),
            meter: Some(self.meter),
            started: self.started,
        }
    }
}

pin_project_lite::pin_project! {
    /// A request's way through the app's global layers, measured.
    struct Measured<F> {
        #[pin]
        layers: F,
        meter: Option<Meter>,
        started: Instant,
    }
}

impl<F: std::future::Future<Output = Reply>> std::future::Future for Measured<F> {
    type Output = Reply;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let this = self.project();
        // What a dispatch inside says during this poll is this request's: the cell is
        // cleared first and restored after, so a request measured inside another (an app
        // with layers mounted in one) keeps its own.
        let outer = TAKEN.replace(None);
        let polled = this.layers.poll(cx);
        let taken = TAKEN.replace(outer);
        let meter = this.meter.as_mut().expect("polled after it was ready");
        if let Some(taken) = taken {
            meter.matched = taken;
        }
        let reply = std::task::ready!(polled);
        let meter = this.meter.take().expect("polled after it was ready");
        meter.finish(*this.started, reply.status());
        std::task::Poll::Ready(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_outside_the_conventions_list_are_other() {
        assert_eq!(method_label(method_index(&Method::PATCH)).as_ref(), "PATCH");
        let custom = Method::from_bytes(b"PURGE").unwrap();
        assert_eq!(method_label(method_index(&custom)).as_ref(), "_OTHER");
    }
}
