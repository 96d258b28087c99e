//! Who a build is for, and a start's record: the `start` span every build it begins is opened
//! under, each linked (`follows_from`) to the builds it waited on, and each build's time, for
//! the startup report.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use crate::ids::{IdVec, ProviderId};

/// Who a build is for: where its `provide` span hangs.
#[derive(Clone)]
pub(crate) enum Origin {
    /// A lazy build: a root span (a build is shared by every request that waits on it),
    /// linked to the span of the request that needed it.
    Lazy(tracing::Span),
    /// A build a start began: under the start's span, linked to the builds it waited on.
    Start(Arc<StartRun>),
}

/// One start (`build_now`): its span, when it began, and what its builds recorded.
pub(crate) struct StartRun {
    pub(crate) span: tracing::Span,
    began: Instant,
    state: Mutex<RunState>,
}

/// A build the start ran or waited for: its provider, when it began (from the start's
/// beginning; for one it joined, when it began waiting), how long it took (or it waited), and
/// whether it joined a build a request had begun.
pub(crate) type Timed = (ProviderId, Duration, Duration, bool);

struct RunState {
    /// Each build the start ran or joined.
    timed: Vec<Timed>,
    /// The providers whose build the start began or has recorded as joined.
    ours: IdVec<ProviderId, bool>,
    /// Each build's span, held until every dependent the start still builds has linked to it
    /// (a link needs the span it points at open: an exporter reads it then).
    held: IdVec<ProviderId, Option<tracing::Span>>,
    /// For each provider, how many of its dependents in the start have not begun.
    unlinked: IdVec<ProviderId, u32>,
}

impl StartRun {
    /// The record of a start over `providers` providers, `unlinked` saying for each how many
    /// of its dependents the start builds.
    pub(crate) fn new(builds: usize, unlinked: IdVec<ProviderId, u32>) -> Self {
        StartRun {
            span: tracing::info_span!("start", builds),
            began: Instant::now(),
            state: Mutex::new(RunState {
                timed: Vec::new(),
                ours: IdVec::filled(false, unlinked.len()),
                held: IdVec::filled(None, unlinked.len()),
                unlinked,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, RunState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Links `span`, a build of this start, to the spans of the builds of this start it
    /// waited on (its `dependencies`); a span every dependent has linked to is let go.
    pub(crate) fn link(&self, dependencies: &[ProviderId], span: &tracing::Span) {
        let mut state = self.state();
        for &dependency in dependencies {
            if let Some(waited) = &state.held[dependency] {
                span.follows_from(waited);
            }
            let left = &mut state.unlinked[dependency];
            *left = left.saturating_sub(1);
            if *left == 0 {
                state.held[dependency] = None;
            }
        }
    }

    /// Notes that the start began the build of `id` (so that waiting for it is not joining).
    pub(crate) fn begun(&self, id: ProviderId) {
        self.state().ours[id] = true;
    }

    /// Records a build of `id` that a request had begun and the start waited for, from
    /// `since`, until now; once, and never for a build the start began.
    pub(crate) fn joined(&self, id: ProviderId, since: Instant) {
        let mut state = self.state();
        if std::mem::replace(&mut state.ours[id], true) {
            return;
        }
        let began = since.saturating_duration_since(self.began);
        state.timed.push((id, began, since.elapsed(), true));
    }

    /// Records the build of `id`, begun at `began` and `took` long; holds its span for the
    /// dependents still to link to it.
    pub(crate) fn built(
        &self,
        id: ProviderId,
        span: &tracing::Span,
        began: Instant,
        took: Duration,
    ) {
        let mut state = self.state();
        let began = began.saturating_duration_since(self.began);
        state.timed.push((id, began, took, false));
        if state.unlinked[id] > 0 {
            state.held[id] = Some(span.clone());
        }
    }

    /// What the start built or joined, in the order they ended. The spans still held are let go: they were for
    /// dependents this start did not build (built before it, or by a request).
    pub(crate) fn finish(&self) -> Vec<Timed> {
        let mut state = self.state();
        state.held.iter_mut().for_each(|held| *held = None);
        std::mem::take(&mut state.timed)
    }
}
