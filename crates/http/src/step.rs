//! Steps: request-scoped parts of the graph, run from scratch on every request that needs them.

use std::borrow::Cow;
use std::marker::PhantomData;

use axum_core::response::IntoResponse;
use http::request::Parts;

use green_tea_core::{Descriptor, Key, Needs, Provided};

use crate::error::HttpError;
use crate::finish::{Finish, Finishing};
use crate::future::StepFuture;

/// A request-scoped part of the graph: it runs on every request whose route needs one of its
/// values (or names it as a guard), from scratch, and never otherwise. It may read and modify
/// the request head, and it may reject the request with any response (usually an
/// [`HttpError`], whose JSON body says why).
///
/// `#[step]` writes this impl for you. By hand, a step that never waits answers with
/// [`StepFuture::ready`] (nothing allocated per request), one that waits with
/// [`StepFuture::new`] (its future boxed once per request):
///
/// ```
/// use green_tea::HttpError;
/// use green_tea::future::StepFuture;
/// use green_tea::http::request::Parts;
/// use green_tea::steps::Step;
/// use green_tea::{Descriptor, Needs, Provided};
///
/// struct Tenant;
///
/// impl Step for Tenant {
///     fn descriptor(&self) -> Descriptor {
///         Descriptor::new("tenant").provides::<String>("tenant")
///     }
///
///     fn run<'a>(&'a self, parts: &'a mut Parts, _needs: Needs<'a>) -> StepFuture<'a> {
///         let tenant = parts.headers.get("x-tenant").and_then(|v| v.to_str().ok());
///         StepFuture::ready(match tenant {
///             Some(tenant) => Ok(Provided::one(tenant.to_owned())),
///             None => Err(HttpError::bad_request("x-tenant is required").into()),
///         })
///     }
/// }
/// # let _ = Tenant;
/// ```
///
/// What a step returns is checked against its descriptor on every request (one value per
/// provided key, of the key's type): a step that returns something else is answered with a 500
/// and an error in the log, at the step that misbehaved.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a green-tea step",
    note = "put `#[step(provides = \"key\")]` on a fn and register `name::step()`, or implement `Step` by hand"
)]
pub trait Step: Send + Sync + 'static {
    /// What it provides and needs; its name is how routes name it as a guard.
    fn descriptor(&self) -> Descriptor;

    /// Runs for one request: one value per declared key, or the response that rejects it.
    fn run<'a>(&'a self, parts: &'a mut Parts, needs: Needs<'a>) -> StepFuture<'a>;

    /// Which of its values finish with the request (see [`Finish`]): none unless it says so.
    /// Asked once, at `build()`; a route that runs no finishing step pays nothing for them.
    ///
    /// [`Finish`]: crate::Finish
    fn finishing(&self) -> Finishing {
        Finishing::none()
    }
}

/// A step from a synchronous closure of the request head and the needs.
///
/// ```
/// use green_tea::HttpError;
/// use green_tea::steps::StepFn;
/// let request_id = StepFn::new("requestId", |parts, _needs| {
///     parts.headers.get("x-request-id")
///         .and_then(|v| v.to_str().ok())
///         .map(str::to_owned)
///         .ok_or_else(|| HttpError::bad_request("x-request-id is required"))
/// });
/// # let _ = request_id;
/// ```
pub struct StepFn<T, F> {
    descriptor: Descriptor,
    run: F,
    finishing: Finishing,
    _value: PhantomData<fn() -> T>,
}

impl<T, F> std::fmt::Debug for StepFn<T, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepFn")
            .field("descriptor", &self.descriptor)
            .finish_non_exhaustive()
    }
}

impl<T, F> StepFn<T, F>
where
    T: Send + Sync + 'static,
    F: Fn(&Parts, &Needs<'_>) -> Result<T, HttpError> + Send + Sync + 'static,
{
    /// A step providing `key`, named after it.
    #[track_caller]
    pub fn new(key: impl Into<Key>, run: F) -> Self {
        let key = key.into();
        StepFn {
            descriptor: Descriptor::new(Cow::Owned(key.to_string())).provides::<T>(key),
            run,
            finishing: Finishing::none(),
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

    /// Makes the step part of the graph only where `condition` holds (`cacheOn`,
    /// `gateway = stripe | paypal`; more than one call: all must hold); see the switches guide.
    pub fn when(mut self, condition: impl Into<Cow<'static, str>>) -> Self {
        self.descriptor = self.descriptor.when(condition);
        self
    }

    /// Its value finishes with the request: [`Finish::finish`] runs after the handler, with
    /// the request's outcome, before the response head is sent.
    ///
    /// ```
    /// use green_tea::HttpError;
    /// use green_tea::steps::{Finish, Outcome, Step, StepFn};
    /// struct Audit;
    /// impl Finish for Audit {
    ///     async fn finish(self, outcome: &Outcome) -> Result<(), HttpError> {
    ///         println!("audited: {}", outcome.status());
    ///         Ok(())
    ///     }
    /// }
    /// let audit = StepFn::new("audit", |_, _| Ok(Audit)).finishes();
    /// assert!(!audit.finishing().is_empty());
    /// ```
    pub fn finishes(mut self) -> Self
    where
        T: Finish,
    {
        self.finishing = Finishing::none().value::<T>(0);
        self
    }
}

impl<T, F> Step for StepFn<T, F>
where
    T: Send + Sync + 'static,
    F: Fn(&Parts, &Needs<'_>) -> Result<T, HttpError> + Send + Sync + 'static,
{
    fn descriptor(&self) -> Descriptor {
        self.descriptor.clone()
    }

    fn finishing(&self) -> Finishing {
        self.finishing.clone()
    }

    fn run<'a>(&'a self, parts: &'a mut Parts, needs: Needs<'a>) -> StepFuture<'a> {
        StepFuture::ready(
            (self.run)(parts, &needs)
                .map(Provided::one)
                .map_err(IntoResponse::into_response),
        )
    }
}

/// A step that provides nothing: a guard, which only accepts or rejects.
///
/// ```
/// use green_tea::HttpError;
/// use green_tea::steps::Guard;
/// let require_admin = Guard::new("require_admin", |parts, _needs| {
///     match parts.headers.get("x-role") {
///         Some(role) if role == "admin" => Ok(()),
///         _ => Err(HttpError::forbidden("admins only")),
///     }
/// });
/// # let _ = require_admin;
/// ```
pub struct Guard<F> {
    descriptor: Descriptor,
    run: F,
}

impl<F> std::fmt::Debug for Guard<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("descriptor", &self.descriptor)
            .finish_non_exhaustive()
    }
}

impl<F> Guard<F>
where
    F: Fn(&Parts, &Needs<'_>) -> Result<(), HttpError> + Send + Sync + 'static,
{
    /// A guard named `name`.
    #[track_caller]
    pub fn new(name: impl Into<Cow<'static, str>>, run: F) -> Self {
        Guard {
            descriptor: Descriptor::new(name),
            run,
        }
    }

    /// Declares a needed key of type `N`.
    pub fn needs<N: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.descriptor = self.descriptor.needs::<N>(key);
        self
    }

    /// Makes the guard part of the graph only where `condition` holds; a route that runs it
    /// must be served only there too (GT0007 in the shapes where it is not); see the
    /// switches guide.
    pub fn when(mut self, condition: impl Into<Cow<'static, str>>) -> Self {
        self.descriptor = self.descriptor.when(condition);
        self
    }
}

impl<F> Step for Guard<F>
where
    F: Fn(&Parts, &Needs<'_>) -> Result<(), HttpError> + Send + Sync + 'static,
{
    fn descriptor(&self) -> Descriptor {
        self.descriptor.clone()
    }

    fn run<'a>(&'a self, parts: &'a mut Parts, needs: Needs<'a>) -> StepFuture<'a> {
        StepFuture::ready(
            (self.run)(parts, &needs)
                .map(|()| Provided::new())
                .map_err(IntoResponse::into_response),
        )
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

impl std::fmt::Debug for StepRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepRegistration")
            .field("name", &self.name)
            .field("module", &self.module)
            .finish_non_exhaustive()
    }
}

inventory::collect!(StepRegistration);
