//! `Json<T>`: a JSON response.

use axum_core::body::Body;
use axum_core::response::{IntoResponse, Response};
use bytes::BufMut;
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
        // Written into a BytesMut and frozen: no copy and no shrinking reallocation, as turning
        // a Vec with spare capacity into Bytes would.
        let mut body = bytes::BytesMut::with_capacity(128).writer();
        match serde_json::to_writer(&mut body, &self.0) {
            Ok(()) => {
                // Built here rather than from `Bytes::into_response`, which would first set
                // `application/octet-stream` only for it to be replaced.
                let mut response = Response::new(Body::from(body.into_inner().freeze()));
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
