//! green-tea's core: keys, the [`Provider`] trait, the graph checked at build, the
//! [`Container`] that builds it lazily and single-flight and closes it in reverse, and the
//! [`Explain`] model.
//!
//! There is no HTTP here; crates that add providers (recipes, a library's [`Module`]) depend on
//! this crate alone, and declare them with [`provider`](macro@provider). Applications use the `green-tea`
//! facade, which re-exports what they write.

mod async_check;
mod budget;
mod container;
mod descriptor;
mod error;
mod explain;
mod graph;
mod health;
mod ids;
mod key;
pub mod lock;
pub mod metric;
mod module;
mod picture;
mod provider;
mod provider_fn;
mod registry;
mod reload;
mod request_decls;
pub mod settings;
mod startup;
mod switch;
mod value;
mod worker;

#[doc(hidden)]
#[path = "private/mod.rs"]
pub mod __private;

pub use __private::Discoverable;
pub use async_check::{AsyncHealthCheck, CheckTiming};
pub use container::{Container, ContainerBuilder, Resolver};
pub use descriptor::Descriptor;
pub use error::{
    BoxError, BuildError, CloseError, CloseFailure, ClosePart, FailureCause, NodeKind, Origin,
    Problem, ProvideError, StillBuilding, Suggestion, Unregistered,
};
pub use explain::{
    Explain, ExplainImport, ExplainKey, ExplainMember, ExplainModule, ExplainNeed, ExplainNode,
    ExplainOff, ExplainReload, ExplainSwitch, ExplainSwitches, ExplainWorker, ExplainWorkerNeed,
    UnknownModule, UnknownSettingName, UnknownWorker,
};
pub use graph::Scope;
pub use health::{
    Check, CheckStatus, ContainerHealth, HealthCheck, ModuleHealth, ProviderHealth, ProviderState,
    SwitchHealth,
};
pub use key::{Key, KeySpec, Location, Spelling, TypeInfo};
pub use module::Module;
pub use provider::Provider;
pub use provider_fn::ProviderFn;
pub use reload::{Reload, ReloadError, SettingChange};
pub use startup::{StartupBuild, StartupReport};
pub use value::{All, ByName, NeedError, Needs, Provided};

/// Switches: named functions of settings with a finite set of outcomes
/// ([`Switch`](switches::Switch), [`Choice`](switches::Choice)), under which declarations are
/// on or off; `build()` checks the graph of every outcome.
pub mod switches {
    pub use crate::switch::{Choice, Switch};
}

/// Workers: long-running tasks that are nodes of the graph ([`Worker`](workers::Worker),
/// [`WorkerFn`](workers::WorkerFn)), how they restart ([`Restart`](workers::Restart),
/// [`Backoff`](workers::Backoff)), their shutdown signal ([`Shutdown`](workers::Shutdown))
/// and their health ([`WorkerHealth`](workers::WorkerHealth)).
pub mod workers {
    pub use crate::worker::{
        Backoff, Restart, Shutdown, ShutdownTrigger, Worker, WorkerFn, WorkerFuture, WorkerHealth,
        WorkerOptions, WorkerState,
    };
}

/// Declares a provider, in a crate that depends on green-tea-core alone: `green_tea::provider`
/// (every form, attribute and check is the same, and so is the `Provider` it implements), with
/// its expansion going through this crate instead of the facade. Applications, which depend on
/// the facade, write `green_tea::provider`.
///
/// ```
/// use std::sync::Arc;
/// use green_tea_core::{BoxError, Container, provider};
///
/// #[provider(provides = "billingUrl")]
/// fn billing_url() -> String {
///     "http://127.0.0.1:3001".to_owned()
/// }
///
/// /// Provider state: the client lives on the provider, and `dispose` runs on `close()`.
/// #[derive(Default)]
/// struct BillingApi;
///
/// #[provider(provides = "billingApi", needs = "billingUrl")]
/// impl BillingApi {
///     async fn provide(&self, url: &String) -> Result<usize, BoxError> {
///         Ok(url.len())
///     }
///
///     async fn dispose(&self, api: Arc<usize>) {
///         assert_eq!(*api, 21);
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .provider(billing_url::provider())
///     .provider(BillingApi)
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<usize>("billingApi").await.unwrap(), 21);
/// container.close().await.unwrap();
/// # }
/// ```
#[doc(inline)]
pub use green_tea_macros::core_provider as provider;

/// Declares a decorator, in a crate that depends on green-tea-core alone: `green_tea::decorator`
/// (the same attribute, checks and `Provider`), with its expansion going through this crate
/// instead of the facade.
///
/// ```
/// use green_tea_core::{Container, decorator, provider};
///
/// #[provider(provides = "greeting")]
/// fn greeting() -> String {
///     "hello".to_owned()
/// }
///
/// #[decorator(decorates = "greeting")]
/// fn shouted(greeting: &String) -> String {
///     greeting.to_uppercase()
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .provider(greeting::provider())
///     .decorator(shouted::decorator())
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("greeting").await.unwrap(), "HELLO");
/// container.close().await.unwrap();
/// # }
/// ```
#[doc(inline)]
pub use green_tea_macros::core_decorator as decorator;

/// Declares a worker, in a crate that depends on green-tea-core alone: `green_tea::worker`
/// (the same attribute, checks and `Worker`), with its expansion going through this crate
/// instead of the facade.
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use green_tea_core::workers::Shutdown;
/// use green_tea_core::{BoxError, Container, worker};
///
/// #[worker(needs = "runs", critical)]
/// async fn relay(runs: &AtomicU32, shutdown: Shutdown) -> Result<(), BoxError> {
///     runs.fetch_add(1, Ordering::SeqCst);
///     shutdown.requested().await;
///     Ok(())
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("runs", AtomicU32::new(0))
///     .worker(relay::worker())
///     .build()
///     .unwrap();
/// container.start_workers().await.unwrap();
/// assert!(container.health().workers[0].critical);
/// container.close().await.unwrap();
/// # }
/// ```
#[doc(inline)]
pub use green_tea_macros::core_worker as worker;

/// A settings type: the trait ([`settings::Settings`]) and, in a crate that depends on
/// green-tea-core alone, its derive, `#[derive(Settings)]` (`green_tea::settings::Settings`:
/// the same attributes and checks), whose expansion goes through this crate instead of the
/// facade. One import brings both, as serde's `Deserialize` does.
///
/// ```
/// use std::time::Duration;
/// use green_tea_core::settings::{Secret, Sources};
/// use green_tea_core::{Container, Settings};
///
/// #[derive(Settings, Debug)]
/// #[settings(provides = "billingSettings", prefix = "BILLING")]
/// pub struct BillingSettings {
///     pub url: String,
///     #[settings(default = "2s")]
///     pub timeout: Duration,
///     pub token: Secret<String>,
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .settings(Sources::from_env_map([("BILLING_URL", "http://x"), ("BILLING_TOKEN", "t")]))
///     .provider(BillingSettings::provider())
///     .build()
///     .unwrap();
/// let billing = container.get::<BillingSettings>("billingSettings").await.unwrap();
/// assert_eq!(billing.timeout, Duration::from_secs(2));
/// container.close().await.unwrap();
/// # }
/// ```
#[doc(inline)]
pub use green_tea_macros::CoreSettings as Settings;
pub use settings::Settings;
