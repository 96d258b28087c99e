//! What green-tea answers with: a [`Reply`], whose body holds bytes as they are when the
//! answer is bytes (JSON, an error, text) and axum-core's `Body` otherwise (a stream, a file).
//! Any `IntoResponse` still works; green-tea's own answers skip the box `Body` puts around
//! every body.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum_core::body::Body;
use axum_core::response::Response;
use bytes::{Buf, Bytes};
use http::StatusCode;
use http_body::{Body as _, Frame, SizeHint};

use crate::in_flight::Entered;

/// A response as green-tea serves it.
pub type Reply = http::Response<ResponseBody>;

/// The body of a [`Reply`]. A body the app sent also holds its request's place in flight
/// until it is dropped (green-tea's server drops it once it is sent): `close()` waits for it
/// (a streamed body may still read a provider after its handler returned).
///
/// ```
/// use green_tea::HttpError;
/// use green_tea::response::{Reply, ResponseBody};
/// let reply: Reply = HttpError::not_found("no such order").into();
/// assert_eq!(reply.status(), 404);
/// ```
pub struct ResponseBody {
    repr: Repr,
    in_flight: Option<Entered>,
}

enum Repr {
    /// Bytes, sent as one frame.
    Bytes(Option<Bytes>),
    /// A vector, sent as one frame without being turned into `Bytes` (which would allocate
    /// a header for its spare capacity).
    Vec(Option<Vec<u8>>),
    /// Any other body.
    Body(Body),
}

impl ResponseBody {
    /// No body.
    #[inline]
    pub fn empty() -> Self {
        ResponseBody::of(Repr::Bytes(None))
    }

    /// `vec` as the whole body.
    #[inline]
    pub fn from_vec(vec: Vec<u8>) -> Self {
        ResponseBody::of(Repr::Vec(Some(vec)).non_empty())
    }

    /// `bytes` as the whole body.
    #[inline]
    pub fn from_bytes(bytes: Bytes) -> Self {
        ResponseBody::of(Repr::Bytes(Some(bytes)).non_empty())
    }

    /// The whole body, if it is held in memory (not a stream).
    pub(crate) fn as_bytes(&self) -> Option<&[u8]> {
        match &self.repr {
            Repr::Bytes(Some(bytes)) => Some(bytes),
            Repr::Vec(Some(vec)) => Some(vec),
            Repr::Bytes(None) | Repr::Vec(None) => Some(&[]),
            Repr::Body(_) => None,
        }
    }

    #[inline]
    fn of(repr: Repr) -> Self {
        ResponseBody {
            repr,
            in_flight: None,
        }
    }

    /// The same body, holding its request's place in flight.
    pub(crate) fn in_flight(mut self, entered: Option<Entered>) -> Self {
        self.hold_in_flight(entered);
        self
    }

    /// Holds its request's place in flight, if `entered` is one (in place: a reply is not
    /// moved for it). `None` leaves a place the body already holds: only the body's end
    /// releases it.
    #[inline]
    pub(crate) fn hold_in_flight(&mut self, entered: Option<Entered>) {
        if entered.is_some() {
            self.in_flight = entered;
        }
    }

    /// The next frame, as green-tea's server writes it: a vector is not converted.
    #[inline]
    pub(crate) fn poll_chunk(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Chunk>, axum_core::Error>>> {
        match &mut self.repr {
            Repr::Bytes(bytes) => {
                Poll::Ready(bytes.take().map(|b| Ok(Frame::data(Chunk::Bytes(b)))))
            }
            Repr::Vec(vec) => Poll::Ready(
                vec.take()
                    .map(|v| Ok(Frame::data(Chunk::Vec(VecChunk { vec: v, at: 0 })))),
            ),
            Repr::Body(body) => Pin::new(body)
                .poll_frame(cx)
                .map(|frame| frame.map(|f| f.map(|f| f.map_data(Chunk::Bytes)))),
        }
    }
}

impl Repr {
    /// An empty buffer is no frame at all.
    #[inline]
    fn non_empty(self) -> Repr {
        match self {
            Repr::Bytes(Some(b)) if b.is_empty() => Repr::Bytes(None),
            Repr::Vec(Some(v)) if v.is_empty() => Repr::Bytes(None),
            other => other,
        }
    }
}

impl From<Body> for ResponseBody {
    fn from(body: Body) -> Self {
        ResponseBody::of(Repr::Body(body))
    }
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.repr {
            Repr::Bytes(b) => f
                .debug_tuple("Bytes")
                .field(&b.as_ref().map(Bytes::len))
                .finish(),
            Repr::Vec(v) => f
                .debug_tuple("Vec")
                .field(&v.as_ref().map(Vec::len))
                .finish(),
            Repr::Body(_) => f.write_str("Body"),
        }
    }
}

impl http_body::Body for ResponseBody {
    type Data = Bytes;
    type Error = axum_core::Error;

    #[inline]
    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum_core::Error>>> {
        match &mut self.get_mut().repr {
            Repr::Bytes(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Repr::Vec(vec) => Poll::Ready(vec.take().map(|v| Ok(Frame::data(Bytes::from(v))))),
            Repr::Body(body) => Pin::new(body).poll_frame(cx),
        }
    }

    #[inline]
    fn is_end_stream(&self) -> bool {
        match &self.repr {
            Repr::Bytes(bytes) => bytes.is_none(),
            Repr::Vec(vec) => vec.is_none(),
            Repr::Body(body) => body.is_end_stream(),
        }
    }

    #[inline]
    fn size_hint(&self) -> SizeHint {
        match &self.repr {
            Repr::Bytes(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            Repr::Vec(vec) => SizeHint::with_exact(vec.as_ref().map_or(0, |v| v.len() as u64)),
            Repr::Body(body) => body.size_hint(),
        }
    }
}

/// A frame's data as green-tea's server writes it.
pub(crate) enum Chunk {
    Bytes(Bytes),
    Vec(VecChunk),
}

/// A vector, read from `at`.
pub(crate) struct VecChunk {
    vec: Vec<u8>,
    at: usize,
}

impl Buf for Chunk {
    #[inline]
    fn remaining(&self) -> usize {
        match self {
            Chunk::Bytes(bytes) => bytes.remaining(),
            Chunk::Vec(v) => v.vec.len() - v.at,
        }
    }

    #[inline]
    fn chunk(&self) -> &[u8] {
        match self {
            Chunk::Bytes(bytes) => bytes.chunk(),
            Chunk::Vec(v) => &v.vec[v.at..],
        }
    }

    #[inline]
    fn advance(&mut self, count: usize) {
        match self {
            Chunk::Bytes(bytes) => bytes.advance(count),
            Chunk::Vec(v) => {
                assert!(
                    count <= v.vec.len() - v.at,
                    "advanced past the end of a chunk"
                );
                v.at += count;
            }
        }
    }
}

/// What a handler's answer becomes: green-tea's own answers as bytes, without `Body`'s box.
/// Implemented for `Json<T>`, `HttpError`, `String`, `&'static str`, `Bytes`, `()`,
/// `StatusCode`, `(StatusCode, R)` and `Result<R, E>` of those; `#[route]` handlers use it
/// for their return type when it is one of them, and `IntoResponse` otherwise.
#[doc(hidden)]
pub trait IntoReply {
    /// The reply.
    fn into_reply(self) -> Reply;
}

/// Any axum-core response, as a reply: its body is held as it is.
pub fn reply_of(response: Response) -> Reply {
    response.map(ResponseBody::from)
}

/// An answer of `body`'s bytes with `content_type`. Always inlined: its `content-type`
/// insert is then resolved at compile time, and a build with LTO otherwise stops inlining it
/// once it has several callers.
#[inline(always)]
pub(crate) fn bytes_reply(body: ResponseBody, content_type: &'static str) -> Reply {
    let mut reply = http::Response::new(body);
    reply.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(content_type),
    );
    reply
}

impl IntoReply for String {
    #[inline]
    fn into_reply(self) -> Reply {
        bytes_reply(
            ResponseBody::from_vec(self.into_bytes()),
            "text/plain; charset=utf-8",
        )
    }
}

impl IntoReply for &'static str {
    #[inline]
    fn into_reply(self) -> Reply {
        bytes_reply(
            ResponseBody::from_bytes(Bytes::from_static(self.as_bytes())),
            "text/plain; charset=utf-8",
        )
    }
}

impl IntoReply for Bytes {
    #[inline]
    fn into_reply(self) -> Reply {
        bytes_reply(ResponseBody::from_bytes(self), "application/octet-stream")
    }
}

impl IntoReply for () {
    fn into_reply(self) -> Reply {
        http::Response::new(ResponseBody::empty())
    }
}

impl IntoReply for StatusCode {
    fn into_reply(self) -> Reply {
        let mut reply = http::Response::new(ResponseBody::empty());
        *reply.status_mut() = self;
        reply
    }
}

impl<R: IntoReply> IntoReply for (StatusCode, R) {
    fn into_reply(self) -> Reply {
        let mut reply = self.1.into_reply();
        *reply.status_mut() = self.0;
        reply
    }
}

impl<R: IntoReply, E: IntoReply> IntoReply for Result<R, E> {
    fn into_reply(self) -> Reply {
        match self {
            Ok(answer) => answer.into_reply(),
            Err(rejection) => rejection.into_reply(),
        }
    }
}

impl IntoReply for Response {
    fn into_reply(self) -> Reply {
        reply_of(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum_core::response::IntoResponse;
    use http_body_util::BodyExt;

    async fn text(reply: Reply) -> String {
        let bytes = reply.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn every_kind_of_body_reads_the_same_through_the_public_body() {
        assert_eq!(text(String::from("tea").into_reply()).await, "tea");
        assert_eq!(text("tea".into_reply()).await, "tea");
        assert_eq!(text(Bytes::from_static(b"tea").into_reply()).await, "tea");
        assert_eq!(
            text(reply_of(Body::from("tea").into_response())).await,
            "tea"
        );
        assert_eq!(text(().into_reply()).await, "");
    }

    #[test]
    fn the_size_is_exact_for_bytes_and_an_empty_buffer_is_no_frame() {
        let reply = String::from("tea").into_reply();
        assert_eq!(http_body::Body::size_hint(reply.body()).exact(), Some(3));
        let empty = ResponseBody::from_vec(Vec::new());
        assert!(http_body::Body::is_end_stream(&empty));
    }

    #[test]
    fn a_status_and_a_result_keep_their_parts() {
        let created = (StatusCode::CREATED, "made").into_reply();
        assert_eq!(created.status(), StatusCode::CREATED);
        assert_eq!(
            created.headers()["content-type"],
            "text/plain; charset=utf-8"
        );
        let failed: Result<&'static str, (StatusCode, &'static str)> =
            Err((StatusCode::CONFLICT, "taken"));
        assert_eq!(failed.into_reply().status(), StatusCode::CONFLICT);
    }

    /// Status, headers and body, read the same way from either kind of response.
    async fn parts<B>(response: http::Response<B>) -> (StatusCode, http::HeaderMap, Bytes)
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::fmt::Debug,
    {
        let (head, body) = response.into_parts();
        let body = body.collect().await.unwrap().to_bytes();
        (head.status, head.headers, body)
    }

    /// Each answer with a fast reply answers exactly as its `IntoResponse` does.
    async fn same<R: IntoReply + IntoResponse + Clone>(answer: R) {
        let fast = parts(answer.clone().into_reply()).await;
        let slow = parts(answer.into_response()).await;
        assert_eq!(fast, slow);
    }

    #[tokio::test]
    async fn a_reply_is_what_into_response_would_have_sent() {
        use crate::{HttpError, Json};
        same(Json(serde_json::json!({ "ok": true, "n": [1, 2] }))).await;
        same(HttpError::not_found("no \"order\" here").with_header("retry-after", "3")).await;
        same(String::from("tea")).await;
        same("tea").await;
        same(Bytes::from_static(b"\x00\x01")).await;
        same(()).await;
        same(StatusCode::NO_CONTENT).await;
        same((StatusCode::CREATED, Json(1_u8))).await;
        same(Err::<Json<u8>, HttpError>(HttpError::bad_request("nope"))).await;
        same(Ok::<&'static str, HttpError>("fine")).await;

        // `HttpError`'s own response is its reply, so say what that is.
        let (status, headers, body) =
            parts(HttpError::not_found("no \"order\" here").into_reply()).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(headers["content-type"], "application/json");
        assert_eq!(body, r#"{"error":"no \"order\" here"}"#);
    }

    #[test]
    fn a_vector_chunk_is_written_as_is() {
        let mut body = ResponseBody::from_vec(b"abc".to_vec());
        let waker = futures_util::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let Poll::Ready(Some(Ok(frame))) = body.poll_chunk(&mut cx) else {
            panic!("one frame")
        };
        let mut chunk = frame.into_data().ok().unwrap();
        assert_eq!(chunk.remaining(), 3);
        chunk.advance(1);
        assert_eq!(chunk.chunk(), b"bc");
        assert!(matches!(body.poll_chunk(&mut cx), Poll::Ready(None)));
    }
}
