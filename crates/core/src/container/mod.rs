//! The container: the checked graph plus a slot per provider, built lazily and single-flight,
//! disposed in reverse on `close()`.

mod builder;
mod close;
mod slot;

use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::future::{BoxFuture, FutureExt, join_all};
use futures_util::stream::{FuturesUnordered, StreamExt};
use tokio::sync::watch;
use tracing::Instrument;

pub use builder::ContainerBuilder;

use crate::error::{CloseError, FailureCause, NodeKind, ProvideError, panic_message};
use crate::graph::{ValueRef, closest_key};
use crate::key::{Key, KeySpec, TypeInfo};
use crate::provider::{Provider, ProviderDescriptor};
use crate::value::{AnyValue, Needs, downcast};
use slot::{Flight, Slot};

/// The built graph of app-scoped providers.
///
/// Cheap to clone: clones share the same providers and values. Nothing is constructed until a
/// value is asked for ([`get`](Self::get)) or [`start`](Self::start) is called, and then only
/// the slice of the graph that the value needs.
///
/// ```
/// use green_tea::Container;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let container = Container::builder()
///     .value("greeting", String::from("hello"))
///     .build()?;
/// let greeting = container.get::<String>("greeting").await?;
/// assert_eq!(*greeting, "hello");
/// container.close().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Container {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) nodes: Box<[Node]>,
    pub(crate) keys: crate::graph::KeyMap<ValueRef>,
    /// Node ids, dependencies first.
    pub(crate) order: Box<[usize]>,
    /// For each node, its position in `order`.
    pub(crate) position: Box<[usize]>,
    pub(crate) closed: AtomicBool,
    pub(crate) close_outcome: tokio::sync::OnceCell<Result<(), CloseError>>,
    pub(crate) dispose_timeout: Duration,
}

pub(crate) struct Node {
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) descriptor: ProviderDescriptor,
    pub(crate) kind: NodeKind,
    pub(crate) need_specs: Arc<[KeySpec]>,
    /// Each need resolved to the value that satisfies it.
    pub(crate) needs: Box<[ValueRef]>,
    /// The distinct providers this one needs.
    pub(crate) dependencies: Box<[usize]>,
    pub(crate) dependents: Box<[usize]>,
    pub(crate) slot: Slot,
    /// The provided keys with their short type names, worked out on the first `explain`.
    pub(crate) explain_keys: std::sync::OnceLock<Box<[crate::explain::ExplainKey]>>,
}

impl Container {
    /// Starts declaring a graph.
    pub fn builder() -> ContainerBuilder {
        ContainerBuilder::new()
    }

    /// The value under `key`, building the providers it needs first (each at most once, even
    /// when many callers ask at the same time).
    ///
    /// A failed build is not remembered: the error names the provider that failed and the
    /// chain that needed it, and the next call tries again.
    pub async fn get<T: Send + Sync + 'static>(&self, key: &str) -> Result<Arc<T>, ProvideError> {
        self.resolver::<T>(key)?.get().await
    }

    /// A handle that resolves `key` by index: look the key up and check its type once, then
    /// [`Resolver::get`] costs an array read and an `Arc` clone once the value is built.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let container = green_tea::Container::builder().value("port", 3000_u16).build().unwrap();
    /// let port = container.resolver::<u16>("port").unwrap();
    /// assert_eq!(*port.get().await.unwrap(), 3000);
    /// assert!(container.resolver::<u32>("port").is_err()); // wrong type
    /// # container.close().await.unwrap(); }
    /// ```
    pub fn resolver<T: Send + Sync + 'static>(
        &self,
        key: &str,
    ) -> Result<Resolver<T>, ProvideError> {
        let inner = &self.inner;
        let at = inner.locate(key)?;
        let provided = inner.spec(at).ty;
        if provided != TypeInfo::of::<T>() {
            return Err(ProvideError::WrongType {
                key: inner.spec(at).key.clone(),
                provided,
                requested: TypeInfo::of::<T>(),
            });
        }
        Ok(Resolver {
            inner: Arc::clone(inner),
            at,
            _type: PhantomData,
        })
    }

    /// Builds every provider now, independent ones concurrently along the graph.
    ///
    /// If one fails, nothing more is started, everything built so far is disposed (dependents
    /// first), the container is closed, and the error is returned.
    pub async fn start(&self) -> Result<(), ProvideError> {
        // Every provider that some key resolves to: one whose keys were all taken over by
        // overrides is never built.
        let mut roots: Vec<usize> = self.inner.keys.values().map(|at| at.node).collect();
        roots.extend(
            (0..self.inner.nodes.len())
                .filter(|&id| self.inner.nodes[id].descriptor.provides.is_empty()),
        );
        roots.sort_unstable();
        roots.dedup();
        self.start_nodes(roots).await
    }

    /// Like [`start`](Self::start), but builds only the slices of `keys`.
    pub async fn start_keys(&self, keys: &[&str]) -> Result<(), ProvideError> {
        let mut nodes = Vec::with_capacity(keys.len());
        for key in keys {
            nodes.push(self.inner.locate(key)?.node);
        }
        self.start_nodes(nodes).await
    }

    /// Builds the slices of `roots` wave by wave: a provider starts as soon as everything it
    /// needs is built, so independent ones build concurrently, and after a failure nothing
    /// new starts.
    pub(crate) async fn start_nodes(&self, roots: Vec<usize>) -> Result<(), ProvideError> {
        let inner = &self.inner;
        let slice = inner.slice_of(&roots);
        let mut in_slice = vec![false; inner.nodes.len()];
        let mut waiting_on = vec![0_usize; inner.nodes.len()];
        for &id in &slice {
            in_slice[id] = true;
            waiting_on[id] = inner.nodes[id].dependencies.len();
        }
        let mut running: FuturesUnordered<_> = slice
            .iter()
            .filter(|&&id| waiting_on[id] == 0)
            .map(|&id| inner.ensure_tagged(id))
            .collect();
        while let Some((id, result)) = running.next().await {
            if let Err(mut error) = result {
                drop(running);
                // Name who needed it, as a lazy build would: one path of dependents up to a
                // root of the slice (the first dependent at each step, so it is deterministic).
                let mut current = id;
                let mut seen = vec![id];
                while let Some(&next) = inner.nodes[current]
                    .dependents
                    .iter()
                    .find(|&&d| in_slice[d] && !seen.contains(&d))
                {
                    error = error.needed_by(&inner.nodes[next].descriptor.name);
                    seen.push(next);
                    current = next;
                }
                tracing::error!(%error, "start failed; disposing what was built");
                if let Err(close_error) = self.close().await {
                    tracing::error!(error = %close_error, "disposing after a failed start");
                }
                return Err(error);
            }
            for &dependent in inner.nodes[id].dependents.iter() {
                if in_slice[dependent] {
                    waiting_on[dependent] -= 1;
                    if waiting_on[dependent] == 0 {
                        running.push(inner.ensure_tagged(dependent));
                    }
                }
            }
        }
        Ok(())
    }

    /// Disposes every built provider, dependents before their dependencies, each under the
    /// dispose timeout; see [`ContainerBuilder::dispose_timeout`].
    ///
    /// Builds still running are awaited (bounded by the dispose timeout) so their values are
    /// disposed too. A dispose that fails, panics or hangs is reported in the [`CloseError`]
    /// and never stops another. Closing twice, or concurrently, disposes once and returns the
    /// same outcome. After `close`, [`get`](Self::get) returns [`ProvideError::Closed`].
    ///
    /// The timeouts are tokio's: call it on a runtime with the time driver (`enable_time` or
    /// `enable_all`, as `#[tokio::main]` and `#[tokio::test]` build). Without one, it disposes
    /// nothing and returns a `CloseError` whose failure quotes tokio's "timers are disabled".
    pub async fn close(&self) -> Result<(), CloseError> {
        let inner = Arc::clone(&self.inner);
        self.inner
            .close_outcome
            .get_or_init(|| async move {
                // A task of its own, so a caller that stops waiting does not stop the close.
                let task = tokio::spawn(close::close(Arc::clone(&inner)));
                task.await.unwrap_or_else(|join| {
                    Err(CloseError {
                        failures: vec![close::task_failure(join)],
                    })
                })
            })
            .await
            .clone()
    }

    /// Whether `close()` has begun.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }

    /// Every key in the graph, sorted.
    pub fn keys(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = self.inner.keys.keys().cloned().collect();
        keys.sort();
        keys
    }

    pub(crate) fn inner(&self) -> &Inner {
        &self.inner
    }

    pub(crate) fn inner_arc(&self) -> &Arc<Inner> {
        &self.inner
    }
}

impl std::fmt::Debug for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Container")
            .field("providers", &self.inner.nodes.len())
            .field("closed", &self.is_closed())
            .finish()
    }
}

/// A typed, pre-resolved handle on one key; see [`Container::resolver`].
pub struct Resolver<T> {
    inner: Arc<Inner>,
    at: ValueRef,
    _type: PhantomData<fn() -> T>,
}

impl<T> Clone for Resolver<T> {
    fn clone(&self) -> Self {
        Resolver {
            inner: Arc::clone(&self.inner),
            at: self.at,
            _type: PhantomData,
        }
    }
}

impl<T: Send + Sync + 'static> Resolver<T> {
    /// The value, building its slice first if needed.
    pub async fn get(&self) -> Result<Arc<T>, ProvideError> {
        if let Some(value) = self.try_get()? {
            return Ok(value);
        }
        self.inner.ensure(self.at.node).await?;
        Ok(self.try_get()?.expect("a successful build filled the slot"))
    }

    /// The value if it is already built; never builds.
    pub fn try_get(&self) -> Result<Option<Arc<T>>, ProvideError> {
        if self.inner.closed.load(Ordering::Acquire) {
            return Err(ProvideError::Closed);
        }
        Ok(self
            .inner
            .value(self.at)
            .map(|v| downcast::<T>(v).expect("the type was checked when the resolver was made")))
    }
}

impl Inner {
    /// Where `key`'s value lives, or an error with the closest existing key.
    pub(crate) fn locate(&self, key: &str) -> Result<ValueRef, ProvideError> {
        self.keys.get(key).copied().ok_or_else(|| {
            let missing = Key::from(key.to_owned());
            ProvideError::UnknownKey {
                suggestion: closest_key(&missing, self.keys.keys()).cloned(),
                key: missing,
            }
        })
    }

    fn spec(&self, at: ValueRef) -> &KeySpec {
        &self.nodes[at.node].descriptor.provides[at.index]
    }

    pub(crate) fn value(&self, at: ValueRef) -> Option<&AnyValue> {
        self.nodes[at.node]
            .slot
            .values()
            .map(|p| &p.values()[at.index])
    }

    /// Makes sure node `id` is built: returns at once if it is, joins the build in flight if
    /// there is one, and otherwise starts one.
    pub(crate) fn ensure(
        self: &Arc<Self>,
        id: usize,
    ) -> BoxFuture<'static, Result<(), ProvideError>> {
        let inner = Arc::clone(self);
        async move {
            loop {
                let slot = &inner.nodes[id].slot;
                if slot.is_built() {
                    return Ok(());
                }
                let mut done = {
                    let mut flight = slot.flight();
                    if inner.closed.load(Ordering::Acquire) {
                        return Err(ProvideError::Closed);
                    }
                    if slot.is_built() {
                        return Ok(());
                    }
                    match &*flight {
                        Some(running) => running.done.clone(),
                        None => {
                            let (tx, rx) = watch::channel(None);
                            // A task of its own, so the build finishes even if every caller
                            // that waited for it has gone away.
                            let task = tokio::spawn(Arc::clone(&inner).build(id, tx));
                            *flight = Some(Flight {
                                done: rx.clone(),
                                abort: task.abort_handle(),
                            });
                            rx
                        }
                    }
                };
                match done.wait_for(Option::is_some).await {
                    Ok(outcome) => return outcome.clone().expect("waited for an outcome"),
                    // The build task ended without an outcome (it was aborted by `close`, or
                    // the runtime is shutting down): look again.
                    Err(_) => continue,
                }
            }
        }
        .boxed()
    }

    fn ensure_tagged(
        self: &Arc<Self>,
        id: usize,
    ) -> BoxFuture<'static, (usize, Result<(), ProvideError>)> {
        self.ensure(id).map(move |result| (id, result)).boxed()
    }

    /// The one build of node `id`; its outcome goes to every waiter through `done`.
    async fn build(self: Arc<Self>, id: usize, done: watch::Sender<Outcome>) {
        let reset = ResetFlight { inner: &self, id };
        let outcome = self.build_node(id).await;
        // Clear the flight first: a failed build must not be joined by the next caller.
        drop(reset);
        let _ = done.send(Some(outcome));
    }

    async fn build_node(self: &Arc<Self>, id: usize) -> Result<(), ProvideError> {
        let node = &self.nodes[id];
        let name = &node.descriptor.name;
        let dependencies = join_all(node.dependencies.iter().map(|&d| self.ensure(d))).await;
        for result in dependencies {
            result.map_err(|e| e.needed_by(name))?;
        }
        let values = node
            .needs
            .iter()
            .map(|&at| Arc::clone(self.value(at).expect("dependencies are built")))
            .collect();
        let needs = Needs::new(Arc::clone(&node.need_specs), values);

        let span = tracing::info_span!("provide", provider = %name, keys = %node.keys_text());
        let started = Instant::now();
        let result = AssertUnwindSafe(node.provider.provide(needs))
            .catch_unwind()
            .instrument(span.clone())
            .await;
        let cause = match result {
            Ok(Ok(provided)) => match provided.check_against(&node.descriptor.provides) {
                Ok(()) => {
                    let took = started.elapsed();
                    node.slot.fill(provided, took);
                    span.in_scope(|| tracing::debug!(?took, "built"));
                    return Ok(());
                }
                Err(wrong) => FailureCause::WrongOutput(wrong),
            },
            Ok(Err(error)) => FailureCause::Error(Arc::new(error)),
            Err(panic) => FailureCause::Panicked(panic_message(&*panic)),
        };
        span.in_scope(|| tracing::error!(%cause, "provide failed"));
        Err(ProvideError::Failed {
            provider: name.to_string(),
            needed_by: Vec::new(),
            cause,
        })
    }
}

type Outcome = slot::Outcome;

/// Clears a node's flight when its build ends, however it ends (even if the task is aborted).
struct ResetFlight<'a> {
    inner: &'a Inner,
    id: usize,
}

impl Drop for ResetFlight<'_> {
    fn drop(&mut self) {
        *self.inner.nodes[self.id].slot.flight() = None;
    }
}

impl Node {
    pub(crate) fn explain_keys(&self) -> &[crate::explain::ExplainKey] {
        self.explain_keys.get_or_init(|| {
            self.descriptor
                .provides
                .iter()
                .map(|s| crate::explain::ExplainKey {
                    key: s.key.to_string(),
                    type_name: s.ty.short_name(),
                })
                .collect()
        })
    }

    fn keys_text(&self) -> String {
        let keys: Vec<&str> = self
            .descriptor
            .provides
            .iter()
            .map(|s| s.key.as_str())
            .collect();
        keys.join(",")
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        let built: Vec<&str> = self
            .nodes
            .iter()
            .filter(|n| n.slot.is_built())
            .map(|n| &*n.descriptor.name)
            .collect();
        if !built.is_empty() {
            tracing::warn!(
                providers = ?built,
                "a container with built providers was dropped without close(); they were not disposed"
            );
        }
    }
}

impl Inner {
    /// Nodes `roots` and everything they transitively need, in build order.
    pub(crate) fn slice_of(&self, roots: &[usize]) -> Vec<usize> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = roots.to_vec();
        let mut slice = Vec::new();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut seen[id], true) {
                continue;
            }
            slice.push(id);
            stack.extend(self.nodes[id].dependencies.iter().copied());
        }
        slice.sort_unstable_by_key(|&id| self.position[id]);
        slice
    }
}
