//! A fixed-count load: `loadgen URL N` sends N `POST /orders` over one keep-alive HTTP/1
//! connection, one after another, and exits non-zero if any answer is not a success (200; 201
//! from the SQLite write route's servers). With the server under callgrind, two runs of
//! different N give the cost of one request by difference.

use bench_servers::ORDER_JSON;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

fn main() {
    let mut args = std::env::args().skip(1);
    let base = args.next().expect("usage: loadgen URL N");
    let count: u64 = args
        .next()
        .and_then(|n| n.parse().ok())
        .expect("usage: loadgen URL N");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(1)
            .build_http();
        for i in 0..count {
            let request = http::Request::post(format!("{base}/orders"))
                .header("content-type", "application/json")
                .header("x-request-id", i.to_string())
                .body(Full::new(Bytes::from_static(ORDER_JSON)))
                .expect("a request");
            let response = client.request(request).await.expect("the server answers");
            let status = response.status();
            let _ = response.into_body().collect().await.expect("a body");
            assert!(status.is_success(), "request {i}: {status}");
        }
    });
}
