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

struct RunState {
    /// Each build the start ran: when it began (from the start's beginning) and how long it
    /// took.
    timed: Vec<(ProviderId, Duration, Duration)>,
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
        state.timed.push((id, began, took));
        if state.unlinked[id] > 0 {
            state.held[id] = Some(span.clone());
        }
    }

    /// What the start built: each build, when it began (from the start's beginning) and how
    /// long it took, in the order they ended. The spans still held are let go: they were for
    /// dependents this start did not build (built before it, or by a request).
    pub(crate) fn finish(&self) -> Vec<(ProviderId, Duration, Duration)> {
        let mut state = self.state();
        state.held.iter_mut().for_each(|held| *held = None);
        std::mem::take(&mut state.timed)
    }
}
