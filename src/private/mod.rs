//! What the macros expand to: every path they emit goes through `::green_tea::__private`, so
//! the user's imports never matter. Not a public API: it may change in any release.
//!
//! One concept per file: `returns` (what a declaration's fn may return), `checks` (compile-time
//! assertions, each reported at the type), `probe` (the type probe that reports a bad type once
//! and keeps it from failing every line that uses it), `route` (a handler's reads), `extract` (which extractors may go where, and reading the
//! one that may read the body), `discover` (how `discover()` makes a provider struct),
//! `futures` (boxing a future only when its holder is `Send + Sync`).

mod checks;
mod discover;
mod extract;
mod futures;
mod probe;
mod returns;
mod route;

pub use axum_core::extract::FromRequestParts;
pub use axum_core::response::{IntoResponse, Response};
pub use green_tea_core::__private::{DeclaredKey, Discovered, Registration, inventory};
pub use green_tea_core::{
    BoxError, Descriptor, Location, NeedError, Needs, NodeKind, Provided, Provider,
};
pub use green_tea_http::{
    HttpError, IntoReply, Reply, RequestContext, Route, RouteRegistration, Step, StepFuture,
    StepRegistration, StepResult, join_paths, reply_of,
};
pub use http::Method;
pub use http::request::Parts;

pub use checks::{assert_json_body, assert_provider_state, assert_response, assert_value};
pub use discover::MadeByDiscovery;
pub use extract::{
    BodyExtractor, BodyExtractorMisplaced, NotAnyExtractor, PartsExtractor, ReadBody, ReadHead,
    ReadNothing, RefusedExtractor,
};
pub use futures::{SharedState, UnsharedState};
pub use probe::{GraphValue, NotAGraphValue, TypeProbe, ValueIsAny, ValueIsSendSync, ValueIsSync};
pub use returns::{
    DisposeOutput, need_rejection, provide_ok, provide_result, step_ok, step_result,
};
pub use route::{
    AnyReply, Extractor, JsonBody, NotAJsonBody, NotAReply, NotARouteValue, NotAnExtractor,
    OwnReply, RouteValue, SharedRoute, UnsharedRoute, probe_of,
};
