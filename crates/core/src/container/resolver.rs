//! `Resolver<T>`: a key looked up and type-checked once, read by index afterwards.

use std::marker::PhantomData;
use std::sync::Arc;

use super::{Container, Inner};
use crate::error::ProvideError;
use crate::ids::AppValue;
use crate::key::TypeInfo;

/// A typed, pre-resolved handle on one key; see [`Container::resolver`].
pub struct Resolver<T> {
    inner: Arc<Inner>,
    at: AppValue,
    _type: PhantomData<fn() -> T>,
}

impl<T> Clone for Resolver<T> {
    fn clone(&self) -> Self {
        Resolver {
            inner: Arc::clone(&self.inner),
            at: self.at,
            _type: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Resolver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("key", &self.inner.spec(self.at).key)
            .finish()
    }
}

impl Container {
    /// A handle that resolves `key` by index: look the key up and check its type once, then
    /// [`Resolver::get`] costs an array read and an `Arc` clone once the value is built.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let container = green_tea::Container::builder().value("port", 3000_u16).build().unwrap();
    /// let port = container.resolver::<u16>("port").unwrap();
    /// assert_eq!(*port.get().await.unwrap(), 3000);
    /// assert!(container.resolver::<u32>("port").is_err()); // wrong type
    /// # container.close().await.unwrap(); }
    /// ```
    pub fn resolver<T: Send + Sync + 'static>(
        &self,
        key: &str,
    ) -> Result<Resolver<T>, ProvideError> {
        let inner = &self.inner;
        let at = inner.locate(key)?;
        let spec = inner.spec(at);
        if spec.ty != TypeInfo::of::<T>() {
            return Err(ProvideError::WrongType {
                key: spec.key.clone(),
                provided: spec.ty,
                requested: TypeInfo::of::<T>(),
            });
        }
        Ok(Resolver {
            inner: Arc::clone(inner),
            at,
            _type: PhantomData,
        })
    }
}

impl<T: Send + Sync + 'static> Resolver<T> {
    /// The value, building its slice first if needed.
    pub async fn get(&self) -> Result<Arc<T>, ProvideError> {
        let value = self.inner.value_or_build(self.at).await?;
        Ok(self.typed(value))
    }

    /// The value if it is already built; never builds.
    pub fn try_get(&self) -> Result<Option<Arc<T>>, ProvideError> {
        Ok(self.inner.try_value(self.at)?.map(|v| self.typed(v)))
    }

    fn typed(&self, value: &crate::value::AnyValue) -> Arc<T> {
        Arc::clone(value)
            .downcast::<T>()
            .unwrap_or_else(|_| unreachable!("the type was checked when the resolver was made"))
    }
}
