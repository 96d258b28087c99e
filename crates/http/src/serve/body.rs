//! The response body as the server writes it: the reply's body, its request's place in flight
//! and its connection's busy mark, held until the body is done.

use std::pin::Pin;
use std::task::{Context, Poll};

use http_body::{Frame, SizeHint};

use super::connections::Busy;
use crate::in_flight::Entered;
use crate::response::{Chunk, ResponseBody};

/// A response body as the server writes it: frames of [`Chunk`]s (a vector is not turned into
/// `Bytes`), and the connection kept busy (not idle) until the body is done.
pub(crate) struct InFlightBody {
    body: ResponseBody,
    _connection: Busy,
}

impl InFlightBody {
    /// `body`, holding its request's place in flight (`entered`, if it is one: see
    /// [`ResponseBody::hold_in_flight`](crate::response::ResponseBody::hold_in_flight)) and
    /// keeping `connection` busy. (Inlined, and set in place: the server makes one per
    /// response.)
    #[inline]
    pub(crate) fn new(mut body: ResponseBody, entered: Option<Entered>, connection: Busy) -> Self {
        body.hold_in_flight(entered);
        InFlightBody {
            body,
            _connection: connection,
        }
    }
}

impl http_body::Body for InFlightBody {
    type Data = Chunk;
    type Error = axum_core::Error;

    #[inline]
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Chunk>, axum_core::Error>>> {
        self.body.poll_chunk(cx)
    }

    #[inline]
    fn is_end_stream(&self) -> bool {
        http_body::Body::is_end_stream(&self.body)
    }

    #[inline]
    fn size_hint(&self) -> SizeHint {
        http_body::Body::size_hint(&self.body)
    }
}
