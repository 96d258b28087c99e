//! `ContainerBuilder`: declare providers, values and overrides; `build()` checks them all.

use std::sync::Arc;
use std::time::Duration;

use super::{Container, Inner, Node};
use crate::collection;
use crate::descriptor::Descriptor;
use crate::error::{BuildError, NodeKind, Problem};
use crate::graph::{self, Analysis, Decl, Input, closest_key};
use crate::ids::{IdLists, IdVec, ProviderId};
use crate::key::{Key, Location};
use crate::module::{Module, ModuleScope};
use crate::provider::{Provider, Registered, ValueProvider, discovered};

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
    /// How many providers each `discover` call found, for the app's warnings.
    pub(crate) discovered: Vec<usize>,
    /// Keys whose decorators are left out, for tests ([`without_decorators`]).
    ///
    /// [`without_decorators`]: Self::without_decorators
    undecorated: Vec<(Key, Location)>,
    /// Modules registered here that hold what only an app serves (routes, steps).
    module_problems: Vec<Problem>,
    /// The registered modules, parents before their sub-modules.
    pub(crate) scopes: Vec<ModuleScope>,
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
            .finish_non_exhaustive()
    }
}

pub(crate) struct Entry {
    pub(crate) registered: Registered,
    pub(crate) kind: NodeKind,
    /// The module it was registered in (its position in `scopes`), if any.
    pub(crate) module: Option<u32>,
}

impl Default for ContainerBuilder {
    fn default() -> Self {
        ContainerBuilder::new()
    }
}

impl ContainerBuilder {
    /// The default time each `dispose` gets before it is abandoned.
    pub const DEFAULT_DISPOSE_TIMEOUT: Duration = Duration::from_secs(10);

    /// An empty graph.
    pub fn new() -> Self {
        ContainerBuilder {
            entries: IdVec::new(),
            dispose_timeout: Self::DEFAULT_DISPOSE_TIMEOUT,
            discovered: Vec::new(),
            undecorated: Vec::new(),
            module_problems: Vec::new(),
            scopes: Vec::new(),
        }
    }

    /// Adds a provider: `name::provider()` for a `#[provider]` fn, a value of the type for a
    /// `#[provider]` impl block, or any `Provider`.
    pub fn provider(self, provider: impl Provider) -> Self {
        self.entry(Registered::new(provider), NodeKind::Provider)
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
        let found = discovered(modules);
        self.discovered.push(found.len());
        for (registered, kind) in found {
            self = self.entry(registered, kind);
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

    fn entry(mut self, registered: Registered, kind: NodeKind) -> Self {
        self.entries.push(Entry {
            registered,
            kind,
            module: None,
        });
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
            Some(parent) => format!("{}::{}", self.scopes[parent].path, module.name),
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
        let at = self.scopes.len();
        self.scopes.push(ModuleScope {
            path: path.into(),
            location: module.location,
            exports: module.exports,
            parent,
        });
        let index = u32::try_from(at).expect("fewer than 2^32 modules");
        for (registered, kind) in module.entries {
            self.entries.push(Entry {
                registered,
                kind,
                module: Some(index),
            });
        }
        for sub in module.modules {
            self.add_module(sub, Some(at));
        }
        at
    }

    /// Checks the whole graph and returns a container that has built nothing yet, or a
    /// [`BuildError`] listing every problem found.
    pub fn build(mut self) -> Result<Container, BuildError> {
        let mut problems = self.prepare(std::iter::empty());
        let input = Input {
            providers: self.provider_decls(),
            steps: IdVec::new(),
            routes: IdVec::new(),
            scopes: &self.scopes,
        };
        let analysis = graph::analyze(&input);
        drop(input);
        let analysis =
            graph::with_problems(analysis, &mut problems).map_err(BuildError::from_problems)?;
        Ok(self.into_container(analysis))
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
        for (key, location) in std::mem::take(&mut self.undecorated) {
            let decorates = |e: &Entry| {
                e.kind == NodeKind::Decorator
                    && e.registered
                        .descriptor
                        .provides
                        .iter()
                        .any(|s| s.key == key)
            };
            if self.entries.iter().any(decorates) {
                self.entries = std::mem::take(&mut self.entries)
                    .into_iter()
                    .filter(|e| !decorates(e))
                    .collect();
            } else {
                problems.push(Problem::NoDecorators {
                    suggestion: closest_key(&key, self.decorated_keys()).cloned(),
                    key,
                    location,
                });
            }
        }
        let collections: Vec<_> = collection::nodes(
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
            });
        }
        problems
    }

    fn decorated_keys(&self) -> impl Iterator<Item = &Key> {
        self.entries
            .iter()
            .filter(|e| e.kind == NodeKind::Decorator)
            .flat_map(|e| e.registered.descriptor.provides.iter().map(|s| &s.key))
    }

    /// The providers as the graph sees them.
    pub(crate) fn provider_decls(&self) -> IdVec<ProviderId, Decl<'_>> {
        self.entries
            .iter()
            .map(|e| Decl {
                kind: e.kind,
                descriptor: &e.registered.descriptor,
                in_module: Decl::in_module(e.module),
            })
            .collect()
    }

    /// The container of a checked graph.
    pub(crate) fn into_container(self, analysis: Analysis) -> Container {
        let Analysis {
            keys,
            provider_needs,
            provider_dependents,
            provider_order,
            collections,
            module_keys,
            ..
        } = analysis;
        let mut entries = self.entries;
        for (id, specs) in collections {
            collection::fill(&mut entries[id].registered, specs);
        }
        // A module's keys under their names in the graph (`notifications::http`), so that
        // explain, health and errors say which module's they are: the keys the graph made,
        // shared rather than made again. Contributions to the app's collections keep theirs.
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
                slot: Default::default(),
                explain_keys: Default::default(),
                #[cfg(feature = "metrics")]
                metrics,
            }
        });
        tracing::debug!(providers = providers.len(), "graph checked");
        Container {
            inner: Arc::new(Inner {
                providers,
                needs: provider_needs,
                dependencies,
                dependents: provider_dependents,
                keys,
                order: provider_order.into(),
                position,
                closed: Default::default(),
                close_outcome: Default::default(),
                dispose_timeout: self.dispose_timeout,
                modules: self.scopes.into(),
            }),
        }
    }
}
