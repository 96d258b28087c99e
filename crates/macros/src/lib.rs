//! green-tea's macros: the attributes `#[provider]`, `#[decorator]`, `#[worker]`, `#[step]`,
//! `#[route]` and the method attributes `#[get]`, `#[post]`, `#[put]`, `#[patch]`, `#[delete]`,
//! and `#[derive(Settings)]`. Use them through the `green-tea` facade; a crate that only adds
//! providers uses `#[provider]`, `#[decorator]`, `#[worker]` and `#[derive(Settings)]` through
//! `green-tea-core` (`green_tea_core::provider`, `green_tea_core::decorator`,
//! `green_tea_core::worker`, `green_tea_core::Settings`), which depends on this crate too.

use proc_macro::TokenStream;

mod args;
mod decorator;
mod duration;
mod emit;
mod errors;
mod key;
mod provider;
mod root;
mod route;
mod settings;
mod step;
mod types;
mod when;
mod worker;

use root::Root;

/// Declares a provider: see `green_tea::provider` and the providers guide for more examples.
///
/// # The attribute
///
/// `#[provider(provides = "billing", needs = ["billingApi"], dispose = close_billing)]`,
/// `#[provider(provides = "notifiers[]", after = ["email", "sms"])]`,
/// `#[provider(provides = "cache", when = "cacheOn")]`, or
/// `#[provider(provides = "pool", timeout = "5s")]`
///
/// - `provides`: the key, or list of keys, this provider provides (required).
/// - `needs`: the key, or list of keys, it needs, in parameter order (optional). A key's
///   spelling says what its parameter receives: `"cache"` (or one entry of a map,
///   `"stores{eu}"`) as `&T` or `Arc<T>`; `"cache?"`, an optional need, as `Option<&T>` or
///   `Option<Arc<T>>` (`None` when nothing provides `cache`); `"notifiers[]"`, a list, as
///   `All<'_, T>` (every contribution, in registration order unless `after` says otherwise);
///   `"stores{}"`, a map, as
///   `ByName<'_, T>`. `T` is the key's type (each contribution's, for a list or a map).
///   A need may name another module's exported key, `"billing::client"` (or
///   `"billing::client?"`); a plain one, registered in a module, is the module's own key
///   first, then outward (see `green_tea::Module`).
/// - `provides` names keys of its own, without `::`: the module it is registered in qualifies
///   them (`http` in `notifications` is `notifications::http`).
/// - `provides` may contribute to a list, `"notifiers[]"`, or a map, `"stores{eu}"` (an
///   entry named `eu`), beside ordinary keys; `"x?"` and `"x{}"` are needs' spellings only.
/// - `after` (optional, for a provider that contributes to a list): the name, or list of
///   names, of other contributors to the same list whose contributions come before this one's,
///   like `after = "email"` or `after = ["email", "sms"]`. A name is a declaration's name (a
///   provider fn's, or an impl block's type's). Everything else keeps registration order
///   (`discover()`'s is by module path, then name). A map's entries come in their names' order
///   and a plain key has one provider, so neither takes `after`. `build()` reports a name that
///   is no other contributor's to the list, and `after`s that form a ring (GT0013).
/// - `when` (optional): the condition, or list of conditions (all must hold), under which the
///   provider is part of the graph: `when = "cacheOn"` (the switch `cacheOn` is `true`),
///   `"!cacheOn"` (it is `false`), `"gateway = stripe"` or `"gateway = stripe | paypal"` (the
///   switch's outcome is one of those), or `when = ["cacheOn", "gateway = stripe"]`. A
///   condition that does not parse is a compile error at its literal, in `build()`'s words. The
///   switch is registered on the builder (`.switch(Switch::new("cacheOn", ..))`); `build()`
///   leaves out what is off today and checks the graph of every shape, and a key that is off
///   asked for by name is GT0106. See `green_tea::switches` and the switches guide
///   (`green_tea::guide::switches`).
/// - `dispose` (fns only): the path of an `async fn` called on `close()` with `&T` for each
///   provided value, in order, returning `()` or `Result<(), E>` with `E: Into<BoxError>`.
/// - `timeout = "5s"` (optional): how long one build may take (default: the app's,
///   `build_timeout`); a build past it fails, naming the provider and what needed it. Written
///   as whole numbers with units, `ms`, `s`, `m` or `h` (`"500ms"`, `"1m 30s"`, `"2h"`), more
///   than zero; checked at compile time.
///
///   In an impl block, a timeout that is a setting is a method instead:
///   `fn build_timeout(&self, ..) -> Duration`, not async, which takes the same needs as
///   `provide` (the same types, in the same order; any names) or none after `&self`. It is
///   asked before each build, once those needs are built (`Provider::build_timeout_for`; without
///   parameters, `Provider::build_timeout`). A provider has one or the other: `timeout = ...`
///   with a `fn build_timeout` is a compile error.
/// - `discover = false` (optional): `discover()` leaves this provider out; register it
///   yourself. A struct that `discover()` cannot make (no `fn new()`, no `Default`) needs it.
///
/// # On a `fn` or `async fn`
///
/// Each parameter receives one need, in order, as `Arc<T>` (the shared value itself) or `&T`;
/// the key's type is `T`. The return type is what it provides: `T`, or `Result<T, E>` with
/// `E: Into<BoxError>` (recognised by its last path segment, `Result`); with several
/// `provides`, `T` is a tuple with one element per key. The fn stays as written (call it
/// directly, `billing_api().await`), and a companion of the same name implements `Provider`:
/// register it with `.provider(billing_api::provider())`. The companion is a type in a hidden
/// module, glob-imported next to the fn: it lives only in the type namespace, so a
/// `let billing_api` or a parameter named `billing_api` is still a plain binding, and a type or
/// module of your own with that name takes precedence over it instead of colliding.
///
/// ```
/// use green_tea::prelude::*;
///
/// #[provider(provides = "billingUrl")]
/// fn billing_url() -> String {
///     "http://127.0.0.1:3001".to_owned()
/// }
///
/// #[provider(provides = "billingLen", needs = "billingUrl")]
/// fn billing_len(billing_url: &String) -> usize {
///     billing_url.len()
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .provider(billing_url::provider())
///     .provider(billing_len::provider())
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<usize>("billingLen").await.unwrap(), 21);
/// let billing_url = billing_url(); // still the fn
/// assert_eq!(billing_len(&billing_url), 21);
/// container.close().await.unwrap();
/// # }
/// ```
///
/// A list's contributions, one of them asking to come after another:
///
/// ```
/// use green_tea::prelude::*;
///
/// #[provider(provides = "notifiers[]", after = "sms")]
/// fn email() -> &'static str {
///     "email"
/// }
///
/// #[provider(provides = "notifiers[]")]
/// fn sms() -> &'static str {
///     "sms"
/// }
///
/// #[provider(provides = "channels", needs = "notifiers[]")]
/// fn channels(notifiers: All<'_, &'static str>) -> String {
///     notifiers.iter().copied().collect::<Vec<_>>().join(",")
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .provider(email::provider())
///     .provider(sms::provider())
///     .provider(channels::provider())
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("channels").await.unwrap(), "sms,email");
/// container.close().await.unwrap();
/// # }
/// ```
///
/// A provider that is part of the graph only when a switch is on:
///
/// ```
/// use green_tea::prelude::*;
///
/// #[derive(Settings)]
/// #[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
/// pub struct ShopSettings {
///     #[settings(default = "true")]
///     pub cache: bool,
/// }
///
/// #[provider(provides = "cache", when = "cacheOn")]
/// fn cache() -> String {
///     "in-memory".to_owned()
/// }
///
/// #[provider(provides = "prices", needs = "cache?")]
/// fn prices(cache: Option<&String>) -> String {
///     cache.map_or("from the database".to_owned(), |c| format!("through the {c} cache"))
/// }
///
/// fn app(cache_on: &str) -> Container {
///     Container::builder()
///         .provider(ShopSettings::provider())
///         .switch(Switch::new("cacheOn", |shop: &ShopSettings| shop.cache))
///         .override_switch(format!("cacheOn = {cache_on}"))
///         .provider(cache::provider())
///         .provider(prices::provider())
///         .build()
///         .unwrap()
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let on = app("true");
/// assert_eq!(*on.get::<String>("prices").await.unwrap(), "through the in-memory cache");
/// on.close().await.unwrap();
/// let off = app("false");
/// assert_eq!(*off.get::<String>("prices").await.unwrap(), "from the database");
/// assert_eq!(off.get::<String>("cache").await.unwrap_err().code(), Some("GT0106"));
/// off.close().await.unwrap();
/// # }
/// ```
///
/// # On an `impl` block
///
/// The block stays as written. It needs `provide(&self, needs...)` (sync or async), with the
/// same parameter and return rules, and may have `dispose(&self)` or `dispose(&self,
/// provided...)`, which gets every provided value in order (`&T`, or `Arc<T>`: the very `Arc`
/// that consumers got) and returns `()` or `Result<(), E>`. The struct is the provider:
/// register any value of it (`.provider(ClientProvider { .. })`); neither the registration
/// nor the `Provider` impl needs `Default` or `new`. Only `discover()` makes the type itself:
/// with its `fn new()` if the block has one without parameters (not `async`), else with
/// `Default`; a struct with neither is a compile error at the block unless it says
/// `discover = false`.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use green_tea::prelude::*;
/// use std::sync::Arc;
///
/// pub struct Client {
///     url: String,
/// }
///
/// #[derive(Default)]
/// struct ClientProvider {
///     closed: AtomicUsize,
/// }
///
/// #[provider(provides = "client", needs = "url")]
/// impl ClientProvider {
///     async fn provide(&self, url: &String) -> Client {
///         Client { url: url.clone() }
///     }
///
///     async fn dispose(&self, client: Arc<Client>) {
///         assert!(!client.url.is_empty());
///         self.closed.fetch_add(1, Ordering::SeqCst);
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("url", "http://127.0.0.1:3001".to_owned())
///     .provider(ClientProvider::default())
///     .build()
///     .unwrap();
/// assert_eq!(container.get::<Client>("client").await.unwrap().url, "http://127.0.0.1:3001");
/// container.close().await.unwrap();
/// # }
/// ```
///
/// Its build timeout may be read from its needs, by a `fn build_timeout` (see `timeout` above):
///
/// ```
/// use std::time::Duration;
/// use green_tea::prelude::*;
///
/// pub struct DatabaseSettings {
///     pub url: String,
///     pub build_timeout: Duration,
/// }
///
/// #[derive(Default)]
/// struct DatabasePool;
///
/// #[provider(provides = "database", needs = "databaseSettings")]
/// impl DatabasePool {
///     async fn provide(&self, settings: &DatabaseSettings) -> String {
///         format!("connected to {}", settings.url)
///     }
///
///     // Asked before each build, once `databaseSettings` is built.
///     fn build_timeout(&self, settings: &DatabaseSettings) -> Duration {
///         settings.build_timeout
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let settings = DatabaseSettings {
///     url: "postgres://db".to_owned(),
///     build_timeout: Duration::from_secs(5),
/// };
/// let container = Container::builder()
///     .value("databaseSettings", settings)
///     .provider(DatabasePool)
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("database").await.unwrap(), "connected to postgres://db");
/// container.close().await.unwrap();
/// # }
/// ```
///
/// # Types
///
/// A provided value is stored under its return type as written: a provider returning
/// `Arc<Client>` provides a key of type `Arc<Client>`, which consumers take as
/// `Arc<Arc<Client>>` or `&Arc<Client>`. Return `Client` to share one `Arc<Client>`. `Arc`
/// in a parameter must be `std::sync::Arc`, and a key's type must be sized (`&String`, not
/// `&str`). Provided and needed values, and the provider itself, must be
/// `Send + Sync + 'static`; the compiler says so once, at the type.
///
/// # Limits
///
/// - The struct of a provider fn takes the fn's name in the type namespace: a type of the
///   same name in that module clashes with it.
/// - `dispose = path` must name an `async fn`.
#[proc_macro_attribute]
pub fn provider(attr: TokenStream, item: TokenStream) -> TokenStream {
    provider::expand(Root::Facade, attr.into(), item.into()).into()
}

/// `#[provider]` expanded through green-tea-core instead of the facade, for a crate that
/// depends on green-tea-core alone (and so has no `green_tea` to name); re-exported as
/// `green_tea_core::provider`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn core_provider(attr: TokenStream, item: TokenStream) -> TokenStream {
    provider::expand(Root::Core, attr.into(), item.into()).into()
}

/// Declares a decorator: a fn that wraps the value of a key something else provides, so that
/// every consumer of the key gets what it returns instead. See `green_tea::decorator`.
///
/// # The attribute
///
/// `#[decorator(decorates = "billing", needs = ["clock"], after = "retrying")]`,
/// `#[decorator(decorates = "billing", when = "!cacheOn")]` or
/// `#[decorator(decorates = "billing", timeout = "5s")]`, on a `fn` or `async fn`.
///
/// - `decorates`: the one key it decorates (required), spelled plainly: not an optional need
///   (`x?`), a list (`x[]`) or a map or its entry (`x{}`, `x{eu}`). There is no `provides`:
///   a decorator provides the key it decorates. It is a key of the module the decorator is
///   registered in, named without `::`: to decorate `billing::client`, register the
///   decorator in `billing` and decorate `client`.
/// - `needs`: the keys its other parameters need, in order (optional), spelled as for
///   `#[provider]` (`"cache?"`, `"notifiers[]"`, `"stores{}"`...).
/// - `after` (optional): the name, or list of names, of other decorators of the same key whose
///   values it wraps, like `after = "retrying"` or `after = ["retrying", "logged"]`: it applies
///   after them, whatever the registration order. A name is a decorator fn's name. `build()`
///   reports a name that is no other decorator's of the key, and `after`s that form a ring
///   (GT0013).
/// - `when` (optional): the condition, or list of conditions (all must hold), under which the
///   decorator applies, spelled as for `#[provider]`: `when = "cacheOn"`, `"!cacheOn"`,
///   `"gateway = stripe | paypal"`, or `when = ["cacheOn", "gateway = stripe"]`; checked at
///   compile time, and in every shape by `build()`. See the switches guide
///   (`green_tea::guide::switches`).
/// - `timeout = "5s"` (optional): how long one build may take (default: the app's,
///   `build_timeout`); a build past it fails, naming the decorator and what needed it. Spelled
///   as for `#[provider]` (`"500ms"`, `"1m 30s"`, `"2h"`), checked at compile time.
/// - `discover = false` (optional): `discover()` leaves it out; register it yourself.
///
/// # The fn
///
/// Its first parameter receives the decorated value, as `&T` or `Arc<T>`; each of the
/// following parameters receives one of `needs`, in order, as for `#[provider]`. It returns
/// the value consumers get, of the same type `T` (or `Result<T, E>` with `E: Into<BoxError>`).
/// Its companion, as a provider fn's, implements `Provider` (its descriptor provides the key,
/// and needs the key first, then the needs): register it with
/// `.decorator(audited_billing::decorator())`, or let `discover()` find it. Several decorators
/// of one key apply in registration order (`discover()`'s is by module path, then name), unless
/// `after` says otherwise: the first wraps the provider's value, the next wraps that.
///
/// ```
/// use green_tea::prelude::*;
///
/// #[provider(provides = "greeting")]
/// fn greeting() -> String {
///     "hello".to_owned()
/// }
///
/// #[decorator(decorates = "greeting", needs = "mark")]
/// fn emphasised(greeting: &String, mark: &char) -> String {
///     format!("{greeting}{mark}")
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("mark", '!')
///     .provider(greeting::provider())
///     .decorator(emphasised::decorator())
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("greeting").await.unwrap(), "hello!");
/// container.close().await.unwrap();
/// # }
/// ```
///
/// Registered first, a decorator that asks to wrap what another made:
///
/// ```
/// use green_tea::prelude::*;
///
/// #[provider(provides = "payments")]
/// fn payments() -> String {
///     "payments".to_owned()
/// }
///
/// #[decorator(decorates = "payments", after = "retrying")]
/// fn metered(payments: &String) -> String {
///     format!("metered({payments})")
/// }
///
/// #[decorator(decorates = "payments")]
/// fn retrying(payments: &String) -> String {
///     format!("retrying({payments})")
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .provider(payments::provider())
///     .decorator(metered::decorator())
///     .decorator(retrying::decorator())
///     .build()
///     .unwrap();
/// let payments = container.get::<String>("payments").await.unwrap();
/// assert_eq!(*payments, "metered(retrying(payments))");
/// container.close().await.unwrap();
/// # }
/// ```
///
/// # Limits
///
/// - Only on a fn: there is no impl-block form (a decorator's state is a need, provided like
///   any other value), and no `dispose` (the decorated value's provider disposes of it).
/// - The companion takes the fn's name in the type namespace, as a provider fn's does.
#[proc_macro_attribute]
pub fn decorator(attr: TokenStream, item: TokenStream) -> TokenStream {
    decorator::expand(Root::Facade, attr.into(), item.into()).into()
}

/// `#[decorator]` expanded through green-tea-core instead of the facade, for a crate that
/// depends on green-tea-core alone; re-exported as `green_tea_core::decorator`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn core_decorator(attr: TokenStream, item: TokenStream) -> TokenStream {
    decorator::expand(Root::Core, attr.into(), item.into()).into()
}

/// Declares a worker: a long-running task of the app, a node of the graph that needs providers,
/// starts once they are built, and stops when its `Shutdown` says so. See `green_tea::workers`
/// and the workers guide.
///
/// # The attribute
///
/// `#[worker(needs = ["outbox", "broker"], restart = "on_failure", critical)]` or
/// `#[worker(needs = "outbox", when = "gateway = stripe | paypal")]`, on an `async fn`; every
/// argument is optional.
///
/// - `needs`: the key, or list of keys, it needs, in the order of its need parameters, spelled
///   and received as for `#[provider]`: `"cache"` as `&T` or `Arc<T>`, `"cache?"` as
///   `Option<&T>` or `Option<Arc<T>>` (`None` when nothing provides it), `"notifiers[]"` as
///   `All<'_, T>`, `"stores{}"` as `ByName<'_, T>`; `"billing::client"` names another module's
///   key.
/// - `restart`: `"never"` (the default: a failed run stays failed) or `"on_failure"` (it runs
///   again after the default backoff, 100 ms doubling up to 30 s). For another `Backoff`, build
///   the worker by hand with `WorkerFn`.
/// - `critical` (a flag): the app is not ready while this worker is not running.
/// - `when`: the condition, or list of conditions (all must hold), under which the worker is
///   part of the graph, and started: spelled as for `#[provider]`, `when = "cacheOn"`,
///   `"!cacheOn"`, `"gateway = stripe | paypal"`, or `when = ["cacheOn", "gateway = stripe"]`;
///   checked at compile time, and in every shape by `build()`. See the switches guide
///   (`green_tea::guide::switches`).
/// - `discover = false`: `discover()` leaves it out; register it yourself.
/// - There is no `provides`: a worker provides nothing (a value for others is a provider's).
///
/// # The fn
///
/// It is an `async fn` returning `Result<(), E>` with `E: Into<BoxError>` (recognised by its
/// last path segment, `Result`): `Ok(())` once its shutdown is requested or its work is done,
/// an error when its work failed. Its parameters are its needs, in `needs` order, and,
/// anywhere among them, at most one `Shutdown` (recognised by its last path segment), taken by
/// value. The fn stays as written, and a companion of the same name implements `Worker`, each
/// run calling the fn with the needs built at start: register it with
/// `.worker(sweeper::worker())`, or let `discover()` find it. A worker of a module is
/// registered with `Module::worker`, or found by `Module::discover_in`.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use green_tea::prelude::*;
/// use green_tea::workers::Shutdown;
///
/// #[worker(needs = ["sweeps", "label?"], restart = "on_failure")]
/// async fn sweeper(
///     sweeps: &AtomicU64,
///     shutdown: Shutdown,
///     label: Option<&String>,
/// ) -> Result<(), BoxError> {
///     assert!(label.is_none(), "nothing provides `label`");
///     sweeps.fetch_add(1, Ordering::SeqCst);
///     shutdown.requested().await;
///     Ok(())
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("sweeps", AtomicU64::new(0))
///     .worker(sweeper::worker())
///     .build()
///     .unwrap();
/// container.start_workers().await.unwrap();
/// while container.get::<AtomicU64>("sweeps").await.unwrap().load(Ordering::SeqCst) == 0 {
///     tokio::task::yield_now().await;
/// }
/// container.close().await.unwrap();
/// # }
/// ```
///
/// # Limits
///
/// - Only on an `async fn`, not generic: a worker with state of its own implements `Worker`.
/// - The companion takes the fn's name in the type namespace, as a provider fn's does.
#[proc_macro_attribute]
pub fn worker(attr: TokenStream, item: TokenStream) -> TokenStream {
    worker::expand(Root::Facade, attr.into(), item.into()).into()
}

/// `#[worker]` expanded through green-tea-core instead of the facade, for a crate that depends
/// on green-tea-core alone; re-exported as `green_tea_core::worker`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn core_worker(attr: TokenStream, item: TokenStream) -> TokenStream {
    worker::expand(Root::Core, attr.into(), item.into()).into()
}

/// Declares a step: a request-scoped part of the graph, run on every request whose route needs
/// one of its values (or names it in `steps`), from scratch. See `green_tea::step` and the
/// steps guide.
///
/// # The attribute
///
/// `#[step(provides = "user", needs = ["sessions"])]`, on a `fn` or `async fn`.
///
/// - `provides`: the key, or list of keys, it provides (optional: a step that provides
///   nothing is a guard, which only accepts or rejects).
/// - `needs`: the key, or list of keys, it needs, in the order of its `&T`/`Arc<T>`
///   parameters (optional); `"key?"`, `"key[]"` and `"key{}"` are received as `Option<&T>`
///   (or `Option<Arc<T>>`), `All<'_, T>` and `ByName<'_, T>`, as for `#[provider]`. A step
///   provides its request's values only, never a list's contribution or a map's entry.
///   As for `#[provider]`, a need may name another module's key (`"sessions::store"`), and
///   `provides` names keys of its own, without `::`.
/// - There is no `after`: a step runs once the values it needs are there.
/// - `when` (optional): the condition, or list of conditions (all must hold), spelled as for
///   `#[provider]` (`when = "cacheOn"`, `"!cacheOn"`, `"gateway = stripe | paypal"`, or
///   `when = ["cacheOn", "gateway = stripe"]`, checked at compile time): the step is on only in
///   the shapes where the conditions hold; see the switches guide (`green_tea::guide::switches`).
///
/// # Parameters, read by type
///
/// - `&Parts` or `&mut Parts` (by last path segment): the request head; `&mut` lets the step
///   change it, and then no other parameter may borrow the head. `&HeaderMap`, `&Method` and
///   `&Uri`: the head's fields.
/// - Any other `&T` or `Arc<T>`: the next need, in `needs` order (a provider's or an earlier
///   step's value of type `T`).
/// - Any other owned type: an axum-core extractor (`Query<T>`, `Path<T>`, `HeaderMap`,
///   `Method`, your own `FromRequestParts<()>`), run first, in order; its rejection is the
///   response.
///
/// # Return type
///
/// The value (`T`), a tuple of values for several `provides`, `()` for a guard, or a
/// `Result` of one of those whose error is any `IntoResponse` (usually `HttpError`): the error
/// rejects the request, and nothing after the step runs.
///
/// The fn stays as written; a companion of the same name (as for `#[provider]`) implements
/// `Step`: register it with `.step(auth::step())`, or let `discover()` find it. Routes name a guard by the
/// fn's name.
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
///
/// # Limits
///
/// - The head types and `Result` are recognised by their last path segment: a need whose type
///   is named `Parts`, `HeaderMap`, `Method` or `Uri` is read as the head.
/// - A provided or needed value must be `Send + Sync + 'static`, and sized (`&String`, not
///   `&str`).
#[proc_macro_attribute]
pub fn step(attr: TokenStream, item: TokenStream) -> TokenStream {
    step::expand(attr.into(), item.into()).into()
}

/// Turns the methods of an inherent impl block into routes. See `green_tea::route` and the
/// routes guide.
///
/// # The attribute
///
/// `#[route("/orders", steps = ["require_admin"], layer = expr, when = "ordersOn")]`: the
/// prefix of every route in the block (a string literal starting with `/`) and, optionally,
/// the guard steps every route runs, tower layers around every route (outside each method's
/// own), and `when`, conditions on every route of the block.
///
/// `when` (optional, here or on a method attribute): the condition, or list of conditions (all
/// must hold), spelled as for `#[provider]` (`when = "cacheOn"`, `"!cacheOn"`,
/// `"gateway = stripe | paypal"`, or `when = ["cacheOn", "gateway = stripe"]`, checked at
/// compile time): the route is on only in the shapes where the conditions hold (the block's
/// and its method's); see the switches guide (`green_tea::guide::switches`). Each is a
/// `Route::when` call.
///
/// # Handlers
///
/// Every method marked `#[get("/path")]`, `#[post]`, `#[put]`, `#[patch]` or `#[delete]` is a
/// handler, routed at the prefix joined with its path (`"/"` is the prefix itself; matchit
/// syntax, `/{id}`). The method attribute may add `steps = [...]` (run after the block's),
/// `body_limit = bytes`, `when = ...` (conditions after the block's) and `layer = expr` or
/// `layer = [a, b]`: tower layers passed to `Route::layer` each time the route is made, in the
/// order written (each wraps those before it; `Self` is the block's type). Methods without one
/// stay plain methods. A handler is an associated `fn` or `async fn` (no `self`, not generic)
/// returning anything `IntoResponse`; its parameters are, in any order:
///
/// - `#[needs("key")] x: &T` or `Arc<T>`: a provider's or step's value; `#[needs("key?")]
///   x: Option<&T>` (or `Option<Arc<T>>`) an optional one, `#[needs("key[]")] x: All<'_, T>` a
///   list and `#[needs("key{}")] x: ByName<'_, T>` a map (neither beside a `RequestContext`,
///   which they borrow from: read them from it). The key may name another module's,
///   `#[needs("billing::client")]`.
/// - `#[body] x: T`: the body, read last: JSON into any `T: Deserialize` (415 without a JSON
///   content type, 400 if it does not parse), or the raw body as `String` or `Bytes`; 413 past
///   the body limit. At most one.
/// - Anything else: an axum-core extractor (`Path<T>`, `Query<T>`, `HeaderMap`, `Method`...).
///
/// The block stays as written, minus these attributes. `Orders::routes()` lists its routes
/// for `AppBuilder::routes`, and `discover()` finds them too. Each route is named
/// `Orders::create` (as `explain` shows it) and located at the method.
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
///
/// # Limits
///
/// - One `#[route]` block per type: each defines `Type::routes()`, and a block may not have
///   its own `routes`.
/// - `String` and `Bytes` bodies are recognised by their last path segment.
/// - A `#[body]` type that is not `Deserialize` is reported more than once.
#[proc_macro_attribute]
pub fn route(attr: TokenStream, item: TokenStream) -> TokenStream {
    route::expand(attr.into(), item.into()).into()
}

/// Derives `Settings` for a struct whose fields are read at `build()` from defaults, a TOML
/// file and the environment, each overriding the one before. See `green_tea::settings` and
/// the settings guide.
///
/// # The struct's attribute
///
/// `#[settings(provides = "billingSettings", prefix = "BILLING", validate = check, discover =
/// false)]`, or `#[settings(provides = "mailSettings", prefix = "MAIL", when = "mailOn")]`
///
/// - `provides` and `prefix`: the key the type provides (a plain key: no `?`, `[]`, `{}` or
///   `::`) and the prefix of its variables, UPPER_SNAKE_CASE without the trailing `_`
///   (`BILLING`: `BILLING_URL`, and the file's table `[billing]`). Both, for a settings type
///   that is a provider (`.provider(BillingSettings::provider())`, or found by
///   `discover()`); `provides` alone for one that only modules register, which reads under the
///   module's name (registered at the app's root, it is a build problem, GT0022); neither, for
///   a type that is only nested in another, which reads under its field's name.
/// - `validate` (optional): the path of a `fn(&Self) -> Result<(), String>` (a fn, or an
///   associated fn like `Self::check`) that checks the values together once every field was
///   read; an `Err` is a build problem (GT0018).
/// - `when` (optional, with `provides`): the condition, or list of conditions (all must hold),
///   under which the type's provider is part of the graph, and read: spelled as for
///   `#[provider]`, `when = "mailOn"`, `"!mailOn"`, `"gateway = stripe | paypal"`, or
///   `when = ["mailOn", "gateway = stripe"]`; checked at compile time, and in every shape by
///   `build()`. `T::provider()` carries them. See the switches guide
///   (`green_tea::guide::switches`).
/// - `discover = false` (optional): `discover()` leaves the type out; register it yourself.
/// - `reload` (optional): every field may be applied without a restart, as a field's
///   `reload` says.
///
/// # Fields
///
/// Each named field is one setting, read as `PREFIX_FIELD` from the environment (the field's
/// name upper-cased: `BILLING_TIMEOUT`) and as the field's name in the file's table. Its type
/// is any `serde::Deserialize` type, read from text (numbers, `bool`, strings, unit enums by
/// name, lists comma-separated, `Duration` in human form such as `2s`, `ByteSize` such as
/// `512KiB`). By its type:
///
/// - `T`: required, unless it has a default.
/// - `Option<T>`: optional, `None` when no source sets it.
/// - `Secret<T>` (recognised by its last path segment, as `Option` is): secret, shown as `***`
///   everywhere (`Debug`, problems, `explain`); `.expose()` reads it.
///
/// And by its `#[settings(...)]`:
///
/// - `default = "text"`: the value when no source sets it, as text read as a variable's value
///   is (`"2s"`, `"3"`, `"a,b"`); not on an `Option` or a `nested` field.
/// - `secret`: secret as a `Secret<T>` is, for a field of a plain type (or an `Option`). Problems
///   and `explain` show it as `***`, but the field itself is yours: a `#[derive(Debug)]` prints
///   it. Prefer `Secret<T>`.
/// - `nested`: a settings type of its own (`#[derive(Settings)]` without `provides`), read
///   under this field's name: `BILLING_BREAKER_THRESHOLD`, `[billing.breaker] threshold`. Not
///   `secret`, not an `Option`, no `default`: its fields say those for themselves.
/// - `reload`: a change of it may be applied without a restart (a `nested` field's: every
///   field of its type): `App::reload()` applies it as a new generation of what it reaches.
///   `explain_reload` says what a change touches; a field a switch reads needs a restart all
///   the same.
/// - `rename = "name"`: read it as `name` instead of the field's name. A name is snake_case
///   (`a`-`z`, `0`-`9`, words joined by single `_`s): a field whose name is not needs one.
///
/// `read` reads every field before it returns, so that `build()` reports every problem of the
/// type at once, not only the first.
///
/// ```
/// use std::time::Duration;
/// use green_tea::prelude::*;
/// use green_tea::settings::{Secret, Sources};
///
/// #[derive(Settings, Debug)]
/// #[settings(provides = "billingSettings", prefix = "BILLING", validate = Self::check)]
/// pub struct BillingSettings {
///     pub url: String,
///     #[settings(default = "2s")]
///     pub timeout: Duration,
///     pub token: Secret<String>,
///     pub region: Option<String>,
///     #[settings(nested)]
///     pub breaker: BreakerSettings,
/// }
///
/// impl BillingSettings {
///     fn check(&self) -> Result<(), String> {
///         if self.url.starts_with("http") { Ok(()) } else { Err("url is not http".into()) }
///     }
/// }
///
/// #[derive(Settings, Debug)]
/// pub struct BreakerSettings {
///     #[settings(default = "3")]
///     pub threshold: u32,
///     #[settings(default = "30s")]
///     pub reset: Duration,
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .settings(Sources::from_env_map([
///         ("BILLING_URL", "http://127.0.0.1:3001"),
///         ("BILLING_TOKEN", "s3cr3t"),
///         ("BILLING_BREAKER_THRESHOLD", "5"),
///     ]))
///     .provider(BillingSettings::provider())
///     .build()
///     .unwrap();
/// let billing = container.get::<BillingSettings>("billingSettings").await.unwrap();
/// assert_eq!(billing.timeout, Duration::from_secs(2));
/// assert_eq!(billing.region, None);
/// assert_eq!(billing.breaker.threshold, 5);
/// assert_eq!(billing.token.expose(), "s3cr3t");
/// assert!(!format!("{billing:?}").contains("s3cr3t"));
/// container.close().await.unwrap();
/// # }
/// ```
///
/// # Limits
///
/// - Only on a struct with named fields, not generic.
/// - `Option` and `Secret` are recognised by their last path segment.
/// - A name clash between a field and a nested type's field (`breaker_threshold` beside
///   `breaker.threshold`, both `BILLING_BREAKER_THRESHOLD`) is not seen by the derive, which
///   sees one type at a time.
#[proc_macro_derive(Settings, attributes(settings))]
pub fn derive_settings(input: TokenStream) -> TokenStream {
    settings::derive(Root::Facade, input.into()).into()
}

/// `#[derive(Settings)]` expanded through green-tea-core instead of the facade, for a crate
/// that depends on green-tea-core alone; re-exported as `green_tea_core::Settings` (and
/// `green_tea_core::settings::Settings`), beside the trait of the same name.
#[doc(hidden)]
#[proc_macro_derive(CoreSettings, attributes(settings))]
pub fn derive_core_settings(input: TokenStream) -> TokenStream {
    settings::derive(Root::Core, input.into()).into()
}

macro_rules! method_attributes {
    ($($name:ident => $method:literal),* $(,)?) => {
        $(
            #[doc = concat!(
                "Marks a method of a `#[route]` block as the `", $method, "` handler of a path: ",
                "`#[", stringify!($name), "(\"/path\")]`, optionally with `steps = [...]`, ",
                "`body_limit = bytes`, `layer = expr` and `when = \"cond\"` (on only in the ",
                "shapes where the conditions hold; see the switches guide). See ",
                "[`macro@route`]. Anywhere else it ",
                "is an error."
            )]
            #[proc_macro_attribute]
            pub fn $name(_attr: TokenStream, item: TokenStream) -> TokenStream {
                route::stray(stringify!($name), item.into()).into()
            }
        )*
    };
}

method_attributes!(get => "GET", post => "POST", put => "PUT", patch => "PATCH", delete => "DELETE");
