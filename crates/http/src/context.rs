//! `RequestContext`: what a handler gets: the request head, its body (read once, within the
//! limit), the values it needs, and axum-core extractors.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::Poll;

use axum_core::body::Body;
use axum_core::extract::{FromRequest, FromRequestParts};
use axum_core::response::{IntoResponse, Response};
use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::request::Parts;
use http_body::Body as _;
use serde::de::DeserializeOwned;
use smallvec::SmallVec;

use green_tea_core::__private::sibling::RouteId;
use green_tea_core::__private::sibling::{self, AnyValue};

use crate::client_addr::ClientAddr;
use crate::error::HttpError;
use crate::extract::body;
use crate::in_flight::InFlightGuard;
use crate::runtime::{RouteRun, Runtime};

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

impl RequestBody {
    /// The length the client announced (`content-length`), or 0.
    #[inline]
    fn announced(&self) -> u64 {
        match self {
            RequestBody::Hyper(body) => body.size_hint().lower(),
            RequestBody::Boxed(body) => body.size_hint().lower(),
        }
    }

    /// As axum-core's body (hyper's boxed; one already boxed as it is).
    fn into_body(self) -> Body {
        match self {
            RequestBody::Hyper(body) => Body::new(body),
            RequestBody::Boxed(body) => body,
        }
    }
}

/// One request as a handler sees it.
// One pointer: the request is boxed once, when it is routed, and then moves between the
// request's future, the steps and the handler without being copied (its head alone is 224
// bytes).
pub struct RequestContext(Box<RequestState>);

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = &self.0;
        f.debug_struct("RequestContext")
            .field("method", &held.parts.method)
            .field("uri", &held.parts.uri)
            .field("version", &held.parts.version)
            .field("route", &held.route)
            .field("peer", &held.peer)
            .field("body_taken", &held.body.is_none())
            .finish_non_exhaustive()
    }
}

/// What a request's context holds. The dispatch runs the steps on it before the handler gets
/// it.
pub(crate) struct RequestState {
    pub(crate) parts: Parts,
    pub(crate) body: Option<RequestBody>,
    /// The values its steps provided.
    pub(crate) locals: RequestValues,
    /// What it runs on: the limits, the route's plan, the container, the drain.
    pub(crate) runtime: Arc<Runtime>,
    pub(crate) route: RouteId,
    /// The client's address, from the connection.
    pub(crate) peer: Option<SocketAddr>,
}

impl RequestState {
    // Inlined, so that the request's head (224 bytes) is moved into the box from where the
    // dispatch has it rather than copied into this call's arguments first.
    #[inline]
    pub(crate) fn new(
        parts: Parts,
        body: RequestBody,
        runtime: Arc<Runtime>,
        route: RouteId,
        peer: Option<SocketAddr>,
    ) -> Box<Self> {
        // Sized for the route's values only past what fits inline: `with_capacity` of an
        // inline size still goes through `SmallVec`'s reserve.
        let wanted = runtime.routes[route].plan.locals;
        let locals = if wanted <= RequestValues::new().inline_size() {
            RequestValues::new()
        } else {
            RequestValues::with_capacity(wanted)
        };
        Box::new(RequestState {
            parts,
            body: Some(body),
            locals,
            runtime,
            route,
            peer,
        })
    }
}

impl RequestContext {
    pub(crate) fn new(held: Box<RequestState>) -> Self {
        RequestContext(held)
    }

    /// The address of the client at the other end of the connection, if it has one (see
    /// [`ClientAddr`]: steps and handlers can also need it as the request value
    /// `clientAddr`).
    pub fn client_addr(&self) -> Option<SocketAddr> {
        self.0.peer
    }

    /// The request as it is now: head and body (an empty body if it was taken). The client's
    /// address goes with it, in its extensions.
    pub(crate) fn into_request(self) -> http::Request<Body> {
        let RequestState {
            mut parts,
            body,
            peer,
            ..
        } = *self.0;
        if peer.is_some() {
            parts.extensions.insert(ClientAddr(peer));
        }
        let body = body.map_or_else(Body::empty, RequestBody::into_body);
        http::Request::from_parts(parts, body)
    }

    #[inline]
    fn route(&self) -> &RouteRun {
        &self.0.runtime.routes[self.0.route]
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
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// use green_tea::test::TestClient;
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
        InFlightGuard::new(&self.0.runtime.in_flight, &self.0.runtime.shutdown)
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

    // Inlined into `need` and `need_ref`, which the handler's crate compiles: its errors are
    // out of line.
    #[inline]
    fn need_value(&self, index: usize) -> Result<&AnyValue, HttpError> {
        let route = self.route();
        let Some(source) = route.plan.needs.get(index) else {
            return Err(self.undeclared_need(index));
        };
        sibling::source_value(&self.0.runtime.container, &self.0.locals, *source)
            .ok_or_else(|| self.unavailable_need(index))
    }

    #[cold]
    fn undeclared_need(&self, index: usize) -> HttpError {
        tracing::error!(
            index,
            declared = self.route().plan.needs.len(),
            "a handler asked for an undeclared need"
        );
        HttpError::internal()
    }

    #[cold]
    fn unavailable_need(&self, index: usize) -> HttpError {
        tracing::error!(key = %self.route().descriptor.needs[index].key, "a need is not available");
        HttpError::internal()
    }

    #[cold]
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
        &self.0.parts
    }

    /// The request head, mutably.
    pub fn parts_mut(&mut self) -> &mut Parts {
        &mut self.0.parts
    }

    /// Runs any axum-core extractor on the request head. Its rejection is a response.
    pub async fn extract<E: FromRequestParts<()>>(&mut self) -> Result<E, Response> {
        E::from_request_parts(&mut self.0.parts, &())
            .await
            .map_err(IntoResponse::into_response)
    }

    /// The whole body, up to the route's limit (413 past it) and within the body read timeout
    /// (408 past it: a client that trickles its body does not hold a worker). Can be taken
    /// once.
    pub async fn bytes(&mut self) -> Result<Bytes, HttpError> {
        let body = self.0.body.take().ok_or_else(HttpError::internal)?;
        // A body announced (`content-length`) past the limit is refused before any of it is
        // read: hyper sends `100 Continue` only once the body is polled, so a client that
        // asked with `expect: 100-continue` gets its 413 at once and never sends the body.
        let limit = self.route().body_limit;
        if body.announced() > limit as u64 {
            return Err(self.too_large());
        }
        // One arm per body type, each collecting a concrete body, rather than an
        // `http_body::Body` impl on `RequestBody`, which would match on the variant for every
        // frame (docs/benchmarks.md has the measurement).
        // (Pinned where it is made, rather than made and then moved into the pin.)
        let mut collect = std::pin::pin!(async {
            match body {
                RequestBody::Hyper(body) => collect_limited(body, limit).await,
                RequestBody::Boxed(body) => collect_limited(body, limit).await,
            }
        });
        // A small body has usually arrived with the head: try once before arming the timer.
        // The timer is boxed: only a body that has not arrived yet pays for it, and every
        // handler's future keeps no room for it.
        let timeout = self.0.runtime.limits.body_read_timeout;
        let collected =
            match std::future::poll_fn(|cx| Poll::Ready(collect.as_mut().poll(cx))).await {
                Poll::Ready(collected) => collected,
                Poll::Pending => match Box::pin(tokio::time::timeout(timeout, collect)).await {
                    Ok(collected) => collected,
                    Err(_elapsed) => return Err(body::timed_out(timeout)),
                },
            };
        match collected {
            Ok(bytes) => Ok(bytes),
            Err(Unread::TooLarge) => Err(self.too_large()),
            Err(Unread::TooLargeForALayer) => Err(body::too_large_for_a_layer()),
            Err(Unread::Body(error)) => Err(HttpError::bad_request(format!(
                "could not read the request body: {error}"
            ))),
        }
    }

    fn too_large(&self) -> HttpError {
        body::too_large(self.route().body_limit)
    }

    /// Runs an axum-core extractor that reads the body (`FromRequest`: axum's `Json`, `Form`,
    /// `Multipart`, `Bytes`, `String`, `Request`...), giving it the request head and the body.
    /// The body is held to the route's limit and to the body read timeout as [`bytes`]
    /// holds it: past either, the answer is green-tea's 413 or 408, whatever the extractor
    /// made of it; a body announced (`content-length`) past the limit is refused before the
    /// extractor runs. A body that the extractor hands on (`Multipart`, `Body`, `Request`)
    /// stays held to both while the handler reads it, and fails there with
    /// http-body-util's `LengthLimitError` in its error chain (which axum's `Multipart`
    /// answers with 413).
    ///
    /// A rejection is the extractor's response, except that a plain-text client error (all
    /// of axum's rejections) is answered as green-tea's JSON error `{"error": "<its text>"}`
    /// with the same status.
    ///
    /// The head and the body move into the extractor: afterwards [`parts`](Self::parts) is
    /// empty and the body is taken. Needs can still be read.
    ///
    /// [`bytes`]: Self::bytes
    pub async fn extract_body<E: FromRequest<()>>(&mut self) -> Result<E, Response> {
        let body = self.0.body.take().ok_or_else(HttpError::internal)?;
        let limit = self.route().body_limit;
        // Refused before any of it is read, as `bytes` does.
        if body.announced() > limit as u64 {
            return Err(self.too_large().into());
        }
        let body = body.into_body();
        let timeout = self.0.runtime.limits.body_read_timeout;
        let outcome = body::BodyOutcome::default();
        let guarded = body::GuardedBody::new(body, limit, timeout, outcome.clone());
        let parts = std::mem::replace(&mut self.0.parts, http::Request::new(()).into_parts().0);
        let mut request = http::Request::from_parts(parts, Body::new(guarded));
        // The route's limit is the one that holds: axum's default of 2 MB would otherwise cut
        // a larger one short.
        axum_core::extract::DefaultBodyLimit::disable().apply(&mut request);
        let rejection = match E::from_request(request, &()).await {
            Ok(extracted) => return Ok(extracted),
            Err(rejection) => rejection.into_response(),
        };
        match outcome.error(limit, timeout) {
            Some(error) => Err(error.into()),
            None => Err(body::rejection(rejection).await),
        }
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
        if !has_json_content_type(&self.0.parts) {
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

/// Why a body could not be read whole.
#[derive(Debug)]
enum Unread {
    /// More than the route's limit arrived.
    TooLarge,
    /// More than a layer's limit arrived (tower-http's `RequestBodyLimitLayer` wraps the body
    /// in `http_body_util::Limited`, whose error does not say its limit).
    TooLargeForALayer,
    /// The body failed (the client went away, the stream broke).
    Body(green_tea_core::BoxError),
}

impl Unread {
    /// A body's error; a limit a layer put on the body (tower-http's `RequestBodyLimitLayer`
    /// wraps it in `http_body_util::Limited`) is the body being too large, as for green-tea's
    /// own limit, which is counted apart.
    fn of(error: green_tea_core::BoxError) -> Unread {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&*error);
        while let Some(error) = cause {
            if error.is::<http_body_util::LengthLimitError>() {
                return Unread::TooLargeForALayer;
            }
            cause = error.source();
        }
        Unread::Body(error)
    }
}

/// The body's data frames, up to `limit` bytes in all. A body of one data frame (nearly every
/// request body: hyper hands a small body over in one) is that frame's bytes, not copied and
/// with nothing allocated; a body of several is gathered into one buffer. Trailers are
/// ignored.
async fn collect_limited<B>(body: B, limit: usize) -> Result<Bytes, Unread>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Into<green_tea_core::BoxError>,
{
    let mut body = std::pin::pin!(body);
    let mut first: Option<Bytes> = None;
    let mut gathered: Option<bytes::BytesMut> = None;
    let mut total = 0_usize;
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.map_err(|error| Unread::of(error.into()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total = total.saturating_add(data.len());
        if total > limit {
            return Err(Unread::TooLarge);
        }
        if data.is_empty() {
            continue;
        }
        match (&mut first, &mut gathered) {
            (None, _) => first = Some(data),
            (Some(earlier), None) => {
                let mut buffer = bytes::BytesMut::with_capacity(total);
                buffer.extend_from_slice(earlier);
                buffer.extend_from_slice(&data);
                gathered = Some(buffer);
            }
            (Some(_), Some(buffer)) => buffer.extend_from_slice(&data),
        }
        // A body that knows it is done (hyper's, once its `content-length` is read) is not
        // polled again only to say so.
        if body.is_end_stream() {
            break;
        }
    }
    Ok(match (gathered, first) {
        (Some(buffer), _) => buffer.freeze(),
        (None, Some(only)) => only,
        (None, None) => Bytes::new(),
    })
}

/// `application/json`, or any `application/*+json`, with any parameters. On the header's
/// bytes: no UTF-8 pass, no `char` searches (this runs on every JSON request).
#[inline]
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

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use bytes::Bytes;
    use futures_util::stream;
    use http::HeaderMap;
    use http_body::Frame;
    use http_body_util::StreamBody;

    use super::{Unread, collect_limited};

    type Frames = Vec<Result<Frame<Bytes>, std::io::Error>>;

    fn frames(frames: Frames) -> StreamBody<stream::Iter<<Frames as IntoIterator>::IntoIter>> {
        StreamBody::new(stream::iter(frames))
    }

    fn data(text: &'static str) -> Result<Frame<Bytes>, std::io::Error> {
        Ok(Frame::data(Bytes::from_static(text.as_bytes())))
    }

    #[tokio::test]
    async fn one_frame_is_its_own_bytes() {
        let only = Bytes::from_static(b"{\"ok\":true}");
        let body = http_body_util::BodyExt::map_err(
            http_body_util::Full::new(only.clone()),
            |never: Infallible| -> std::io::Error { match never {} },
        );
        let collected = collect_limited(body, 100).await.unwrap();
        assert_eq!(collected, only);
        assert_eq!(collected.as_ptr(), only.as_ptr(), "not copied");
    }

    /// A body that has sent all it announced and says so (`is_end_stream`, as hyper's does
    /// once its `content-length` is read) is not polled again: this one would never answer.
    #[tokio::test]
    async fn a_body_that_says_it_is_done_is_not_polled_again() {
        struct SaysDone(Option<Bytes>);
        impl http_body::Body for SaysDone {
            type Data = Bytes;
            type Error = Infallible;
            fn poll_frame(
                mut self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<Option<Result<Frame<Bytes>, Infallible>>> {
                match self.0.take() {
                    Some(data) => std::task::Poll::Ready(Some(Ok(Frame::data(data)))),
                    None => std::task::Poll::Pending,
                }
            }
            fn is_end_stream(&self) -> bool {
                self.0.is_none()
            }
        }
        let body = SaysDone(Some(Bytes::from_static(b"all of it")));
        let collected = futures_util::FutureExt::now_or_never(collect_limited(body, 100));
        let collected = collected.expect("read without waiting").unwrap();
        assert_eq!(collected, Bytes::from_static(b"all of it"));
    }

    #[tokio::test]
    async fn several_frames_are_gathered_in_order_and_trailers_ignored() {
        let mut trailers = HeaderMap::new();
        trailers.insert("x-sum", "3".parse().unwrap());
        let body = frames(vec![
            data("ab"),
            data(""),
            data("cd"),
            Ok(Frame::trailers(trailers)),
            data("e"),
        ]);
        assert_eq!(collect_limited(body, 100).await.unwrap(), "abcde");
        assert_eq!(collect_limited(frames(vec![]), 100).await.unwrap(), "");
    }

    #[tokio::test]
    async fn past_the_limit_is_too_large_even_across_frames() {
        let body = frames(vec![data("abc"), data("def")]);
        assert!(matches!(
            collect_limited(body, 5).await,
            Err(Unread::TooLarge)
        ));
        assert_eq!(
            collect_limited(frames(vec![data("abcde")]), 5)
                .await
                .unwrap(),
            "abcde",
            "the limit itself is allowed"
        );
    }

    #[tokio::test]
    async fn a_failing_body_is_its_error() {
        let body = frames(vec![
            data("ab"),
            Err(std::io::Error::other("connection reset")),
        ]);
        let Err(Unread::Body(error)) = collect_limited(body, 100).await else {
            panic!("a broken body reads")
        };
        assert_eq!(error.to_string(), "connection reset");
    }
}
