//! HTTP/2 responses watched for a client that grants them no flow-control window: hyper then
//! holds the response and stops polling its body, while the socket stays free, so the write
//! watch ([`Watched`](super::watched::Watched)) sees nothing. Each response body tells the
//! connection when hyper holds it and when hyper polls it; the sweeper cuts a connection whose
//! held responses have not moved for the write timeout (`connections.rs`).
//!
//! HTTP/1 needs none of this (a response it holds is a write waiting on the socket), so only
//! HTTP/2 connections wrap their service in it, and HTTP/1 requests pay nothing for it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use http::Response;
use http_body::{Body, Frame, SizeHint};
use hyper::service::Service;

use super::connections::Connection;

/// `service`, each of whose response bodies reports to `connection`.
pub(crate) struct FlowWatch<S> {
    service: S,
    connection: Arc<Connection>,
}

impl<S> FlowWatch<S> {
    pub(crate) fn new(service: S, connection: Arc<Connection>) -> Self {
        FlowWatch {
            service,
            connection,
        }
    }
}

impl<S, R, B> Service<R> for FlowWatch<S>
where
    S: Service<R, Response = Response<B>>,
{
    type Response = Response<FlowWatched<B>>;
    type Error = S::Error;
    type Future = Watching<S::Future>;

    fn call(&self, request: R) -> Self::Future {
        Watching {
            response: self.service.call(request),
            connection: Some(Arc::clone(&self.connection)),
        }
    }
}

pin_project_lite::pin_project! {
    /// The service's response future; its body, once there, is watched.
    pub(crate) struct Watching<F> {
        #[pin]
        response: F,
        connection: Option<Arc<Connection>>,
    }
}

impl<F, B, E> Future for Watching<F>
where
    F: Future<Output = Result<Response<B>, E>>,
{
    type Output = Result<Response<FlowWatched<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.response.poll(cx))?;
        let connection = this
            .connection
            .take()
            .expect("a response future is not polled after it is done");
        Poll::Ready(Ok(response.map(|body| FlowWatched::new(body, connection))))
    }
}

/// A response body that says when hyper holds it (it has taken a frame, or has not asked for
/// one yet) and when hyper asks it for the next frame.
pub(crate) struct FlowWatched<B> {
    body: B,
    connection: Arc<Connection>,
    /// Whether hyper holds this body without having asked it for a frame since the last.
    held: bool,
}

impl<B> FlowWatched<B> {
    fn new(body: B, connection: Arc<Connection>) -> Self {
        connection.response_held();
        FlowWatched {
            body,
            connection,
            held: true,
        }
    }
}

impl<B: Body + Unpin> Body for FlowWatched<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = &mut *self;
        this.connection.response_polled(this.held);
        this.held = false;
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        // A frame taken: hyper asks for the next once the client has window for it. (A body
        // that is pending waits on itself, not on the client: a slow handler, a quiet event
        // stream.)
        if let Poll::Ready(Some(Ok(_))) = &polled {
            this.connection.response_held();
            this.held = true;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl<B> Drop for FlowWatched<B> {
    fn drop(&mut self) {
        if self.held {
            self.connection.response_released();
        }
    }
}
