//! What an app adds to core's [`Module`]: steps, routes under a prefix, and shutdown hooks,
//! through [`ModuleExt`]. One module type, whichever crate makes it.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::modules::ModuleExtension;
use green_tea_core::{BoxError, Module};

use crate::route::Route;
use crate::step::Step;

/// What `close()` runs for a module: once, after the drain, before providers are disposed.
pub(crate) type ShutdownHook = Box<dyn FnOnce() -> BoxFuture<'static, Result<(), BoxError>> + Send>;

/// The conditions a declaration is on under, all of which must hold.
pub(crate) type Conditions = Vec<Cow<'static, str>>;

/// The part of a module only an app serves.
#[derive(Default)]
pub(crate) struct Served {
    /// Its steps, each with the conditions it is on under (a module's `when`).
    pub(crate) steps: Vec<(Arc<dyn Step>, Conditions)>,
    pub(crate) routes: Vec<Route>,
    /// Where its routes are served: `/orders`, or empty.
    pub(crate) prefix: String,
    pub(crate) on_shutdown: Vec<ShutdownHook>,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let steps: Vec<_> = self
            .steps
            .iter()
            .map(|(s, _)| s.descriptor().name)
            .collect();
        f.debug_struct("Served")
            .field("steps", &steps)
            .field("routes", &self.routes)
            .field("prefix", &self.prefix)
            .field("on_shutdown", &self.on_shutdown.len())
            .finish()
    }
}

impl ModuleExtension for Served {
    fn needs_an_app(&self) -> Option<String> {
        let count = |n: usize, one: &str, many: &str| match n {
            0 => None,
            1 => Some(format!("1 {one}")),
            n => Some(format!("{n} {many}")),
        };
        let parts: Vec<String> = [
            count(self.routes.len(), "route", "routes"),
            count(self.steps.len(), "step", "steps"),
            count(self.on_shutdown.len(), "shutdown hook", "shutdown hooks"),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join(" and "))
    }

    fn marks(&self) -> [usize; 2] {
        [self.steps.len(), self.routes.len()]
    }

    fn put_under(&mut self, [steps, routes]: [usize; 2], condition: Cow<'static, str>) {
        for (_, when) in self.steps.iter_mut().skip(steps) {
            when.push(condition.clone());
        }
        for route in self.routes.iter_mut().skip(routes) {
            route.when.push(condition.clone());
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for green_tea_core::Module {}
}

/// What an app serves from a [`Module`]: steps, routes under a prefix, and shutdown hooks. In
/// the prelude. A module is one type whichever crate makes it: a crate that depends on
/// green-tea-core alone ships providers, values, decorators and sub-modules; one that depends
/// on green-tea adds these. Register a module that has any of them with
/// [`AppBuilder::module`](crate::AppBuilder::module) (a `Container` alone serves no route:
/// registering one there is a build error, GT0015).
///
/// ```
/// use green_tea::prelude::*;
/// use green_tea::test::TestClient;
///
/// fn notifications() -> Module {
///     Module::new("notifications")
///         .value("http", String::from("the notifications' own client"))
///         .route(
///             Route::get("/status", |request: RequestContext| async move {
///                 Ok::<_, HttpError>(format!("up, over {}", request.need::<String>(0)?))
///             })
///             .needs::<String>("http"),
///         )
///         .prefix("/notifications")
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let app = App::builder()
///     .value("http", String::from("the app's client"))
///     .module(notifications())
///     .build()
///     .unwrap();
/// let client = TestClient::new(app);
/// let status = client.get("/notifications/status").send().await;
/// assert_eq!(status.text(), "up, over the notifications' own client");
/// # }
/// ```
pub trait ModuleExt: sealed::Sealed + Sized {
    /// Adds a step: the keys it provides are the module's, and the module's routes (and its
    /// sub-modules') name it as a guard by its name; another module's routes as
    /// `module::name`.
    fn step(self, step: impl Step) -> Self;

    /// Adds a route, served under the module's prefix; its needs and guards resolve inside
    /// the module first.
    fn route(self, route: Route) -> Self;

    /// Adds several routes (what `#[route]` generates as `Type::routes()`).
    fn routes(self, routes: impl IntoIterator<Item = Route>) -> Self;

    /// Serves the module's routes, and its sub-modules', under `prefix` (`/orders`): a route
    /// at `/{id}` answers `/orders/{id}`, one at `/` answers `/orders`. A sub-module's prefix
    /// comes after its parent's. A second call replaces the first.
    fn prefix(self, prefix: &str) -> Self;

    /// Runs `hook` once on `close()`: after requests have drained, before any provider is
    /// disposed, under the dispose timeout. Hooks run last registered first (a sub-module's
    /// before its parent's); a failure, panic or hang lands in the close outcome, as
    /// `module `name` on_shutdown`, and does not stop the others.
    fn on_shutdown<F, Fut>(self, hook: F) -> Self
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), BoxError>> + Send + 'static;
}

impl ModuleExt for Module {
    fn step(mut self, step: impl Step) -> Self {
        served(&mut self).steps.push((Arc::new(step), Vec::new()));
        self
    }

    fn route(mut self, route: Route) -> Self {
        served(&mut self).routes.push(route);
        self
    }

    fn routes(mut self, routes: impl IntoIterator<Item = Route>) -> Self {
        served(&mut self).routes.extend(routes);
        self
    }

    fn prefix(mut self, prefix: &str) -> Self {
        served(&mut self).prefix = prefix.trim_end_matches('/').to_owned();
        self
    }

    fn on_shutdown<F, Fut>(mut self, hook: F) -> Self
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), BoxError>> + Send + 'static,
    {
        served(&mut self)
            .on_shutdown
            .push(Box::new(move || Box::pin(hook())));
        self
    }
}

fn served(module: &mut Module) -> &mut Served {
    layer::modules::extension_mut::<Served>(module)
}

/// Takes the served part out of `module` (empty if it has none).
pub(crate) fn take_served(module: &mut Module) -> Served {
    layer::modules::take_extension::<Served>(module).unwrap_or_default()
}
