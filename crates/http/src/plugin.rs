//! Plugins: bundles of providers, steps and routes with a shutdown hook.

use std::borrow::Cow;

use async_trait::async_trait;

use green_tea_core::BoxError;

use crate::app::AppBuilder;

/// Adds providers, steps and routes to an app when registered, and may clean up on close.
///
/// `on_shutdown` runs during `close()`, after requests have drained and before providers are
/// disposed, in reverse registration order; a failure, panic or hang (past the dispose timeout)
/// lands in the close outcome and does not stop the others.
///
/// ```
/// use green_tea::http::{App, AppBuilder, Plugin, Route, RequestContext};
///
/// struct Health;
///
/// #[green_tea::async_trait]
/// impl Plugin for Health {
///     fn name(&self) -> std::borrow::Cow<'static, str> { "health".into() }
///     fn register(&self, app: AppBuilder) -> AppBuilder {
///         app.route(Route::get("/health", |_: RequestContext| async { "ok" }))
///     }
/// }
///
/// let app = App::builder().plugin(Health).build().unwrap();
/// assert!(app.explain("/health").is_ok());
/// ```
#[async_trait]
pub trait Plugin: Send + Sync + 'static {
    /// The plugin's name, for logs and the close outcome.
    fn name(&self) -> Cow<'static, str>;

    /// Adds what the plugin brings to the app.
    fn register(&self, app: AppBuilder) -> AppBuilder;

    /// Runs once during `close()`.
    async fn on_shutdown(&self) -> Result<(), BoxError> {
        Ok(())
    }
}
