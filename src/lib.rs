#![doc = include_str!("../docs/introduction.md")]
//!
//! # The guide
//!
//! - [`guide::getting_started`]: a service in twenty lines
//! - [`guide::providers`]: providers, values and the `#[provider]` macro
//! - [`guide::vocabulary`]: optional needs (`cache?`), collections (`notifiers[]`,
//!   `stores{}`) and decorators
//! - [`guide::modules`]: modules: keys private unless exported, routes under a prefix, one
//!   module registered twice, what a library ships, overrides that reach inside
//! - [`guide::settings`]: typed settings from defaults, a TOML file and the environment, every
//!   problem at once, secrets never shown
//! - [`guide::workers`]: workers: long-running tasks in the graph, started with the app,
//!   restarted on failure, stopped before what they need is disposed
//! - [`guide::switches`]: switches: a setting that decides the graph's shape (a cache on or
//!   off, a gateway chosen by name), every shape checked at `build()`
//! - [`guide::steps`]: request-scoped steps and guards
//! - [`guide::unit_of_work`]: steps that finish: a transaction per request, committed or rolled
//!   back with the request's outcome before the response is sent
//! - [`guide::routes`]: routes, extractors, bad input, interop
//! - [`guide::extractors`]: axum's extractors in green-tea: which work, where, and which are
//!   refused
//! - [`guide::middleware`]: tower layers on the app or a route, mounted services, the
//!   fallback, the client's address
//! - [`guide::streaming`]: streamed responses and server-sent events
//! - [`guide::explain`]: seeing what a key or a route builds
//! - [`guide::lifecycle`]: lazy builds, `start`, serving, draining, `close` and `dispose`
//! - [`guide::serving`]: TCP, TLS, HTTP/2, Unix sockets, the limits (HTTP/2's too), mounting in axum
//! - [`guide::observability`]: metrics by the OpenTelemetry conventions, spans exported to
//!   OpenTelemetry
//! - [`guide::testing`]: overrides and `TestClient`
//! - [`guide::project_layout`]: a library, a binary and tests; discovery in that layout
//! - [`guide::recipes::circuit_breakers`]: the circuit-breaker recipe
//! - [`guide::errors`]: every build error code

#[doc(inline)]
pub use green_tea_core::{
    All, BoxError, BuildError, ByName, CloseError, Container, ContainerBuilder, Descriptor,
    Discoverable, Key, KeySpec, Location, Module, NeedError, Needs, ProvideError, Provided,
    Provider, ProviderFn, Resolver, Scope, Spelling, TypeInfo,
};
#[doc(inline)]
pub use green_tea_http::{App, AppBuilder, Error, HttpError, Json, ModuleExt, Warning};

/// What [`App::reload`] says: the generation it made and what changed, or why it changed
/// nothing.
pub mod reload {
    #[doc(inline)]
    pub use green_tea_core::{Reload, ReloadError, SettingChange};
}

/// The data behind every error: the problems `build()` finds, who they are about, and what
/// failed while building or closing.
pub mod error {
    #[doc(inline)]
    pub use green_tea_core::{
        CloseFailure, ClosePart, FailureCause, NodeKind, Origin, Problem, StillBuilding,
        Suggestion, Unregistered,
    };
    #[doc(inline)]
    pub use green_tea_http::NoRoute;
}

#[doc(inline)]
pub use green_tea_core::metric;

/// Workers: long-running tasks that are nodes of the graph, started with the app and stopped
/// before what they need is disposed; see the [workers guide](crate::guide::workers).
pub mod workers {
    #[doc(inline)]
    pub use green_tea_core::workers::*;
}

/// Switches: named functions of settings with a finite set of outcomes, under which
/// declarations are on or off; `build()` checks the graph of every outcome. See the
/// [switches guide](crate::guide::switches).
pub mod switches {
    #[doc(inline)]
    pub use green_tea_core::switches::*;
}

/// Settings: typed values read at `build()` from defaults, a TOML file and the environment,
/// every problem in the same [`BuildError`] as the graph's, secrets never shown; see the
/// [settings guide](crate::guide::settings).
pub mod settings {
    #[doc(inline)]
    pub use green_tea_core::settings::{
        ByteSize, ExplainSetting, FieldSpec, Reader, Secret, SettingSource, Settings,
        SettingsProvider, Sources, UnknownSetting,
    };
    #[doc(inline)]
    pub use green_tea_macros::Settings;
}

/// What `explain` returns: a key's or a route's slice of the graph, a worker, or a module, as
/// data.
pub mod explain {
    #[doc(inline)]
    pub use green_tea_core::{
        Explain, ExplainImport, ExplainKey, ExplainMember, ExplainModule, ExplainNeed, ExplainNode,
        ExplainOff, ExplainReload, ExplainSwitch, ExplainSwitches, ExplainWorker,
        ExplainWorkerNeed, StartupBuild, StartupReport, UnknownModule, UnknownSettingName,
        UnknownWorker,
    };
    #[doc(inline)]
    pub use green_tea_http::{
        ExplainApp, ExplainAppReload, ExplainPath, ExplainReloads, ExplainRoute, ExplainStep,
        NeedSource,
    };
}

/// What a handler reads: the [`RequestContext`](extract::RequestContext) (the request's head,
/// its body read once within the limit, the values it needs), green-tea's own extractors
/// ([`Path`](extract::Path) reads the parameters its router matched, [`Query`](extract::Query)
/// the query string, both rejecting with a JSON 400), what `Path` reads
/// ([`PathParams`](extract::PathParams), in the request's extensions, for extractors of your
/// own), the client's address ([`ClientAddr`](extract::ClientAddr), the request value
/// `clientAddr`), axum-core's extractor traits, and
/// [`WorksOutsideAxumRouter`](extract::WorksOutsideAxumRouter), the bound that refuses axum's
/// router extractors at compile time. Any other axum-core extractor works too; the
/// [extractors guide](crate::guide::extractors) lists which go where.
pub mod extract {
    #[doc(no_inline)]
    pub use axum_core::extract::{FromRequest, FromRequestParts};
    #[doc(inline)]
    pub use green_tea_http::{ClientAddr, Path, PathParams, Query, RequestContext};

    /// Implemented by no type: the bound green-tea's macros put on each of axum's extractors
    /// of its router's state, so that a `#[route]` handler or a `#[step]` that takes one does
    /// not compile, with a message naming green-tea's way.
    ///
    /// axum's `Router` puts the matched route, its path parameters and its state in every
    /// request, and `axum::serve` puts the client's address there. green-tea routes and serves
    /// requests itself, so axum's `Path`, `RawPathParams`, `MatchedPath`, `NestedPath`, `State`
    /// and `ConnectInfo` (and `Option<Path<T>>`, `Option<MatchedPath>`) would find nothing
    /// there and fail every request at run time. Take instead:
    ///
    /// - green-tea's [`Path<T>`](Path) (in the prelude) for path parameters, the same shape
    ///   read from green-tea's router; the route's template is in `app.explain(path)`;
    /// - a graph value, `#[needs("key")] value: &T`, for shared state;
    /// - the request value `clientAddr`, `#[needs("clientAddr")] client: &ClientAddr`, for
    ///   the client's address.
    ///
    /// The refusal needs the facade's default feature `axum`, which names those types.
    ///
    /// ```compile_fail,E0277
    /// use green_tea::prelude::*;
    ///
    /// #[derive(Clone)]
    /// struct Shop;
    ///
    /// struct Orders;
    ///
    /// #[route("/orders")]
    /// impl Orders {
    ///     #[get("/")]
    ///     async fn list(axum::extract::State(_shop): axum::extract::State<Shop>) -> &'static str {
    ///         // error: `State<Shop>` reads what only axum's `Router` (or `axum::serve`) puts in
    ///         // a request ... the trait `WorksOutsideAxumRouter` is not implemented for `State<Shop>`
    ///         "[]"
    ///     }
    /// }
    /// # fn main() {}
    /// ```
    ///
    /// The same handler, and its path parameter, the green-tea way:
    ///
    /// ```
    /// use green_tea::extract::{ClientAddr, Path};
    /// use green_tea::prelude::*;
    /// use green_tea::test::TestClient;
    ///
    /// struct Shop {
    ///     name: String,
    /// }
    ///
    /// struct Orders;
    ///
    /// #[route("/orders")]
    /// impl Orders {
    ///     #[get("/{id}")]
    ///     async fn show(
    ///         Path(id): Path<u64>,
    ///         #[needs("shop")] shop: &Shop,
    ///         #[needs("clientAddr")] client: &ClientAddr,
    ///     ) -> String {
    ///         let from = client.get().map_or("nowhere".to_owned(), |addr| addr.to_string());
    ///         format!("{}: order {id}, asked from {from}", shop.name)
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let app = App::builder()
    ///     .value("shop", Shop { name: "green-tea shop".to_owned() })
    ///     .routes(Orders::routes())
    ///     .build()
    ///     .unwrap();
    /// let client = TestClient::new(app.clone());
    /// // `TestClient` has no connection, so no address.
    /// let shown = client.get("/orders/7").send().await.text();
    /// assert_eq!(shown, "green-tea shop: order 7, asked from nowhere");
    /// app.close().await.unwrap();
    /// # }
    /// ```
    #[diagnostic::on_unimplemented(
        message = "`{Self}` reads what only axum's `Router` (or `axum::serve`) puts in a \
                   request, and green-tea routes and serves requests itself",
        label = "axum's router extractor: refused in green-tea",
        note = "for path parameters take green-tea's `Path<T>` (`green_tea::extract::Path`, in \
                the prelude); the route's template is in `app.explain(path)`",
        note = "for shared state take a graph value: `#[needs(\"key\")] value: &T`",
        note = "for the client's address (`ConnectInfo`) take the request value `clientAddr`: \
                `#[needs(\"clientAddr\")] client: &ClientAddr`",
        note = "see the extractors guide: `green_tea::guide::extractors`"
    )]
    pub trait WorksOutsideAxumRouter {}
}

/// The app's health as data ([`App::health`]): each provider's state, the health checks
/// that providers' values answer (synchronous ones, and async ones under a timeout and a
/// cache), and whether the app is ready.
pub mod health {
    #[doc(inline)]
    pub use green_tea_core::{
        AsyncHealthCheck, Check, CheckStatus, CheckTiming, ContainerHealth, HealthCheck,
        ModuleHealth, ProviderHealth, ProviderState, SwitchHealth,
    };
    #[doc(inline)]
    pub use green_tea_http::{AppHealth, CheckReport, NotReady};
}

/// The [`http`] crate itself (request, response, headers, methods, status codes), as
/// axum's `axum::http` is: `green_tea::http::StatusCode` is `http::StatusCode`. green-tea's own
/// HTTP types live in [`routing`], [`steps`], [`extract`], [`response`], [`body`], [`future`],
/// [`serve`] and [`test`](mod@test).
#[doc(no_inline)]
pub use ::http;

/// Routes and handlers: a [`Route`](routing::Route) is a method, a path and a
/// [`Handler`](routing::Handler) (any `async fn` of a [`RequestContext`](extract::RequestContext),
/// or what `#[route]` generates), with its steps, body limit and tower layers;
/// [`Layered`](routing::Layered) is what a tower layer on the app or a route wraps.
pub mod routing {
    #[doc(inline)]
    pub use green_tea_http::{Handler, Layered, Route};
}

/// Steps by hand: the [`Step`](steps::Step) trait that `#[step]` implements,
/// [`StepFn`](steps::StepFn) for a step made from a closure, [`Guard`](steps::Guard) for one that
/// only accepts or rejects, and what a step returns ([`StepResult`](steps::StepResult)).
/// Steps that finish with the request ([`Finish`](steps::Finish), what they are told:
/// [`Outcome`](steps::Outcome)).
pub mod steps {
    #[doc(inline)]
    pub use green_tea_http::{Finish, Finishing, Guard, Outcome, Step, StepFn, StepResult};
}

/// What a handler answers with: anything [`IntoResponse`](response::IntoResponse) (axum-core's
/// trait, so axum's response types work too), green-tea's [`Reply`](response::Reply) (a
/// response whose body is a [`ResponseBody`](response::ResponseBody)) and
/// [`reply_of`](response::reply_of), which makes one of any response. [`Json`] and
/// [`HttpError`] are at the crate's root.
pub mod response {
    #[doc(no_inline)]
    pub use axum_core::response::{IntoResponse, Response};
    #[doc(inline)]
    pub use green_tea_http::{Reply, ResponseBody, reply_of};
}

/// Request and response bodies: axum-core's [`Body`](body::Body), which every handler, layer
/// and mounted service in green-tea reads and writes.
pub mod body {
    #[doc(no_inline)]
    pub use axum_core::body::Body;
}

/// The futures green-tea's services and traits return, named so that they can be stored or
/// written by hand: the app's as a tower `Service` ([`AppFuture`](future::AppFuture)), a
/// handler's reply ([`IntoReplyFuture`](future::IntoReplyFuture)), a step's
/// ([`StepFuture`](future::StepFuture)).
pub mod future {
    #[doc(inline)]
    pub use green_tea_http::{AppFuture, IntoReplyFuture, StepFuture};
}

/// Serving: the request [`Limits`](serve::Limits) a server enforces, the
/// [`InFlightGuard`](serve::InFlightGuard) that keeps work after a response in the drain, and
/// (feature `tls`) the rustls that `App::serve_tls` takes its `ServerConfig` from.
pub mod serve {
    /// The rustls that [`App::serve_tls`](crate::App::serve_tls) takes its `ServerConfig` from
    /// (feature `tls`).
    #[cfg(feature = "tls")]
    #[doc(inline)]
    pub use green_tea_http::rustls;
    #[doc(inline)]
    pub use green_tea_http::{InFlightGuard, Limits};
}

/// Testing in process, without a socket: [`TestClient`](test::TestClient) drives an app
/// through its layers, routing, steps and handlers; a [`TestRequest`](test::TestRequest) is one
/// request, a [`TestResponse`](test::TestResponse) its whole answer, a
/// [`TestStream`](test::TestStream) its answer with the body unread.
pub mod test {
    #[doc(inline)]
    pub use green_tea_http::{
        LOCK_ENV, TestClient, TestRequest, TestResponse, TestStream, assert_graph_lock,
    };
}

/// The graph lockfile: the app's shape as a file in the repository ([`App::graph_lock`]),
/// checked in `cargo test` ([`test::assert_graph_lock`]), its changes read as sentences
/// ([`GraphLock::diff`](lock::GraphLock::diff)). See the lockfile guide.
pub mod lock {
    #[doc(inline)]
    pub use green_tea_core::lock::{
        Change, GraphLock, LOCK_VERSION, LockDiff, LockError, LockItem,
    };
}

/// Declares a provider: an app-scoped part of the graph, built once.
///
/// On a `fn` or `async fn`, the parameters are the needs in order (`Arc<T>` or `&T`) and the
/// return value is what it provides (`T`, or `Result<T, E>` with `E: Into<BoxError>`; a tuple
/// when it provides several keys). The fn stays as written and callable; a companion of the
/// same name implements [`Provider`]: register it with `.provider(name::provider())`. The
/// companion lives only in the type namespace, and is glob-imported, so bindings named like
/// the fn stay bindings and your own type or module of that name takes precedence.
///
/// ```
/// use green_tea::prelude::*;
///
/// #[provider(provides = "billingUrl")]
/// fn billing_url() -> String {
///     "http://127.0.0.1:3001".to_owned()
/// }
///
/// #[provider(provides = "billing", needs = ["billingUrl"])]
/// fn billing(billing_url: &String) -> usize {
///     billing_url.len()
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .provider(billing_url::provider())
///     .provider(billing::provider())
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<usize>("billing").await.unwrap(), 21);
/// assert_eq!(billing(&billing_url()), 21);
/// # container.close().await.unwrap(); }
/// ```
///
/// On an `impl` block of a struct that holds provider state, `provide(&self, needs...)` builds
/// the values and an optional `async fn dispose(&self, provided...)` releases them. The struct
/// is the provider: register any value of it, made as you make any (`.provider(Database {
/// url })`). Only `discover()` makes one itself: with the block's `fn new()` if it has one,
/// else with `Default`. A struct with neither (one that carries a handle or a setting the app
/// hands it) writes `discover = false`, which leaves it out of discovery; without it, a
/// compile error says so at the block. `discover = false` works on a fn too.
///
/// ```
/// use green_tea::prelude::*;
///
/// struct Database {
///     url: String,
/// }
///
/// #[provider(provides = "databaseUrl", discover = false)]
/// impl Database {
///     fn provide(&self) -> String {
///         self.url.clone()
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let url = "postgres://127.0.0.1/orders".to_owned();
/// let container = Container::builder().provider(Database { url }).build().unwrap();
/// assert_eq!(*container.get::<String>("databaseUrl").await.unwrap(), "postgres://127.0.0.1/orders");
/// # container.close().await.unwrap(); }
/// ```
///
/// See the [providers guide](guide::providers) for every form.
pub use green_tea_macros::provider;

/// Declares a decorator: a fn that wraps the value of a key something else provides, so that
/// every consumer of the key gets what it returns instead (a cache in front of a client, a
/// metric around it).
///
/// `#[decorator(decorates = "billing", needs = [...])]` on a `fn` or `async fn`: its first
/// parameter receives the decorated value (`&T` or `Arc<T>`), the following ones its `needs`
/// in order, spelled and taken as a provider's are; it returns the value of the same type `T`
/// (or `Result<T, E>`). The fn stays callable; a companion of the same name implements
/// [`Provider`]: register it with `.decorator(name::decorator())`, or let `discover()` find
/// it (`discover = false` leaves it out). Several decorators of a key apply in registration
/// order, the first around the provider's value. There is no impl-block form.
///
/// ```
/// use green_tea::prelude::*;
///
/// #[provider(provides = "greeting")]
/// fn greeting() -> String {
///     "hello".to_owned()
/// }
///
/// #[decorator(decorates = "greeting")]
/// async fn shouted(greeting: &String) -> String {
///     greeting.to_uppercase()
/// }
///
/// #[decorator(decorates = "greeting", needs = "mark")]
/// fn marked(greeting: &String, mark: &char) -> String {
///     format!("{greeting}{mark}")
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("mark", '!')
///     .provider(greeting::provider())
///     .decorator(shouted::decorator())
///     .decorator(marked::decorator())
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("greeting").await.unwrap(), "HELLO!");
/// # container.close().await.unwrap(); }
/// ```
pub use green_tea_macros::decorator;

/// Declares a worker: a long-running task of the app (an outbox relay, a queue consumer), a
/// node of the graph that needs providers, starts once they are built and stops when its
/// [`Shutdown`](workers::Shutdown) says so.
///
/// `#[worker(needs = [...], restart = "on_failure", critical)]` on an `async fn` returning
/// `Result<(), E>`: its parameters are its `needs` in order, spelled and taken as a provider's
/// are, and at most one `Shutdown`, anywhere among them. `restart` is `"never"` (the default)
/// or `"on_failure"` (with the default [`Backoff`](workers::Backoff); another one is
/// [`WorkerFn`](workers::WorkerFn)'s); `critical` makes the app not ready while it is not
/// running. The fn stays callable; a companion of the same name implements
/// [`Worker`](workers::Worker): register it with `.worker(name::worker())`, or let
/// `discover()` find it (`discover = false` leaves it out). There is no `provides`.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use green_tea::prelude::*;
/// use green_tea::workers::Shutdown;
///
/// #[worker(needs = "sweeps", restart = "on_failure")]
/// async fn sweeper(sweeps: &AtomicU64, shutdown: Shutdown) -> Result<(), BoxError> {
///     while !shutdown.is_requested() {
///         sweeps.fetch_add(1, Ordering::Relaxed);
///         shutdown.requested().await;
///     }
///     Ok(())
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let app = App::builder()
///     .value("sweeps", AtomicU64::new(0))
///     .worker(sweeper::worker())
///     .build()
///     .unwrap();
/// app.start().await.unwrap();
/// assert_eq!(app.health().await.workers[0].name, "sweeper");
/// app.close().await.unwrap();
/// # }
/// ```
///
/// See the [workers guide](guide::workers).
pub use green_tea_macros::worker;

/// Declares a step: a request-scoped part of the graph, run on every request whose route needs
/// one of its values (or names it in `steps`), from scratch, and never otherwise.
///
/// `#[step(provides = "user", needs = ["sessions"])]` on a `fn` or `async fn`; without
/// `provides` it is a guard, which only accepts or rejects. Its parameters, by type: the
/// request head (`&Parts`, `&mut Parts`, `&HeaderMap`, `&Method`, `&Uri`), its needs (`&T` or
/// `Arc<T>`, in `needs` order) and axum-core extractors of the head (`Query<T>`, ...). It
/// returns its value (a tuple for several keys, `()` for a guard), or a `Result` whose error is
/// the response that rejects the request. The fn stays callable; a companion of the same name
/// implements [`Step`](steps::Step): register it with `.step(auth::step())`.
///
/// ```
/// use green_tea::prelude::*;
/// use green_tea::test::TestClient;
///
/// struct User(String);
///
/// #[step(provides = "user")]
/// fn auth(parts: &Parts) -> Result<User, HttpError> {
///     let name = parts.headers.get("x-user").and_then(|v| v.to_str().ok());
///     let name = name.ok_or_else(|| HttpError::unauthorized("who are you?"))?;
///     Ok(User(name.to_owned()))
/// }
///
/// #[step(needs = "user")]
/// fn require_admin(user: &User) -> Result<(), HttpError> {
///     if user.0 == "admin" { Ok(()) } else { Err(HttpError::forbidden("admins only")) }
/// }
///
/// struct Admin;
///
/// #[route("/admin", steps = ["require_admin"])]
/// impl Admin {
///     #[get("/whoami")]
///     async fn whoami(#[needs("user")] user: &User) -> String {
///         user.0.clone()
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let app = App::builder()
///     .step(auth::step())
///     .step(require_admin::step())
///     .routes(Admin::routes())
///     .build()
///     .unwrap();
/// let client = TestClient::new(app.clone());
/// assert_eq!(client.get("/admin/whoami").send().await.status(), 401);
/// assert_eq!(client.get("/admin/whoami").header("x-user", "ada").send().await.status(), 403);
/// let me = client.get("/admin/whoami").header("x-user", "admin").send().await;
/// assert_eq!(me.text(), "admin");
/// app.close().await.unwrap();
/// # }
/// ```
pub use green_tea_macros::step;

/// Turns the methods of an inherent impl block into routes under a prefix:
/// `#[route("/orders")]`, optionally with `steps = ["require_admin"]` and `layer = expr` (a
/// tower layer, or `[a, b]` for several) for every route of the block.
///
/// Each method marked [`get`], [`post`], [`put`], [`patch`] or [`delete`] is a handler (an
/// associated `fn` or `async fn` returning anything [`IntoResponse`](response::IntoResponse)). Its
/// parameters: `#[needs("key")] x: &T` or `Arc<T>` for a graph value, `#[body] x: T` for the
/// JSON body (`String`, `Bytes` or `Vec<u8>` for the raw one), any axum-core extractor of the
/// head (`Path<T>`, `Query<T>`, `HeaderMap`...), an axum-core extractor of the body as the last
/// extractor (axum's `Json<T>`, `Form<T>`, `Multipart`...), and `request: RequestContext`.
/// One of them reads the body; axum's router extractors (`axum::extract::Path`, `State`...)
/// are refused: see the [extractors guide](guide::extractors). `Type::routes()` lists the
/// block's routes; `discover()` finds them too.
///
/// ```
/// use green_tea::prelude::*;
/// use green_tea::test::TestClient;
///
/// struct Orders;
///
/// #[route("/orders")]
/// impl Orders {
///     #[get("/{id}")]
///     async fn show(Path(id): Path<u64>, #[needs("currency")] currency: &String) -> String {
///         format!("order {id} in {currency}")
///     }
///
///     #[post("/", body_limit = 1024)]
///     async fn create(#[body] note: String) -> (StatusCode, String) {
///         (StatusCode::CREATED, note)
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let app = App::builder()
///     .value("currency", "EUR".to_owned())
///     .routes(Orders::routes())
///     .build()
///     .unwrap();
/// let client = TestClient::new(app.clone());
/// assert_eq!(client.get("/orders/7").send().await.text(), "order 7 in EUR");
/// let created = client.post("/orders").body("tea").send().await;
/// assert_eq!((created.status(), created.text()), (StatusCode::CREATED, "tea".to_owned()));
/// app.close().await.unwrap();
/// # }
/// ```
pub use green_tea_macros::route;

/// The method attributes of a [`route`] block: `#[get("/path")]`, optionally with
/// `steps = [...]`, `body_limit = bytes` and `layer = expr` (a tower layer around that route
/// only, or `[a, b]` for several, as `Route::layer` adds them; see the
/// [middleware guide](guide::middleware)). Outside a `#[route]` block they are an error.
///
/// ```
/// use green_tea::prelude::*;
///
/// struct Health;
///
/// #[route("/health")]
/// impl Health {
///     #[get("/")]
///     fn live() -> &'static str {
///         "ok"
///     }
///
///     #[delete("/cache", steps = ["require_admin"])]
///     async fn clear() -> StatusCode {
///         StatusCode::NO_CONTENT
///     }
/// }
///
/// assert_eq!(Health::routes().len(), 2);
/// ```
pub use green_tea_macros::{delete, get, patch, post, put};

/// The names an application needs most, in one import: `use green_tea::prelude::*;`.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::extract::{Path, Query, RequestContext};
    #[doc(no_inline)]
    pub use crate::http::{StatusCode, request::Parts};
    #[doc(no_inline)]
    pub use crate::response::IntoResponse;
    #[doc(no_inline)]
    pub use crate::routing::Route;
    #[doc(no_inline)]
    pub use crate::settings::Settings;
    #[doc(no_inline)]
    pub use crate::steps::{Finish, Outcome};
    #[doc(no_inline)]
    pub use crate::switches::Switch;
    #[doc(no_inline)]
    pub use crate::workers::Shutdown;
    #[doc(no_inline)]
    pub use crate::{
        All, App, AppBuilder, BoxError, BuildError, ByName, CloseError, Container, Descriptor,
        HttpError, Json, Module, ModuleExt, Needs, ProvideError, Provided, Provider, decorator,
        delete, get, patch, post, provider, put, route, step, worker,
    };
}

/// The guide, one page per topic; every Rust block in it is a doctest.
pub mod guide {
    #[doc = include_str!("../docs/getting-started.md")]
    pub mod getting_started {}
    #[doc = include_str!("../docs/providers.md")]
    pub mod providers {}
    #[doc = include_str!("../docs/vocabulary.md")]
    pub mod vocabulary {}
    #[doc = include_str!("../docs/modules.md")]
    pub mod modules {}
    #[doc = include_str!("../docs/settings.md")]
    pub mod settings {}
    #[doc = include_str!("../docs/workers.md")]
    pub mod workers {}
    #[doc = include_str!("../docs/switches.md")]
    pub mod switches {}
    #[doc = include_str!("../docs/lockfile.md")]
    pub mod lockfile {}
    #[doc = include_str!("../docs/reload.md")]
    pub mod reload {}
    #[doc = include_str!("../docs/steps.md")]
    pub mod steps {}
    #[doc = include_str!("../docs/unit-of-work.md")]
    pub mod unit_of_work {}
    #[doc = include_str!("../docs/routes.md")]
    pub mod routes {}
    #[doc = include_str!("../docs/extractors.md")]
    pub mod extractors {}
    #[doc = include_str!("../docs/middleware.md")]
    pub mod middleware {}
    #[doc = include_str!("../docs/streaming.md")]
    pub mod streaming {}
    /// Recipes: application policy written as ordinary providers.
    pub mod recipes {
        #[doc = include_str!("../docs/recipes/circuit-breakers.md")]
        pub mod circuit_breakers {}
        #[doc = include_str!("../docs/recipes/shared-circuit-breaker.md")]
        pub mod shared_circuit_breaker {}
        #[doc = include_str!("../docs/recipes/database.md")]
        pub mod database {}
    }
    #[doc = include_str!("../docs/lifecycle.md")]
    pub mod lifecycle {}
    #[doc = include_str!("../docs/serving.md")]
    pub mod serving {}
    #[doc = include_str!("../docs/explain.md")]
    pub mod explain {}
    #[doc = include_str!("../docs/errors-and-rejections.md")]
    pub mod errors_and_rejections {}
    #[doc = include_str!("../docs/tracing.md")]
    pub mod tracing {}
    #[doc = include_str!("../docs/observability.md")]
    pub mod observability {}
    #[doc = include_str!("../docs/testing.md")]
    pub mod testing {}
    #[doc = include_str!("../docs/project-layout.md")]
    pub mod project_layout {}
    #[doc = include_str!("../docs/coming-from-axum.md")]
    pub mod coming_from_axum {}
    #[doc = include_str!("../docs/errors/README.md")]
    pub mod errors {
        #[doc = include_str!("../docs/errors/GT0001.md")]
        pub mod gt0001 {}
        #[doc = include_str!("../docs/errors/GT0002.md")]
        pub mod gt0002 {}
        #[doc = include_str!("../docs/errors/GT0003.md")]
        pub mod gt0003 {}
        #[doc = include_str!("../docs/errors/GT0004.md")]
        pub mod gt0004 {}
        #[doc = include_str!("../docs/errors/GT0005.md")]
        pub mod gt0005 {}
        #[doc = include_str!("../docs/errors/GT0006.md")]
        pub mod gt0006 {}
        #[doc = include_str!("../docs/errors/GT0007.md")]
        pub mod gt0007 {}
        #[doc = include_str!("../docs/errors/GT0008.md")]
        pub mod gt0008 {}
        #[doc = include_str!("../docs/errors/GT0009.md")]
        pub mod gt0009 {}
        #[doc = include_str!("../docs/errors/GT0010.md")]
        pub mod gt0010 {}
        #[doc = include_str!("../docs/errors/GT0011.md")]
        pub mod gt0011 {}
        #[doc = include_str!("../docs/errors/GT0012.md")]
        pub mod gt0012 {}
        #[doc = include_str!("../docs/errors/GT0013.md")]
        pub mod gt0013 {}
        #[doc = include_str!("../docs/errors/GT0014.md")]
        pub mod gt0014 {}
        #[doc = include_str!("../docs/errors/GT0015.md")]
        pub mod gt0015 {}
        #[doc = include_str!("../docs/errors/GT0016.md")]
        pub mod gt0016 {}
        #[doc = include_str!("../docs/errors/GT0017.md")]
        pub mod gt0017 {}
        #[doc = include_str!("../docs/errors/GT0018.md")]
        pub mod gt0018 {}
        #[doc = include_str!("../docs/errors/GT0019.md")]
        pub mod gt0019 {}
        #[doc = include_str!("../docs/errors/GT0020.md")]
        pub mod gt0020 {}
        #[doc = include_str!("../docs/errors/GT0021.md")]
        pub mod gt0021 {}
        #[doc = include_str!("../docs/errors/GT0022.md")]
        pub mod gt0022 {}
        #[doc = include_str!("../docs/errors/GT0023.md")]
        pub mod gt0023 {}
        #[doc = include_str!("../docs/errors/GT0101.md")]
        pub mod gt0101 {}
        #[doc = include_str!("../docs/errors/GT0102.md")]
        pub mod gt0102 {}
        #[doc = include_str!("../docs/errors/GT0103.md")]
        pub mod gt0103 {}
        #[doc = include_str!("../docs/errors/GT0104.md")]
        pub mod gt0104 {}
        #[doc = include_str!("../docs/errors/GT0105.md")]
        pub mod gt0105 {}
        #[doc = include_str!("../docs/errors/GT0106.md")]
        pub mod gt0106 {}
        #[doc = include_str!("../docs/errors/GT0107.md")]
        pub mod gt0107 {}
        #[doc = include_str!("../docs/errors/GT0108.md")]
        pub mod gt0108 {}
        #[doc = include_str!("../docs/errors/GT0109.md")]
        pub mod gt0109 {}
        #[doc = include_str!("../docs/errors/GT0110.md")]
        pub mod gt0110 {}
    }
}

/// What the macros expand to. Not a public API: it may change in any release.
#[doc(hidden)]
#[path = "private/mod.rs"]
pub mod __private;

/// The README's code, compiled by `cargo test` (rustdoc's doctests) so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
