//! The lock-free half of the breaker: the state word and the counters. A closed breaker admits
//! and settles its calls here, without taking the machine's lock.
//!
//! # Who writes the word
//!
//! The machine, under its lock, owns the word's flags and generation and publishes them with
//! every change of state (see [`Word`] for the layout). While the breaker is closed the word,
//! not the machine, holds the consecutive failures, and callers change that count without the
//! lock, each with a `compare_exchange` from a fast word of its ticket's generation: it cannot
//! overwrite a change the machine made, because the exchange fails and the caller decides
//! again on what it finds. The lock holder changes a fast word the same way
//! ([`FastPath::update`]), deciding again if a caller moved it in between, so no update on
//! either side is lost unseen. A failure that would reach the threshold goes to the lock holder,
//! who counts it and, in the same exchange, *seals* the word (clears its fast bit) before it
//! opens the breaker. Whenever the lock is free, the word's flags and generation are the
//! machine's.
//!
//! # Orderings
//!
//! Every access to the word is `Relaxed`, and that is enough:
//!
//! - Each decision is made on the word alone: a load, then a `compare_exchange` on the same
//!   word that succeeds only if it still holds the value decided on. One atomic's modification
//!   order is total whatever the ordering, so no decision is made on a value that was replaced.
//! - The word publishes no other memory. The counters are their own atomics; trial slots, open
//!   windows and the generation's meaning stay under the lock. No reader needs to see another
//!   write through it, so no acquire/release pair is needed.
//! - Lock holders are ordered by the lock's own acquire/release, so a lock holder reads a word
//!   at least as new as the last one published; and a thread that learns (through any
//!   synchronisation) that `force_open` returned reads its word or a newer one.
//! - A caller that loaded a word just before the machine replaced it behaves as if its call had
//!   come just before the change: it is admitted, and its result is counted as stale.

use std::sync::atomic::Ordering::Relaxed;

use super::call::{Outcome, Ticket};
use super::counters::AtomicCounters;
use super::sync::AtomicU64;
use super::word::Word;

/// The state word and the counters: everything a call on a closed breaker touches.
pub(crate) struct FastPath {
    /// On its own cache line: every call reads it, and the counters are written by every call.
    word: CacheLine<AtomicU64>,
    pub(crate) counters: CacheLine<AtomicCounters>,
}

/// Keeps a value off its neighbours' cache lines (128 bytes: x86 prefetches lines in pairs).
#[repr(align(128))]
#[derive(Default)]
pub(crate) struct CacheLine<T>(T);

impl<T> std::ops::Deref for CacheLine<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl FastPath {
    /// The fast path of a machine whose word is `word`, counting in `counters`.
    pub(crate) fn new(word: Word, counters: AtomicCounters) -> Self {
        FastPath {
            word: CacheLine(AtomicU64::new(word.bits())),
            counters: CacheLine(counters),
        }
    }

    /// Admits a call without the lock if the breaker is closed or forced closed; `None`: ask
    /// the machine.
    #[inline]
    pub(crate) fn admit(&self) -> Option<Ticket> {
        let word = self.load();
        if !word.is_fast() {
            return None;
        }
        self.counters.admitted.bump();
        Some(Ticket {
            generation: word.generation(),
            trial: None,
        })
    }

    /// Settles a call without the lock when that is enough, exactly as `Machine::record` would;
    /// `false`: ask the machine (a trial, a failure that reaches the threshold, or a word the
    /// lock holder has sealed).
    #[inline]
    pub(crate) fn settle(&self, ticket: Ticket, outcome: Outcome, threshold: u32) -> bool {
        if ticket.trial.is_some() {
            return false;
        }
        let mut word = self.load();
        loop {
            if word.generation() != ticket.generation {
                // The breaker moved on while the call ran: its result says nothing now.
                self.counters.stale.bump();
                return true;
            }
            if !word.is_fast() {
                return false;
            }
            let next = if word.is_forced() {
                None // held closed: outcomes only count
            } else {
                match outcome {
                    Outcome::Ignored => None,
                    Outcome::Success => (word.failures() > 0).then(|| word.with_failures(0)),
                    Outcome::Failure => {
                        let failures = word.failures().saturating_add(1);
                        if failures >= threshold {
                            return false; // opening takes the lock
                        }
                        Some(word.with_failures(failures))
                    }
                }
            };
            if let Some(next) = next
                && let Err(now) =
                    self.word
                        .compare_exchange_weak(word.bits(), next.bits(), Relaxed, Relaxed)
            {
                word = Word::from_bits(now); // moved meanwhile: decide again
                continue;
            }
            self.counters.outcome(outcome);
            return true;
        }
    }

    /// For the lock holder: replaces the word with `next(word)` and returns the word replaced.
    /// A `compare_exchange` loop: if a caller changed the count between the load and the
    /// exchange, `next` decides again on the new word.
    pub(crate) fn update(&self, mut next: impl FnMut(Word) -> Word) -> Word {
        let mut seen = self.load();
        loop {
            match self
                .word
                .compare_exchange_weak(seen.bits(), next(seen).bits(), Relaxed, Relaxed)
            {
                Ok(_) => return seen,
                Err(now) => seen = Word::from_bits(now),
            }
        }
    }

    #[inline]
    fn load(&self) -> Word {
        Word::from_bits(self.word.load(Relaxed))
    }
}
