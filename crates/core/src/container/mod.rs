//! The container: the checked graph plus a slot per provider, built lazily and single-flight,
//! disposed in reverse on `close()`.

mod builder;
mod close;
mod lineage;
#[cfg(feature = "metrics")]
mod metered;
mod reload;
pub use reload::Pending;
pub(crate) use reload::said_how_it_ended;
mod resolver;
mod settings_nodes;
pub(crate) mod settings_report;
mod shape;
pub(crate) use shape::Off;
mod startup;
use startup::{Origin, StartRun, Timed};
pub(crate) use switched::Request;
pub(crate) mod lock;
mod switched;
mod workers;

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::future::{BoxFuture, FutureExt, join_all};
use futures_util::stream::{FuturesUnordered, StreamExt};
use tokio::sync::watch;
use tracing::Instrument;

pub use builder::ContainerBuilder;
pub(crate) use builder::{worker_decls, worker_nodes};
pub use resolver::Resolver;

use crate::BoxError;
use crate::descriptor::Descriptor;
use crate::error::{CloseError, FailureCause, NodeKind, ProvideError, panic_message};
use crate::graph::{KeyMap, closest_key};
use crate::ids::{AppValue, IdLists, IdVec, ProviderId};
use crate::key::{Key, KeySpec};
use crate::provider::ErasedProvider;
use crate::value::{AnyValue, Needs};
use crate::value::{PendingBuild, Slots};

/// The built graph of app-scoped providers.
///
/// Cheap to clone: clones share the same providers and values. Nothing is constructed until a
/// value is asked for ([`get`](Self::get)) or [`build_all`](Self::build_all) is called, and
/// then only the slice of the graph that the value needs.
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
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    /// Shared by every generation of the container.
    pub(crate) providers: Arc<IdVec<ProviderId, Node>>,
    /// Each provider's values once built, and its build in flight.
    pub(crate) slots: Slots,
    /// For each provider, each need resolved to the value that satisfies it (`None`: an
    /// optional need that nothing provides).
    pub(crate) needs: IdLists<ProviderId, Option<AppValue>>,
    /// For each provider, the distinct providers it needs.
    pub(crate) dependencies: IdLists<ProviderId, ProviderId>,
    /// For each provider, the providers that need it.
    pub(crate) dependents: IdLists<ProviderId, ProviderId>,
    pub(crate) keys: KeyMap<AppValue>,
    /// Every provider, dependencies first.
    pub(crate) order: Box<[ProviderId]>,
    /// For each provider, its position in `order`.
    pub(crate) position: IdVec<ProviderId, u32>,
    pub(crate) closed: AtomicBool,
    /// Set as `close()` begins (before it waits for anything): a reload that has not swapped
    /// in yet sees it and keeps its generation out.
    pub(crate) closing: AtomicBool,
    pub(crate) close_outcome: tokio::sync::OnceCell<Result<(), CloseError>>,
    pub(crate) dispose_timeout: Duration,
    /// How long one build may take, unless its provider sets its own.
    pub(crate) build_timeout: Duration,
    /// The registered modules, parents before their sub-modules.
    pub(crate) modules: Box<[crate::module::RegisteredModule]>,
    /// The workers, in registration order: shared by every generation.
    pub(crate) workers: Arc<crate::worker::Workers>,
    /// Today's shape, when the app has switches: their outcomes, and what is off.
    pub(crate) shape: Option<Arc<shape::Shape>>,
    /// With switches, whether each provider is on today (one that is off is part of the graph
    /// every shape was checked with, never built, never shown as today's); `None`: all are.
    pub(crate) today: Option<Box<[bool]>>,
    /// The graph of every shape (today's, without switches), over every node: what the
    /// lockfile reads.
    pub(crate) every_shape: Option<Arc<crate::graph::EveryShape>>,
    /// The report of the last start that built anything.
    pub(crate) startup: std::sync::Mutex<Option<Arc<crate::startup::StartupReport>>>,
    /// Told when something health reads may have changed: a build ended, a worker changed
    /// state, the app started or began to close (what `App::ready` waits on).
    pub(crate) changes: watch::Sender<()>,
    /// Where `build()` read the settings (`None`: the process's environment): what a reload
    /// reads again.
    pub(crate) sources: Option<crate::settings::Sources>,
    /// 0 for the container `build()` made; each reload's is one more.
    pub(crate) generation: u64,
    /// Which generation serves, shared by them all (the workers run on it).
    pub(crate) lineage: Arc<lineage::Lineage<Inner>>,
}

pub(crate) struct Node {
    pub(crate) provider: Arc<dyn ErasedProvider>,
    pub(crate) descriptor: Descriptor,
    pub(crate) kind: NodeKind,
    /// The module it was registered in (its position in [`Inner::modules`]), if any.
    pub(crate) module: Option<u32>,
    /// The short names of the provided keys' types, worked out on the first `explain`.
    pub(crate) short_type_names: std::sync::OnceLock<Box<[String]>>,
    /// Its metrics' handles, registered when the container is built.
    #[cfg(feature = "metrics")]
    pub(crate) metrics: metered::ProviderMetrics,
}

impl Container {
    /// The value under `key`, building the providers it needs first (each at most once, even
    /// when many callers ask at the same time).
    ///
    /// A failed build is not remembered: the error names the provider that failed and the
    /// chain that needed it, and the next call tries again.
    pub async fn get<T: Send + Sync + 'static>(&self, key: &str) -> Result<Arc<T>, ProvideError> {
        self.resolver::<T>(key)?.get().await
    }

    /// Builds every provider now, independent ones concurrently along the graph (a provider
    /// whose keys were all taken over by overrides is never built).
    ///
    /// If one fails, nothing more is started, everything built so far is disposed (dependents
    /// first), the container is closed, and the error is returned.
    pub fn build_all(&self) -> impl Future<Output = Result<(), ProvideError>> + Send + '_ {
        let mut roots: Vec<ProviderId> = self.inner.keys.values().map(|at| at.provider).collect();
        roots.extend(
            self.inner
                .providers
                .iter_enumerated()
                .filter(|(id, node)| node.descriptor.provides.is_empty() && self.inner.is_on(*id))
                .map(|(id, _)| id),
        );
        self.building(Ok(roots))
    }

    /// Like [`build_all`](Self::build_all), but builds only the slices of `keys`.
    pub fn build_keys(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<(), ProvideError>> + Send + '_ {
        let roots = keys
            .iter()
            .map(|key| self.inner.locate(key).map(|at| at.provider))
            .collect();
        self.building(roots)
    }

    /// The build of `roots` (or the error that found them), boxed here: the builds are
    /// compiled once, in green-tea, not in each crate that awaits them.
    fn building(
        &self,
        roots: Result<Vec<ProviderId>, ProvideError>,
    ) -> BoxFuture<'_, Result<(), ProvideError>> {
        async move { self.inner.build_now(roots?).await }.boxed()
    }

    /// Whether `close()` has begun.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }

    /// Where the last start that built anything ([`build_all`](Self::build_all),
    /// [`build_keys`](Self::build_keys), an app's `start()`) spent its time: each build,
    /// what it waited on, and the critical path; `None` before one succeeded. See
    /// [`StartupReport`](crate::StartupReport).
    pub fn startup(&self) -> Option<Arc<crate::startup::StartupReport>> {
        (self.inner.startup.lock())
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Which generation of the container this is: 0 for the one `build()` made, one more for
    /// each reload that took effect (an app's `reload()`).
    pub fn generation(&self) -> u64 {
        self.inner.generation
    }

    /// Every key in the graph, sorted.
    pub fn keys(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = self.inner.keys.keys().cloned().collect();
        keys.sort();
        keys
    }
}

impl std::fmt::Debug for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Container")
            .field("providers", &self.inner.providers.len())
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl Inner {
    /// Whether provider `id` is on in today's shape (always, without switches).
    #[inline]
    pub(crate) fn is_on(&self, id: ProviderId) -> bool {
        self.today.as_ref().is_none_or(|on| on[id.index()])
    }

    /// Where `key`'s value lives, or an error with the closest existing key.
    pub(crate) fn locate(&self, key: &str) -> Result<AppValue, ProvideError> {
        self.keys.get(key).copied().ok_or_else(|| {
            let missing = Key::from(key.to_owned());
            if let Some(off) = self.shape.as_ref().and_then(|s| s.providing(key)) {
                return ProvideError::SwitchedOff {
                    key: missing,
                    name: off.describe(),
                    on: off.on.clone(),
                };
            }
            ProvideError::UnknownKey {
                suggestion: closest_key(&missing, self.keys.keys()).cloned(),
                key: missing,
            }
        })
    }

    pub(crate) fn spec(&self, at: AppValue) -> &KeySpec {
        &self.providers[at.provider].descriptor.provides[at.index as usize]
    }

    /// The value `at` if its provider is built (whether or not the container is closed).
    #[inline]
    pub(crate) fn value(&self, at: AppValue) -> Option<&AnyValue> {
        self.slots[at.provider].value(at.index)
    }

    /// The value `at` if it is built; `Err(Closed)` after `close()`. Never builds.
    pub(crate) fn try_value(&self, at: AppValue) -> Result<Option<&AnyValue>, ProvideError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(ProvideError::Closed);
        }
        Ok(self.value(at))
    }

    /// The value `at`, building its slice first if needed (single-flight).
    pub(crate) async fn value_or_build(
        self: &Arc<Self>,
        at: AppValue,
    ) -> Result<&AnyValue, ProvideError> {
        if let Some(value) = self.try_value(at)? {
            return Ok(value);
        }
        self.ensure(at.provider).await?;
        self.try_value(at)?
            .ok_or_else(|| unreachable_unbuilt(&self.providers[at.provider].descriptor))
    }

    /// Makes sure provider `id` is built: returns at once if it is, joins the build in flight
    /// if there is one, and otherwise starts one.
    ///
    /// A build it starts is linked (`follows_from`) to the span current here, the span of the
    /// request that first needed the provider: the build runs in a task of its own, outside
    /// that span, and may outlive the request.
    pub(crate) fn ensure(
        self: &Arc<Self>,
        id: ProviderId,
    ) -> BoxFuture<'static, Result<(), ProvideError>> {
        self.ensure_for(id, Origin::Lazy(tracing::Span::current()))
    }

    /// [`ensure`](Self::ensure), a build it starts for `origin`: linked to a requester's
    /// span, or one of a start's.
    fn ensure_for(
        self: &Arc<Self>,
        id: ProviderId,
        origin: Origin,
    ) -> BoxFuture<'static, Result<(), ProvideError>> {
        let inner = Arc::clone(self);
        async move {
            {
                let slot = &inner.slots[id];
                if slot.is_built() {
                    return Ok(());
                }
                // A start that waits for a build a request began records the wait.
                let mut joined = None;
                let mut done = {
                    let mut flight = slot.flight();
                    if inner.closed.load(Ordering::Acquire) {
                        return Err(ProvideError::Closed);
                    }
                    if slot.is_built() {
                        return Ok(());
                    }
                    match &*flight {
                        Some(running) => {
                            if let Origin::Start(run) = &origin {
                                joined = Some((Arc::clone(run), tokio::time::Instant::now()));
                            }
                            running.done.clone()
                        }
                        None => {
                            if let Origin::Start(run) = &origin {
                                run.begun(id);
                            }
                            let (tx, rx) = watch::channel(None);
                            // A task of its own, so the build finishes even if every caller
                            // that waited for it has gone away.
                            let task =
                                tokio::spawn(Arc::clone(&inner).build(id, tx, origin.clone()));
                            *flight = Some(PendingBuild {
                                done: rx.clone(),
                                abort: task.abort_handle(),
                            });
                            rx
                        }
                    }
                };
                match done.wait_for(Option::is_some).await {
                    Ok(outcome) => {
                        let outcome = outcome.clone().expect("waited for an outcome");
                        if let (Ok(()), Some((run, since))) = (&outcome, joined) {
                            run.joined(id, since);
                        }
                        outcome
                    }
                    // The build task ended without an outcome: aborted by a close (then the
                    // container says it is closed), or the runtime is shutting down. Never
                    // started again from here: a task that keeps ending so would loop.
                    Err(_) if inner.closed.load(Ordering::Acquire) => Err(ProvideError::Closed),
                    Err(_) => {
                        let node = &inner.providers[id];
                        Err(ProvideError::Failed {
                            kind: node.kind,
                            provider: node.descriptor.qualified_name().into_owned(),
                            keys: node.descriptor.provided_keys(),
                            needed_by: Vec::new(),
                            cause: FailureCause::Panicked(
                                "its build's task ended without an outcome (the runtime is \
                                 shutting down)"
                                    .to_owned(),
                            ),
                        })
                    }
                }
            }
        }
        .boxed()
    }

    /// Builds the slices of `roots` wave by wave: a provider starts as soon as everything it
    /// needs is built, so independent ones build concurrently, and after a failure nothing
    /// new starts. On failure, what was built is disposed and the container closed.
    pub(crate) async fn build_now(
        self: &Arc<Self>,
        roots: Vec<ProviderId>,
    ) -> Result<(), ProvideError> {
        let slice = self.slice_of(&roots);
        // Nothing to build (a second start, the workers' after the app's): no start to record.
        if slice.iter().all(|&id| self.slots[id].is_built()) {
            return Ok(());
        }
        let mut in_slice = IdVec::filled(false, self.providers.len());
        let mut waiting_on = IdVec::filled(0_usize, self.providers.len());
        for &id in &slice {
            in_slice[id] = true;
            waiting_on[id] = self.dependencies[id].len();
        }
        // How many of each build's dependents the start builds: its span is held until they
        // have linked to it.
        let mut unlinked = IdVec::filled(0_u32, self.providers.len());
        for &id in &slice {
            let dependents = self.dependents[id].iter().filter(|&&d| in_slice[d]).count();
            unlinked[id] = u32::try_from(dependents).unwrap_or(u32::MAX);
        }
        let run = Arc::new(StartRun::new(slice.len(), unlinked));
        let span = run.span.clone();
        self.build_slice(slice, in_slice, waiting_on, run)
            .instrument(span)
            .await
    }

    /// [`build_now`](Self::build_now)'s waves, its builds recorded in `run`.
    async fn build_slice(
        self: &Arc<Self>,
        slice: Vec<ProviderId>,
        in_slice: IdVec<ProviderId, bool>,
        mut waiting_on: IdVec<ProviderId, usize>,
        run: Arc<StartRun>,
    ) -> Result<(), ProvideError> {
        let tagged = |id: ProviderId| {
            (self.ensure_for(id, Origin::Start(Arc::clone(&run)))).map(move |result| (id, result))
        };
        let mut running: FuturesUnordered<_> = slice
            .iter()
            .filter(|&&id| waiting_on[id] == 0)
            .map(|&id| tagged(id))
            .collect();
        while let Some((id, result)) = running.next().await {
            if let Err(mut error) = result {
                drop(running);
                // Name who needed it, as a lazy build would: one path of dependents up to a
                // root of the slice (the first dependent at each step, so it is deterministic).
                let mut current = id;
                let mut seen = vec![id];
                while let Some(&next) = self.dependents[current]
                    .iter()
                    .find(|&&d| in_slice[d] && !seen.contains(&d))
                {
                    error = error.needed_by(&self.providers[next].descriptor.qualified_name());
                    seen.push(next);
                    current = next;
                }
                tracing::error!(%error, "start failed; disposing what was built");
                // The builds of the slice still running are for a start that failed: stopped
                // now, rather than awaited by the close (closed first, so that no caller
                // waiting on one starts it again).
                self.closed.store(true, Ordering::Release);
                for &sibling in &slice {
                    if let Some(flight) = &*self.slots[sibling].flight() {
                        flight.abort.abort();
                    }
                }
                let container = Container {
                    inner: Arc::clone(self),
                };
                if let Err(close_error) = container.close().await {
                    tracing::error!(error = %close_error, "disposing after a failed start");
                }
                return Err(error);
            }
            for &dependent in self.dependents[id].iter() {
                if in_slice[dependent] {
                    waiting_on[dependent] -= 1;
                    if waiting_on[dependent] == 0 {
                        running.push(tagged(dependent));
                    }
                }
            }
        }
        drop(running);
        let report = self.startup_report(run.finish());
        if !report.builds.is_empty() {
            *self
                .startup
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(report));
        }
        Ok(())
    }

    /// The report of a start's `timed` builds (each with when it began and how long it took).
    fn startup_report(&self, mut timed: Vec<Timed>) -> crate::startup::StartupReport {
        // In build order, which the report keeps among builds that began at once.
        timed.sort_by_key(|&(id, ..)| self.position[id]);
        let mut at = IdVec::filled(usize::MAX, self.providers.len());
        for (index, &(id, ..)) in timed.iter().enumerate() {
            at[id] = index;
        }
        let builds = (timed.iter())
            .map(|&(id, began, took, joined)| {
                let node = &self.providers[id];
                crate::startup::StartupBuild::new(
                    node.descriptor.qualified_name().into_owned(),
                    node.kind,
                    (node.descriptor.provides.iter())
                        .map(|spec| spec.key.to_string())
                        .collect(),
                    (node.module).map(|m| self.modules[m as usize].path.to_string()),
                    (began, took),
                    (self.dependencies[id].iter())
                        .map(|&d| at[d])
                        .filter(|&index| index != usize::MAX)
                        .collect(),
                    joined,
                )
            })
            .collect();
        crate::startup::StartupReport::of(builds)
    }

    /// What a start that ran past `timeout` leaves: each build still in flight (in build
    /// order) with the providers it still waits on; each is stopped, and the container marked
    /// closed so that no waiter starts one again.
    pub(crate) fn start_timed_out(&self, timeout: Duration) -> ProvideError {
        self.closed.store(true, Ordering::Release);
        let mut building: Vec<ProviderId> = (self.providers.ids())
            .filter(|&id| self.slots[id].flight().is_some())
            .collect();
        building.sort_unstable_by_key(|&id| self.position[id]);
        let name = |id: ProviderId| self.providers[id].descriptor.qualified_name().into_owned();
        let unbuilt = |ids: &[ProviderId]| -> Vec<String> {
            (ids.iter())
                .filter(|&&d| !self.slots[d].is_built() && self.is_on(d))
                .map(|&d| name(d))
                .collect()
        };
        let still = building
            .iter()
            .map(|&id| crate::error::StillBuilding {
                provider: name(id),
                waiting_on: unbuilt(&self.dependencies[id]),
                waited_on_by: unbuilt(&self.dependents[id]),
            })
            .collect();
        for &id in &building {
            if let Some(flight) = &*self.slots[id].flight() {
                flight.abort.abort();
            }
        }
        tracing::error!(?timeout, "start ran past its budget; stopping its builds");
        ProvideError::StartTimedOut {
            timeout,
            building: still,
        }
    }

    /// The one build of provider `id`; its outcome goes to every waiter through `done`.
    async fn build(
        self: Arc<Self>,
        id: ProviderId,
        done: watch::Sender<crate::value::Outcome>,
        origin: Origin,
    ) {
        let reset = ResetFlight { inner: &self, id };
        let outcome = self.build_node(id, origin).await;
        self.slots[id].record_outcome(&outcome);
        self.changes.send_replace(());
        // Clear the flight first: a failed build must not be joined by the next caller.
        drop(reset);
        let _ = done.send(Some(outcome));
    }

    async fn build_node(
        self: &Arc<Self>,
        id: ProviderId,
        origin: Origin,
    ) -> Result<(), ProvideError> {
        let node = &self.providers[id];
        // Qualified by its module (`notifications::http`): what errors and spans name.
        let name = node.descriptor.qualified_name();
        let name = &*name;
        // The dependencies this build starts are for the same request, or the same start.
        let dependencies = self.dependencies[id]
            .iter()
            .map(|&d| self.ensure_for(d, origin.clone()));
        for result in join_all(dependencies).await {
            result.map_err(|e| e.needed_by(name))?;
        }
        let needs = Needs::of_provider(&node.descriptor.needs, &self.needs[id], &self.slots);

        // A lazy build's span is a root (a build is shared by every request that waits for
        // it), linked to the request that started it; a start's is under the start's span,
        // linked to the builds it waited on.
        let parent = match &origin {
            Origin::Lazy(_) => None,
            Origin::Start(run) => run.span.id(),
        };
        let module = (node.module).map(|m| tracing::field::display(&self.modules[m as usize].path));
        let span = tracing::info_span!(
            parent: parent,
            "provide",
            provider = %name,
            keys = %node.keys_text(),
            kind = %node.kind,
            module,
        );
        let run = match origin {
            Origin::Lazy(requester) => {
                span.follows_from(&requester);
                None
            }
            Origin::Start(run) => {
                run.link(&self.dependencies[id], &span);
                Some(run)
            }
        };
        let began = tokio::time::Instant::now();
        let started = Instant::now();
        // Its timeout is the provider's code (read from a setting, say): a panic there fails
        // the build as a panic in `provide` would.
        let limit =
            std::panic::catch_unwind(AssertUnwindSafe(|| node.provider.build_timeout_for(&needs)));
        let (limit, unreadable) = match limit {
            Ok(limit) => (limit.unwrap_or(self.build_timeout), None),
            Err(panic) => (self.build_timeout, Some(panic)),
        };
        let result = match unreadable {
            Some(panic) => {
                let message = format!(
                    "in its build timeout (`build_timeout_for`): {}",
                    panic_message(&*panic)
                );
                Ok(Err(Box::new(message) as Box<dyn std::any::Any + Send>))
            }
            None => {
                let provide = AssertUnwindSafe(node.provider.provide(needs)).catch_unwind();
                // The timeout needs tokio's timers; on a runtime without them, making it
                // panics: the build fails and says so (nothing may build unbounded).
                let timed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    tokio::time::timeout(limit, provide)
                }));
                match timed {
                    Ok(timed) => timed.instrument(span.clone()).await,
                    Err(panic) => Ok(Ok(Err(BoxError::from(format!(
                        "its build timeout needs tokio's timers (`enable_time` or `enable_all` \
                         on the runtime's builder, as `#[tokio::main]` and `#[tokio::test]` \
                         have): {}",
                        panic_message(&*panic)
                    ))))),
                }
            }
        };
        let cause = match result {
            // Past its time, the build is dropped here (what it was waiting on with it): the
            // flight ends, and the next caller starts another.
            Err(_) => FailureCause::TimedOut(limit),
            Ok(result) => match result {
                Ok(Ok(provided)) => match node.check(&provided) {
                    Ok(()) => {
                        let took = started.elapsed();
                        if let Some(run) = &run {
                            run.built(id, &span, began, began.elapsed());
                        }
                        self.slots[id].fill(provided, took);
                        #[cfg(feature = "metrics")]
                        node.metrics.built(&node.descriptor, took);
                        span.in_scope(|| tracing::debug!(?took, "built"));
                        return Ok(());
                    }
                    Err(wrong) => FailureCause::WrongOutput(wrong),
                },
                Ok(Err(error)) => FailureCause::Error(Arc::new(error)),
                Err(panic) => FailureCause::Panicked(panic_message(&*panic)),
            },
        };
        #[cfg(feature = "metrics")]
        node.metrics
            .build_failed(&node.descriptor, started.elapsed(), &cause);
        span.in_scope(|| tracing::error!(%cause, "provide failed"));
        Err(ProvideError::Failed {
            kind: node.kind,
            provider: name.to_owned(),
            keys: node.descriptor.provided_keys(),
            needed_by: Vec::new(),
            cause,
        })
    }

    /// Providers `roots` and everything they transitively need, in build order.
    pub(crate) fn slice_of(&self, roots: &[ProviderId]) -> Vec<ProviderId> {
        let mut seen = IdVec::filled(false, self.providers.len());
        let mut stack: Vec<ProviderId> = roots.to_vec();
        let mut slice = Vec::new();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut seen[id], true) {
                continue;
            }
            slice.push(id);
            stack.extend(self.dependencies[id].iter().copied());
        }
        slice.sort_unstable_by_key(|&id| self.position[id]);
        slice
    }
}

/// A successful build fills the slot before its outcome is sent, so a waiter that saw success
/// finds the value; the error is for the impossible case, never a panic in a request.
fn unreachable_unbuilt(descriptor: &Descriptor) -> ProvideError {
    ProvideError::Failed {
        kind: NodeKind::Provider,
        provider: descriptor.qualified_name().into_owned(),
        keys: descriptor.provided_keys(),
        needed_by: Vec::new(),
        cause: FailureCause::WrongOutput("no value after a successful build".to_owned()),
    }
}

/// Clears a provider's flight when its build ends, however it ends (even if the task is
/// aborted).
struct ResetFlight<'a> {
    inner: &'a Inner,
    id: ProviderId,
}

impl Drop for ResetFlight<'_> {
    fn drop(&mut self) {
        *self.inner.slots[self.id].flight() = None;
    }
}

impl Node {
    /// The short names of the provided keys' types, in the order of its `provides`.
    pub(crate) fn short_type_names(&self) -> &[String] {
        self.short_type_names.get_or_init(|| {
            self.descriptor
                .provides
                .iter()
                .map(|s| s.ty.short_name())
                .collect()
        })
    }

    /// Whether `provided` is what the node declares. A collection's value holds its
    /// contributions (each checked when its contributor was built), not one of its element
    /// type.
    fn check(&self, provided: &crate::value::Provided) -> Result<(), String> {
        match self.kind {
            NodeKind::Collection => Ok(()),
            _ => provided.check_against(&self.descriptor.provides),
        }
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
            .providers
            .iter_enumerated()
            .filter(|(id, _)| self.slots[*id].is_built())
            .map(|(_, n)| &*n.descriptor.name)
            .collect();
        if !built.is_empty() {
            tracing::warn!(
                providers = ?built,
                "a container with built providers was dropped without close(); they were not disposed"
            );
        }
    }
}
