//! The names of green-tea's metrics, one place for the framework, the recipes and the docs.
//!
//! Names and labels follow the OpenTelemetry semantic conventions where one exists (HTTP), and
//! resilience4j's for the circuit breaker. Exporters rename as their format wants: with its
//! recommended naming (`PrometheusBuilder::with_recommended_naming(true)`) and `describe()`
//! called, the Prometheus exporter writes `http.server.request.duration` as
//! `http_server_request_duration_seconds` (the unit from its description) and
//! `green_tea.breaker.calls` as `green_tea_breaker_calls_total`, as Prometheus's conventions
//! and the OpenTelemetry-to-Prometheus mapping want. No label takes an unbounded value (a path,
//! a user id): a route is its template, a provider or a breaker its name in the code.
//!
//! With its `metrics` feature on, green-tea reports these to the recorder the
//! application installs through the `metrics` facade; install it before `build()`, which
//! registers the handles a request uses. A crate that adds providers reports its own metrics
//! the same way: it registers its handles when its provider builds, keeps them in the value it
//! provides, and never registers one per call.

/// Histogram, seconds: each request, from when the app receives it (outside the app's layers)
/// until its response's head is ready. Labels: `http.request.method`, `http.route` (the
/// route's template; [`UNMATCHED_ROUTE`] when no route matched), `http.response.status_code`,
/// and `error.type` (the status code) on a 5xx.
pub const HTTP_SERVER_REQUEST_DURATION: &str = "http.server.request.duration";

/// Gauge: the requests being answered now. Label: `http.request.method`.
pub const HTTP_SERVER_ACTIVE_REQUESTS: &str = "http.server.active_requests";

/// The `http.route` of a request no route answered: a 404 for an unknown path, or a 503 from an
/// app that was already closing. (A path whose method has no route, a 405, is labelled with the
/// path's template.) No route's template looks like it: templates start with `/`.
pub const UNMATCHED_ROUTE: &str = "unmatched";

/// Histogram, seconds: each build of a provider. Labels: `provider` (its name) and `outcome`
/// (`success`, `error` or `panic`).
pub const PROVIDER_BUILD_DURATION: &str = "green_tea.provider.build.duration";

/// Histogram, seconds: each dispose of a provider on `close()`. Labels: `provider` and
/// `outcome` (`success`, `error`, `panic` or `timeout`).
pub const PROVIDER_DISPOSE_DURATION: &str = "green_tea.provider.dispose.duration";

/// Gauge: 1 while a provider is built, 0 before its build and after its dispose. Label:
/// `provider`.
pub const PROVIDER_BUILT: &str = "green_tea.provider.built";

/// Counter: each `App::reload()` and `Container::reload()`. Label: `outcome` (`reloaded`,
/// `unchanged`, or the error's [`kind`](crate::ReloadError::kind)).
pub const RELOADS: &str = "green_tea.reloads";

/// Gauge: the generation an app (or a container on its own) serves (0 until a reload takes
/// effect), set by each `App::reload()` and `Container::reload()` (but the refused reload of
/// an app's container). One per process: containers that reload side by side share it.
pub const GENERATION: &str = "green_tea.generation";

/// Counter: calls through a circuit breaker. Labels: `breaker` and `outcome` (`success`,
/// `failure`, `ignored` or `not_permitted`).
pub const BREAKER_CALLS: &str = "green_tea.breaker.calls";

/// Gauge: a breaker's state, one series per state (`state` label: `closed`, `open`,
/// `half_open`, `forced_open`, `forced_closed`), 1 for the current one and 0 for the others.
/// Label: `breaker`.
pub const BREAKER_STATE: &str = "green_tea.breaker.state";

/// Counter: a breaker's transitions. Labels: `breaker`, `from` and `to` (states as above).
pub const BREAKER_TRANSITIONS: &str = "green_tea.breaker.transitions";

/// Counter: errors talking to a breaker's shared store. Label: `breaker`.
pub const BREAKER_STORE_ERRORS: &str = "green_tea.breaker.store.errors";

/// Gauge: 1 while a breaker runs on local state because its shared store is unreachable.
/// Label: `breaker`.
pub const BREAKER_STORE_DEGRADED: &str = "green_tea.breaker.store.degraded";

#[cfg(feature = "metrics")]
/// The `outcome` of a build or a dispose that failed: what [`FailureCause`] says happened.
///
/// [`FailureCause`]: crate::FailureCause
pub(crate) fn failure_outcome(cause: &crate::FailureCause) -> &'static str {
    match cause {
        crate::FailureCause::Panicked(_) => "panic",
        crate::FailureCause::TimedOut(_) | crate::FailureCause::OutOfBudget(_) => "timeout",
        crate::FailureCause::Error(_) | crate::FailureCause::WrongOutput(_) => "error",
    }
}

/// Describes every metric above to the installed recorder: its unit (seconds for the
/// durations, a count for the others) and a line of help. The Prometheus exporter prints the
/// help as `# HELP` and, with its recommended naming, puts the unit in the name (`_seconds`; a
/// count adds nothing). The metrics are reported whether it is called or not.
#[cfg(feature = "metrics")]
pub fn describe() {
    use ::metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_histogram!(
        HTTP_SERVER_REQUEST_DURATION,
        Unit::Seconds,
        "Duration of HTTP server requests."
    );
    describe_gauge!(
        HTTP_SERVER_ACTIVE_REQUESTS,
        Unit::Count,
        "Number of active HTTP server requests."
    );
    describe_histogram!(
        PROVIDER_BUILD_DURATION,
        Unit::Seconds,
        "Duration of green-tea provider builds."
    );
    describe_histogram!(
        PROVIDER_DISPOSE_DURATION,
        Unit::Seconds,
        "Duration of green-tea provider disposes."
    );
    describe_gauge!(
        PROVIDER_BUILT,
        Unit::Count,
        "1 while the provider is built, else 0."
    );
    describe_counter!(RELOADS, Unit::Count, "Reloads, by outcome.");
    describe_gauge!(
        GENERATION,
        Unit::Count,
        "The generation that serves: 0 until a reload takes effect."
    );
    describe_counter!(
        BREAKER_CALLS,
        Unit::Count,
        "Calls through a circuit breaker, by outcome."
    );
    describe_gauge!(
        BREAKER_STATE,
        Unit::Count,
        "1 for the breaker's current state, 0 for the others."
    );
    describe_counter!(
        BREAKER_TRANSITIONS,
        Unit::Count,
        "Circuit breaker state transitions."
    );
    describe_counter!(
        BREAKER_STORE_ERRORS,
        Unit::Count,
        "Errors reaching a breaker's shared store."
    );
    describe_gauge!(
        BREAKER_STORE_DEGRADED,
        Unit::Count,
        "1 while a breaker runs on local state because its shared store is unreachable."
    );
}
