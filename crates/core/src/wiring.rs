//! Request-scoped declarations (steps, route handlers) checked in the same graph as the
//! providers, and how their needs are wired: what the HTTP layer compiles into its routes.

use std::any::Any;
use std::borrow::Cow;
use std::sync::Arc;

use crate::container::Container;
use crate::error::{NodeKind, ProvideError};
use crate::graph::ValueRef;
use crate::key::{Key, Location};
use crate::provider::ProviderDescriptor;

/// A request-scoped declaration: a step (which provides values per request) or a route's
/// handler (which only needs). Passed to [`ContainerBuilder::build_with`](crate::ContainerBuilder::build_with).
///
/// It is described as a provider is: a name (for a route, `POST /orders -> Orders::create`),
/// the keys it provides per request and the keys it needs (providers' or earlier steps'
/// values), with their types, and where it was declared.
#[derive(Clone, Debug)]
pub struct Declaration {
    /// [`NodeKind::Step`] or [`NodeKind::Route`].
    pub kind: NodeKind,
    /// Its name, keys and location.
    pub descriptor: ProviderDescriptor,
}

impl Declaration {
    /// A declaration of `kind` named `name`, declared where this is called.
    #[track_caller]
    pub fn new(kind: NodeKind, name: impl Into<Cow<'static, str>>) -> Self {
        Declaration {
            kind,
            descriptor: ProviderDescriptor::new(name),
        }
    }

    /// Adds a provided key of type `T` (see [`ProviderDescriptor::provides`]).
    pub fn provides<T: Send + Sync + 'static>(self, key: impl Into<Key>) -> Self {
        self.map(|d| d.provides::<T>(key))
    }

    /// Adds a needed key of type `T` (see [`ProviderDescriptor::needs`]).
    pub fn needs<T: Send + Sync + 'static>(self, key: impl Into<Key>) -> Self {
        self.map(|d| d.needs::<T>(key))
    }

    /// Sets where it was declared.
    pub fn at(self, location: Location) -> Self {
        self.map(|d| d.at(location))
    }

    fn map(self, change: impl FnOnce(ProviderDescriptor) -> ProviderDescriptor) -> Self {
        Declaration {
            kind: self.kind,
            descriptor: change(self.descriptor),
        }
    }
}

/// A provider's value, resolved at build: reading it is an array read, no key lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppValue(pub(crate) ValueRef);

/// Where one need of a request-scoped declaration comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A provider's value, built at most once for the app.
    App(AppValue),
    /// The `index`-th value provided by request-scoped declaration `decl` (its position in
    /// the list given to `build_with`).
    Request {
        /// The declaration.
        decl: usize,
        /// Which of its provided values.
        index: usize,
    },
}

/// How the request-scoped declarations given to `build_with` are wired.
#[derive(Clone, Debug)]
pub struct Wiring {
    /// For each declaration, where each of its needs comes from, in declaration order.
    pub needs: Vec<Vec<Source>>,
    /// The declarations, dependencies first.
    pub order: Vec<usize>,
}

impl Wiring {
    /// The request-scoped declarations that `decl` needs, directly or through each other, in
    /// the order they must run; `decl` itself is not included.
    pub fn runs_before(&self, decl: usize) -> Vec<usize> {
        let mut needed = vec![false; self.needs.len()];
        let mut stack = vec![decl];
        while let Some(d) = stack.pop() {
            for source in &self.needs[d] {
                if let Source::Request { decl: step, .. } = *source {
                    if !std::mem::replace(&mut needed[step], true) {
                        stack.push(step);
                    }
                }
            }
        }
        self.order.iter().copied().filter(|&d| needed[d]).collect()
    }
}

impl Container {
    /// The provider value `at`, building its slice first if needed (single-flight).
    pub async fn value(&self, at: AppValue) -> Result<Arc<dyn Any + Send + Sync>, ProvideError> {
        if let Some(value) = self.try_value(at)? {
            return Ok(value);
        }
        self.inner_arc().ensure(at.0.node).await?;
        Ok(self
            .try_value(at)?
            .expect("a successful build filled the slot"))
    }

    /// The provider value `at` if it is built; never builds. `Err(Closed)` after `close()`.
    pub fn try_value(
        &self,
        at: AppValue,
    ) -> Result<Option<Arc<dyn Any + Send + Sync>>, ProvideError> {
        let inner = self.inner();
        if inner.closed.load(std::sync::atomic::Ordering::Acquire) {
            return Err(ProvideError::Closed);
        }
        Ok(inner.value(at.0).cloned())
    }

    /// Like [`start`](Container::start), but builds only the slices of `roots`.
    pub async fn start_values(&self, roots: &[AppValue]) -> Result<(), ProvideError> {
        let mut nodes: Vec<usize> = roots.iter().map(|v| v.0.node).collect();
        nodes.sort_unstable();
        nodes.dedup();
        self.start_nodes(nodes).await
    }

    /// The provider value for `key`, if there is one.
    pub fn app_value(&self, key: &str) -> Option<AppValue> {
        self.inner().keys.get(key).map(|&at| AppValue(at))
    }
}
