//! One call as the breaker sees it: the ticket that let it through, and what its result meant.

/// What a call's outcome means to the breaker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Closes it (from any state) and resets the failure count.
    Success,
    /// Counts toward opening it; a failed half-open trial re-opens it at once.
    Failure,
    /// Neither: a client error that says nothing about the upstream's health (a 404). It frees
    /// a half-open trial's slot without deciding anything.
    Ignored,
}

/// The right to make one call, issued by `admit` (the machine's or the fast path's) and settled
/// by `record` or `abandon` (or the fast path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ticket {
    /// The generation that admitted it, modulo 2³⁰ like every generation.
    pub(crate) generation: u32,
    /// Its half-open trial slot, if it is a trial.
    pub(crate) trial: Option<u64>,
}
