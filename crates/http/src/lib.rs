//! green-tea's HTTP layer: [`App`] (the core container plus request-scoped steps and routes),
//! per-route plans compiled at `build()`, `explain(path)`, [`HttpError`], serving on hyper with
//! graceful close, the `tower::Service` impl and [`TestClient`].

mod app;
mod client_addr;
mod context;
mod error;
mod explain;
mod extract;
mod finish;
mod future;
mod health;
mod in_flight;
mod json;
mod layer;
mod limits;
mod module;
mod response;
mod route;
mod runtime;
mod serve;
mod service;
mod step;
mod test_client;
mod warning;

pub use app::{App, AppBuilder, LOCK_ENV, assert_graph_lock};
pub use client_addr::ClientAddr;
pub use context::RequestContext;
pub use error::{Error, HttpError};
pub use explain::{
    ExplainApp, ExplainAppReload, ExplainPath, ExplainReloads, ExplainRoute, ExplainStep,
    NeedSource, NoRoute,
};
pub use extract::{Path, PathParams, Query};
pub use finish::{Finish, Finishing, Outcome};
pub use future::{IntoReplyFuture, StepFuture, StepResult};
pub use health::{AppHealth, CheckReport, NotReady};
pub use in_flight::InFlightGuard;
pub use json::Json;
pub use layer::Layered;
pub use limits::Limits;

pub use module::ModuleExt;
#[doc(hidden)]
pub use response::IntoReply;
pub use response::{Reply, ResponseBody, reply_of};
pub use route::{Handler, Route, RouteRegistration, join_paths};
#[doc(hidden)]
pub use serve::ConnectionBuilders;
pub use service::AppFuture;
pub use step::{Guard, Step, StepFn, StepRegistration};
pub use test_client::{TestClient, TestRequest, TestResponse, TestStream};
pub use warning::Warning;

/// The rustls that [`App::serve_tls`] takes its `ServerConfig` from, so that yours is the same
/// version.
#[cfg(feature = "tls")]
pub use tokio_rustls::rustls;
