//! `RequestContext`: what a handler gets: the request head, its body (read once, within the
//! limit), the values it needs, and axum-core extractors.

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;

use axum_core::body::Body;
use axum_core::extract::FromRequestParts;
use axum_core::response::{IntoResponse, Response};
use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::request::Parts;
use http_body::Body as _;
use http_body_util::{BodyExt, Limited};
use serde::de::DeserializeOwned;
use smallvec::SmallVec;

use green_tea_core::RouteId;
use green_tea_core::sibling::{self, AnyValue};

use crate::app::{AppInner, CompiledRoute, InFlightGuard};
use crate::error::HttpError;

/// One request's values: its steps' outputs, in run order. Inline up to four (the common
/// case), so that holding them costs no allocation per request.
pub(crate) type RequestValues = SmallVec<[AnyValue; 4]>;

/// A request body as the app holds it: hyper's own on the serving path (no boxing), any other
/// body from tower or `TestClient`.
pub(crate) enum RequestBody {
    Hyper(hyper::body::Incoming),
    Boxed(Body),
}

impl From<hyper::body::Incoming> for RequestBody {
    fn from(body: hyper::body::Incoming) -> Self {
        RequestBody::Hyper(body)
    }
}

impl From<Body> for RequestBody {
    fn from(body: Body) -> Self {
        RequestBody::Boxed(body)
    }
}

/// One request as a handler sees it.
pub struct RequestContext {
    parts: Parts,
    body: Option<RequestBody>,
    /// The values its steps provided.
    locals: RequestValues,
    /// The app and the route: the limits, the plan, the drain.
    app: Arc<AppInner>,
    route: RouteId,
}

impl RequestContext {
    pub(crate) fn new(
        parts: Parts,
        body: RequestBody,
        locals: RequestValues,
        app: Arc<AppInner>,
        route: RouteId,
    ) -> Self {
        RequestContext {
            parts,
            body: Some(body),
            locals,
            app,
            route,
        }
    }

    fn route(&self) -> &CompiledRoute {
        &self.app.routes[self.route]
    }

    /// Keeps this request in flight after its response has gone, until the guard is dropped:
    /// `close()` waits for it (up to the drain timeout) before it disposes any provider. For
    /// work that outlives the response and uses the app's providers: an upgraded connection
    /// (a WebSocket session), a task the handler spawns. The guard also says when `close()`
    /// has begun, so that such work can wind down.
    ///
    /// Take it in the handler, before its response is returned: the request is in flight
    /// then, so `close()` cannot have finished draining. A guard taken later, from a context
    /// kept past its response, may come after `close()` is done and then holds nothing back.
    ///
    /// ```
    /// use green_tea::http::{App, RequestContext, Route, TestClient};
    ///
    /// # #[tokio::main] async fn main() {
    /// let app = App::builder()
    ///     .route(Route::post("/jobs", |request: RequestContext| {
    ///         let guard = request.keep_in_flight();
    ///         async move {
    ///             tokio::spawn(async move {
    ///                 guard.closing().await; // or the work's own end, whichever comes first
    ///                 // ... finish with the providers, then drop the guard
    ///             });
    ///             "accepted"
    ///         }
    ///     }))
    ///     .build()
    ///     .unwrap();
    /// let client = TestClient::new(app.clone());
    /// assert_eq!(client.post("/jobs").send().await.text(), "accepted");
    /// app.close().await.unwrap(); // waits for the spawned task
    /// # }
    /// ```
    pub fn keep_in_flight(&self) -> InFlightGuard {
        InFlightGuard::new(&self.app)
    }

    /// The `index`-th key the route declared in its needs, as a `T`. Types were checked at
    /// build, so this fails only if the handler asks with another type than it declared.
    pub fn need<T: Send + Sync + 'static>(&self, index: usize) -> Result<Arc<T>, HttpError> {
        let value = self.need_value(index)?;
        Arc::clone(value)
            .downcast::<T>()
            .map_err(|_| self.wrong_need_type::<T>(index))
    }

    /// The same, borrowed from the request: no `Arc` to count up and down.
    pub fn need_ref<T: Send + Sync + 'static>(&self, index: usize) -> Result<&T, HttpError> {
        let value = self.need_value(index)?;
        (**value)
            .downcast_ref::<T>()
            .ok_or_else(|| self.wrong_need_type::<T>(index))
    }

    fn need_value(&self, index: usize) -> Result<&AnyValue, HttpError> {
        let route = self.route();
        let source = route.plan.needs.get(index).ok_or_else(|| {
            tracing::error!(
                index,
                declared = route.plan.needs.len(),
                "a handler asked for an undeclared need"
            );
            HttpError::internal()
        })?;
        sibling::source_value(&self.app.container, &self.locals, *source).ok_or_else(|| {
            tracing::error!(key = %route.descriptor.needs[index].key, "a need is not available");
            HttpError::internal()
        })
    }

    fn wrong_need_type<T: 'static>(&self, index: usize) -> HttpError {
        let spec = &self.route().descriptor.needs[index];
        tracing::error!(
            key = %spec.key,
            declared = %spec.ty,
            requested = std::any::type_name::<T>(),
            "a handler asked for a need with the wrong type"
        );
        HttpError::internal()
    }

    /// The request head: method, URI, headers, extensions.
    pub fn parts(&self) -> &Parts {
        &self.parts
    }

    /// The request head, mutably.
    pub fn parts_mut(&mut self) -> &mut Parts {
        &mut self.parts
    }

    /// Runs any axum-core extractor on the request head. Its rejection is a response.
    pub async fn extract<E: FromRequestParts<()>>(&mut self) -> Result<E, Response> {
        E::from_request_parts(&mut self.parts, &())
            .await
            .map_err(IntoResponse::into_response)
    }

    /// The whole body, up to the route's limit (413 past it) and within the body read timeout
    /// (408 past it: a client that trickles its body does not hold a worker). Can be taken
    /// once.
    pub async fn bytes(&mut self) -> Result<Bytes, HttpError> {
        let body = self.body.take().ok_or_else(HttpError::internal)?;
        // A body announced (`content-length`) past the limit is refused before any of it is
        // read: hyper sends `100 Continue` only once the body is polled, so a client that
        // asked with `expect: 100-continue` gets its 413 at once and never sends the body.
        let announced = match &body {
            RequestBody::Hyper(body) => body.size_hint().lower(),
            RequestBody::Boxed(body) => body.size_hint().lower(),
        };
        let limit = self.route().body_limit;
        if announced > limit as u64 {
            return Err(self.too_large());
        }
        // One arm per body type, each collecting a concrete body, rather than an
        // `http_body::Body` impl on `RequestBody`, which would match on the variant for every
        // frame (docs/benchmarks.md has the measurement).
        let collect = async {
            match body {
                RequestBody::Hyper(body) => {
                    let collected = Limited::new(body, limit).collect().await;
                    collected.map(|c| c.to_bytes())
                }
                RequestBody::Boxed(body) => {
                    let collected = Limited::new(body, limit).collect().await;
                    collected.map(|c| c.to_bytes())
                }
            }
        };
        // A small body has usually arrived with the head: try once before arming the timer.
        let timeout = self.app.limits.body_read_timeout;
        let mut collect = std::pin::pin!(collect);
        let collected =
            match std::future::poll_fn(|cx| Poll::Ready(collect.as_mut().poll(cx))).await {
                Poll::Ready(collected) => collected,
                Poll::Pending => match tokio::time::timeout(timeout, collect).await {
                    Ok(collected) => collected,
                    Err(_elapsed) => {
                        return Err(HttpError::with_status(
                            http::StatusCode::REQUEST_TIMEOUT,
                            format!(
                                "the request body did not arrive within {} s",
                                timeout.as_secs_f64()
                            ),
                        ));
                    }
                },
            };
        match collected {
            Ok(bytes) => Ok(bytes),
            Err(error) if error.is::<http_body_util::LengthLimitError>() => Err(self.too_large()),
            Err(error) => Err(HttpError::bad_request(format!(
                "could not read the request body: {error}"
            ))),
        }
    }

    fn too_large(&self) -> HttpError {
        HttpError::with_status(
            http::StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request body is larger than {} bytes",
                self.route().body_limit
            ),
        )
    }

    /// The body as UTF-8 text (400 if it is not).
    pub async fn text(&mut self) -> Result<String, HttpError> {
        let bytes = self.bytes().await?;
        String::from_utf8(bytes.into())
            .map_err(|_| HttpError::bad_request("the request body is not valid UTF-8"))
    }

    /// The body as JSON: 415 unless the content type is JSON, 413 past the limit, 400 (with
    /// serde's message) if it does not parse into `T`.
    pub async fn json<T: DeserializeOwned>(&mut self) -> Result<T, HttpError> {
        if !has_json_content_type(&self.parts) {
            return Err(HttpError::with_status(
                http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "expected a request with `content-type: application/json`",
            ));
        }
        let bytes = self.bytes().await?;
        serde_json::from_slice(&bytes)
            .map_err(|error| HttpError::bad_request(format!("invalid JSON body: {error}")))
    }
}

/// `application/json`, or any `application/*+json`, with any parameters. On the header's
/// bytes: no UTF-8 pass, no `char` searches (this runs on every JSON request).
fn has_json_content_type(parts: &Parts) -> bool {
    let Some(value) = parts.headers.get(CONTENT_TYPE) else {
        return false;
    };
    let value = value.as_bytes();
    if value == b"application/json" {
        return true; // nearly every JSON request
    }
    let essence = match value.iter().position(|&b| b == b';') {
        Some(end) => &value[..end],
        None => value,
    }
    .trim_ascii();
    let Some(slash) = essence.iter().position(|&b| b == b'/') else {
        return false;
    };
    let (kind, subtype) = (&essence[..slash], &essence[slash + 1..]);
    kind.eq_ignore_ascii_case(b"application")
        && subtype.is_ascii()
        && (subtype.eq_ignore_ascii_case(b"json")
            || subtype.len() > 5 && subtype[subtype.len() - 5..].eq_ignore_ascii_case(b"+json"))
}
