//! The routes green-tea answers itself when asked to (`AppBuilder::health_routes`,
//! `AppBuilder::explain_page`): answered before the request enters flight, so that they are
//! answered during the drain too, and they build no provider. Each is answered at once, but
//! the readiness route of an app with async health checks, which awaits them.

use http::header::{ALLOW, CACHE_CONTROL};
use http::request::Parts;
use http::{HeaderValue, Method, StatusCode};

use green_tea_core::Location;

use std::sync::Arc;
use std::time::Instant;

use tracing::Instrument;

use super::metered::{Matched, Measure};
use super::{App, AppInner, RunFuture};
use crate::error::HttpError;
use crate::response::{IntoReply, Reply, ResponseBody, bytes_reply};

/// The paths of the built-in routes, each where the builder was told it.
#[derive(Default)]
pub(crate) struct BuiltIn {
    pub(crate) health: Option<HealthPaths>,
    pub(crate) explain_page: Option<(String, Location)>,
}

pub(crate) struct HealthPaths {
    pub(crate) live: String,
    pub(crate) ready: String,
    pub(crate) location: Location,
}

impl BuiltIn {
    pub(crate) fn is_empty(&self) -> bool {
        self.health.is_none() && self.explain_page.is_none()
    }

    /// Every path with the setting that asked for it, for the build's checks.
    pub(crate) fn paths(&self) -> Vec<(&str, String, Location)> {
        let mut paths = Vec::new();
        if let Some(h) = &self.health {
            paths.push((
                h.live.as_str(),
                format!("GET {} (liveness)", h.live),
                h.location,
            ));
            paths.push((
                h.ready.as_str(),
                format!("GET {} (readiness)", h.ready),
                h.location,
            ));
        }
        if let Some((path, location)) = &self.explain_page {
            paths.push((
                path.as_str(),
                format!("GET {path} (explain page)"),
                *location,
            ));
        }
        paths
    }

    /// Whether the app should keep accepting connections while it drains, to answer them.
    pub(crate) fn answers_during_drain(&self) -> bool {
        self.health.is_some()
    }
}

/// One of the built-in routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BuiltInRoute {
    Live,
    Ready,
    ExplainPage,
}

impl BuiltInRoute {
    /// Every one, in a fixed order (the metrics keep their handles in it).
    pub(crate) const ALL: [BuiltInRoute; 3] = [
        BuiltInRoute::Live,
        BuiltInRoute::Ready,
        BuiltInRoute::ExplainPage,
    ];
}

impl BuiltIn {
    /// The built-in route at `path`, if one is.
    #[inline]
    pub(crate) fn at(&self, path: &str) -> Option<BuiltInRoute> {
        BuiltInRoute::ALL
            .into_iter()
            .find(|&route| self.path(route) == Some(path))
    }

    /// Where `route` is served, if it is.
    pub(crate) fn path(&self, route: BuiltInRoute) -> Option<&str> {
        match route {
            BuiltInRoute::Live => self.health.as_ref().map(|h| h.live.as_str()),
            BuiltInRoute::Ready => self.health.as_ref().map(|h| h.ready.as_str()),
            BuiltInRoute::ExplainPage => self.explain_page.as_ref().map(|(p, _)| p.as_str()),
        }
    }
}

/// A built-in route's answer: made at once, or, for the readiness route of an app with async
/// health checks, to be awaited (still outside flight).
pub(crate) enum BuiltInAnswer {
    Now(Reply),
    Later(RunFuture),
}

impl AppInner {
    /// The answer of the built-in `route` to a request for it: in a `route` span and
    /// measured like any route's (its path is its `http.route`), though it never enters
    /// flight.
    pub(crate) fn answer_built_in(
        self: &Arc<Self>,
        route: BuiltInRoute,
        parts: &Parts,
    ) -> BuiltInAnswer {
        let mut measure = Measure::start(self, parts);
        measure.matched(Matched::BuiltIn(route));
        let path = self.built_in.path(route).unwrap_or_default();
        let span = tracing::debug_span!(
            "route",
            http.request.method = %parts.method,
            http.route = %path,
            http.response.status_code = tracing::field::Empty,
            micros = tracing::field::Empty,
        );
        let started = (!span.is_disabled()).then(Instant::now);
        if route == BuiltInRoute::Ready && is_get(parts) && self.has_async_checks() {
            let app = Arc::clone(self);
            let inner = span.clone();
            let ready = async move {
                let reply = app.ready_awaited().await;
                finished(&span, started, &reply);
                measure.answered(reply.status());
                reply
            };
            return BuiltInAnswer::Later(Box::pin(ready.instrument(inner)));
        }
        let reply = span.in_scope(|| self.built_in_reply(route, parts));
        finished(&span, started, &reply);
        measure.answered(reply.status());
        BuiltInAnswer::Now(reply)
    }

    fn built_in_reply(self: &Arc<Self>, route: BuiltInRoute, parts: &Parts) -> Reply {
        if !is_get(parts) {
            let mut reply = HttpError::with_status(
                StatusCode::METHOD_NOT_ALLOWED,
                format!("{} is not allowed on {}", parts.method, parts.uri.path()),
            )
            .into_reply();
            reply
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return reply;
        }
        let reply = match route {
            BuiltInRoute::Live => self.live(),
            BuiltInRoute::Ready => ready_reply(&self.health_with(Vec::new())),
            BuiltInRoute::ExplainPage => self.explain_page(),
        };
        not_stored(reply)
    }

    /// The readiness route's answer, the app's async health checks awaited.
    async fn ready_awaited(&self) -> Reply {
        not_stored(ready_reply(&self.health().await))
    }

    /// 200 until `close()` has finished, 503 after. Reads no health check.
    fn live(self: &Arc<Self>) -> Reply {
        let liveness = self.liveness();
        json_reply(&liveness, liveness.live)
    }

    fn explain_page(self: &Arc<Self>) -> Reply {
        let app = App {
            inner: Arc::clone(self),
        };
        let html = app.explain_all().to_html();
        bytes_reply(
            ResponseBody::from_vec(html.into_bytes()),
            "text/html; charset=utf-8",
        )
    }
}

/// Whether the request is one a built-in route answers (`GET` or `HEAD`).
fn is_get(parts: &Parts) -> bool {
    parts.method == Method::GET || parts.method == Method::HEAD
}

/// The readiness route's answer: 200 when ready, 503 otherwise; the whole health as the body.
fn ready_reply(health: &crate::health::AppHealth) -> Reply {
    json_reply(health, health.ready)
}

/// `reply`, which no cache may keep.
fn not_stored(mut reply: Reply) -> Reply {
    reply
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    reply
}

/// Records `reply` on the built-in route's `span`, if it is enabled (`started` is set then).
fn finished(span: &tracing::Span, started: Option<Instant>, reply: &Reply) {
    if let Some(started) = started {
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        span.record("http.response.status_code", reply.status().as_u16());
        span.record("micros", micros);
        span.in_scope(|| tracing::debug!("finished"));
    }
}

fn json_reply(body: &impl serde::Serialize, ok: bool) -> Reply {
    let body = serde_json::to_vec(body).expect("health is plain data");
    let mut reply = bytes_reply(ResponseBody::from_vec(body), "application/json");
    if !ok {
        *reply.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    }
    reply
}
