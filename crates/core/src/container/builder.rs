//! `ContainerBuilder`: declare providers, values and overrides; `build()` checks them all.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use super::{Container, Inner, Node};
use crate::error::{BuildError, NodeKind};
use crate::graph::{self, Decl, Scope};
use crate::key::{Key, Location};
use crate::provider::{Provider, ProviderDescriptor, ValueProvider, discovered};
use crate::wiring::{AppValue, Declaration, Source, Wiring};

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
    entries: Vec<Entry>,
    dispose_timeout: Duration,
}

struct Entry {
    provider: Arc<dyn Provider>,
    kind: NodeKind,
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
            entries: Vec::new(),
            dispose_timeout: Self::DEFAULT_DISPOSE_TIMEOUT,
        }
    }

    /// Adds a provider.
    pub fn provider(self, provider: impl Provider) -> Self {
        self.entry(Arc::new(provider), NodeKind::Provider)
    }

    /// Adds a ready value under `key`; its type is `T`.
    #[track_caller]
    pub fn value<T: Send + Sync + 'static>(self, key: impl Into<Key>, value: T) -> Self {
        let provider = ValueProvider::new(key.into(), Arc::new(value), Location::caller());
        self.entry(Arc::new(provider), NodeKind::Value)
    }

    /// Adds every provider registered with `#[provider]` in this binary, in a deterministic
    /// order (by module path, then name).
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
        for provider in discovered(modules) {
            self = self.entry(Arc::from(provider), NodeKind::Provider);
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
        let provider = ValueProvider::new(key.into(), Arc::new(value), Location::caller());
        self.entry(Arc::new(provider), NodeKind::Override)
    }

    /// Replaces the providers of every key `provider` provides, for tests. Each key must
    /// already be provided, with the same type.
    pub fn override_provider(self, provider: impl Provider) -> Self {
        self.entry(Arc::new(provider), NodeKind::Override)
    }

    /// How long each provider's `dispose` may run during `close()` before it is abandoned and
    /// reported as timed out. Default: 10 s.
    pub fn dispose_timeout(mut self, timeout: Duration) -> Self {
        self.dispose_timeout = timeout;
        self
    }

    fn entry(mut self, provider: Arc<dyn Provider>, kind: NodeKind) -> Self {
        self.entries.push(Entry { provider, kind });
        self
    }

    /// Checks the whole graph and returns a container that has built nothing yet, or a
    /// [`BuildError`] listing every problem found.
    pub fn build(self) -> Result<Container, BuildError> {
        self.build_with(Vec::new()).map(|(container, _)| container)
    }

    /// Like [`build`](Self::build), checking request-scoped declarations (steps, route
    /// handlers) in the same graph: their needs must be provided, with the right types, and no
    /// provider may need a request-scoped value. Returns how they are wired.
    pub fn build_with(
        self,
        request_scoped: Vec<Declaration>,
    ) -> Result<(Container, Wiring), BuildError> {
        let descriptors: Vec<_> = self
            .entries
            .iter()
            .map(|e| e.provider.descriptor())
            .collect();
        let providers = descriptors.len();
        let decls: Vec<Decl> = self
            .entries
            .iter()
            .zip(&descriptors)
            .map(|(entry, d)| decl(entry.kind, Scope::App, d))
            .chain(
                request_scoped
                    .iter()
                    .map(|r| decl(r.kind, Scope::Request, &r.descriptor)),
            )
            .collect();
        let analysis = graph::analyze(&decls).map_err(BuildError::from_problems)?;

        // Providers are declarations 0..providers; the request-scoped ones follow. Providers
        // never need request-scoped values (that is a build error), so the provider graph is
        // the first part of the analysis, with request-scoped dependents filtered out.
        let order: Vec<usize> = analysis
            .order
            .iter()
            .copied()
            .filter(|&d| d < providers)
            .collect();
        let mut position = vec![0; providers];
        for (pos, &id) in order.iter().enumerate() {
            position[id] = pos;
        }
        let mut needs = analysis.needs.into_iter();
        let mut dependents = analysis.dependents.into_iter();
        let nodes = self
            .entries
            .into_iter()
            .zip(descriptors)
            .map(|(entry, descriptor)| {
                let needs: Box<[_]> = needs.next().expect("one per decl").into();
                let mut dependencies: Vec<usize> = needs.iter().map(|v| v.node).collect();
                dependencies.sort_unstable();
                dependencies.dedup();
                let dependents: Box<[usize]> = dependents
                    .next()
                    .expect("one per decl")
                    .into_iter()
                    .filter(|&d| d < providers)
                    .collect();
                Node {
                    need_specs: descriptor.needs.clone().into(),
                    provider: entry.provider,
                    descriptor,
                    kind: entry.kind,
                    needs,
                    dependencies: dependencies.into(),
                    dependents,
                    slot: Default::default(),
                    explain_keys: Default::default(),
                }
            })
            .collect();
        let wiring = Wiring {
            needs: needs
                .map(|resolved| {
                    resolved
                        .into_iter()
                        .map(|at| match at.node.checked_sub(providers) {
                            Some(decl) => Source::Request {
                                decl,
                                index: at.index,
                            },
                            None => Source::App(AppValue(at)),
                        })
                        .collect()
                })
                .collect(),
            order: analysis
                .order
                .iter()
                .filter_map(|&d| d.checked_sub(providers))
                .collect(),
        };
        let keys = if request_scoped.is_empty() {
            analysis.keys
        } else {
            analysis
                .keys
                .into_iter()
                .filter(|(_, at)| at.node < providers)
                .collect()
        };

        tracing::debug!(
            providers,
            request_scoped = wiring.order.len(),
            "graph checked"
        );
        let container = Container {
            inner: Arc::new(Inner {
                nodes,
                keys,
                order: order.into(),
                position: position.into(),
                closed: Default::default(),
                close_outcome: Default::default(),
                dispose_timeout: self.dispose_timeout,
            }),
        };
        Ok((container, wiring))
    }
}

/// How the graph sees a provider or a request-scoped declaration: borrowed, not copied.
fn decl(kind: NodeKind, scope: Scope, d: &ProviderDescriptor) -> Decl<'_> {
    Decl {
        kind,
        name: Cow::Borrowed(&d.name),
        location: d.location,
        scope,
        provides: Cow::Borrowed(&d.provides),
        needs: Cow::Borrowed(&d.needs),
    }
}
