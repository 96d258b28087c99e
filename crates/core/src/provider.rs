//! The `Provider` trait, its descriptor, plain values as providers, and macro registration.

use std::borrow::Cow;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::BoxError;
use crate::key::{Key, KeySpec, Location};
use crate::value::{Needs, Provided};

/// An app-scoped part of the graph: built at most once, from the values it needs, into the
/// values it provides; disposed on `close()`.
///
/// `#[provider]` writes this impl for you; writing it by hand is just as supported.
///
/// ```
/// use green_tea::{BoxError, Container, Needs, Provided, Provider, ProviderDescriptor};
///
/// struct Greeting;
///
/// #[green_tea::async_trait]
/// impl Provider for Greeting {
///     fn descriptor(&self) -> ProviderDescriptor {
///         ProviderDescriptor::new("greeting")
///             .provides::<String>("greeting")
///             .needs::<String>("name")
///     }
///
///     async fn provide(&self, needs: Needs) -> Result<Provided, BoxError> {
///         let name = needs.get::<String>(0)?;
///         Ok(Provided::one(format!("hello, {name}")))
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("name", String::from("tea"))
///     .provider(Greeting)
///     .build()
///     .unwrap();
/// assert_eq!(*container.get::<String>("greeting").await.unwrap(), "hello, tea");
/// container.close().await.unwrap();
/// # }
/// ```
#[async_trait]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a green-tea provider",
    note = "put `#[provider(provides = \"key\")]` on a fn or an impl block, or implement `Provider` by hand"
)]
pub trait Provider: Send + Sync + 'static {
    /// What this provider provides and needs, and where it was declared. Called once, when
    /// the provider is registered.
    fn descriptor(&self) -> ProviderDescriptor;

    /// Builds the provided values, one per declared key in order, from the needed values.
    async fn provide(&self, needs: Needs) -> Result<Provided, BoxError>;

    /// Releases what [`provide`](Self::provide) built; `provided` is exactly what it returned.
    /// Called at most once, on `close()`, after every dependent was disposed.
    async fn dispose(&self, provided: &Provided) -> Result<(), BoxError> {
        let _ = provided;
        Ok(())
    }
}

/// What a provider provides and needs, and where it was declared.
///
/// ```
/// use green_tea::ProviderDescriptor;
/// let d = ProviderDescriptor::new("billing")
///     .provides::<u64>("billing")
///     .needs::<String>("billingApi");
/// assert_eq!(d.name, "billing");
/// assert_eq!(d.provides[0].key.as_str(), "billing");
/// assert_eq!(d.needs[0].key.as_str(), "billingApi");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ProviderDescriptor {
    /// The provider's name as users read it (a fn or type name).
    pub name: Cow<'static, str>,
    /// The keys it provides, with their types, in the order `provide` returns them.
    pub provides: Vec<KeySpec>,
    /// The keys it needs, with their types, in the order `provide` receives them.
    pub needs: Vec<KeySpec>,
    /// Where it was declared.
    pub location: Location,
}

impl ProviderDescriptor {
    /// A provider named `name`, declared where this is called.
    #[track_caller]
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        ProviderDescriptor {
            name: name.into(),
            provides: Vec::new(),
            needs: Vec::new(),
            location: Location::caller(),
        }
    }

    /// Adds a provided key of type `T`.
    pub fn provides<T: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.provides.push(KeySpec::of::<T>(key));
        self
    }

    /// Adds a needed key of type `T`.
    pub fn needs<T: Send + Sync + 'static>(mut self, key: impl Into<Key>) -> Self {
        self.needs.push(KeySpec::of::<T>(key));
        self
    }

    /// Sets where the provider was declared (macros pass `file!()`/`line!()`).
    pub fn at(mut self, location: Location) -> Self {
        self.location = location;
        self
    }
}

/// A provider that hands out one ready value: what `.value("key", v)` registers.
pub(crate) struct ValueProvider {
    descriptor: ProviderDescriptor,
    value: Provided,
}

impl ValueProvider {
    pub(crate) fn new<T: Send + Sync + 'static>(
        key: Key,
        value: Arc<T>,
        location: Location,
    ) -> Self {
        let descriptor = ProviderDescriptor {
            name: Cow::Owned(format!("value `{key}`")),
            provides: vec![KeySpec::of::<T>(key)],
            needs: Vec::new(),
            location,
        };
        ValueProvider {
            descriptor,
            value: Provided::new().with_arc(value),
        }
    }
}

#[async_trait]
impl Provider for ValueProvider {
    fn descriptor(&self) -> ProviderDescriptor {
        self.descriptor.clone()
    }

    async fn provide(&self, _needs: Needs) -> Result<Provided, BoxError> {
        Ok(self.value.clone())
    }
}

/// A provider registered by `#[provider]` through `inventory`, collected by
/// `ContainerBuilder::discover`.
///
/// Only the macros create these; the fields are public so that they can do so in a `const`.
#[doc(hidden)]
pub struct Registration {
    /// The provider's name, for a deterministic order.
    pub name: &'static str,
    /// `module_path!()` of the declaration, for a deterministic order.
    pub module: &'static str,
    /// Makes the provider.
    pub make: fn() -> Box<dyn Provider>,
}

inventory::collect!(Registration);

/// Every registered provider, sorted by module path and name (inventory's order is unspecified).
pub(crate) fn discovered(modules: Option<&[&str]>) -> Vec<Box<dyn Provider>> {
    let mut regs: Vec<&Registration> = inventory::iter::<Registration>
        .into_iter()
        .filter(|r| modules.is_none_or(|m| in_modules(r.module, m)))
        .collect();
    regs.sort_by_key(|r| (r.module, r.name));
    regs.into_iter().map(|r| (r.make)()).collect()
}

/// Whether `module` (a `module_path!()`) is one of `modules` or inside one of them.
///
/// ```
/// # use green_tea::in_modules;
/// assert!(in_modules("shop::billing", &["shop"]));
/// assert!(in_modules("shop", &["shop"]));
/// assert!(!in_modules("shopping::cart", &["shop"]));
/// ```
#[doc(hidden)]
pub fn in_modules(module: &str, modules: &[&str]) -> bool {
    modules
        .iter()
        .any(|m| module == *m || (module.starts_with(m) && module[m.len()..].starts_with("::")))
}
