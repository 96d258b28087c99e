//! Steps: request-scoped parts of the graph, run from scratch on every request that needs them.

use std::borrow::Cow;
use std::marker::PhantomData;

use async_trait::async_trait;
use axum_core::response::{IntoResponse, Response};
use http::request::Parts;

use green_tea_core::{Key, Needs, Provided, ProviderDescriptor};

use crate::error::HttpError;

/// A step's descriptor has the same shape as a provider's: name, provided and needed keys,
/// location.
pub type StepDescriptor = ProviderDescriptor;

/// A request-scoped part of the graph: it runs on every request whose route needs one of its
/// values (or names it as a guard), from scratch, and never otherwise. It may read and modify
/// the request head, and it may reject the request with any response (usually an
/// [`HttpError`], whose JSON body says why).
///
/// `#[step]` writes this impl for you.
#[async_trait]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a green-tea step",
    note = "put `#[step(provides = \"key\")]` on a fn, or implement `Step` by hand"
)]
pub trait Step: Send + Sync + 'static {
    /// What it provides and needs; its name is how routes name it as a guard.
    fn descriptor(&self) -> StepDescriptor;

    /// Runs for one request: one value per declared key, or the response that rejects it.
    async fn run(&self, parts: &mut Parts, needs: Needs) -> Result<Provided, Response>;

    /// The same, at once, for a step that never waits; `None` (the default) means "call
    /// [`run`](Self::run)". The app tries this first, so a synchronous step costs no boxed
    /// future per request.
    fn run_now(&self, parts: &mut Parts, needs: &Needs) -> Option<Result<Provided, Response>> {
        let _ = (parts, needs);
        None
    }

    /// Whether this step's type guarantees that `run` and `run_now` return exactly what the
    /// descriptor declares: one value per provided key, of the key's type. `StepFn`, `Guard`
    /// and `#[step]` build both from the same types and say `true`. A hand-written step keeps
    /// the default, `false`, and the app checks its values on every request: one that returns
    /// something else is answered with a 500 and an error in the log, at the step that
    /// misbehaved rather than at whichever need later reads the wrong value. (Debug builds
    /// check every step.)
    fn returns_declared_types(&self) -> bool {
        false
    }
}

/// A step from a synchronous closure of the request head and the needs.
///
/// ```
/// use green_tea::http::{HttpError, StepFn};
/// let request_id = StepFn::new("requestId", |parts, _needs| {
///     parts.headers.get("x-request-id")
///         .and_then(|v| v.to_str().ok())
///         .map(str::to_owned)
///         .ok_or_else(|| HttpError::bad_request("x-request-id is required"))
/// });
/// # let _ = request_id;
/// ```
pub struct StepFn<T, F> {
    descriptor: StepDescriptor,
    run: F,
    _value: PhantomData<fn() -> T>,
}

impl<T, F> StepFn<T, F>
where
    T: Send + Sync + 'static,
    F: Fn(&Parts, &Needs) -> Result<T, HttpError> + Send + Sync + 'static,
{
    /// A step providing `key`, named after it.
    #[track_caller]
    pub fn new(key: impl Into<Key>, run: F) -> Self {
        let key = key.into();
        StepFn {
            descriptor: StepDescriptor::new(Cow::Owned(key.to_string())).provides::<T>(key),
            run,
            _value: PhantomData,
        }
    }

    /// Declares a needed key of type `N`.
    pub fn needs<N: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.descriptor = self.descriptor.needs::<N>(key);
        self
    }

    /// Renames the step (routes name guards by this).
    pub fn named(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.descriptor.name = name.into();
        self
    }
}

/// A step that provides nothing: a guard, which only accepts or rejects.
///
/// ```
/// use green_tea::http::{Guard, HttpError};
/// let require_admin = Guard::new("require_admin", |parts, _needs| {
///     match parts.headers.get("x-role") {
///         Some(role) if role == "admin" => Ok(()),
///         _ => Err(HttpError::forbidden("admins only")),
///     }
/// });
/// # let _ = require_admin;
/// ```
pub struct Guard<F> {
    descriptor: StepDescriptor,
    run: F,
}

impl<F> Guard<F>
where
    F: Fn(&Parts, &Needs) -> Result<(), HttpError> + Send + Sync + 'static,
{
    /// A guard named `name`.
    #[track_caller]
    pub fn new(name: impl Into<Cow<'static, str>>, run: F) -> Self {
        Guard {
            descriptor: StepDescriptor::new(name),
            run,
        }
    }

    /// Declares a needed key of type `N`.
    pub fn needs<N: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.descriptor = self.descriptor.needs::<N>(key);
        self
    }
}

#[async_trait]
impl<T, F> Step for StepFn<T, F>
where
    T: Send + Sync + 'static,
    F: Fn(&Parts, &Needs) -> Result<T, HttpError> + Send + Sync + 'static,
{
    fn descriptor(&self) -> StepDescriptor {
        self.descriptor.clone()
    }

    async fn run(&self, parts: &mut Parts, needs: Needs) -> Result<Provided, Response> {
        (self.run)(parts, &needs)
            .map(Provided::one)
            .map_err(IntoResponse::into_response)
    }

    fn run_now(&self, parts: &mut Parts, needs: &Needs) -> Option<Result<Provided, Response>> {
        Some(
            (self.run)(parts, needs)
                .map(Provided::one)
                .map_err(IntoResponse::into_response),
        )
    }

    /// One `T`, declared as one `T` by [`StepFn::new`].
    fn returns_declared_types(&self) -> bool {
        true
    }
}

#[async_trait]
impl<F> Step for Guard<F>
where
    F: Fn(&Parts, &Needs) -> Result<(), HttpError> + Send + Sync + 'static,
{
    fn descriptor(&self) -> StepDescriptor {
        self.descriptor.clone()
    }

    async fn run(&self, parts: &mut Parts, needs: Needs) -> Result<Provided, Response> {
        (self.run)(parts, &needs)
            .map(|()| Provided::new())
            .map_err(IntoResponse::into_response)
    }

    fn run_now(&self, parts: &mut Parts, needs: &Needs) -> Option<Result<Provided, Response>> {
        Some(
            (self.run)(parts, needs)
                .map(|()| Provided::new())
                .map_err(IntoResponse::into_response),
        )
    }

    /// Nothing, declared as nothing.
    fn returns_declared_types(&self) -> bool {
        true
    }
}

/// A step registered by `#[step]` through `inventory`. Only the macros create these.
#[doc(hidden)]
pub struct StepRegistration {
    /// The step's name, for a deterministic order.
    pub name: &'static str,
    /// `module_path!()`, for a deterministic order.
    pub module: &'static str,
    /// Makes the step.
    pub make: fn() -> Box<dyn Step>,
}

inventory::collect!(StepRegistration);
