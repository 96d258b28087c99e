//! The routes green-tea answers itself when asked to (`AppBuilder::health_routes`,
//! `AppBuilder::explain_page`): answered before the request enters flight, so that they are
//! answered during the drain too, and they build no provider. Each is answered at once, but
//! the readiness route of an app with async health checks, which awaits them.

use http::header::{ALLOW, CACHE_CONTROL};
use http::request::Parts;
use http::{HeaderValue, Method, StatusCode};

use std::sync::Arc;
use std::time::Instant;

use tracing::Instrument;

pub(super) mod paths;

use paths::BuiltInRoute;

use super::metered::{Matched, Measure};
use super::{App, AppInner};
use crate::error::HttpError;
use crate::response::{IntoReply, Reply, ResponseBody, bytes_reply};
use crate::runtime::RunFuture;

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
        let mut measure = Measure::start(&self.metrics, self.layered.is_some(), &parts.method);
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
