//! Plugins: bundles of providers, steps and routes with a shutdown hook.

use std::borrow::Cow;
use std::future::Future;

use futures_util::future::BoxFuture;

use green_tea_core::BoxError;

use crate::app::AppBuilder;

/// Adds providers, steps and routes to an app when registered, and may clean up on close.
///
/// `on_shutdown` runs during `close()`, after requests have drained and before providers are
/// disposed, in reverse registration order; a failure, panic or hang (past the dispose timeout)
/// lands in the close outcome and does not stop the others.
///
/// ```
/// use green_tea::prelude::*;
/// use green_tea::Plugin;
///
/// struct Health;
///
/// impl Plugin for Health {
///     fn name(&self) -> std::borrow::Cow<'static, str> { "health".into() }
///     fn register(&self, app: AppBuilder) -> AppBuilder {
///         app.route(Route::get("/health", |_: RequestContext| async { "ok" }))
///     }
///     async fn on_shutdown(&self) -> Result<(), BoxError> {
///         Ok(()) // flush, say goodbye...
///     }
/// }
///
/// let app = App::builder().plugin(Health).build().unwrap();
/// assert!(app.explain("/health").is_ok());
/// ```
pub trait Plugin: Send + Sync + 'static {
    /// The plugin's name, for logs and the close outcome.
    fn name(&self) -> Cow<'static, str>;

    /// Adds what the plugin brings to the app.
    fn register(&self, app: AppBuilder) -> AppBuilder;

    /// Runs once during `close()`.
    fn on_shutdown(&self) -> impl Future<Output = Result<(), BoxError>> + Send {
        async { Ok(()) }
    }
}

/// A plugin behind a pointer, as the app holds it; `on_shutdown` is boxed once, on close.
pub(crate) trait ErasedPlugin: Send + Sync + 'static {
    fn name(&self) -> Cow<'static, str>;
    fn register(&self, app: AppBuilder) -> AppBuilder;
    fn on_shutdown(&self) -> BoxFuture<'_, Result<(), BoxError>>;
}

impl<P: Plugin> ErasedPlugin for P {
    fn name(&self) -> Cow<'static, str> {
        Plugin::name(self)
    }

    fn register(&self, app: AppBuilder) -> AppBuilder {
        Plugin::register(self, app)
    }

    fn on_shutdown(&self) -> BoxFuture<'_, Result<(), BoxError>> {
        Box::pin(Plugin::on_shutdown(self))
    }
}
