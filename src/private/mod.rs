//! What the macros expand to: every path they emit goes through `::green_tea::__private`, so
//! the user's imports never matter. Not a public API: it may change in any release.
//!
//! What a provider's expansion uses is core's `__private`, re-exported here (a crate that only
//! adds providers expands `green_tea_core::provider` straight to core's); this module adds the
//! HTTP half of steps and routes. One concept per file: `returns` (what a step's fn may
//! return), `checks` (compile-time assertions, each reported at the type), `route` (a
//! handler's reads), `extract` (which extractors may go where, and reading the one that may
//! read the body), `futures` (boxing a step's future only when its holder is `Send + Sync`).
//! The type probe they all go through is core's.

mod checks;
mod extract;
mod futures;
mod returns;
mod route;

pub use axum_core::extract::FromRequestParts;
pub use axum_core::response::{IntoResponse, Response};
pub use green_tea_core::__private::{
    BoxError, DeclaredKey, DecoratedType, Descriptor, Discoverable, Discovered, DisposeOutput,
    GraphValue, Location, NeedError, Needs, Nested, NestedProbe, NodeKind, NotAGraphValue,
    NotNested, Provided, Provider, Registration, SharedProviderState, TypeProbe,
    UnsharedProviderState, ValueIsAny, ValueIsSendSync, ValueIsSync, assert_decorates,
    assert_nested, inventory, provide_ok, provide_result, settings,
};
pub use green_tea_core::__private::{Restart, Shutdown, Worker, WorkerFuture, WorkerOptions};
pub use green_tea_http::{
    Finishing, HttpError, IntoReply, Reply, RequestContext, Route, RouteRegistration, Step,
    StepFuture, StepRegistration, StepResult, join_paths, reply_of,
};
pub use http::Method;
pub use http::request::Parts;

pub use checks::{assert_json_body, assert_provider_state, assert_response, assert_value};
pub use extract::{
    BodyExtractor, BodyExtractorMisplaced, NotAnyExtractor, PartsExtractor, ReadBody, ReadHead,
    ReadNothing, RefusedExtractor, RouterCheck,
};
pub use futures::{SharedStepState, UnsharedStepState};
pub use returns::{need_rejection, step_ok, step_result};
pub use route::{
    AnyReply, Extractor, JsonBody, NotAJsonBody, NotAReply, NotARouteValue, NotAnExtractor,
    OwnReply, RouteValue, SharedRoute, UnsharedRoute, probe_of,
};
