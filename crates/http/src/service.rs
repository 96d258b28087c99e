//! `App` as a `tower::Service`, so it mounts inside axum or under tower-http layers.

use std::convert::Infallible;
use std::task::{Context, Poll};

use axum_core::body::Body;
use bytes::Bytes;
use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use http::Request;

use green_tea_core::BoxError;

use crate::app::App;
use crate::response::Reply;

impl<B> tower_service::Service<Request<B>> for App
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Reply;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Reply, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The request's future as it is, boxed once: no layer around it, which would move it
        // once more.
        match &self.inner.layered {
            None => Box::pin(self.answer(request.map(Body::new), Ok)),
            Some(_) => Box::pin(self.handle(request.map(Body::new)).map(Ok)),
        }
    }
}
