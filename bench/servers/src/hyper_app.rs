//! The floor: hyper 1 + matchit, wired by hand. The handler is generic over the request body so
//! that hyper-server feeds it hyper's `Incoming` and hyper-inproc a `Full<Bytes>` (an
//! `Incoming` cannot be built outside hyper); for `Incoming` the code is what it was.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Body;

use crate::{Billing, Created, Order, request_id};

#[derive(Clone, Copy)]
pub enum Endpoint {
    Orders,
    Health,
}

/// The routes.
pub fn router() -> Arc<matchit::Router<Endpoint>> {
    let mut router = matchit::Router::new();
    router.insert("/orders", Endpoint::Orders).expect("route");
    router.insert("/health", Endpoint::Health).expect("route");
    Arc::new(router)
}

/// Answers one request.
pub async fn handle<B>(
    router: Arc<matchit::Router<Endpoint>>,
    billing: Arc<Billing>,
    request: Request<B>,
) -> Result<Response<Full<Bytes>>, Infallible>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let Ok(matched) = router.at(request.uri().path()) else {
        return Ok(status(StatusCode::NOT_FOUND));
    };
    match (*matched.value, request.method()) {
        (Endpoint::Orders, &Method::POST) => {
            let _request_id = request_id(request.headers());
            let Ok(body) = Limited::new(request.into_body(), 1 << 20).collect().await else {
                return Ok(status(StatusCode::PAYLOAD_TOO_LARGE));
            };
            let Ok(order) = serde_json::from_slice::<Order>(&body.to_bytes()) else {
                return Ok(status(StatusCode::BAD_REQUEST));
            };
            billing.charge(&order);
            let body = serde_json::to_vec(&Created { ok: true }).expect("serializable");
            Ok(Response::builder()
                .header(header::CONTENT_TYPE, "application/json")
                .body(Full::new(Bytes::from(body)))
                .expect("a valid response"))
        }
        (Endpoint::Health, &Method::GET) => Ok(Response::new(Full::new(Bytes::from_static(b"ok")))),
        _ => Ok(status(StatusCode::METHOD_NOT_ALLOWED)),
    }
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::default());
    *response.status_mut() = code;
    response
}
