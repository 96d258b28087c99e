//! green-tea's recipes (not built yet): the circuit breaker, the guarded billing client and the
//! providers that wire them into an app, each recipe a small folder.
