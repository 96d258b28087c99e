//! `ProviderFn`: a provider from a closure, for graphs written without macros.

use std::borrow::Cow;
use std::future::Future;
use std::marker::PhantomData;

use crate::descriptor::Descriptor;
use crate::error::BoxError;
use crate::key::Key;
use crate::provider::Provider;
use crate::value::{Needs, Provided};

/// A provider of one key, built by an async closure from its [`Needs`].
///
/// ```
/// use green_tea::{Container, ProviderFn};
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("name", String::from("tea"))
///     .provider(
///         ProviderFn::new("greeting", |needs| async move {
///             Ok(format!("hello, {}", needs.get::<String>(0)?))
///         })
///         .needs::<String>("name"),
///     )
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("greeting").await.unwrap(), "hello, tea");
/// # container.close().await.unwrap(); }
/// ```
pub struct ProviderFn<T, F> {
    descriptor: Descriptor,
    build: F,
    /// How long one build may take, if not the app's default.
    timeout: Option<std::time::Duration>,
    _value: PhantomData<fn() -> T>,
}

impl<T, F> std::fmt::Debug for ProviderFn<T, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderFn")
            .field("descriptor", &self.descriptor)
            .finish_non_exhaustive()
    }
}

impl<T, F, Fut> ProviderFn<T, F>
where
    T: Send + Sync + 'static,
    F: Fn(Needs<'static>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<T, BoxError>> + Send,
{
    /// A provider of `key`, named after it, declared where this is called. The closure gets
    /// the needs by value ([`Needs::into_owned`]), so its future may hold them.
    #[track_caller]
    pub fn new(key: impl Into<Key>, build: F) -> Self {
        let key = key.into();
        ProviderFn {
            descriptor: Descriptor::new(Cow::Owned(key.to_string())).provides::<T>(key),
            build,
            timeout: None,
            _value: PhantomData,
        }
    }

    /// Declares a needed key of type `N`; the closure receives needs in declaration order.
    pub fn needs<N: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.descriptor = self.descriptor.needs::<N>(key);
        self
    }

    /// Renames the provider (the default is its key).
    pub fn named(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.descriptor.name = name.into();
        self
    }

    /// Puts it after the declaration named `name` (a module's by its qualified name,
    /// `sms::notifier`) in each list it contributes to; see [`Descriptor::after`].
    pub fn after(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.descriptor = self.descriptor.after(name);
        self
    }

    /// Puts it under the condition `condition` (`cacheOn`, `gateway = stripe`): part of the
    /// graph only where it holds; see [`Descriptor::when`] and the
    /// [`Switch`](crate::switches::Switch).
    pub fn when(mut self, condition: impl Into<Cow<'static, str>>) -> Self {
        self.descriptor = self.descriptor.when(condition);
        self
    }

    /// How long one build of it may take (the app's default otherwise,
    /// [`ContainerBuilder::build_timeout`](crate::ContainerBuilder::build_timeout)); see
    /// [`Provider::build_timeout`].
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
}

impl<T, F, Fut> Provider for ProviderFn<T, F>
where
    T: Send + Sync + 'static,
    F: Fn(Needs<'static>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<T, BoxError>> + Send,
{
    fn descriptor(&self) -> Descriptor {
        self.descriptor.clone()
    }

    fn build_timeout(&self) -> Option<std::time::Duration> {
        self.timeout
    }

    async fn provide(&self, needs: Needs<'_>) -> Result<Provided, BoxError> {
        Ok(Provided::one((self.build)(needs.into_owned()).await?))
    }
}
