//! `ContainerBuilder`: declare providers, values and overrides; `build()` checks them all.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use super::{Container, Inner, Node};
use crate::descriptor::Descriptor;
use crate::error::{BuildError, NodeKind, Problem};
use crate::graph::collections;
use crate::graph::{self, Analysis, Decl, Input, RegisteredKeys, RouteDecl, closest_key};
use crate::ids::{IdLists, IdVec, ProviderId};
use crate::key::{Key, Location};
use crate::module::{Module, RegisteredModule, relative_to};
use crate::provider::{Found, Provider, Registered, ValueProvider, discovered, in_modules, linked};
use crate::settings::read::{self, ToRead};
use crate::settings::{Sources, UnknownSetting};
use crate::switch::Switch;
use crate::switch::decide::SwitchEntry;
use crate::worker::{RegisteredWorker, Worker, WorkerNode, Workers};

/// Declares a graph; [`build`](Self::build) checks it completely and constructs nothing.
///
/// ```
/// use green_tea::Container;
/// let container = Container::builder()
///     .value("billingUrl", String::from("http://127.0.0.1:3001"))
///     .build()
///     .expect("a valid graph");
/// assert_eq!(container.keys()[0].as_str(), "billingUrl");
/// ```
#[must_use = "a builder does nothing until `build()`"]
pub struct ContainerBuilder {
    pub(crate) entries: IdVec<ProviderId, Entry>,
    dispose_timeout: Duration,
    build_timeout: Duration,
    /// How many providers each `discover` call found, for the app's warnings.
    pub(crate) discovered: Vec<usize>,
    /// Keys whose decorators are left out, for tests ([`without_decorators`]).
    ///
    /// [`without_decorators`]: Self::without_decorators
    undecorated: Vec<(Key, Location)>,
    /// Modules registered here that hold what only an app serves (routes, steps).
    pub(crate) module_problems: Vec<Problem>,
    /// The Rust modules whose declarations a registered module discovers, each with that
    /// module's position: the app's own discovery leaves them out.
    pub(crate) claimed: Vec<(String, usize)>,
    /// The modules a test's `override_module` replaced, by name, with their exports, waiting
    /// for their replacements' registration to compare.
    replacing: Vec<(String, Vec<Key>, Location)>,
    /// The exports of each module a test replaced, as first registered.
    original_exports: Vec<(String, Vec<Key>)>,
    /// Each module that discovers: its position, the Rust modules it discovers in, and how
    /// many declarations it found there (the layer above adds its own).
    pub(crate) module_discovery: Vec<(usize, Vec<String>, usize)>,
    /// The registered modules, parents before their sub-modules.
    pub(crate) module_table: Vec<RegisteredModule>,
    /// Where settings are read from (`None`: the process's environment), and where
    /// `.settings(..)` gave them.
    sources: Option<(Sources, Location)>,
    /// Where a second `.settings(..)` was called, if one was: a problem at `build()`.
    sources_again: Option<Location>,
    /// What reading the settings found, once read (at the start of `build()`).
    pub(crate) settings: Option<read::Outcome>,
    /// The workers, in registration order.
    pub(crate) workers: Vec<WorkerEntry>,
    worker_stop_timeout: Duration,
    /// A test's changes to the workers, applied at `build()`.
    worker_overrides: Vec<WorkerOverride>,
    /// The switches, the app's and each module's.
    pub(crate) switches: Vec<SwitchEntry>,
    /// A test's outcomes for switches (`cacheOn = false`), applied once they are decided.
    pub(crate) switch_overrides: Vec<(Cow<'static, str>, Location)>,
    /// Today's shape, once the switches are decided at `build()`.
    pub(crate) shape: Option<Arc<super::shape::Shape>>,
    /// Whether each declaration is on today, once the switches are decided (`None`: every
    /// one is, as without switches).
    pub(crate) today: Option<Vec<bool>>,
    /// Whether a declaration, worker or module was registered under a condition: kept as
    /// they are registered, so that `build()` of an app without switches looks at none.
    pub(crate) conditioned: bool,
}

/// A test's change to a registered worker, by its (qualified) name.
struct WorkerOverride {
    name: String,
    location: Location,
    /// The replacement; `None` leaves the worker out.
    with: Option<RegisteredWorker>,
}

/// A worker as registered, with the module it was registered in.
pub(crate) struct WorkerEntry {
    pub(crate) registered: RegisteredWorker,
    /// Its module's position in `module_table`, if any.
    pub(crate) module: Option<u32>,
    /// The Rust module that declared it, if discovery added it.
    pub(crate) discovered_in: Option<&'static str>,
}

impl std::fmt::Debug for ContainerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let providers: Vec<&str> = self
            .entries
            .iter()
            .map(|entry| &*entry.registered.descriptor.name)
            .collect();
        f.debug_struct("ContainerBuilder")
            .field("providers", &providers)
            .field("dispose_timeout", &self.dispose_timeout)
            .field("build_timeout", &self.build_timeout)
            .finish_non_exhaustive()
    }
}

pub(crate) struct Entry {
    pub(crate) registered: Registered,
    pub(crate) kind: NodeKind,
    /// The module it was registered in (its position in `module_table`), if any.
    pub(crate) module: Option<u32>,
    /// The Rust module that declared it, if discovery added it.
    pub(crate) discovered_in: Option<&'static str>,
    /// Whether its keys were qualified by its module's path when it was registered
    /// ([`qualify_keys`]): the graph then takes them as they are.
    pub(crate) keys_qualified: bool,
}

/// Gives the declaration `registered`, of `kind`, registered in the module at `module` of
/// `module_table`, the keys the graph knows them by (`notifications::http` for `http` in
/// `notifications`, the key language's one rule), made by `keys`, once, at registration:
/// `build()` would otherwise make each, and the container's descriptors hold these. Only when
/// every key it provides is a plain name (nearly always), and not for a decorator, whose key is
/// the one it needs (the graph qualifies what is left, as written). Returns whether it did.
fn qualify_keys(
    registered: &mut Registered,
    kind: NodeKind,
    module_table: &[RegisteredModule],
    module: u32,
    keys: &mut RegisteredKeys,
) -> bool {
    let provides = &mut registered.descriptor.provides;
    let qualifies = matches!(
        kind,
        NodeKind::Provider | NodeKind::Value | NodeKind::Settings
    ) && provides.iter().all(|spec| spec.key.is_plain());
    if qualifies {
        for spec in provides.iter_mut() {
            spec.key = keys.qualify_plain(module_table, module, &spec.key);
        }
    }
    qualifies
}

impl Container {
    /// Starts declaring a graph.
    pub fn builder() -> ContainerBuilder {
        ContainerBuilder::new()
    }
}

impl Default for ContainerBuilder {
    fn default() -> Self {
        ContainerBuilder::new()
    }
}

impl ContainerBuilder {
    /// The default time each `dispose` gets before it is abandoned.
    pub const DEFAULT_DISPOSE_TIMEOUT: Duration = Duration::from_secs(10);

    /// The default time one build may take: 30 s. Longer than a healthy connect, handshake or
    /// migration of the recipes (their own connect timeouts are 5 to 10 s), short enough that
    /// a build that hangs is an error within a minute rather than a start that never ends.
    pub const DEFAULT_BUILD_TIMEOUT: Duration = Duration::from_secs(30);

    /// The default time a worker gets to stop after its shutdown signal.
    pub const DEFAULT_WORKER_STOP_TIMEOUT: Duration = Duration::from_secs(10);

    /// An empty graph.
    pub fn new() -> Self {
        ContainerBuilder {
            entries: IdVec::new(),
            dispose_timeout: Self::DEFAULT_DISPOSE_TIMEOUT,
            build_timeout: Self::DEFAULT_BUILD_TIMEOUT,
            discovered: Vec::new(),
            undecorated: Vec::new(),
            module_problems: Vec::new(),
            claimed: Vec::new(),
            replacing: Vec::new(),
            original_exports: Vec::new(),
            module_discovery: Vec::new(),
            module_table: Vec::new(),
            sources: None,
            sources_again: None,
            settings: None,
            workers: Vec::new(),
            worker_stop_timeout: Self::DEFAULT_WORKER_STOP_TIMEOUT,
            worker_overrides: Vec::new(),
            switches: Vec::new(),
            switch_overrides: Vec::new(),
            shape: None,
            today: None,
            conditioned: false,
        }
    }

    /// Where the settings types' values are read from at `build()`. Without it,
    /// [`Sources::from_env`]: the process's environment, no file. `build()` reads the sources
    /// once, and only if a settings type is registered. A second call is a problem at
    /// `build()` (GT0022), not a silent replacement: a test that
    /// wraps the production builder overrides the settings type instead
    /// (`.override_value("billingSettings", ..)`).
    ///
    /// ```
    /// use green_tea::Container;
    /// use green_tea::settings::Sources;
    /// // Tests give the variables: the process's environment is left alone.
    /// let container = Container::builder()
    ///     .settings(Sources::from_env_map([("BILLING_URL", "http://127.0.0.1:3001")]))
    ///     .build()
    ///     .unwrap();
    /// # drop(container);
    /// ```
    #[track_caller]
    pub fn settings(mut self, sources: Sources) -> Self {
        let at = Location::caller();
        match self.sources {
            None => self.sources = Some((sources, at)),
            // The first stays: the second is refused at `build()`, which names both.
            Some(_) => self.sources_again = self.sources_again.or(Some(at)),
        }
        self
    }

    /// Adds a provider: `name::provider()` for a `#[provider]` fn, a value of the type for a
    /// `#[provider]` impl block, or any `Provider`.
    pub fn provider(self, provider: impl Provider) -> Self {
        let registered = Registered::new(provider);
        let kind = registered.provider_kind();
        self.entry(registered, kind)
    }

    /// Adds a ready value under `key`; its type is `T`.
    #[track_caller]
    pub fn value<T: Send + Sync + 'static>(self, key: impl Into<Key>, value: T) -> Self {
        let provider = ValueProvider::new(key.into(), value, Location::caller());
        self.entry(Registered::new(provider), NodeKind::Value)
    }

    /// Adds every provider declared with `#[provider]` in this binary, in a deterministic
    /// order (by module path, then name).
    ///
    /// Discovery finds what is linked into the binary: Rust does not link a library crate the
    /// binary never names, so declarations in a library are found only if the binary names
    /// it (`use my_lib as _;`, or a call to one of its functions); the guide's "Project
    /// layout" shows both ways.
    pub fn discover(self) -> Self {
        self.add_discovered(None)
    }

    /// Like [`discover`](Self::discover), but only providers declared in `modules` (crate or
    /// module paths, such as `env!("CARGO_CRATE_NAME")` or `"my_app::billing"`) or inside
    /// them: linking a crate that declares providers of its own (the recipes) does not add
    /// them.
    pub fn discover_in(self, modules: &[&str]) -> Self {
        self.add_discovered(Some(modules))
    }

    fn add_discovered(mut self, modules: Option<&[&str]>) -> Self {
        let claimed: Vec<&str> = self.claimed.iter().map(|c| &*c.0).collect();
        let found = discovered(modules, &claimed);
        self.discovered.push(linked(modules));
        for (found, rust_module) in found {
            self.add_found(found, None, Some(rust_module));
        }
        self
    }

    /// Replaces the provider of `key` with a ready value, for tests. `key` must already be
    /// provided, and `T` must be its type; `build()` checks both.
    ///
    /// ```
    /// use green_tea::Container;
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let container = Container::builder()
    ///     .value("billingUrl", String::from("https://billing.example"))
    ///     .override_value("billingUrl", String::from("http://127.0.0.1:3001"))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(*container.get::<String>("billingUrl").await.unwrap(), "http://127.0.0.1:3001");
    /// # container.close().await.unwrap(); }
    /// ```
    #[track_caller]
    pub fn override_value<T: Send + Sync + 'static>(self, key: impl Into<Key>, value: T) -> Self {
        let provider = ValueProvider::new(key.into(), value, Location::caller());
        self.entry(Registered::new(provider), NodeKind::Override)
    }

    /// Replaces the providers of every key `provider` provides, for tests. Each key must
    /// already be provided, with the same type.
    pub fn override_provider(self, provider: impl Provider) -> Self {
        self.entry(Registered::new(provider), NodeKind::Override)
    }

    /// Replaces the registered module of `module`'s name with `module`, for tests: a fake of
    /// an area, or of a library's module, in one call. The module replaced must be registered
    /// (at the app's root, before this call), and its replacement must export every key it
    /// exported, so that what needs them still builds; `build()` checks both (GT0015). The
    /// replacement's keys are qualified by the same name, so `orders::db` is the fake's.
    ///
    /// ```
    /// use green_tea::{Container, Module};
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let billing = || Module::new("billing").value("client", "the real client").export("client");
    /// let fake = Module::new("billing").value("client", "a fake").export("client");
    /// let container = Container::builder()
    ///     .module(billing())
    ///     .override_module(fake)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(*container.get::<&str>("billing::client").await.unwrap(), "a fake");
    /// # container.close().await.unwrap(); }
    /// ```
    #[track_caller]
    pub fn override_module(mut self, module: Module) -> Self {
        self.replace_module(module.name(), Location::caller());
        self.add_module(module, None);
        self
    }

    /// Empties the registered root module `name` and its sub-modules, for a replacement
    /// registered next; returns their positions. A name no module has is a problem at
    /// `build()`.
    pub(crate) fn replace_module(&mut self, name: &str, location: Location) -> Vec<usize> {
        let Some(at) = self
            .module_table
            .iter()
            .position(|s| !s.replaced && s.parent.is_none() && &*s.path == name)
        else {
            let names = self
                .module_table
                .iter()
                .filter(|s| !s.replaced && s.parent.is_none())
                .map(|s| s.path.to_string())
                .collect::<Vec<String>>();
            let hint = match crate::graph::closest(name, names.iter(), |n| n) {
                Some(near) => format!(": did you mean `{near}`?"),
                None => String::new(),
            };
            self.module_problems.push(Problem::ModuleShape {
                module: name.to_owned(),
                location,
                reason: format!(
                    "is overridden, but no module of that name is registered at the app's root \
                     before the override{hint}"
                ),
            });
            return Vec::new();
        };
        // The module and its sub-modules: each comes after its parent.
        let mut gone = vec![at];
        for (i, scope) in self.module_table.iter().enumerate().skip(at + 1) {
            if scope.parent.is_some_and(|p| gone.contains(&p)) {
                gone.push(i);
            }
        }
        let exports = self.module_table[at]
            .exports
            .iter()
            .map(|(k, _)| k.clone())
            .collect();
        for &i in &gone {
            let scope = &mut self.module_table[i];
            scope.replaced = true;
            scope.exports.clear();
        }
        let in_gone = |m: Option<u32>| m.is_some_and(|m| gone.contains(&(m as usize)));
        self.entries = std::mem::take(&mut self.entries)
            .into_iter()
            .filter(|e| !in_gone(e.module))
            .collect();
        // Its claims stay: they are about the library's code, which the app's own discovery
        // still leaves out.
        self.module_discovery.retain(|(m, _, _)| !gone.contains(m));
        // A replacement replaced again answers to the original's exports.
        let exports = match self.original_exports.iter().find(|(n, _)| n == name) {
            Some((_, original)) => original.clone(),
            None => {
                self.original_exports.push((name.to_owned(), exports));
                self.original_exports.last().expect("just pushed").1.clone()
            }
        };
        self.replacing.push((name.to_owned(), exports, location));
        gone
    }

    /// Adds a decorator: a provider of a key that something else provides, which needs that
    /// key's value and returns the value everyone else gets in its place (`name::decorator()`
    /// for a `#[decorator]` fn, or any `Provider` that provides exactly one key and needs it).
    ///
    /// Several decorators of one key apply in registration order: the first wraps the
    /// provider's value, the next wraps that, and consumers get the last one's. An override of
    /// the key replaces the provider underneath; the decorators still wrap it.
    ///
    /// ```
    /// use green_tea::{Container, ProviderFn};
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let container = Container::builder()
    ///     .value("greeting", String::from("hello"))
    ///     .decorator(
    ///         ProviderFn::new("greeting", |needs| async move {
    ///             Ok(format!("{}!", needs.get::<String>(0)?))
    ///         })
    ///         .needs::<String>("greeting"),
    ///     )
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(*container.get::<String>("greeting").await.unwrap(), "hello!");
    /// # container.close().await.unwrap(); }
    /// ```
    pub fn decorator(self, decorator: impl Provider) -> Self {
        self.entry(Registered::new(decorator), NodeKind::Decorator)
    }

    /// Leaves out every decorator of `key`, for tests: with an override of `key`, consumers
    /// get the override's value itself. `build()` reports a key that no decorator decorates.
    #[track_caller]
    pub fn without_decorators(mut self, key: impl Into<Key>) -> Self {
        self.undecorated.push((key.into(), Location::caller()));
        self
    }

    /// How long each provider's `dispose` may run during `close()` before it is abandoned and
    /// reported as timed out. Default: 10 s.
    pub fn dispose_timeout(mut self, timeout: Duration) -> Self {
        self.dispose_timeout = timeout;
        self
    }

    /// How long one build of a provider may take, unless it sets its own
    /// ([`Provider::build_timeout`], `#[provider(timeout = "5s")]`). Default:
    /// [`DEFAULT_BUILD_TIMEOUT`](Self::DEFAULT_BUILD_TIMEOUT), 30 s. A build past it fails
    /// with [`FailureCause::TimedOut`](crate::FailureCause::TimedOut), naming the provider and
    /// the chain that needed it; the build is dropped (not left running for the next caller to
    /// join) and its failure is not kept: the next caller starts another.
    ///
    /// ```
    /// use std::time::Duration;
    /// use green_tea::prelude::*;
    /// use green_tea::ProviderFn;
    /// use green_tea::error::FailureCause;
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)] async fn main() {
    /// let container = Container::builder()
    ///     .provider(ProviderFn::new("pg", |_| async {
    ///         std::future::pending::<()>().await; // a handshake that never answers
    ///         Ok(0_u32)
    ///     }))
    ///     .build_timeout(Duration::from_secs(5))
    ///     .build()
    ///     .unwrap();
    /// let err = container.get::<u32>("pg").await.unwrap_err();
    /// assert!(matches!(
    ///     err,
    ///     ProvideError::Failed { cause: FailureCause::TimedOut(t), .. } if t == Duration::from_secs(5)
    /// ));
    /// assert_eq!(err.to_string(), "provider `pg` failed: did not finish within 5s");
    /// # container.close().await.unwrap(); }
    /// ```
    pub fn build_timeout(mut self, timeout: Duration) -> Self {
        self.build_timeout = timeout;
        self
    }

    /// Adds a worker: a long-running task that needs providers, started by `start()` (or an
    /// app's `serve`) once they are built and stopped by `close()` before any of them is
    /// disposed. `build()` checks its needs like any other's.
    pub fn worker(mut self, worker: impl Worker) -> Self {
        let registered = RegisteredWorker::new(worker);
        self.conditioned |= !registered.descriptor.when.is_empty();
        self.workers.push(WorkerEntry {
            registered,
            module: None,
            discovered_in: None,
        });
        self
    }

    /// How long each worker may take to stop after its shutdown signal before `close()`
    /// abandons it (aborts its task) and reports it. Workers stop concurrently, so this
    /// bounds them all together. Default: 10 s.
    pub fn worker_stop_timeout(mut self, timeout: Duration) -> Self {
        self.worker_stop_timeout = timeout;
        self
    }

    /// Replaces the registered worker named `name` (as health lists it: `orders::relay` for a
    /// module's) with `worker`, for tests: a fake that records what it would have done. The
    /// replacement takes the original's name and module (its needs resolve there); a name no
    /// worker has is a build error (GT0020).
    #[track_caller]
    pub fn override_worker(mut self, name: impl Into<String>, worker: impl Worker) -> Self {
        self.worker_overrides.push(WorkerOverride {
            name: name.into(),
            location: Location::caller(),
            with: Some(RegisteredWorker::new(worker)),
        });
        self
    }

    /// Leaves out the registered worker named `name` (`orders::relay` for a module's), for
    /// tests that want no background work; a name no worker has is a build error (GT0020).
    #[track_caller]
    pub fn without_worker(mut self, name: impl Into<String>) -> Self {
        self.worker_overrides.push(WorkerOverride {
            name: name.into(),
            location: Location::caller(),
            with: None,
        });
        self
    }

    /// Takes the workers out for the graph, each knowing its module's path, with the tests'
    /// overrides applied; what is wrong with them goes to `problems` (GT0020).
    pub(crate) fn take_workers(&mut self) -> Vec<WorkerEntry> {
        let mut workers = std::mem::take(&mut self.workers);
        for worker in &mut workers {
            worker.registered.descriptor.module = worker
                .module
                .map(|m| Arc::clone(&self.module_table[m as usize].path));
        }
        if workers.is_empty() && self.worker_overrides.is_empty() {
            return workers;
        }
        for change in std::mem::take(&mut self.worker_overrides) {
            let name_of = |w: &WorkerEntry| w.registered.descriptor.qualified_name().into_owned();
            let Some(at) = workers.iter().position(|w| name_of(w) == change.name) else {
                let names: Vec<String> = workers.iter().map(name_of).collect();
                let suggestion = crate::graph::closest(&change.name, names.iter(), |n| n.as_str());
                let what = match change.with {
                    Some(_) => "is overridden",
                    None => "is left out (`without_worker`)",
                };
                self.module_problems.push(Problem::WorkerShape {
                    reason: format!(
                        "{what}, but no worker has that name{}",
                        match (suggestion, names.is_empty()) {
                            (Some(close), _) => format!(": did you mean `{close}`?"),
                            (None, true) => " (the app has no workers)".to_owned(),
                            (None, false) => format!("; the workers are {}", list(&names)),
                        }
                    ),
                    worker: change.name,
                    location: change.location,
                });
                continue;
            };
            match change.with {
                None => {
                    workers.remove(at);
                }
                Some(mut replacement) => {
                    // Named as the worker it replaces (`relay` in `orders`, not
                    // `orders::relay` inside `orders`).
                    let original = &workers[at].registered.descriptor;
                    replacement.descriptor.name = original.name.clone();
                    replacement.descriptor.module = original.module.clone();
                    replacement.overridden = true;
                    workers[at].registered = replacement;
                }
            }
        }
        // Two workers of one name could not be told apart in health, logs, `close()`'s error
        // or `explain`.
        for (i, worker) in workers.iter().enumerate() {
            let name = worker.registered.descriptor.qualified_name();
            if let Some(first) = workers[..i]
                .iter()
                .find(|w| w.registered.descriptor.qualified_name() == name)
            {
                self.module_problems.push(Problem::WorkerShape {
                    worker: name.into_owned(),
                    location: worker.registered.descriptor.location,
                    reason: format!(
                        "has the name of the worker registered at {}: a worker's name is how \
                         health, logs, `close()`'s error and `explain` tell it apart; name one \
                         of them otherwise",
                        first.registered.descriptor.location
                    ),
                });
            }
        }
        workers
    }

    fn entry(mut self, registered: Registered, kind: NodeKind) -> Self {
        self.conditioned |= !registered.descriptor.when.is_empty();
        self.entries.push(Entry {
            registered,
            kind,
            module: None,
            discovered_in: None,
            keys_qualified: false,
        });
        self
    }

    /// Adds a switch: a named function of one settings type with a finite set of outcomes,
    /// decided at `build()`, under whose outcomes declarations are on or off
    /// ([`when`](Self::when)). See [`Switch`].
    pub fn switch(mut self, switch: Switch) -> Self {
        self.switches.push(SwitchEntry {
            switch,
            module: None,
        });
        self
    }

    /// Registers what `register` adds (providers, values, decorators, workers, modules) under
    /// the condition `condition`: `cacheOn` (on when the switch is `true`), `!cacheOn`,
    /// `gateway = stripe` or `gateway = stripe | paypal`. Each is part of the graph only where
    /// the condition holds; `build()` checks the graph of every outcome, not only today's.
    /// Conditions nest: all must hold.
    ///
    /// ```
    /// use green_tea::prelude::*;
    /// use green_tea::settings::Sources;
    /// use green_tea::switches::Switch;
    ///
    /// #[derive(Settings)]
    /// #[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
    /// pub struct ShopSettings {
    ///     #[settings(default = "false")]
    ///     pub cache: bool,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let container = Container::builder()
    ///     .settings(Sources::from_env_map([("SHOP_CACHE", "true")]))
    ///     .provider(ShopSettings::provider())
    ///     .switch(Switch::new("cacheOn", |shop: &ShopSettings| shop.cache).reads("cache"))
    ///     .when("cacheOn", |on| on.value("cache", String::from("in memory")))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(*container.get::<String>("cache").await.unwrap(), "in memory");
    /// # container.close().await.unwrap(); }
    /// ```
    pub fn when(
        self,
        condition: impl Into<Cow<'static, str>>,
        register: impl FnOnce(Self) -> Self,
    ) -> Self {
        let condition = condition.into();
        let marks = self.marks();
        let mut builder = register(self);
        builder.put_under(condition, marks);
        builder
    }

    /// How many declarations, workers and modules there are so far: what a `when` after
    /// them puts under its condition.
    pub(crate) fn marks(&self) -> (usize, usize, usize) {
        (
            self.entries.len(),
            self.workers.len(),
            self.module_table.len(),
        )
    }

    /// Puts what was registered at the app's root since `marks` under `condition`.
    pub(crate) fn put_under(&mut self, condition: Cow<'static, str>, marks: (usize, usize, usize)) {
        let (entries, workers, modules) = marks;
        self.conditioned = true;
        for entry in self.entries.iter_mut().skip(entries) {
            // An override follows what it replaces: it has no condition of its own.
            if entry.module.is_none() && entry.kind != NodeKind::Override {
                entry.registered.descriptor.when.push(condition.clone());
            }
        }
        for worker in self.workers.iter_mut().skip(workers) {
            if worker.module.is_none() {
                worker.registered.descriptor.when.push(condition.clone());
            }
        }
        for module in self.module_table.iter_mut().skip(modules) {
            if module.parent.is_none() {
                module.when.push(condition.clone());
            }
        }
    }

    /// Decides the switch a test names (`cacheOn = false`, `gateway = fake`) whatever its
    /// settings say, for tests: the graph of that outcome is the one built (every shape is
    /// still checked). Naming a switch that is not registered, or an outcome it does not
    /// have, is a build problem (GT0023).
    #[track_caller]
    pub fn override_switch(mut self, outcome: impl Into<Cow<'static, str>>) -> Self {
        self.switch_overrides
            .push((outcome.into(), Location::caller()));
        self
    }

    /// Adds a module: its declarations, with keys of its own (`name::key`), private unless it
    /// exports them; see [`Module`].
    pub fn module(mut self, module: Module) -> Self {
        self.add_module(module, None);
        self
    }

    /// Registers `module` (and its sub-modules) inside `parent`, and returns where its scope is.
    pub(crate) fn add_module(&mut self, module: Module, parent: Option<usize>) -> usize {
        let path = match parent {
            Some(parent) => green_tea_key::join(&self.module_table[parent].path, &module.name),
            None => module.name,
        };
        if let Some(what) = module.extension.as_ref().and_then(|e| e.needs_an_app()) {
            self.module_problems.push(Problem::ModuleShape {
                module: path.clone(),
                location: module.location,
                reason: format!(
                    "holds {what}, which only an app serves: register it with \
                     `App::builder().module(..)`, not on a `Container`"
                ),
            });
        }
        if parent.is_none()
            && let Some(i) = self.replacing.iter().position(|(name, ..)| *name == path)
        {
            let (_, exports, location) = self.replacing.swap_remove(i);
            let lacking: Vec<String> = exports
                .iter()
                .filter(|k| !module.exports.iter().any(|(e, _)| e == *k))
                .map(|k| format!("`{k}`"))
                .collect();
            if !lacking.is_empty() {
                self.module_problems.push(Problem::ModuleShape {
                    module: path.clone(),
                    location,
                    reason: format!(
                        "is overridden by a module that does not export {}, which the module \
                         it replaces exports: a replacement exports what the original did",
                        lacking.join(", ")
                    ),
                });
            }
        }
        self.conditioned |= !module.when.is_empty();
        let at = self.module_table.len();
        self.module_table.push(RegisteredModule {
            path: path.into(),
            location: module.location,
            exports: module.exports,
            parent,
            replaced: false,
            when: module.when,
        });
        self.switches
            .extend(module.switches.into_iter().map(|switch| SwitchEntry {
                switch,
                module: Some(u32::try_from(at).expect("fewer than 2^32 modules")),
            }));
        let index = u32::try_from(at).expect("fewer than 2^32 modules");
        let path_of_entries: Arc<str> = Arc::clone(&self.module_table[at].path);
        let mut keys = RegisteredKeys::default();
        for (mut registered, kind) in module.entries {
            let keys_qualified =
                qualify_keys(&mut registered, kind, &self.module_table, index, &mut keys);
            registered.descriptor.module = Some(Arc::clone(&path_of_entries));
            self.conditioned |= !registered.descriptor.when.is_empty();
            self.entries.push(Entry {
                registered,
                kind,
                module: Some(index),
                discovered_in: None,
                keys_qualified,
            });
        }
        if !module.discover.is_empty() {
            self.discover_into(at, module.discover);
        }
        for registered in module.workers {
            self.conditioned |= !registered.descriptor.when.is_empty();
            self.workers.push(WorkerEntry {
                registered,
                module: Some(index),
                discovered_in: None,
            });
        }
        for sub in module.modules {
            self.add_module(sub, Some(at));
        }
        at
    }

    /// Registers what discovery found, in the module at `module` if any.
    fn add_found(
        &mut self,
        found: Found,
        module: Option<u32>,
        discovered_in: Option<&'static str>,
    ) {
        match found {
            Found::Declaration(mut registered, kind) => {
                let keys_qualified = module.is_some_and(|m| {
                    let keys = &mut RegisteredKeys::default();
                    qualify_keys(&mut registered, kind, &self.module_table, m, keys)
                });
                registered.descriptor.module =
                    module.map(|m| Arc::clone(&self.module_table[m as usize].path));
                self.conditioned |= !registered.descriptor.when.is_empty();
                self.entries.push(Entry {
                    registered,
                    kind,
                    module,
                    discovered_in,
                    keys_qualified,
                });
            }
            Found::Worker(registered) => {
                self.conditioned |= !registered.descriptor.when.is_empty();
                self.workers.push(WorkerEntry {
                    registered,
                    module,
                    discovered_in,
                });
            }
        }
    }

    /// Adds to the module at `at` what the macros declared in the Rust modules `paths`, and
    /// claims them: the app's own discovery leaves them out, and takes back what it added
    /// from them already.
    fn discover_into(&mut self, at: usize, paths: Vec<String>) {
        let claimed: Vec<&str> = paths.iter().map(String::as_str).collect();
        // One library's code belongs to one module: another module (made elsewhere) claiming
        // the same Rust modules would get a second copy of each declaration. One module
        // registered twice is the exception, and the point.
        let location = self.module_table[at].location;
        for (other, by) in &self.claimed {
            let overlaps = claimed
                .iter()
                .any(|p| in_modules(p, &[other]) || in_modules(other, &[p]));
            if overlaps
                && !self.module_table[*by].replaced
                && self.module_table[*by].location != location
            {
                self.module_problems.push(Problem::ModuleShape {
                    module: self.module_table[at].path.to_string(),
                    location,
                    reason: format!(
                        "discovers in {}, which the module `{}` ({}) discovers in already: each \
                         declaration belongs to one module",
                        claimed
                            .iter()
                            .map(|p| format!("`{p}`"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        self.module_table[*by].path,
                        self.module_table[*by].location,
                    ),
                });
            }
        }
        self.entries = std::mem::take(&mut self.entries)
            .into_iter()
            .filter(|e| {
                e.module.is_some() || e.discovered_in.is_none_or(|m| !in_modules(m, &claimed))
            })
            .collect();
        self.workers.retain(|w| {
            w.module.is_some() || w.discovered_in.is_none_or(|m| !in_modules(m, &claimed))
        });
        let found = discovered(Some(&claimed), &[]);
        let index = u32::try_from(at).expect("fewer than 2^32 modules");
        self.module_discovery.push((at, paths.clone(), found.len()));
        for (found, rust_module) in found {
            self.add_found(found, Some(index), Some(rust_module));
        }
        self.claimed.extend(paths.into_iter().map(|p| (p, at)));
    }

    /// Checks the whole graph and returns a container that has built nothing yet, or a
    /// [`BuildError`] listing every problem found.
    pub fn build(mut self) -> Result<Container, BuildError> {
        let mut workers = self.take_workers();
        let mut problems = self.prepare(workers.iter().map(|w| &w.registered.descriptor));
        let plan = self.plan_shapes(&workers, &[], &mut problems);
        let (of, on) = match &plan {
            Some(plan) => self.nodes(plan),
            None => Default::default(),
        };
        let input = Input {
            providers: self.provider_decls(),
            steps: IdVec::new(),
            routes: worker_decls(&workers).collect(),
            module_table: &self.module_table,
            shapes: plan.as_ref().map(|plan| graph::Shapes {
                of: &of,
                conditions: &plan.conditions,
                on: &on,
                switches: &plan.switches,
            }),
        };
        let mut analysis = graph::analyze(&input);
        drop(input);
        let mut worker_needs = match &mut analysis {
            Ok(analysis) => analysis.route_needs.split_off(0),
            Err(_) => Vec::new(),
        };
        if let Some(plan) = plan {
            self.keep_today(
                (plan, of, &on),
                (analysis.as_ref().ok(), &[]),
                (&mut workers, &mut worker_needs),
                &mut problems,
            );
        }
        let analysis =
            graph::with_problems(analysis, &mut problems).map_err(BuildError::from_problems)?;
        let workers = worker_nodes(workers, worker_needs);
        Ok(self.into_container(analysis, workers))
    }

    /// Readies the declarations for the graph: leaves out the decorators that
    /// `without_decorators` names, and adds a collection for each list or map that a
    /// declaration (one of these providers, or one of `others`, the steps and routes) needs or
    /// contributes to. Returns what it found wrong.
    pub(crate) fn prepare<'a>(
        &mut self,
        others: impl Iterator<Item = &'a Descriptor>,
    ) -> Vec<Problem> {
        let mut problems = std::mem::take(&mut self.module_problems);
        problems.extend(self.sources_twice());
        self.read_settings();
        if let Some(outcome) = &mut self.settings {
            problems.append(&mut outcome.problems);
            // The layer above took the warnings it keeps; a container alone logs them.
            for warning in outcome.warnings.drain(..) {
                tracing::warn!("warning[GT0019]: {warning}");
            }
        }
        for (at, paths, found) in std::mem::take(&mut self.module_discovery) {
            if found == 0 {
                let scope = &self.module_table[at];
                problems.push(Problem::ModuleShape {
                    module: scope.path.to_string(),
                    location: scope.location,
                    reason: format!(
                        "discovers in {}, where the macros declared nothing it can register (a \
                         `Container` registers providers and decorators; an app, steps and \
                         routes too): give Rust module paths, such as \
                         `env!(\"CARGO_CRATE_NAME\")` or `my_crate::billing`",
                        paths
                            .iter()
                            .map(|p| format!("`{p}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
        }
        for (key, location) in std::mem::take(&mut self.undecorated) {
            // A module's decorator decorates its module's key: `payments_eu::payments`.
            let module_table = &self.module_table;
            let decorates = |e: &Entry| {
                let wanted = match e.module {
                    Some(m) => relative_to(key.as_str(), &module_table[m as usize].path),
                    None => Some(key.as_str()),
                };
                e.kind == NodeKind::Decorator
                    && wanted.is_some_and(|wanted| {
                        e.registered
                            .descriptor
                            .provides
                            .iter()
                            .any(|s| s.key.as_str() == wanted)
                    })
            };
            if self.entries.iter().any(decorates) {
                self.entries = std::mem::take(&mut self.entries)
                    .into_iter()
                    .filter(|e| !decorates(e))
                    .collect();
            } else {
                let decorated = self.decorated_keys();
                problems.push(Problem::NoDecorators {
                    suggestion: closest_key(&key, decorated.iter()).cloned(),
                    key,
                    location,
                });
            }
        }
        let collections: Vec<_> = collections::nodes(
            self.entries
                .iter()
                .filter(|e| e.kind != NodeKind::Override)
                .map(|e| &e.registered.descriptor)
                .chain(others.map(|d| -> &Descriptor { d })),
        );
        for registered in collections {
            self.entries.push(Entry {
                registered,
                kind: NodeKind::Collection,
                module: None,
                discovered_in: None,
                keys_qualified: false,
            });
        }
        problems
    }

    /// Reads every settings provider's value from the sources, once: what an override
    /// replaces is not read. Nothing is read (not even the environment) when no settings
    /// type is registered.
    pub(crate) fn read_settings(&mut self) {
        if self.settings.is_some() {
            return;
        }
        // An app without settings pays one byte compare per declaration, and reads nothing:
        // registration already made each settings provider's kind `Settings`.
        if !self.entries.iter().any(|e| e.kind == NodeKind::Settings) {
            self.settings = Some(read::Outcome::default());
            return;
        }
        let qualified = |e: &Entry, key: &'static str| self.key_of(e, &Key::from_static(key));
        let overridden: Vec<Key> = self
            .entries
            .iter()
            .filter(|e| e.kind == NodeKind::Override)
            .flat_map(|e| {
                e.registered
                    .descriptor
                    .provides
                    .iter()
                    .map(|s| s.key.clone())
            })
            .collect();
        let to_read: Vec<ToRead<'_>> = self
            .entries
            .iter()
            // Registration made each settings provider's kind `Settings` (or `Override`, for
            // one a test puts in place of another): one byte compare a declaration, and the
            // read hook asked of those alone.
            .filter(|e| matches!(e.kind, NodeKind::Settings | NodeKind::Override))
            .filter_map(|e| {
                let hook = e.registered.provider.settings_hook()?;
                let key = qualified(e, hook.key());
                let prefix = match e.module {
                    Some(m) => crate::settings::module_prefix(&self.module_table[m as usize].path),
                    None => hook.prefix().to_owned(),
                };
                Some(ToRead {
                    hook,
                    prefix,
                    overridden: e.kind != NodeKind::Override && overridden.contains(&key),
                    key,
                    location: e.registered.descriptor.location,
                })
            })
            .collect();
        let from_env = Sources::from_env();
        let sources = self.sources.as_ref().map_or(&from_env, |(s, _)| s);
        let outcome = read::read_all(sources, &to_read);
        self.settings = Some(outcome);
    }

    /// GT0022 if `.settings(..)` was called twice, naming the settings keys a test overrides
    /// instead.
    fn sources_twice(&self) -> Option<Problem> {
        let (second, (_, first)) = (self.sources_again?, self.sources.as_ref()?);
        let settings = self
            .entries
            .iter()
            .filter(|e| e.kind == NodeKind::Settings)
            .filter_map(|e| {
                let key = e.registered.provider.settings_hook()?.key();
                Some(self.key_of(e, &Key::from_static(key)))
            })
            .collect();
        Some(Problem::SourcesTwice {
            first: *first,
            second,
            settings,
        })
    }

    /// Reads the settings now and takes the unknown settings that are warnings, for the
    /// layer above to keep.
    pub(crate) fn take_settings_warnings(&mut self) -> Vec<UnknownSetting> {
        self.read_settings();
        self.settings
            .as_mut()
            .map(|o| std::mem::take(&mut o.warnings))
            .unwrap_or_default()
    }

    /// `key`, provided by `entry`, as the graph names it: qualified by the path of the module
    /// it is registered in (the key language's one rule).
    pub(crate) fn key_of(&self, entry: &Entry, key: &Key) -> Key {
        let path = entry.module.map(|m| &*self.module_table[m as usize].path);
        crate::graph::qualified_key(path, key)
    }

    /// The keys `entry` provides, as the graph names them (the key language's one rule).
    pub(crate) fn keys_of<'e>(&'e self, entry: &'e Entry) -> impl Iterator<Item = Key> + 'e {
        (entry.registered.descriptor.provides.iter()).map(move |s| self.key_of(entry, &s.key))
    }

    /// The keys decorators decorate, as the graph names them (a module's qualified).
    fn decorated_keys(&self) -> Vec<Key> {
        self.entries
            .iter()
            .filter(|e| e.kind == NodeKind::Decorator)
            .flat_map(|e| self.keys_of(e))
            .collect()
    }

    /// The providers as the graph sees them.
    pub(crate) fn provider_decls(&self) -> IdVec<ProviderId, Decl<'_>> {
        self.entries
            .iter()
            .map(|e| Decl {
                kind: e.kind,
                descriptor: &e.registered.descriptor,
                in_module: Decl::in_module(e.module),
                keys_qualified: e.keys_qualified,
            })
            .collect()
    }

    /// The container of a checked graph, with its resolved workers.
    pub(crate) fn into_container(self, analysis: Analysis, workers: Vec<WorkerNode>) -> Container {
        let Analysis {
            keys,
            provider_needs,
            provider_dependents,
            provider_order,
            collections,
            module_keys,
            every_shape,
            ..
        } = analysis;
        let mut entries = self.entries;
        for (id, specs) in collections {
            collections::fill(&mut entries[id].registered, specs);
        }
        // A module's keys under their names in the graph (`notifications::http`), so that
        // explain, health and errors say which module's they are: the keys the graph made
        // (registration made most of them already), shared rather than made again.
        // Contributions to the app's collections keep theirs.
        for (at, key) in module_keys {
            entries[at.provider].registered.descriptor.provides[at.index as usize].key = key;
        }
        let mut position = IdVec::filled(0_u32, entries.len());
        for (pos, &id) in provider_order.iter().enumerate() {
            position[id] = u32::try_from(pos).expect("fewer than 2^32 providers");
        }
        let mut dependencies = IdLists::with_capacity(entries.len(), 0);
        let mut distinct: Vec<ProviderId> = Vec::new();
        for id in entries.ids() {
            distinct.clear();
            distinct.extend(provider_needs[id].iter().flatten().map(|v| v.provider));
            distinct.sort_unstable();
            distinct.dedup();
            dependencies.push(distinct.iter().copied());
        }
        let providers = entries.map(|_, entry| {
            #[cfg(feature = "metrics")]
            let metrics = super::metered::ProviderMetrics::register(&entry.registered.descriptor);
            Node {
                provider: entry.registered.provider,
                descriptor: entry.registered.descriptor,
                kind: entry.kind,
                module: entry.module,
                short_type_names: Default::default(),
                #[cfg(feature = "metrics")]
                metrics,
            }
        });
        tracing::debug!(providers = providers.len(), "graph checked");
        Container {
            inner: Arc::new(Inner {
                slots: providers
                    .iter()
                    .map(|_| crate::value::Slot::default())
                    .collect(),
                providers: Arc::new(providers),
                needs: provider_needs,
                dependencies,
                dependents: provider_dependents,
                keys,
                order: provider_order.into(),
                position,
                closed: Default::default(),
                closing: Default::default(),
                close_outcome: Default::default(),
                dispose_timeout: self.dispose_timeout,
                build_timeout: self.build_timeout,
                modules: self.module_table.into(),
                workers: Arc::new(Workers::new(workers, self.worker_stop_timeout)),
                shape: self.shape,
                today: self.today.map(Vec::into_boxed_slice),
                every_shape,
                startup: std::sync::Mutex::new(None),
                changes: tokio::sync::watch::Sender::new(()),
                sources: self.sources.map(|(sources, _)| sources),
                generation: 0,
                lineage: Default::default(),
            }),
        }
    }
}

/// The workers as the graph sees them: consumers of the app's scope, after the routes.
pub(crate) fn worker_decls(workers: &[WorkerEntry]) -> impl Iterator<Item = RouteDecl<'_>> {
    workers.iter().map(|w| RouteDecl {
        decl: Decl {
            kind: NodeKind::Worker,
            descriptor: &w.registered.descriptor,
            in_module: Decl::in_module(w.module),
            keys_qualified: false,
        },
        guards: &[],
    })
}

/// The workers, each with its needs as the graph resolved them (a checked graph: a worker's
/// need is a provider's value, or an optional need nothing provides).
pub(crate) fn worker_nodes(
    workers: Vec<WorkerEntry>,
    needs: Vec<Box<[graph::Value]>>,
) -> Vec<WorkerNode> {
    workers
        .into_iter()
        .zip(needs)
        .map(|(worker, needs)| {
            let mut node = WorkerNode::new(worker.registered, worker.module);
            node.needs = needs
                .iter()
                .map(|need| match need {
                    graph::Value::App(at) => Some(*at),
                    graph::Value::Absent | graph::Value::Step(_) => None,
                })
                .collect();
            node
        })
        .collect()
}

/// `names` as `` `a`, `b` and `c` ``.
fn list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}
