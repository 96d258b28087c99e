//! Extractors of green-tea's own routing (path parameters) and of the query string. Both
//! implement axum-core's `FromRequestParts`, like every other extractor a handler may take.

use axum_core::extract::FromRequestParts;
use http::request::Parts;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::error::HttpError;

/// The parameters the router matched in the path, in template order, still percent-encoded.
/// The app puts them in the request's extensions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathParams(pub(crate) Vec<(String, String)>);

impl PathParams {
    /// The raw (still percent-encoded) value of parameter `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every parameter, in template order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The parameters as a form string for serde_urlencoded, which then percent-decodes
    /// them. `+`, `&` and `=` are literal in a path, so they are escaped first.
    fn to_form(&self) -> String {
        let escape = |v: &str| {
            v.replace('+', "%2B")
                .replace('&', "%26")
                .replace('=', "%3D")
        };
        let pairs: Vec<String> = self
            .0
            .iter()
            .map(|(k, v)| format!("{k}={}", escape(v)))
            .collect();
        pairs.join("&")
    }
}

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
