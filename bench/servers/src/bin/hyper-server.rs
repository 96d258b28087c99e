//! The floor: hyper 1 + matchit, wired by hand.

use std::convert::Infallible;
use std::sync::Arc;

use bench_servers::{Billing, BillingApi, Created, Order, request_id, runtime, settings};
use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;

#[derive(Clone, Copy)]
enum Endpoint {
    Orders,
    Health,
}

async fn handle(
    router: Arc<matchit::Router<Endpoint>>,
    billing: Arc<Billing>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
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

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let mut router = matchit::Router::new();
        router.insert("/orders", Endpoint::Orders).expect("route");
        router.insert("/health", Endpoint::Health).expect("route");
        let router = Arc::new(router);
        let billing = Arc::new(Billing { api: Arc::new(BillingApi::default()) });
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
        let http = auto::Builder::new(TokioExecutor::new());
        let ctrl_c = tokio::signal::ctrl_c();
        tokio::pin!(ctrl_c);
        loop {
            // Exit cleanly on Ctrl-C, so a profiler (valgrind) can write its output.
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = &mut ctrl_c => break,
            };
            let Ok((stream, _)) = accepted else { continue };
            let (router, billing, http) = (Arc::clone(&router), Arc::clone(&billing), http.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    handle(Arc::clone(&router), Arc::clone(&billing), request)
                });
                let _ = http.serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
}
