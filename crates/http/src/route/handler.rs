//! `Handler`: what answers a request once its steps have run, and the two shapes a function
//! takes to be one (an `async` closure answering anything `IntoResponse`, and `#[route]`'s,
//! answering a `Reply` itself).

use std::future::Future;

use axum_core::response::IntoResponse;

use crate::context::RequestContext;
use crate::future::IntoReplyFuture;
use crate::response::Reply;

/// What answers a request once its steps have run: tower's `Service` shape, one request in,
/// a future of its reply out. Any `async` closure of a [`RequestContext`] returning something
/// [`IntoResponse`] is one. The route keeps the handler's future unboxed inside the one future
/// it makes per request, so a handler costs no allocation of its own, `async` or not.
///
/// Implement it for a handler that answers without waiting (its future is
/// `std::future::Ready`), or that is a type of its own:
///
/// ```
/// use std::future::{Ready, ready};
/// use green_tea::App;
/// use green_tea::extract::RequestContext;
/// use green_tea::response::{IntoResponse, Reply, reply_of};
/// use green_tea::routing::{Handler, Route};
/// use green_tea::test::TestClient;
///
/// struct Version(&'static str);
///
/// impl Handler for Version {
///     type Future = Ready<Reply>;
///
///     fn call(&self, _request: RequestContext) -> Ready<Reply> {
///         ready(reply_of(self.0.into_response()))
///     }
/// }
///
/// # #[tokio::main] async fn main() {
/// let app = App::builder().route(Route::get("/version", Version("1.4.2"))).build().unwrap();
/// assert_eq!(TestClient::new(app).get("/version").send().await.text(), "1.4.2");
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a green-tea handler",
    note = "a handler is an async closure of a `RequestContext` returning something `IntoResponse`, or a type implementing `Handler`"
)]
pub trait Handler: Send + Sync + 'static {
    /// The future of one call.
    type Future: Future<Output = Reply> + Send + 'static;

    /// Answers one request.
    fn call(&self, request: RequestContext) -> Self::Future;
}

impl<F, Fut> Handler for F
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoResponse,
{
    type Future = IntoReplyFuture<Fut>;

    fn call(&self, request: RequestContext) -> Self::Future {
        IntoReplyFuture::new((self)(request))
    }
}

/// A handler whose future answers with a [`Reply`] itself (what `#[route]` writes).
pub(super) struct ReplyFn<F>(pub(super) F);

impl<F, Fut> Handler for ReplyFn<F>
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Reply> + Send + 'static,
{
    type Future = Fut;

    fn call(&self, request: RequestContext) -> Fut {
        (self.0)(request)
    }
}
