//! `App` as a `tower::Service`, so it mounts inside axum or under tower-http layers.

use std::convert::Infallible;
use std::task::{Context, Poll};

use axum_core::body::Body;
use axum_core::response::Response;
use bytes::Bytes;
use futures_util::future::BoxFuture;
use http::Request;

use green_tea_core::BoxError;

use crate::app::App;

impl<B> tower_service::Service<Request<B>> for App
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let app = self.clone();
        Box::pin(async move { Ok(app.handle(request.map(Body::new)).await) })
    }
}
