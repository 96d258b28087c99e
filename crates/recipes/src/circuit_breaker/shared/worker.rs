//! The one background task per shared breaker: it publishes what the breaker queued (coalesced)
//! and refreshes the view, every refresh interval or sooner when woken, and applies the fleet's
//! verdicts to the breaker. It holds the breaker weakly: the breaker's last clone ends it.

use std::sync::Weak;
use std::sync::atomic::Ordering::SeqCst;
use std::time::{Duration, Instant};

use super::super::breaker::{CircuitBreaker, Shared};
use super::super::state::BreakerState;
use super::pending::Pending;
use super::scripts::{number, text};
use super::store::{Progress, Store, lock};

/// Runs until the breaker is dropped (or its `Drop` aborts it).
pub(crate) async fn run(store: std::sync::Arc<Store>, breaker: Weak<Shared>) {
    let mut seen = Seen::default();
    loop {
        let next = next_refresh(&store);
        tokio::select! {
            () = store.wake.notified() => {}
            () = tokio::time::sleep(next) => {}
        }
        let Some(shared) = breaker.upgrade() else {
            return;
        };
        let breaker = CircuitBreaker { shared };
        let wanted = store.requested.load(SeqCst);
        let reached = publish(&store, &breaker, &mut seen).await && refresh(&store, &breaker).await;
        store.progress.send_replace(Progress {
            done: wanted,
            reached,
        });
    }
}

/// The next refresh: one interval on, or as the fleet's window ends if that is sooner.
fn next_refresh(store: &Store) -> Duration {
    let view = lock(&store.view);
    // Once the window has ended, the claims (not the refresh) find out what happened.
    let ends = view
        .open
        .map(|open| open.remaining.saturating_sub(open.read_at.elapsed()))
        .filter(|ends| !ends.is_zero());
    ends.map_or(store.refresh_interval, |ends| {
        ends.min(store.refresh_interval)
    })
}

/// The breaker's counters at the last round, to see whether it has succeeded since.
#[derive(Default)]
struct Seen {
    successes: u64,
    failures: u64,
}

/// Sends the queue. `false` (and the queue restored) if Redis did not answer.
async fn publish(store: &Store, breaker: &CircuitBreaker, seen: &mut Seen) -> bool {
    let batch = lock(&store.pending).take();
    let counters = breaker.shared.fast.counters.snapshot();
    // Successes since the last round and no failure: the fleet's count starts again.
    let succeeded = counters.successes > seen.successes && counters.failures == seen.failures;
    seen.successes = counters.successes;
    seen.failures = counters.failures;
    let reset = succeeded && batch.failures == 0 && lock(&store.view).failures > 0;
    if batch.is_empty() && !reset {
        return true;
    }
    match tokio::time::timeout(store.round_trip, send(store, breaker, &batch, reset)).await {
        Ok(Ok(())) => true,
        Ok(Err(error)) => {
            lock(&store.pending).restore(batch, store.queue_cap());
            store.failed(&error);
            false
        }
        Err(_) => {
            lock(&store.pending).restore(batch, store.queue_cap());
            store.timed_out();
            false
        }
    }
}

async fn send(
    store: &Store,
    breaker: &CircuitBreaker,
    batch: &Pending,
    reset: bool,
) -> redis::RedisResult<()> {
    let scripts = &store.scripts;
    if let Some(hold) = batch.hold {
        let mode = match hold {
            Some(BreakerState::ForcedOpen) => "open",
            Some(_) => "closed",
            None => "release",
        };
        store.run(&scripts.hold, &[mode]).await?;
    }
    for release in &batch.releases {
        let (generation, slot) = (release.generation.to_string(), release.slot.to_string());
        let args = [&generation, &release.token, &slot, release.outcome];
        let reply = store.run(&scripts.release, &args).await?;
        apply_verdict(store, breaker, &reply);
    }
    if batch.failures > 0 {
        let (failures, total) = (batch.failures.to_string(), batch.total.to_string());
        let reply = store.run(&scripts.failure, &[&failures, &total]).await?;
        apply_verdict(store, breaker, &reply);
    }
    if reset {
        store.run(&scripts.reset, &[]).await?;
        lock(&store.view).failures = 0;
    }
    Ok(())
}

/// A transition script's reply: the fleet opened (or was open), closed, or counted.
fn apply_verdict(store: &Store, breaker: &CircuitBreaker, reply: &[redis::Value]) {
    let now = Instant::now();
    match text(reply, 0) {
        "open" => {
            let generation = u64::try_from(number(reply, 1)).unwrap_or(0);
            let remaining = number(reply, 2);
            lock(&store.view).opened(generation, remaining, now);
            breaker.apply_fleet_open(generation, millis(remaining));
        }
        "closed" if reply.len() == 2 => {
            // A trial's success: the fleet closed that generation.
            lock(&store.view).closed();
            breaker.apply_fleet_absent(u64::try_from(number(reply, 1)).unwrap_or(0));
        }
        "closed" => lock(&store.view).failures = u64::try_from(number(reply, 1)).unwrap_or(0),
        _ => {}
    }
}

/// Reads the fleet's state and applies it. `false` if Redis did not answer.
async fn refresh(store: &Store, breaker: &CircuitBreaker) -> bool {
    let epoch = store.epoch.load(SeqCst);
    let started = Instant::now();
    let reply = match tokio::time::timeout(store.round_trip, store.read_state()).await {
        Ok(Ok(reply)) => reply,
        Ok(Err(error)) => {
            store.failed(&error);
            return false;
        }
        Err(_) => {
            store.timed_out();
            return false;
        }
    };
    store.refreshes.fetch_add(1, SeqCst);
    store.answered_in(started.elapsed());
    if store.epoch.load(SeqCst) != epoch {
        return true; // a local verdict came meanwhile: this read is older than it
    }
    let hold = match text(&reply, 0) {
        "open" => Some(BreakerState::ForcedOpen),
        "closed" => Some(BreakerState::ForcedClosed),
        _ => None,
    };
    let (generation, remaining) = (number(&reply, 1), number(&reply, 2));
    let failures = u64::try_from(number(&reply, 3)).unwrap_or(0);
    let closed = u64::try_from(number(&reply, 4)).unwrap_or(0);
    let hold_changed = {
        let mut view = lock(&store.view);
        view.failures = failures;
        if generation > 0 {
            view.opened(generation.unsigned_abs(), remaining, started);
        } else {
            view.closed();
        }
        std::mem::replace(&mut view.hold, hold) != hold
    };
    if hold_changed {
        breaker.apply_fleet_hold(hold);
    }
    if hold.is_some() {
        return true;
    }
    if generation > 0 {
        breaker.apply_fleet_open(generation.unsigned_abs(), millis(remaining));
    } else {
        breaker.apply_fleet_absent(closed);
    }
    true
}

fn millis(ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}
