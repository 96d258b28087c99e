//! The axum 0.8 app: State + FromRef, an extractor for the step. Built here so that axum-server
//! and axum-inproc serve the same router.

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use http::request::Parts;

use crate::{Billing, BillingApi, Created, Order, request_id};

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

async fn create(
    State(billing): State<Arc<Billing>>,
    _id: RequestId,
    Json(order): Json<Order>,
) -> Json<Created> {
    billing.charge(&order);
    Json(Created { ok: true })
}

/// The router, with its state.
pub fn router() -> Router {
    let state = AppState {
        billing: Arc::new(Billing {
            api: Arc::new(BillingApi::default()),
        }),
    };
    Router::new()
        .route("/orders", post(create))
        .route("/health", get(|| async { "ok" }))
        .with_state(state)
}
