//! `App` as a `tower::Service`, so it mounts inside axum or under tower-http layers.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum_core::body::Body;
use bytes::Bytes;
use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use http::Request;
use pin_project_lite::pin_project;

use green_tea_core::BoxError;

use crate::app::{App, DispatchFuture, Finish, RunFuture};
use crate::client_addr::ClientAddr;
use crate::in_flight::Entered;
use crate::response::Reply;

impl<B> tower_service::Service<Request<B>> for App
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Reply;
    type Error = Infallible;
    type Future = AppFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> AppFuture {
        let request = request.map(Body::new);
        let state = match self.layered() {
            // The request's future as the app makes it, not boxed again: its run is the one
            // allocation.
            None => {
                let peer = ClientAddr::of_extensions(request.extensions());
                State::Direct {
                    answer: self.dispatch(request, peer, Answered),
                }
            }
            Some(_) => State::Layered {
                through: Box::pin(self.handle(request).map(Ok)),
            },
        };
        AppFuture { state }
    }
}

/// The reply, holding the request's place in flight until its body is done. A type rather
/// than a function pointer, so that the call is inlined into the future's `poll`.
pub(crate) struct Answered;

impl Finish for Answered {
    type Output = Result<Reply, Infallible>;

    #[inline]
    fn finish(self, mut reply: Reply, in_flight: Option<Entered>) -> Self::Output {
        reply.body_mut().hold_in_flight(in_flight);
        Ok(reply)
    }
}

pin_project! {
    /// The future of [`App`]'s `tower::Service::call`: the request's reply.
    #[must_use = "a future does nothing unless awaited"]
    pub struct AppFuture {
        #[pin]
        state: State,
    }
}

pin_project! {
    #[project = StateProjection]
    enum State {
        Direct { #[pin] answer: DispatchFuture<RunFuture, Answered> },
        // Through the app's global layers.
        Layered { through: BoxFuture<'static, Result<Reply, Infallible>> },
    }
}

impl Future for AppFuture {
    type Output = Result<Reply, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().state.project() {
            StateProjection::Direct { answer } => answer.poll(cx),
            StateProjection::Layered { through } => through.as_mut().poll(cx),
        }
    }
}

impl std::fmt::Debug for AppFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AppFuture")
    }
}
