//! `Module`: a named bundle of registrations whose keys are private to it unless exported.

use std::borrow::Cow;

use crate::error::NodeKind;
use crate::key::{Key, Location};
use crate::provider::{Provider, Registered, ValueProvider};
use crate::switch::Switch;
use crate::worker::{RegisteredWorker, Worker};

/// A named bundle of providers, values, decorators and sub-modules. The keys its declarations
/// provide are its own: `http` provided in the module `notifications` is the key
/// `notifications::http`, which the module's declarations need as `http` and the rest of the
/// app cannot need at all unless the module exports it (then as `notifications::http`). Two
/// modules can each have a private `http`; one module registered twice under two names has
/// two of everything.
///
/// A need inside a module resolves to the module's own key first, then to its parent's, and so
/// on out to the app's keys. A need spelled with a module names that module's key, found the
/// same way (a sub-module's as `sms::gateway`, another module's as `billing::client`), and is
/// an error (GT0014) if the key is private to it.
/// Collections are the app's: a contribution made in a module (`notifiers[]`, `stores{eu}`)
/// joins the app's list or map.
///
/// This is the module type of every crate: one that depends on green-tea-core alone ships
/// providers, values, decorators and sub-modules (and finds its own `#[provider]`s with
/// [`discover_in`](Self::discover_in)); green-tea's `ModuleExt` adds steps, routes under a
/// prefix and shutdown hooks, for an app. The rules are on the guide's modules page.
///
/// ```
/// use green_tea::{Container, Module, ProviderFn};
///
/// fn notifications() -> Module {
///     Module::new("notifications")
///         .value("http", String::from("the notifications' own client"))
///         .provider(ProviderFn::new("notifier", |needs| async move {
///             Ok(format!("notifier over {}", needs.get::<String>(0)?))
///         }).needs::<String>("http"))
///         .export("notifier")
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let container = Container::builder()
///     .value("http", String::from("the app's client"))
///     .module(notifications())
///     .build()
///     .unwrap();
/// let notifier = container.get::<String>("notifications::notifier").await.unwrap();
/// assert_eq!(*notifier, "notifier over the notifications' own client");
/// assert_eq!(*container.get::<String>("http").await.unwrap(), "the app's client");
/// # container.close().await.unwrap(); }
/// ```
#[must_use = "a module does nothing until it is registered with `.module(m)`"]
pub struct Module {
    pub(crate) name: String,
    pub(crate) location: Location,
    pub(crate) entries: Vec<(Registered, NodeKind)>,
    pub(crate) workers: Vec<RegisteredWorker>,
    pub(crate) modules: Vec<Module>,
    pub(crate) exports: Vec<(Key, Location)>,
    /// The Rust modules whose macro declarations it takes (`discover_in`).
    pub(crate) discover: Vec<String>,
    /// What the layer above adds (green-tea-http: steps, routes, a prefix, shutdown hooks).
    pub(crate) extension: Option<Box<dyn ModuleExtension>>,
    /// Its switches, named inside it (`payments::gateway`), reading its own settings.
    pub(crate) switches: Vec<Switch>,
    /// The conditions it is on under, as the code that registers it wrote them (resolved
    /// where it is registered).
    pub(crate) when: Vec<Cow<'static, str>>,
}

/// What a layer above the core keeps in a [`Module`] (green-tea-http's steps, routes and
/// shutdown hooks). Not a public API.
#[doc(hidden)]
pub trait ModuleExtension: std::any::Any + Send + std::fmt::Debug {
    /// What it holds that a `Container` alone cannot run (`"2 routes"`), if anything.
    fn needs_an_app(&self) -> Option<String>;
    /// How many of each kind of declaration it holds (steps, routes): where a `when` begins.
    fn marks(&self) -> [usize; 2] {
        [0, 0]
    }
    /// Puts what it gained since `marks` under `condition`, as a `when` does.
    fn put_under(&mut self, marks: [usize; 2], condition: Cow<'static, str>) {
        let _ = (marks, condition);
    }
    /// Itself, to downcast.
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
    /// Itself, to downcast by value.
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let declarations: Vec<&str> = self
            .entries
            .iter()
            .map(|(r, _)| &*r.descriptor.name)
            .collect();
        let exports: Vec<&Key> = self.exports.iter().map(|(k, _)| k).collect();
        f.debug_struct("Module")
            .field("name", &self.name)
            .field("declarations", &declarations)
            .field("modules", &self.modules)
            .field("exports", &exports)
            .field("extension", &self.extension)
            .finish()
    }
}

impl Module {
    /// An empty module named `name` (a name without `::`, `?`, `[]` or `{}`).
    #[track_caller]
    pub fn new(name: impl Into<String>) -> Self {
        Module {
            name: name.into(),
            location: Location::caller(),
            entries: Vec::new(),
            workers: Vec::new(),
            modules: Vec::new(),
            exports: Vec::new(),
            discover: Vec::new(),
            extension: None,
            switches: Vec::new(),
            when: Vec::new(),
        }
    }

    /// The module's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same module under another name: `billing().named("billing_eu")`, to register one
    /// module twice, each with keys of its own.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Adds a provider, whose keys are the module's.
    pub fn provider(mut self, provider: impl Provider) -> Self {
        self.entries.push({
            let registered = Registered::new(provider);
            let kind = registered.provider_kind();
            (registered, kind)
        });
        self
    }

    /// Adds a ready value under the module's `key`.
    #[track_caller]
    pub fn value<T: Send + Sync + 'static>(mut self, key: impl Into<Key>, value: T) -> Self {
        let provider = ValueProvider::new(key.into(), value, Location::caller());
        self.entries
            .push((Registered::new(provider), NodeKind::Value));
        self
    }

    /// Adds a worker: its needs resolve inside the module first, and its name is the
    /// module's (`orders::relay`).
    pub fn worker(mut self, worker: impl Worker) -> Self {
        self.workers.push(RegisteredWorker::new(worker));
        self
    }

    /// Adds a decorator of one of the module's keys.
    pub fn decorator(mut self, decorator: impl Provider) -> Self {
        self.entries
            .push((Registered::new(decorator), NodeKind::Decorator));
        self
    }

    /// Adds to the module every declaration the macros made in the Rust modules `modules`
    /// (crate or module paths: `env!("CARGO_CRATE_NAME")`, `"my_crate::billing"`) or inside
    /// them: a library's `pub fn module() -> Module` finds its own providers (and, in an app,
    /// its steps and routes), whatever else the binary links. Those declarations are the
    /// module's, and the app's own `discover()` leaves them out. Found when the module is
    /// registered, so a module registered twice has two of each; finding nothing is a build
    /// error (GT0015).
    pub fn discover_in(mut self, modules: &[&str]) -> Self {
        self.discover
            .extend(modules.iter().map(|m| (*m).to_owned()));
        self
    }

    /// Adds a switch of the module's own (`payments::gateway` to the rest of the app), which
    /// reads the module's settings: a module registered twice decides it twice, each from
    /// its own prefix. See [`Switch`].
    pub fn switch(mut self, switch: Switch) -> Self {
        self.switches.push(switch);
        self
    }

    /// Registers what `register` adds (declarations, workers, sub-modules; an app's module,
    /// its steps and routes too) under the condition
    /// `condition` (`cacheOn`, `!cacheOn`, `gateway = stripe | paypal`): each is on only where
    /// it holds, and `build()` checks every shape. A switch named here is the module's own
    /// first, then its parents', as a need is. Conditions nest: all must hold.
    pub fn when(
        self,
        condition: impl Into<Cow<'static, str>>,
        register: impl FnOnce(Module) -> Module,
    ) -> Self {
        let condition = condition.into();
        let (entries, workers, modules) =
            (self.entries.len(), self.workers.len(), self.modules.len());
        let marks = self.extension.as_ref().map_or([0, 0], |e| e.marks());
        let mut module = register(self);
        if let Some(extension) = &mut module.extension {
            extension.put_under(marks, condition.clone());
        }
        for (registered, _) in module.entries.iter_mut().skip(entries) {
            registered.descriptor.when.push(condition.clone());
        }
        for worker in module.workers.iter_mut().skip(workers) {
            worker.descriptor.when.push(condition.clone());
        }
        for sub in module.modules.iter_mut().skip(modules) {
            sub.when.push(condition.clone());
        }
        module
    }

    /// Adds a sub-module: its keys are its own, and its exports are the module's to use (as
    /// `sub::key`) and to export again.
    pub fn module(mut self, module: Module) -> Self {
        self.modules.push(module);
        self
    }

    /// Makes `key` (one of the module's keys, or a sub-module's export, `sub::key`) visible to
    /// the rest of the app, as `module::key`.
    #[track_caller]
    pub fn export(mut self, key: impl Into<Key>) -> Self {
        self.exports.push((key.into(), Location::caller()));
        self
    }
}

/// A registered module, as the graph sees it: its path from the app's root and its exports.
#[derive(Clone, Debug)]
pub(crate) struct RegisteredModule {
    /// `notifications`, or `shop::notifications` for a sub-module.
    pub(crate) path: std::sync::Arc<str>,
    /// Where the module was made.
    pub(crate) location: Location,
    /// Its exports, relative to it (`notifier`, or a sub-module's `sms::gateway`).
    pub(crate) exports: Vec<(Key, Location)>,
    /// Its parent's position among the registered modules, if it is a sub-module.
    pub(crate) parent: Option<usize>,
    /// Replaced by a test's `override_module`: it holds nothing any more, and the graph
    /// passes over it.
    pub(crate) replaced: bool,
    /// The conditions it is on under, as registered (resolved in its parent).
    pub(crate) when: Vec<Cow<'static, str>>,
}

pub(crate) use green_tea_key::relative_to;

/// Where a registered module is among a builder's modules: what the layer above (steps,
/// routes) tags its declarations with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModuleIndex(pub(crate) u32);

impl ModuleIndex {
    pub(crate) fn new(at: usize) -> Self {
        ModuleIndex(u32::try_from(at).expect("fewer than 2^32 modules"))
    }

    /// How a declaration keeps the module it was registered in.
    pub(crate) fn in_module(index: Option<ModuleIndex>) -> Option<std::num::NonZeroU32> {
        module_number(index.map(|m| m.0))
    }
}

/// How a declaration keeps the module it was registered in (its position among the registered
/// modules): that position plus one, so that `None` (the root) costs no space.
pub(crate) fn module_number(module: Option<u32>) -> Option<std::num::NonZeroU32> {
    module.and_then(|m| std::num::NonZeroU32::new(m.checked_add(1)?))
}

/// The layer above's part of `module`, made with `T::default()` if it has none yet.
pub(crate) fn extension_mut<T: ModuleExtension + Default>(module: &mut Module) -> &mut T {
    let extension = module
        .extension
        .get_or_insert_with(|| Box::new(T::default()));
    extension
        .as_any_mut()
        .downcast_mut::<T>()
        .expect("one layer above the core keeps its part of a module")
}

/// Takes the layer above's part out of `module`, if it has one.
pub(crate) fn take_extension<T: ModuleExtension>(module: &mut Module) -> Option<T> {
    let extension = module.extension.take()?.into_any();
    extension.downcast::<T>().ok().map(|b| *b)
}
