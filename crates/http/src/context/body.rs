//! Reading a request's body: whole (`bytes`, `text`, `json`) or through an axum-core
//! extractor (`extract_body`), held to the route's limit and the body read timeout.

use std::future::Future;
use std::task::Poll;

use axum_core::body::Body;
use axum_core::extract::FromRequest;
use axum_core::response::{IntoResponse, Response};
use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::request::Parts;
use http_body::Body as _;
use serde::de::DeserializeOwned;

use super::request::RequestContext;
use crate::error::HttpError;
use crate::extract::body;
use crate::runtime::RequestBody;

impl RequestContext {
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
