//! hyper 1 + matchit wired by hand, as `hyper-server`, but each connection served by hyper's
//! HTTP/1 connection directly instead of hyper-util's auto builder (no protocol detection): the
//! floor for memory per idle connection (`bench/idle-memory.sh`).

use std::sync::Arc;

use bench_servers::hyper_app::{handle, router};
use bench_servers::{Billing, BillingApi, runtime, settings};
use http::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let router = router();
        let billing = Arc::new(Billing {
            api: Arc::new(BillingApi::default()),
        });
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind");
        let http = http1::Builder::new();
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
                let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                    handle(Arc::clone(&router), Arc::clone(&billing), request)
                });
                let _ = http.serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
}
