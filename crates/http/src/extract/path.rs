//! `Path<T>`: the path parameters the router matched, deserialized into `T`.

mod de;
mod error;
mod param;

use axum_core::extract::FromRequestParts;
use http::request::Parts;
use serde::de::DeserializeOwned;

use super::params::PathParams;
use crate::error::HttpError;
use error::PathError;

/// Path parameters, percent-decoded and deserialized: one parameter into any primitive, a
/// newtype, an `Option` or a unit-only enum (`Path<u64>` for `/orders/{id}`); several into a
/// tuple or a `Vec` in template order, or into a struct or a `HashMap` by name.
///
/// A value that is not a `T` is a 400 that names the parameter, the value and the type
/// (`invalid path parameter `id`: "abc" is not a valid u64`). A `T` that the route's
/// template cannot fill (a tuple of the wrong size, a struct field the template does not
/// name) is the route's mistake, not the client's: a 500, with the details in the log.
///
/// ```
/// use green_tea::extract::{Path, RequestContext};
/// use green_tea::routing::Route;
/// let route = Route::get("/orders/{id}", |mut request: RequestContext| async move {
///     let Path(id) = request.extract::<Path<u64>>().await?;
///     Ok::<_, axum_core::response::Response>(format!("order {id}"))
/// });
/// # let _ = route;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, HttpError> {
        let params = parts
            .extensions
            .get::<PathParams>()
            .map_or(&[][..], |params| params.0.as_slice());
        de::from_params(params)
            .map(Path)
            .map_err(|error| rejection(error, std::any::type_name::<T>(), parts))
    }
}

/// The response to `error`: the client's mistakes say what was wrong; the route's are logged
/// and answered with a generic 500. Not generic, so it is compiled once.
fn rejection(error: PathError, type_name: &'static str, parts: &Parts) -> HttpError {
    if !error.is_route_mistake() {
        return HttpError::bad_request(error.to_string());
    }
    tracing::error!(
        %error,
        extractor = %format_args!("Path<{type_name}>"),
        path = parts.uri.path(),
        "the route's path parameters do not fit its extractor; fix the route's template or the type"
    );
    HttpError::internal()
}

#[cfg(test)]
mod tests {
    use http::{Request, StatusCode};
    use serde::Deserialize;

    use super::*;

    /// A request head for `uri`, with the parameters the router would have matched.
    fn parts(uri: &str, params: &[(&str, &str)]) -> Parts {
        let (mut parts, ()) = Request::get(uri).body(()).unwrap().into_parts();
        if !params.is_empty() {
            let params = params
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()));
            parts.extensions.insert(PathParams(params.collect()));
        }
        parts
    }

    async fn extract<T: DeserializeOwned + Send>(
        uri: &str,
        params: &[(&str, &str)],
    ) -> Result<T, HttpError> {
        let mut parts = parts(uri, params);
        Path::<T>::from_request_parts(&mut parts, &())
            .await
            .map(|Path(value)| value)
    }

    #[tokio::test]
    async fn reads_the_parameters_the_router_left_in_the_extensions() {
        let id = extract::<u64>("/todos/42", &[("id", "42")]).await;
        assert_eq!(id.ok(), Some(42));
    }

    #[tokio::test]
    async fn a_clients_mistake_is_a_400_that_says_what_was_wrong() {
        let error = extract::<u64>("/todos/abc", &[("id", "abc")])
            .await
            .unwrap_err();
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            error.message(),
            r#"invalid path parameter `id`: "abc" is not a valid u64"#
        );
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct UserOrder {
        user: String,
        id: u64,
    }

    #[tokio::test]
    async fn a_route_mistake_is_a_500_that_says_nothing_to_the_client() {
        let tuple = extract::<(u32, u32)>("/todos/1", &[("id", "1")]).await;
        let field = extract::<UserOrder>("/todos/1", &[("id", "1")]).await;
        let no_params = extract::<u64>("/todos", &[]).await;
        for error in [tuple.map(|_| ()), field.map(|_| ()), no_params.map(|_| ())] {
            let error = error.unwrap_err();
            assert_eq!(error.status(), StatusCode::INTERNAL_SERVER_ERROR);
            assert_eq!(error.message(), "internal server error");
        }
    }
}
