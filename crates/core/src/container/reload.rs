//! A reload: the settings read again from the sources `build()` read, and, when reloadable
//! fields changed, a new generation of the container built beside this one. The new one
//! shares every value the change does not reach and builds anew those it does (the changed
//! settings' providers and everything that depends on them); it takes over only when the
//! caller commits it, and a failure disposes what it built and nothing else.
//!
//! Who disposes what: a value belongs to exactly one generation at a time. A new generation's
//! inherited slots are claimed (not its own to dispose) until it is committed; then they are
//! its own, and the old generation's slots of them are claimed instead. The old generation,
//! closed once its last request is done, disposes what nobody inherited: its own values of
//! the providers the new one built anew, and anything it built after the new one was made.

use std::future::Future;
use std::sync::Arc;

use futures_util::FutureExt;
use tokio::sync::OwnedMutexGuard;

use super::{Container, Inner};
use crate::error::BuildError;
use crate::ids::{IdVec, ProviderId};
use crate::reload::{Reload, ReloadError, SettingChange};
use crate::settings::read::{ToRead, reread_all};
use crate::settings::{Reread, Sources};
use crate::value::Slot;

/// A new generation, built and not yet serving: [`commit`](Self::commit) it, or
/// [`abandon`](Self::abandon) it (disposing what it built).
pub struct Pending {
    container: Container,
    report: Reload,
    /// The slots it shares with the generation before.
    inherited: Vec<ProviderId>,
    /// Each changed settings provider's rows, for its `explain` once this serves.
    rows: Vec<(ProviderId, Vec<crate::settings::ExplainSetting>)>,
    /// The workers (by position) that need a provider it built anew: restarted on it.
    restart: Vec<usize>,
    /// Committed or abandoned: otherwise, dropped, it is closed (what it built disposed).
    settled: bool,
    /// Keeps the next reload (and a close of a container on its own) waiting until this one
    /// is settled.
    one: Option<OwnedMutexGuard<()>>,
}

impl Container {
    /// Reads the settings again (the sources `build()` read) and applies what changed without
    /// a restart, as the next generation of this container, which it returns with the report
    /// (`None`: nothing changed, nothing happens). See the reloading guide's "A container on
    /// its own".
    ///
    /// The fields that changed must all be marked `#[settings(reload)]` (and read by no
    /// switch); then every provider that depends on a changed settings type is built anew
    /// for the new generation, where this one had built it, and every other value is shared.
    /// Workers that need a provider built anew are restarted on the new generation.
    ///
    /// This generation goes on working for whoever holds it. Use the new one from now on and
    /// [`close`](Self::close) this one once nothing uses it: that disposes only what it alone
    /// holds (its values of what was built anew, and anything it built after the reload
    /// began), after the worker runs the reload moved have ended. Dropping the new one is
    /// dropping a container without closing it. On an error nothing changed ([`ReloadError`]; a container has no health
    /// checks, so never [`Unhealthy`](ReloadError::Unhealthy)); a generation a reload replaced
    /// is [`ReloadError::Replaced`], and an app's container [`ReloadError::OfAnApp`] (reload
    /// the app).
    ///
    /// One reload runs at a time; `close()` of the generation that serves waits for one in
    /// progress, which then swaps nothing in ([`ReloadError::Closed`]). It runs on a task of
    /// its own: a caller that stops waiting leaves nothing half-made (what the new generation
    /// built is disposed, unless the runtime is shutting down).
    pub fn reload(
        &self,
    ) -> impl Future<Output = Result<Option<(Container, Reload)>, ReloadError>> + Send + '_ {
        // Boxed here, as `close()` is: compiled once, in green-tea.
        self.reload_alone().boxed()
    }

    async fn reload_alone(&self) -> Result<Option<(Container, Reload)>, ReloadError> {
        let outcome = match self.inner.lineage.is_app() {
            true => Err(ReloadError::OfAnApp),
            false => self.reload_and_commit().await,
        };
        let said = outcome
            .as_ref()
            .map(|o| o.as_ref().map(|(_, report)| report));
        // An app's container: the generation is the app's to say.
        let serving =
            (!matches!(outcome, Err(ReloadError::OfAnApp))).then(|| self.inner.lineage.number());
        said_how_it_ended(said, serving);
        outcome
    }

    async fn reload_and_commit(&self) -> Result<Option<(Container, Reload)>, ReloadError> {
        let this = self.clone();
        // The pending generation is taken from the task at once, and settled without an
        // await: a caller gone before then leaves it to `Pending`'s drop, which disposes it.
        let outcome = match tokio::spawn(async move { this.next_generation().await }).await {
            Ok(outcome) => outcome,
            Err(join) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
            Err(_) => Err(ReloadError::Closed),
        };
        match outcome {
            // A close began while it built: it swaps nothing in. (The pending generation
            // holds the reload lock, which that close waits for: no close of this
            // generation runs past this point until it is settled.)
            Ok(Some(pending))
                if self
                    .inner
                    .closing
                    .load(std::sync::atomic::Ordering::Acquire) =>
            {
                tokio::spawn(pending.abandon());
                Err(ReloadError::Closed)
            }
            Ok(Some(pending)) => Ok(Some(pending.commit_alone(self))),
            Ok(None) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Reads the settings again and, if reloadable fields changed, builds the next generation
    /// beside this one (`None`: nothing changed). Nothing of this generation changes.
    pub(crate) async fn next_generation(&self) -> Result<Option<Pending>, ReloadError> {
        let inner = &self.inner;
        let one = inner.lineage.one_reload().await;
        if inner.closing.load(std::sync::atomic::Ordering::Acquire) {
            return Err(ReloadError::Closed);
        }
        if !inner.serves() {
            return Err(ReloadError::Replaced {
                generation: inner.generation,
                serving: inner.lineage.number(),
            });
        }
        // Every settings provider `build()` read, as it read them.
        let hooks: Vec<(ProviderId, ToRead<'_>)> = (inner.settings_nodes())
            .map(|settings| {
                let location = settings.node.descriptor.location;
                let to_read = ToRead {
                    hook: settings.hook,
                    key: settings.key,
                    prefix: settings.prefix,
                    overridden: settings.overridden,
                    location,
                };
                (settings.id, to_read)
            })
            .collect();
        let (ids, to_read): (Vec<ProviderId>, Vec<ToRead<'_>>) = hooks.into_iter().unzip();
        let from_env = Sources::from_env();
        let sources = inner.sources.as_ref().unwrap_or(&from_env);
        let (outcome, reread) = reread_all(sources, &to_read);
        if !outcome.problems.is_empty() {
            return Err(ReloadError::Invalid(BuildError::from_problems(
                outcome.problems,
            )));
        }
        let (changes, changed) = self.changes(&ids, &to_read, reread);
        if changes.is_empty() {
            return Ok(None);
        }
        if changes.iter().any(|c| !c.reloadable()) {
            return Err(ReloadError::RestartNeeded { changes });
        }
        Ok(Some(self.build_next(changes, changed, one).await?))
    }

    /// The fields whose values changed (in registration order), with the settings providers
    /// that changed and their values read now.
    fn changes(
        &self,
        ids: &[ProviderId],
        to_read: &[ToRead<'_>],
        reread: Vec<Option<Reread>>,
    ) -> (Vec<SettingChange>, Vec<(ProviderId, Reread)>) {
        let mut changes = Vec::new();
        let mut changed = Vec::new();
        let fields: Vec<_> = self.inner.settings_fields().collect();
        for ((&id, read), now) in ids.iter().zip(to_read).zip(reread) {
            // One an override replaces was not read, then or now.
            let Some(now) = now else { continue };
            let before = read.hook.explain().unwrap_or_default();
            let mut any = false;
            for row in &now.rows {
                let was = before.iter().find(|b| b.field == row.field);
                if was.is_some_and(|was| was.digest == row.digest) {
                    continue;
                }
                any = true;
                let path = format!("{}.{}", read.key, row.field);
                let field = (fields.iter())
                    .filter(|(at, _)| *at == id)
                    .flat_map(|(_, fields)| fields)
                    .find(|f| f.field == path);
                let (variable, restart_because) = match field {
                    Some(field) => {
                        let explained = self.reload_of(id, field.clone());
                        (explained.variable, explained.restart_because)
                    }
                    None => (path.clone(), vec![format!("`{path}` is not a known field")]),
                };
                changes.push(SettingChange {
                    variable,
                    field: path,
                    from: was.map_or_else(|| "(none)".to_owned(), |w| w.value.clone()),
                    to: format!("{} ({})", row.value, row.source),
                    restart_because,
                });
            }
            if any {
                changed.push((id, now));
            }
        }
        (changes, changed)
    }

    /// Builds the generation after this one: `changed` settings read anew, every provider
    /// that depends on them built anew where this generation had built it, the rest shared.
    async fn build_next(
        &self,
        changes: Vec<SettingChange>,
        changed: Vec<(ProviderId, Reread)>,
        one: OwnedMutexGuard<()>,
    ) -> Result<Pending, ReloadError> {
        let old = &self.inner;
        let anew = old.reached_from(changed.iter().map(|(id, _)| *id));
        let mut read: Vec<Option<Reread>> = old.providers.ids().map(|_| None).collect();
        let mut rows = Vec::new();
        for (id, reread) in changed {
            rows.push((id, reread.rows.clone()));
            read[id.index()] = Some(reread);
        }
        let mut inherited = Vec::new();
        let mut roots = Vec::new();
        let slots = (old.providers.ids().zip(read))
            .map(|(id, read)| match read {
                Some(read) => Slot::read(read.provided),
                None if anew[id] => {
                    if old.slots[id].is_built() && old.is_on(id) {
                        roots.push(id);
                    }
                    Slot::default()
                }
                None => match Slot::inherited(&old.slots[id]) {
                    Some(slot) => {
                        inherited.push(id);
                        slot
                    }
                    None => Slot::default(),
                },
            })
            .collect();
        let rebuilt = old.on_in_build_order(&anew);
        let restart = old.workers_needing(&anew);
        let workers = (restart.iter())
            .map(|&at| old.workers.nodes[at].name())
            .collect();
        let next = Container {
            inner: Arc::new(old.next(slots)),
        };
        let report = Reload {
            generation: next.inner.generation,
            changes,
            rebuilt: (rebuilt.iter())
                .map(|&p| old.providers[p].descriptor.qualified_name().into_owned())
                .collect(),
            workers,
        };
        tracing::info!(
            generation = report.generation,
            rebuilt = ?report.rebuilt,
            "reload: building the next generation"
        );
        // A failure closes the new generation, which disposes what it built and none of what
        // it inherited (claimed).
        if let Err(error) = next.inner.build_now(roots).await {
            return Err(ReloadError::Failed {
                changes: report.changes,
                error,
            });
        }
        // The start's report stays the app's start's.
        let startup = old.startup.lock().map(|s| s.clone()).unwrap_or(None);
        *next
            .inner
            .startup
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = startup;
        Ok(Pending {
            container: next,
            report,
            inherited,
            rows,
            restart,
            settled: false,
            one: Some(one),
        })
    }
}

/// How a reload ended, an app's or a container's: logged, and counted (`green_tea.reloads` by
/// outcome, and the `green_tea.generation` gauge at `serving` unless `None`).
pub(crate) fn said_how_it_ended(
    outcome: Result<Option<&Reload>, &ReloadError>,
    #[cfg_attr(not(feature = "metrics"), allow(unused_variables))] serving: Option<u64>,
) {
    match outcome {
        Ok(Some(report)) => tracing::info!(
            generation = report.generation,
            rebuilt = ?report.rebuilt,
            "reloaded: the new generation serves"
        ),
        Ok(None) => tracing::info!("reload: no setting changed"),
        Err(error) => tracing::error!(%error, "reload failed: the running generation serves on"),
    }
    #[cfg(feature = "metrics")]
    super::metered::reloaded(
        match outcome {
            Ok(Some(_)) => "reloaded",
            Ok(None) => "unchanged",
            Err(error) => error.kind(),
        },
        serving,
    );
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("generation", &self.report.generation)
            .finish_non_exhaustive()
    }
}

/// A new generation nobody committed or abandoned (its reload's caller went away) is closed,
/// disposing what it built, on a task of its own: never left half-made.
impl Drop for Pending {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let container = self.container.clone();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    if let Err(error) = container.close().await {
                        tracing::error!(%error, "reload: disposing a generation nobody took");
                    }
                });
            }
            // Dropped off the runtime (it is shutting down): nothing can be disposed.
            Err(_) => tracing::warn!(
                generation = container.generation(),
                "reload: a generation nobody took is dropped without a runtime to dispose it"
            ),
        }
    }
}

impl Pending {
    /// Makes it the generation that serves, `old` the one it replaces: what it inherited is
    /// its own to dispose from now on (and no longer `old`'s), its settings' rows are what
    /// `explain` shows, and the workers follow it. Close `old` once nothing uses it: it
    /// disposes only what it alone holds (its values of what this one built anew, and what
    /// it built after this one was made).
    ///
    /// Returns the new generation, the report, and what resolves once every worker run that
    /// held `old` (a worker restarted on the new one) has ended.
    pub fn commit(
        mut self,
        old: &Container,
    ) -> (Container, Reload, impl Future<Output = ()> + Send + use<>) {
        self.commit_in_place(old)
    }

    /// [`commit`](Self::commit) for a container on its own: what `old`'s close must wait for
    /// is noted before the reload lock (which this holds) is let go, so that no close of
    /// `old` can miss it.
    fn commit_alone(mut self, old: &Container) -> (Container, Reload) {
        let (next, report, moved) = self.commit_in_place(old);
        (old.inner.lineage).replaced(old.inner.generation, &old.inner, moved.boxed());
        (next, report)
    }

    fn commit_in_place(
        &mut self,
        old: &Container,
    ) -> (Container, Reload, impl Future<Output = ()> + Send + use<>) {
        self.settled = true;
        for &id in &self.inherited {
            // Only what `old` still held passes on: a value it disposed already (it cannot:
            // an app's close waits for its reload or keeps it out, a container's for the
            // reload lock this holds) is nobody's twice.
            if old.inner.slots[id].claim_dispose() {
                self.container.inner.slots[id].own();
            }
        }
        for (id, rows) in std::mem::take(&mut self.rows) {
            if let Some(hook) = self.container.inner.providers[id].provider.settings_hook() {
                hook.adopt(rows);
            }
        }
        let moved = self.container.inner.follow(&self.restart);
        let generation = self.report.generation;
        let report = std::mem::replace(&mut self.report, Reload::none(generation));
        (self.container.clone(), report, moved)
    }

    /// Disposes what it built (nothing it inherited) and closes it: the generation before
    /// serves on, untouched.
    pub async fn abandon(mut self) -> Vec<SettingChange> {
        self.settled = true;
        // Let go first: the close below waits for it (a container on its own).
        drop(self.one.take());
        if let Err(error) = self.container.close().await {
            tracing::error!(%error, "reload: disposing the abandoned generation");
        }
        std::mem::take(&mut self.report.changes)
    }

    /// The new generation, to check before it serves.
    pub fn container(&self) -> &Container {
        &self.container
    }
}

impl Inner {
    /// Which providers a change of `roots` reaches: themselves and every provider that
    /// depends on one of them, directly or not (decorators and collections too).
    pub(crate) fn reached_from(
        &self,
        roots: impl IntoIterator<Item = ProviderId>,
    ) -> IdVec<ProviderId, bool> {
        let mut reached = IdVec::filled(false, self.providers.len());
        let mut stack: Vec<ProviderId> = roots.into_iter().collect();
        while let Some(at) = stack.pop() {
            if std::mem::replace(&mut reached[at], true) {
                continue;
            }
            stack.extend(self.dependents[at].iter().copied());
        }
        reached
    }

    /// The providers `reached` marks that are on today, in build order.
    pub(crate) fn on_in_build_order(&self, reached: &IdVec<ProviderId, bool>) -> Vec<ProviderId> {
        let mut ids: Vec<ProviderId> = (self.providers.ids())
            .filter(|&p| reached[p] && self.is_on(p))
            .collect();
        ids.sort_unstable_by_key(|&p| self.position[p]);
        ids
    }

    /// The workers (by position) that need a provider `reached` marks.
    pub(crate) fn workers_needing(&self, reached: &IdVec<ProviderId, bool>) -> Vec<usize> {
        (self.workers.nodes.iter().enumerate())
            .filter(|(_, w)| (w.needs.iter().flatten()).any(|v| reached[v.provider]))
            .map(|(at, _)| at)
            .collect()
    }

    /// The generation after this one: the same graph and settings sources, these `slots`.
    fn next(&self, slots: crate::value::Slots) -> Inner {
        Inner {
            providers: Arc::clone(&self.providers),
            slots,
            needs: self.needs.clone(),
            dependencies: self.dependencies.clone(),
            dependents: self.dependents.clone(),
            keys: self.keys.clone(),
            order: self.order.clone(),
            position: self.position.clone(),
            closed: Default::default(),
            closing: Default::default(),
            close_outcome: Default::default(),
            dispose_timeout: self.dispose_timeout,
            build_timeout: self.build_timeout,
            modules: self.modules.clone(),
            workers: Arc::clone(&self.workers),
            shape: self.shape.clone(),
            today: self.today.clone(),
            every_shape: self.every_shape.clone(),
            startup: std::sync::Mutex::new(None),
            changes: tokio::sync::watch::Sender::new(()),
            sources: self.sources.clone(),
            generation: self.generation + 1,
            lineage: Arc::clone(&self.lineage),
        }
    }
}
