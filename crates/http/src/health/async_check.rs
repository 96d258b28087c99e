//! The async health checks' asking: each under its timeout, a panic caught, its answer kept
//! for its cache interval, and one check in flight at a time that concurrent callers share.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Shared};
use tokio::time::Instant;

use green_tea_core::__private::layer;
use green_tea_core::__private::layer::values::{AnyValue, AppValue};
use green_tea_core::{AsyncHealthCheck, Check, CheckTiming, Container, Key, Location, TypeInfo};

/// An async check as registered: checked at `build()` like a synchronous one (GT0009).
pub(crate) struct AsyncCheckSetting {
    pub(crate) key: Key,
    pub(crate) location: Location,
    pub(crate) ty: TypeInfo,
    /// What it sets itself; the rest is the app's.
    pub(crate) timing: CheckTiming,
    pub(crate) ask: AsyncAsk,
}

/// How an async check asks a value (of the type it was registered with): a future that owns
/// the value, so that every caller can share it.
pub(crate) type AsyncAsk = fn(AnyValue) -> BoxFuture<'static, Check>;

/// An async check's question, for values of type `T`.
pub(crate) fn ask<T: AsyncHealthCheck>(value: AnyValue) -> BoxFuture<'static, Check> {
    match value.downcast::<T>() {
        Ok(value) => async move { value.check().await }.boxed(),
        // The type was checked at build (GT0009).
        Err(_) => {
            futures_util::future::ready(Check::down("the value is not of the health check's type"))
                .boxed()
        }
    }
}

/// A check under way: its answer and when it was made, for every caller that waits for it.
type Running = Shared<BoxFuture<'static, (Check, Instant)>>;

/// An async check, resolved, with what it keeps between calls.
pub(crate) struct CompiledAsyncCheck {
    pub(crate) key: Key,
    at: AppValue,
    /// The module whose key it is (its position among the container's modules).
    pub(crate) module: Option<usize>,
    timeout: Duration,
    cache_for: Duration,
    ask: AsyncAsk,
    /// Shared with the check's task, which keeps its answer there when it ends.
    slot: Arc<Mutex<Slot>>,
}

#[derive(Default)]
struct Slot {
    /// The last answer and when it was made.
    last: Option<(Check, Instant)>,
    /// The check in flight, if one is: whoever comes while it runs waits for it.
    running: Option<Running>,
    /// Counts the values the check has asked: one more each time a reload's generation puts
    /// its own answer here. A check that began on the value before keeps its answer out.
    value: u64,
}

/// One async check's answer to one `health()`.
pub(crate) struct Asked {
    pub(crate) check: Check,
    /// When the answer was made.
    pub(crate) at: Instant,
    /// Kept from an earlier check rather than made for this call.
    pub(crate) cached: bool,
}

impl CompiledAsyncCheck {
    /// `setting` resolved to the value `at`, its unset timing taken from `defaults`.
    pub(crate) fn new(
        setting: AsyncCheckSetting,
        at: AppValue,
        module: Option<usize>,
        defaults: CheckTiming,
    ) -> Self {
        let timeout = defaults.timeout_or(CheckTiming::DEFAULT_TIMEOUT);
        let cache_for = defaults.cache_for_or(CheckTiming::DEFAULT_CACHE);
        CompiledAsyncCheck {
            key: setting.key,
            at,
            module,
            timeout: setting.timing.timeout_or(timeout),
            cache_for: setting.timing.cache_for_or(cache_for),
            ask: setting.ask,
            slot: Arc::default(),
        }
    }

    /// The value it asks.
    pub(crate) fn at(&self) -> AppValue {
        self.at
    }

    /// The answer of the value `at` in `container` now, asked for this call alone (none
    /// kept, none shared), under the check's timeout, with when it was made: a reload's
    /// question to the value its next generation built anew, before that generation serves.
    /// `None` if it is not built.
    pub(crate) async fn ask_fresh(&self, container: &Container) -> Option<Answer> {
        let value = layer::values::value(container, self.at)?;
        Some(
            timed(
                (self.ask)(Arc::clone(value)),
                self.timeout,
                self.key.clone(),
            )
            .await,
        )
    }

    /// Keeps `answer` as the last: the answer of the value that serves now (a reload's
    /// [`ask_fresh`](Self::ask_fresh), once its generation serves), in place of the one the
    /// value before it gave.
    pub(crate) fn remember(&self, answer: Answer) {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        slot.value += 1;
        // A check still running asks the value before: the next caller asks anew.
        slot.running = None;
        slot.last = Some(answer);
    }

    /// How long an answer is kept: when a check that said down may say otherwise.
    pub(crate) fn cache_for(&self) -> Duration {
        self.cache_for
    }

    /// The check's answer: kept, if the last is younger than the cache interval; else that of
    /// the check in flight, started now if none is. `None` while the value is not built (it
    /// is never built to be asked) and once the container is closed (its value may be
    /// disposed: a closed pool is not asked).
    pub(crate) async fn ask(&self, container: &Container) -> Option<Asked> {
        let value = layer::values::try_value(container, self.at)
            .ok()
            .flatten()?;
        let running = {
            let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((check, at)) = &slot.last
                && at.elapsed() < self.cache_for
            {
                return Some(Asked {
                    check: check.clone(),
                    at: *at,
                    cached: true,
                });
            }
            let asked = slot.value;
            slot.running
                .get_or_insert_with(|| {
                    // A task of its own: the check runs to its end (or its timeout) whether or
                    // not anyone still waits, so a probe whose client gave up leaves neither
                    // a check frozen mid-query (holding a pool's connection) nor a stale
                    // answer for the next caller.
                    let key = self.key.clone();
                    let check = timed(
                        (self.ask)(Arc::clone(value)),
                        self.timeout,
                        self.key.clone(),
                    );
                    let kept = Arc::clone(&self.slot);
                    // The task keeps the answer itself: it is the last one even if every
                    // caller has gone (unless a reload's answer, of the value that serves
                    // now, took its place meanwhile).
                    let task = tokio::spawn(async move {
                        let answer = check.await;
                        let mut slot = kept.lock().unwrap_or_else(PoisonError::into_inner);
                        if slot.value == asked {
                            slot.running = None;
                            slot.last = Some(answer.clone());
                        }
                        answer
                    });
                    let slot = Arc::clone(&self.slot);
                    async move {
                        task.await.unwrap_or_else(|join| {
                            tracing::warn!(key = %key, %join, "an async health check's task failed");
                            let answer = (
                                Check::down(format!("the check's task failed: {join}")),
                                Instant::now(),
                            );
                            // The next caller asks again rather than wait on a task gone.
                            slot.lock().unwrap_or_else(PoisonError::into_inner).running = None;
                            answer
                        })
                    }
                    .boxed()
                    .shared()
                })
                .clone()
        };
        // A caller that goes away leaves the check running in its task; the next caller
        // shares it.
        let (check, at) = running.await;
        Some(Asked {
            check,
            at,
            cached: false,
        })
    }
}

/// A check's answer, and when it was made.
pub(crate) type Answer = (Check, Instant);

/// `check` under `timeout`, a panic in it caught; with when it answered.
async fn timed(check: BoxFuture<'static, Check>, timeout: Duration, key: Key) -> Answer {
    let check = match tokio::time::timeout(timeout, AssertUnwindSafe(check).catch_unwind()).await {
        Ok(Ok(check)) => check,
        Ok(Err(panic)) => {
            let message = layer::failures::panic_message(&*panic);
            tracing::warn!(key = %key, panic = %message, "an async health check panicked");
            Check::down(format!("the check panicked: {message}"))
        }
        Err(_) => {
            tracing::warn!(key = %key, ?timeout, "an async health check timed out");
            Check::down(format!("timed out after {timeout:?}"))
        }
    };
    (check, Instant::now())
}
