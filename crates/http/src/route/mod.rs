//! Routes: a method, a path template, the keys the handler needs, guards, and the handler.

use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

use axum_core::body::Body;
use axum_core::response::IntoResponse;
use futures_util::future::{BoxFuture, FutureExt};
use http::{Method, Request};
use tower::Layer;
use tower_service::Service;

use green_tea_core::{Key, KeySpec, Location};

mod entry;
mod handler;

pub(crate) use entry::HandlerEntry;
pub use handler::Handler;
use handler::ReplyFn;

use crate::context::RequestContext;
use crate::layer::{self as layers, ApplyLayer, Layered};
use crate::response::{Reply, reply_of};
use crate::runtime::Entry;

/// A route: method, path, needs, guards and handler. `#[route]` makes these; so can you.
///
/// ```
/// use green_tea::Json;
/// use green_tea::extract::RequestContext;
/// use green_tea::routing::Route;
///
/// let health = Route::get("/orders/health", |_request: RequestContext| async {
///     Json(serde_json::json!({ "ok": true }))
/// });
/// let count = Route::get("/orders/count", |request: RequestContext| async move {
///     let orders = request.need::<u64>(0)?;
///     Ok::<_, green_tea::HttpError>(Json(*orders))
/// })
/// .needs::<u64>("orderCount");
/// # let _ = (health, count);
/// ```
pub struct Route {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) name: Cow<'static, str>,
    pub(crate) needs: Vec<KeySpec>,
    pub(crate) steps: Vec<Cow<'static, str>>,
    pub(crate) body_limit: Option<usize>,
    /// The handler, as the route's run: its steps and the handler in one future.
    pub(crate) entry: Arc<dyn Entry>,
    pub(crate) location: Location,
    pub(crate) layers: Vec<ApplyLayer>,
    /// The module it was registered in, if any.
    pub(crate) module: Option<green_tea_core::__private::layer::modules::ModuleIndex>,
    /// The Rust module that declared it, if discovery added it.
    pub(crate) discovered_in: Option<&'static str>,
    /// The conditions it is served under (all must hold): see [`Route::when`].
    pub(crate) when: Vec<Cow<'static, str>>,
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Route")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("name", &self.name)
            .field("needs", &self.needs)
            .field("steps", &self.steps)
            .field("body_limit", &self.body_limit)
            .field("layers", &self.layers.len())
            .field("location", &self.location)
            .field("when", &self.when)
            .finish_non_exhaustive()
    }
}

macro_rules! method_constructors {
    ($($fn_name:ident => $method:ident),* $(,)?) => {
        $(
            #[doc = concat!("A `", stringify!($method), "` route at `path` (matchit syntax: `/orders/{id}`).")]
            #[track_caller]
            pub fn $fn_name(path: impl Into<String>, handler: impl Handler) -> Self {
                Route::new(Method::$method, path, handler)
            }
        )*
    };
}

impl Route {
    /// A route for any method.
    #[track_caller]
    pub fn new(method: Method, path: impl Into<String>, handler: impl Handler) -> Self {
        let path = path.into();
        Route {
            name: Cow::Owned(format!("{method} {path}")),
            method,
            path,
            needs: Vec::new(),
            steps: Vec::new(),
            body_limit: None,
            entry: Arc::new(HandlerEntry(Arc::new(handler))),
            location: Location::caller(),
            layers: Vec::new(),
            module: None,
            discovered_in: None,
            when: Vec::new(),
        }
    }

    method_constructors!(get => GET, post => POST, put => PUT, patch => PATCH, delete => DELETE);

    /// A route for every method at `path`: a method that has no route of its own there gets
    /// this one (so that path never answers 405). `explain` shows its method as `ANY`.
    #[track_caller]
    pub fn any(path: impl Into<String>, handler: impl Handler) -> Self {
        Route::new(any_method(), path, handler)
    }

    /// The app's fallback, for [`AppBuilder::fallback`]: it answers the requests whose path no
    /// route matches, whatever their method, with needs and steps as any route has.
    ///
    /// [`AppBuilder::fallback`]: crate::AppBuilder::fallback
    #[track_caller]
    pub fn fallback(handler: impl Handler) -> Self {
        Route::new(any_method(), FALLBACK, handler).named("fallback")
    }

    /// A route whose handler's future answers with a [`Reply`] (what `#[route]` writes: its
    /// own answers then skip the box `IntoResponse` puts around every body).
    #[doc(hidden)]
    #[track_caller]
    pub fn replying<F, Fut>(method: Method, path: impl Into<String>, handler: F) -> Self
    where
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Reply> + Send + 'static,
    {
        Route::new(method, path, ReplyFn(handler))
    }

    /// Declares a key the handler needs, of type `T`; the handler reads it by position with
    /// [`RequestContext::need`].
    pub fn needs<T: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.needs.push(KeySpec::of::<T>(key));
        self
    }

    /// Runs the step named `name` (usually a guard that provides nothing) before the handler.
    pub fn step(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.steps.push(name.into());
        self
    }

    /// Serves this route only in the shapes where `condition` holds (`cacheOn`, `!cacheOn`,
    /// `gateway = stripe | paypal`; more than one call: all must hold). Where it does not, the
    /// route is not in the route table (its path answers as if it were never registered) and
    /// `explain` lists it as off, with where it is on; `build()` checks its needs and guards in
    /// every shape where it is served. Two routes of one method and path are alternatives
    /// when no shape serves both. What [`AppBuilder::when`](crate::AppBuilder::when) does to
    /// the routes it registers; see the switches guide.
    ///
    /// ```
    /// use green_tea::prelude::*;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// use green_tea::settings::Sources;
    /// use green_tea::test::TestClient;
    ///
    /// #[derive(Settings)]
    /// #[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
    /// pub struct ShopSettings {
    ///     #[settings(default = "false")]
    ///     pub debug: bool,
    /// }
    ///
    /// # #[tokio::main] async fn main() {
    /// let app = App::builder()
    ///     .settings(Sources::from_env_map([("SHOP_DEBUG", "false")]))
    ///     .provider(ShopSettings::provider())
    ///     .switch(Switch::new("debugRoutes", |shop: &ShopSettings| shop.debug))
    ///     .route(Route::get("/", |_: RequestContext| async { "shop" }))
    ///     .route(Route::get("/debug", |_: RequestContext| async { "state" }).when("debugRoutes"))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(TestClient::new(app).get("/debug").send().await.status(), 404);
    /// # }
    /// ```
    pub fn when(mut self, condition: impl Into<Cow<'static, str>>) -> Self {
        self.when.push(condition.into());
        self
    }

    /// The largest request body this route reads (default: the app's, 1 MiB).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = Some(bytes);
        self
    }

    /// Wraps this route's steps and handler in a tower `layer`, after routing: it sees only
    /// this route's requests (never a 404 or 405), with their path parameters, and the
    /// response of its handler or of the step that rejected the request. Layers added later
    /// wrap those added before. (What axum calls `route_layer`; [`AppBuilder::layer`] wraps
    /// the whole app.)
    ///
    /// ```
    /// use std::time::Duration;
    /// use green_tea::App;
    /// use green_tea::extract::RequestContext;
    /// use green_tea::routing::Route;
    /// use green_tea::test::TestClient;
    /// use tower_http::timeout::TimeoutLayer;
    ///
    /// # #[tokio::main] async fn main() {
    /// let slow = Route::get("/report", |_request: RequestContext| async {
    ///     tokio::time::sleep(Duration::from_secs(60)).await;
    ///     "done"
    /// })
    /// .layer(TimeoutLayer::with_status_code(
    ///     http::StatusCode::REQUEST_TIMEOUT,
    ///     Duration::from_millis(10),
    /// ));
    /// let app = App::builder().route(slow).build().unwrap();
    /// let response = TestClient::new(app).get("/report").send().await;
    /// assert_eq!(response.status(), 408);
    /// # }
    /// ```
    ///
    /// [`AppBuilder::layer`]: crate::AppBuilder::layer
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<Layered> + Send + Sync + 'static,
        L::Service: Service<Request<Body>> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request<Body>>>::Response: IntoResponse + 'static,
        <L::Service as Service<Request<Body>>>::Error: Into<Infallible> + 'static,
        <L::Service as Service<Request<Body>>>::Future: Send + 'static,
    {
        self.layers.push(layers::apply(layer));
        self
    }

    /// Names the handler, as `explain` and errors show it (default: `METHOD /path`).
    pub fn named(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets where the route was declared (macros pass `file!()`/`line!()`).
    pub fn at(mut self, location: Location) -> Self {
        self.location = location;
        self
    }

    /// The method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The path template.
    pub fn path(&self) -> &str {
        &self.path
    }
}

/// What a route for any method is routed under, and shown as.
pub(crate) fn any_method() -> Method {
    Method::from_bytes(b"ANY").expect("ANY is a valid method token")
}

/// The path a fallback is shown at: no request path looks like it.
pub(crate) const FALLBACK: &str = "(fallback)";

/// A tower service as a route's handler: the request, its path without `prefix`, goes to the
/// service (`AppBuilder::nest_service`).
pub(crate) struct Mounted {
    pub(crate) prefix: String,
    pub(crate) service: Layered,
}

impl Handler for Mounted {
    type Future = BoxFuture<'static, Reply>;

    fn call(&self, request: RequestContext) -> Self::Future {
        let mut request = request.into_request();
        strip_prefix(&mut request, &self.prefix);
        // What `axum::serve` gives a router (with `into_make_service_with_connect_info`), so a
        // mounted one keeps its `ConnectInfo<SocketAddr>` extractor; only mounts pay for it.
        #[cfg(feature = "axum")]
        if let Some(addr) = crate::client_addr::ClientAddr::of_extensions(request.extensions()) {
            request
                .extensions_mut()
                .insert(axum::extract::ConnectInfo(addr));
        }
        let service = self.service.clone();
        Box::pin(
            tower::ServiceExt::oneshot(service, request).map(|answered| match answered {
                Ok(response) => reply_of(response),
                Err(never) => match never {},
            }),
        )
    }
}

/// `/static/css/app.css?v=2` under `/static` is `/css/app.css?v=2`; the prefix itself is `/`.
fn strip_prefix(request: &mut Request<Body>, prefix: &str) {
    let uri = request.uri();
    let rest = uri.path().get(prefix.len()..).unwrap_or("");
    let path = if rest.is_empty() { "/" } else { rest };
    let path_and_query = match uri.query() {
        Some(query) => format!("{path}?{query}"),
        None => path.to_owned(),
    };
    let mut parts = uri.clone().into_parts();
    // A path that was valid with its prefix is valid without it.
    parts.path_and_query = path_and_query.parse().ok();
    if let Ok(stripped) = http::Uri::from_parts(parts) {
        *request.uri_mut() = stripped;
    }
}

/// Joins a group prefix and a route path: `("/orders", "/")` is `/orders`,
/// `("/orders", "/{id}")` is `/orders/{id}`. (What `#[route]` routes a method at.)
#[doc(hidden)]
pub fn join_paths(prefix: &str, path: &str) -> String {
    let prefix = prefix.trim_end_matches('/');
    let path = path.trim_start_matches('/');
    match (prefix.is_empty(), path.is_empty()) {
        (true, true) => "/".to_owned(),
        (_, true) => prefix.to_owned(),
        (true, false) => format!("/{path}"),
        (false, false) => format!("{prefix}/{path}"),
    }
}

/// A route registered by `#[route]` through `inventory`. Only the macros create these.
#[doc(hidden)]
pub struct RouteRegistration {
    /// The handler's name, for a deterministic order.
    pub name: &'static str,
    /// `module_path!()`, for a deterministic order.
    pub module: &'static str,
    /// Makes the route.
    pub make: fn() -> Route,
}

impl std::fmt::Debug for RouteRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouteRegistration")
            .field("name", &self.name)
            .field("module", &self.module)
            .finish_non_exhaustive()
    }
}

inventory::collect!(RouteRegistration);

#[cfg(test)]
mod tests {
    use super::join_paths;

    #[test]
    fn a_prefix_and_a_path_join_with_one_slash() {
        assert_eq!(join_paths("/orders", "/"), "/orders");
        assert_eq!(join_paths("/orders/", "/{id}"), "/orders/{id}");
        assert_eq!(join_paths("", "/"), "/");
        assert_eq!(join_paths("", "/health"), "/health");
    }
}
