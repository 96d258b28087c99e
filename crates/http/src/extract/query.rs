//! `Query<T>`: the query string, deserialized as a form by serde_urlencoded.

use axum_core::extract::FromRequestParts;
use http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::HttpError;

/// The query string, deserialized (`?page=2&sort=asc` into a struct). A missing query is an
/// empty one.
#[derive(Clone, Copy, Debug)]
pub struct Query<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, HttpError> {
        serde_urlencoded::from_str(parts.uri.query().unwrap_or(""))
            .map(Query)
            .map_err(|error| HttpError::bad_request(format!("invalid query string: {error}")))
    }
}
