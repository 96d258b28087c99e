//! `Json<T>`: a JSON response.

use axum_core::response::{IntoResponse, Response};
use http::header::{CONTENT_TYPE, HeaderValue};
use serde::Serialize;

use crate::error::HttpError;

/// Serializes `T` as a JSON response body with status 200 (pair it with a status:
/// `(StatusCode::CREATED, Json(v))`).
///
/// ```
/// use green_tea::http::Json;
/// use axum_core::response::IntoResponse;
/// let response = Json(serde_json::json!({ "ok": true })).into_response();
/// assert_eq!(response.headers()["content-type"], "application/json");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        match serde_json::to_vec(&self.0) {
            Ok(body) => {
                let mut response = body.into_response();
                response
                    .headers_mut()
                    .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                response
            }
            Err(error) => {
                tracing::error!(%error, "could not serialize a JSON response");
                HttpError::internal().into_response()
            }
        }
    }
}
