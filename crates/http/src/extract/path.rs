//! `Path<T>`: the path parameters the router matched, deserialized into `T`.

use axum_core::extract::FromRequestParts;
use http::request::Parts;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::PathParams;
use crate::error::HttpError;

/// Path parameters, deserialized and percent-decoded: one parameter into any `T`
/// (`Path<u64>` for `/orders/{id}`), several into a struct with their names.
///
/// ```
/// use green_tea::http::{Path, RequestContext, Route};
/// let route = Route::get("/orders/{id}", |mut request: RequestContext| async move {
///     let Path(id) = request.extract::<Path<u64>>().await?;
///     Ok::<_, axum_core::response::Response>(format!("order {id}"))
/// });
/// # let _ = route;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Path<T>(pub T);

#[derive(Deserialize)]
struct One<T> {
    value: T,
}

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, HttpError> {
        let params = parts
            .extensions
            .get::<PathParams>()
            .cloned()
            .unwrap_or_default();
        // serde_urlencoded decodes lossily; a parameter that is not UTF-8 once decoded is an
        // error, as it is in axum's `Path`.
        for (name, raw) in params.iter() {
            if percent_encoding::percent_decode_str(raw)
                .decode_utf8()
                .is_err()
            {
                return Err(HttpError::bad_request(format!(
                    "invalid path parameter `{name}`: not valid UTF-8 once percent-decoded"
                )));
            }
        }
        let invalid = |error: serde_urlencoded::de::Error| {
            HttpError::bad_request(format!("invalid path parameter: {error}"))
        };
        if let [(_, value)] = params.0.as_slice() {
            let single = PathParams(vec![("value".to_owned(), value.clone())]);
            if let Ok(one) = serde_urlencoded::from_str::<One<T>>(&single.to_form()) {
                return Ok(Path(one.value));
            }
        }
        serde_urlencoded::from_str(&params.to_form())
            .map(Path)
            .map_err(invalid)
    }
}
