//! The state word: what the machine publishes for calls that do not take its lock, in a `u64`.
//!
//! ```text
//!  bit 63   bit 62    bits 61..32             bits 31..0
//! [fast]  [forced]  [generation, 30 bits]  [consecutive failures]
//! ```
//!
//! - **fast**: the breaker is closed or forced closed, so a call is admitted and settled
//!   without the lock. Clear in every other state, and while the lock holder has *sealed* a
//!   closed word to change it.
//! - **forced**: forced closed: outcomes are only counted; nothing opens it.
//! - **generation**: the machine's generation. The machine counts it modulo 2³⁰ (as do the
//!   tickets), so the word, the tickets and the machine compare the same numbers. A result
//!   would be mistaken for current only if exactly 2³⁰ state changes happened during its call.
//! - **failures**: the consecutive failures of a closed breaker; the word, not the machine, is
//!   authoritative for them while closed. Zero in every other state.

/// The generations the word holds: 2³⁰ of them, counted with wrapping.
const GENERATION_MASK: u32 = (1 << 30) - 1;
const FAST: u64 = 1 << 63;
const FORCED: u64 = 1 << 62;
const GENERATION_SHIFT: u32 = 32;
const FAILURES: u64 = u32::MAX as u64;

/// The generation after `generation`, wrapping within the word's 30 bits.
#[inline]
pub(crate) fn next_generation(generation: u32) -> u32 {
    generation.wrapping_add(1) & GENERATION_MASK
}

/// One value of the state word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Word(u64);

impl Word {
    /// Closed, with `failures` consecutive failures counted.
    #[inline]
    pub(crate) fn closed(generation: u32, failures: u32) -> Word {
        Word(FAST | Word::generation_bits(generation) | u64::from(failures))
    }

    /// Forced closed: every call goes through and is only counted.
    #[inline]
    pub(crate) fn forced_closed(generation: u32) -> Word {
        Word(FAST | FORCED | Word::generation_bits(generation))
    }

    /// Open, half-open, forced open, or sealed by the lock holder: calls take the lock.
    #[inline]
    pub(crate) fn locked(generation: u32) -> Word {
        Word(Word::generation_bits(generation))
    }

    #[inline]
    pub(crate) fn from_bits(bits: u64) -> Word {
        Word(bits)
    }

    #[inline]
    pub(crate) fn bits(self) -> u64 {
        self.0
    }

    /// Calls go through without the lock (closed or forced closed).
    #[inline]
    pub(crate) fn is_fast(self) -> bool {
        self.0 & FAST != 0
    }

    /// Forced closed: outcomes only count.
    #[inline]
    pub(crate) fn is_forced(self) -> bool {
        self.0 & FORCED != 0
    }

    #[inline]
    pub(crate) fn generation(self) -> u32 {
        // Truncation intended: the mask keeps the generation's 30 bits.
        ((self.0 >> GENERATION_SHIFT) as u32) & GENERATION_MASK
    }

    #[inline]
    pub(crate) fn failures(self) -> u32 {
        // Truncation intended: the low 32 bits are the count.
        (self.0 & FAILURES) as u32
    }

    /// The same word with another failure count.
    #[inline]
    pub(crate) fn with_failures(self, failures: u32) -> Word {
        Word((self.0 & !FAILURES) | u64::from(failures))
    }

    #[inline]
    fn generation_bits(generation: u32) -> u64 {
        u64::from(generation & GENERATION_MASK) << GENERATION_SHIFT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_without_touching_each_other() {
        let word = Word::closed(GENERATION_MASK, u32::MAX);
        assert!(word.is_fast() && !word.is_forced());
        assert_eq!(
            (word.generation(), word.failures()),
            (GENERATION_MASK, u32::MAX)
        );
        let reset = word.with_failures(0);
        assert_eq!((reset.generation(), reset.failures()), (GENERATION_MASK, 0));
        assert!(reset.is_fast());

        let forced = Word::forced_closed(7);
        assert!(forced.is_fast() && forced.is_forced());
        assert_eq!((forced.generation(), forced.failures()), (7, 0));

        let locked = Word::locked(7);
        assert!(!locked.is_fast() && !locked.is_forced());
        assert_eq!(locked.generation(), 7);
        assert_eq!(Word::from_bits(locked.bits()), locked);
    }

    #[test]
    fn generations_wrap_within_thirty_bits() {
        assert_eq!(next_generation(3), 4);
        assert_eq!(next_generation(GENERATION_MASK), 0);
        assert_eq!(Word::locked(GENERATION_MASK + 1).generation(), 0);
    }
}
