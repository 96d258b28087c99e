//! The `Provider` trait, plain values as providers, and how the container holds them.

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::descriptor::Descriptor;
use crate::error::{BoxError, NodeKind};
use crate::key::{Key, KeySpec, Location};
use crate::settings::SettingsHook;
use crate::value::{Needs, Provided};
use crate::worker::{RegisteredWorker, Worker};

/// An app-scoped part of the graph: built at most once, from the values it needs, into the
/// values it provides; disposed on `close()`.
///
/// `#[provider]` writes this impl for you; writing it by hand is just as supported, with
/// plain `async fn`s:
///
/// ```
/// use green_tea::{BoxError, Container, Descriptor, Needs, Provided, Provider};
///
/// struct Greeting;
///
/// impl Provider for Greeting {
///     fn descriptor(&self) -> Descriptor {
///         Descriptor::new("greeting")
///             .provides::<String>("greeting")
///             .needs::<String>("name")
///     }
///
///     async fn provide(&self, needs: Needs<'_>) -> Result<Provided, BoxError> {
///         let name = needs.get_ref::<String>(0)?;
///         Ok(Provided::one(format!("hello, {name}")))
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("name", String::from("tea"))
///     .provider(Greeting)
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("greeting").await.unwrap(), "hello, tea");
/// container.close().await.unwrap();
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a green-tea provider",
    note = "put `#[provider(provides = \"key\")]` on a fn or an impl block and register `name::provider()` (a fn) or a value of the type (an impl block), or implement `Provider` by hand"
)]
pub trait Provider: Send + Sync + 'static {
    /// What this provider provides and needs, and where it was declared. Called once, when
    /// the provider is registered.
    fn descriptor(&self) -> Descriptor;

    /// Builds the provided values, one per declared key in order, from the needed values.
    fn provide(&self, needs: Needs<'_>) -> impl Future<Output = Result<Provided, BoxError>> + Send;

    /// Releases what [`provide`](Self::provide) built; `provided` is exactly what it returned.
    /// Called at most once, on `close()`, after every dependent was disposed.
    fn dispose(&self, provided: &Provided) -> impl Future<Output = Result<(), BoxError>> + Send {
        let _ = provided;
        async { Ok(()) }
    }

    /// How long one build of it may take, when not the app's default
    /// ([`ContainerBuilder::build_timeout`](crate::ContainerBuilder::build_timeout), 30 s). A
    /// build that runs past it fails with [`FailureCause::TimedOut`](crate::FailureCause),
    /// naming it and the chain that needed it; the build is dropped, and the next caller
    /// starts another. `#[provider(timeout = "5s")]` sets it; `None` (the default): the app's.
    fn build_timeout(&self) -> Option<std::time::Duration> {
        None
    }

    /// Its build timeout once its needs are built, read from them: for a timeout that is a
    /// setting (a pool's connect timeout in its settings type). Called before each build;
    /// `None` means the app's. The default is [`build_timeout`](Self::build_timeout).
    /// `#[provider]`'s impl-block form writes it from a `fn build_timeout(&self, ..)` in the
    /// block that takes the same needs as `provide` (one that takes none is
    /// [`build_timeout`](Self::build_timeout)).
    ///
    /// ```
    /// use std::time::Duration;
    /// use green_tea::{BoxError, Container, Descriptor, Needs, Provided, Provider};
    ///
    /// struct Pool;
    ///
    /// impl Provider for Pool {
    ///     fn descriptor(&self) -> Descriptor {
    ///         Descriptor::new("pool").provides::<String>("pool").needs::<Duration>("connectTimeout")
    ///     }
    ///
    ///     async fn provide(&self, _: Needs<'_>) -> Result<Provided, BoxError> {
    ///         Ok(Provided::one(String::from("connected")))
    ///     }
    ///
    ///     fn build_timeout_for(&self, needs: &Needs<'_>) -> Option<Duration> {
    ///         needs.get_ref::<Duration>(0).ok().copied()
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let container = Container::builder()
    ///     .value("connectTimeout", Duration::from_secs(5))
    ///     .provider(Pool)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(*container.get::<String>("pool").await.unwrap(), "connected");
    /// # container.close().await.unwrap(); }
    /// ```
    fn build_timeout_for(&self, needs: &Needs<'_>) -> Option<std::time::Duration> {
        let _ = needs;
        self.build_timeout()
    }

    /// The read hook of a settings provider ([`SettingsProvider`](crate::settings::SettingsProvider)),
    /// which `build()` calls before it checks the graph. Not a public API: every other
    /// provider has none.
    #[doc(hidden)]
    fn settings_hook(&self) -> Option<&dyn SettingsHook> {
        None
    }

    /// The value it hands out, when it has one before anything is built: a value's, or a
    /// settings provider's once `build()` read it. What a switch decides from. Not a public
    /// API: every other provider has none.
    #[doc(hidden)]
    fn ready_value(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        None
    }
}

/// A provider behind a pointer: the container holds every provider this way. Each method
/// boxes the provider's future once; a provider is built and disposed at most once per app.
pub(crate) trait ErasedProvider: Send + Sync + 'static {
    fn provide<'a>(&'a self, needs: Needs<'a>) -> BoxFuture<'a, Result<Provided, BoxError>>;
    fn dispose<'a>(&'a self, provided: &'a Provided) -> BoxFuture<'a, Result<(), BoxError>>;
    fn build_timeout_for(&self, needs: &Needs<'_>) -> Option<std::time::Duration> {
        let _ = needs;
        None
    }
    fn settings_hook(&self) -> Option<&dyn SettingsHook> {
        None
    }
    fn ready_value(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        None
    }
}

impl<P: Provider> ErasedProvider for P {
    fn provide<'a>(&'a self, needs: Needs<'a>) -> BoxFuture<'a, Result<Provided, BoxError>> {
        Box::pin(Provider::provide(self, needs))
    }

    fn dispose<'a>(&'a self, provided: &'a Provided) -> BoxFuture<'a, Result<(), BoxError>> {
        Box::pin(Provider::dispose(self, provided))
    }

    fn build_timeout_for(&self, needs: &Needs<'_>) -> Option<std::time::Duration> {
        Provider::build_timeout_for(self, needs)
    }

    fn settings_hook(&self) -> Option<&dyn SettingsHook> {
        Provider::settings_hook(self)
    }

    fn ready_value(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        Provider::ready_value(self)
    }
}

/// A provider the container holds: its descriptor, taken once, and the provider itself.
pub(crate) struct Registered {
    pub(crate) descriptor: Descriptor,
    pub(crate) provider: Arc<dyn ErasedProvider>,
}

impl Registered {
    pub(crate) fn new(provider: impl Provider) -> Self {
        Registered {
            descriptor: provider.descriptor(),
            provider: Arc::new(provider),
        }
    }

    /// What a provider registered as one is: a settings type's, or a plain provider.
    pub(crate) fn provider_kind(&self) -> NodeKind {
        match self.provider.settings_hook() {
            Some(_) => NodeKind::Settings,
            None => NodeKind::Provider,
        }
    }
}

/// A provider that hands out one ready value: what `.value("key", v)` registers.
pub(crate) struct ValueProvider {
    key: Key,
    spec: KeySpec,
    location: Location,
    value: Provided,
}

impl ValueProvider {
    pub(crate) fn new<T: Send + Sync + 'static>(key: Key, value: T, location: Location) -> Self {
        ValueProvider {
            spec: KeySpec::of::<T>(key.clone()),
            key,
            location,
            value: Provided::one(value),
        }
    }
}

impl Provider for ValueProvider {
    fn descriptor(&self) -> Descriptor {
        let mut descriptor = Descriptor::new(format!("value `{}`", self.key)).at(self.location);
        descriptor.provides.push(self.spec.clone());
        descriptor
    }

    async fn provide(&self, _needs: Needs<'_>) -> Result<Provided, BoxError> {
        Ok(self.value.clone())
    }

    fn ready_value(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.value.first()
    }
}

/// A provider registered by `#[provider]` through `inventory`, collected by `discover()`.
///
/// Only the macros create these; the fields are public so that they can do so in a `const`.
#[doc(hidden)]
pub struct Registration {
    /// The provider's name, for a deterministic order.
    pub name: &'static str,
    /// `module_path!()` of the declaration, for a deterministic order.
    pub module: &'static str,
    /// Makes the provider.
    pub make: fn() -> Discovered,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("name", &self.name)
            .field("module", &self.module)
            .finish_non_exhaustive()
    }
}

/// A declaration found by discovery, ready to register.
#[doc(hidden)]
pub struct Discovered(pub(crate) Found);

/// What discovery found: a provider-like declaration, or a worker.
pub(crate) enum Found {
    Declaration(Registered, NodeKind),
    Worker(RegisteredWorker),
}

impl std::fmt::Debug for Discovered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let descriptor = match &self.0 {
            Found::Declaration(registered, _) => &registered.descriptor,
            Found::Worker(worker) => &worker.descriptor,
        };
        f.debug_tuple("Discovered").field(descriptor).finish()
    }
}

impl Discovered {
    /// Wraps what a `#[provider]` declaration makes.
    pub fn new(provider: impl Provider) -> Self {
        let registered = Registered::new(provider);
        let kind = registered.provider_kind();
        Discovered(Found::Declaration(registered, kind))
    }

    /// Wraps what a `#[decorator]` declaration makes.
    pub fn decorator(provider: impl Provider) -> Self {
        Discovered(Found::Declaration(
            Registered::new(provider),
            NodeKind::Decorator,
        ))
    }

    /// Wraps what a `#[worker]` declaration makes.
    pub fn worker(worker: impl Worker) -> Self {
        Discovered(Found::Worker(RegisteredWorker::new(worker)))
    }
}

inventory::collect!(Registration);

/// Every registered provider in `modules` (all, if `None`) and not in `claimed`, sorted by
/// module path and name (inventory's order is unspecified), each with its module path.
pub(crate) fn discovered(modules: Option<&[&str]>, claimed: &[&str]) -> Vec<(Found, &'static str)> {
    let mut regs: Vec<&Registration> = inventory::iter::<Registration>
        .into_iter()
        .filter(|r| modules.is_none_or(|m| in_modules(r.module, m)))
        .filter(|r| !in_modules(r.module, claimed))
        .collect();
    regs.sort_by_key(|r| (r.module, r.name));
    regs.into_iter().map(|r| ((r.make)().0, r.module)).collect()
}

/// How many providers are registered in `modules` (all, if `None`), modules' claims or not:
/// what a `discover` call counts for its "found nothing" warning, so that it does not depend
/// on whether a module claimed them before or after.
pub(crate) fn linked(modules: Option<&[&str]>) -> usize {
    inventory::iter::<Registration>
        .into_iter()
        .filter(|r| modules.is_none_or(|m| in_modules(r.module, m)))
        .count()
}

/// Whether `module` (a `module_path!()`) is one of `modules` or inside one of them.
pub fn in_modules(module: &str, modules: &[&str]) -> bool {
    modules
        .iter()
        .any(|m| module == *m || (module.starts_with(m) && module[m.len()..].starts_with("::")))
}

#[cfg(test)]
mod tests {
    use super::in_modules;

    #[test]
    fn a_module_is_in_itself_and_its_parents_not_in_a_namesake() {
        assert!(in_modules("shop::billing", &["shop"]));
        assert!(in_modules("shop", &["shop"]));
        assert!(!in_modules("shopping::cart", &["shop"]));
    }
}
