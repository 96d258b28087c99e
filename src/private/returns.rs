//! What a step's fn may return, turned into what `Step` wants (a provider's: core's
//! `__private`).

use axum_core::response::{IntoResponse, Response};
use green_tea_core::NeedError;
use green_tea_http::HttpError;

/// What a step fn may return: the value itself (or `()` for a guard)...
// The error is a `Response` because a step's result's is.
#[allow(clippy::result_large_err)]
pub fn step_ok<T>(value: T) -> Result<T, Response> {
    Ok(value)
}

/// ...or a `Result` of it, whose error is the response that rejects the request.
#[allow(clippy::result_large_err)]
pub fn step_result<T, E: IntoResponse>(result: Result<T, E>) -> Result<T, Response> {
    result.map_err(IntoResponse::into_response)
}

/// A step's need of the wrong type. `build()` checks every type, so this is a bug in a
/// hand-written graph, answered as a 500 like any other server fault.
pub fn need_rejection(error: NeedError) -> Response {
    tracing::error!(%error, "a step could not read its need");
    HttpError::internal().into_response()
}
