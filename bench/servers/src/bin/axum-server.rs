//! axum 0.8: State + FromRef, an extractor for the step.

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use bench_servers::{Billing, BillingApi, Created, Order, request_id, runtime, settings};
use http::request::Parts;

#[derive(Clone)]
struct AppState {
    billing: Arc<Billing>,
}

impl FromRef<AppState> for Arc<Billing> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.billing)
    }
}

/// The step: the request id.
struct RequestId(#[allow(dead_code)] String);

impl<S: Send + Sync> FromRequestParts<S> for RequestId {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(RequestId(request_id(&parts.headers)))
    }
}

async fn create(State(billing): State<Arc<Billing>>, _id: RequestId, Json(order): Json<Order>) -> Json<Created> {
    billing.charge(&order);
    Json(Created { ok: true })
}

fn main() {
    let (port, workers) = settings();
    runtime(workers).block_on(async move {
        let state = AppState {
            billing: Arc::new(Billing { api: Arc::new(BillingApi::default()) }),
        };
        let app = Router::new()
            .route("/orders", post(create))
            .route("/health", get(|| async { "ok" }))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
        // Exit cleanly on Ctrl-C, so a profiler (valgrind) can write its output.
        axum::serve(listener, app)
            .with_graceful_shutdown(async { tokio::signal::ctrl_c().await.expect("a signal handler") })
            .await
            .expect("serve");
    });
}
