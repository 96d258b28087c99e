//! Compile-time assertions the macros emit, each spanned at the type it is about, so that its
//! one error points there.

use axum_core::response::IntoResponse;

/// Fails to compile, pointing at the type, unless a provided value can live in the graph.
pub fn assert_value<T: Send + Sync + 'static>() {}

/// Fails to compile unless the provider struct can be shared across tasks.
pub fn assert_provider_state<T: Send + Sync + 'static>() {}

/// Fails to compile, pointing at the handler's return type, unless its answer is a response.
pub fn assert_response<R: IntoResponse>(answer: &R) {
    let _ = answer;
}

/// Fails to compile, pointing at the type, unless a `#[body]` parameter can be read from
/// JSON. (Bound as `Deserialize<'de>` rather than `DeserializeOwned`, whose error lacks
/// serde's "consider adding `#[derive(serde::Deserialize)]`".)
pub fn assert_json_body<T: for<'de> serde::Deserialize<'de>>() {}
