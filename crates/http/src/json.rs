//! `Json<T>`: a JSON response.

use axum_core::body::Body;
use axum_core::response::{IntoResponse, Response};
use serde::Serialize;

use crate::error::HttpError;
use crate::response::{IntoReply, Reply, ResponseBody, bytes_reply};

/// Serializes `T` as a JSON response body with status 200 (pair it with a status:
/// `(StatusCode::CREATED, Json(v))`).
///
/// ```
/// use green_tea::Json;
/// use axum_core::response::IntoResponse;
/// let response = Json(serde_json::json!({ "ok": true })).into_response();
/// assert_eq!(response.headers()["content-type"], "application/json");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoReply for Json<T> {
    fn into_reply(self) -> Reply {
        // Written into a vector that is sent as it is: turned into `Bytes`, a vector with
        // spare capacity needs a header of its own.
        let mut body = Vec::with_capacity(128);
        match serde_json::to_writer(&mut body, &self.0) {
            Ok(()) => bytes_reply(ResponseBody::from_vec(body), "application/json"),
            Err(error) => {
                tracing::error!(%error, "could not serialize a JSON response");
                HttpError::internal().into_reply()
            }
        }
    }
}

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        // Written into a BytesMut and frozen, for axum-core's `Body`, which takes `Bytes`.
        let mut body = bytes::BufMut::writer(bytes::BytesMut::with_capacity(128));
        match serde_json::to_writer(&mut body, &self.0) {
            Ok(()) => {
                // Built here rather than from `Bytes::into_response`, which would first set
                // `application/octet-stream` only for it to be replaced.
                let mut response = Response::new(Body::from(body.into_inner().freeze()));
                response.headers_mut().insert(
                    http::header::CONTENT_TYPE,
                    http::HeaderValue::from_static("application/json"),
                );
                response
            }
            Err(error) => {
                tracing::error!(%error, "could not serialize a JSON response");
                HttpError::internal().into_response()
            }
        }
    }
}
