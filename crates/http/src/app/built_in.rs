//! The routes green-tea answers itself when asked to (`AppBuilder::health_routes`,
//! `AppBuilder::explain_page`): answered before the request enters flight, so that they are
//! answered during the drain too, and they touch no provider.

use http::header::{ALLOW, CACHE_CONTROL};
use http::request::Parts;
use http::{HeaderValue, Method, StatusCode};

use green_tea_core::Location;

use std::sync::Arc;

use super::{App, AppInner};
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

impl AppInner {
    /// The answer of a built-in route at the request's path, if it is one.
    pub(crate) fn built_in(self: &Arc<Self>, parts: &Parts) -> Option<Reply> {
        let path = parts.uri.path();
        let built_in = &self.built_in;
        let health = built_in.health.as_ref();
        let page = built_in.explain_page.as_ref().map(|(p, _)| p.as_str());
        let answer = if health.is_some_and(|h| h.live == path) {
            Self::live
        } else if health.is_some_and(|h| h.ready == path) {
            Self::ready
        } else if page == Some(path) {
            Self::explain_page
        } else {
            return None;
        };
        if parts.method != Method::GET && parts.method != Method::HEAD {
            let mut reply = HttpError::with_status(
                StatusCode::METHOD_NOT_ALLOWED,
                format!("{} is not allowed on {path}", parts.method),
            )
            .into_reply();
            reply
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return Some(reply);
        }
        let mut reply = answer(self);
        reply
            .headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        Some(reply)
    }

    /// 200 until `close()` has finished, 503 after.
    fn live(self: &Arc<Self>) -> Reply {
        let health = self.health();
        let body = serde_json::json!({
            "live": health.live,
            "draining": health.draining,
            "closed": health.closed,
        });
        json_reply(&body, health.live)
    }

    /// 200 when ready, 503 otherwise; the whole health as the body.
    fn ready(self: &Arc<Self>) -> Reply {
        let health = self.health();
        json_reply(&health, health.ready)
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

fn json_reply(body: &impl serde::Serialize, ok: bool) -> Reply {
    let body = serde_json::to_vec(body).expect("health is plain data");
    let mut reply = bytes_reply(ResponseBody::from_vec(body), "application/json");
    if !ok {
        *reply.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    }
    reply
}
