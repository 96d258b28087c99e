//! What the crates above the core (green-tea-http) use to check and run the graph.
//! Not a public API: it may change in any release.

use std::future::Future;
use std::sync::Arc;

use crate::container::{Container, ContainerBuilder};
use crate::error::{BuildError, Problem, ProvideError};
use crate::error::{NodeKind, Suggestion};
use crate::explain::Explain;
use crate::key::{Key, KeySpec, Location, TypeInfo};
use crate::value::{Needs, Provided};

pub use crate::error::{join_message, panic_message};
pub use crate::explain::{RequestMember, explain_module_with, in_module};
pub use crate::graph::closest;
pub use crate::ids::{AppValue, Id, IdVec, LocalId, ProviderId, RouteId, Source, StepId};
pub use crate::module::{ModuleExtension, ModuleIndex};
pub use crate::provider::in_modules;
pub use crate::request_decls::{
    PlannedStep, RequestDecls, RoutePlan, Wired, WiredRoute, WiredStep,
};
pub use crate::value::AnyValue;

/// Checks the providers of `builder` together with the steps and routes of `scope`, and
/// compiles each route's plan.
pub fn build_scope<S, R>(
    builder: ContainerBuilder,
    scope: RequestDecls<S, R>,
) -> Result<Wired<S, R>, BuildError> {
    builder.build_scope(scope)
}

/// Registers `module` (its declarations and its own sub-modules) inside `parent`; returns
/// where it is, for the steps and routes the layer above adds to it.
pub fn add_module(
    builder: &mut ContainerBuilder,
    module: crate::Module,
    parent: Option<ModuleIndex>,
) -> ModuleIndex {
    ModuleIndex::new(builder.add_module(module, parent.map(|p| p.0 as usize)))
}

/// The Rust modules the registered module `index` discovers in (`Module::discover_in`), if
/// it does: the layer above adds its own declarations from there, and counts them with
/// [`found_in_module`].
pub fn module_discovers(builder: &ContainerBuilder, index: ModuleIndex) -> Option<&[String]> {
    builder
        .module_discovery
        .iter()
        .find(|(at, _, _)| *at == index.0 as usize)
        .map(|(_, paths, _)| paths.as_slice())
}

/// Counts `found` more declarations discovered into the module `index`.
pub fn found_in_module(builder: &mut ContainerBuilder, index: ModuleIndex, found: usize) {
    if let Some(entry) = builder
        .module_discovery
        .iter_mut()
        .find(|(at, _, _)| *at == index.0 as usize)
    {
        entry.2 += found;
    }
}

/// The Rust modules registered modules discover in: the app's own discovery leaves them out.
pub fn claimed(builder: &ContainerBuilder) -> Vec<&str> {
    builder
        .claimed
        .iter()
        .map(|(path, _)| path.as_str())
        .collect()
}

/// Empties the registered root module `name` and its sub-modules for a test's replacement,
/// registered next with [`add_module`]; returns their positions (the layer above drops its
/// own declarations in them). A name no module has is a problem at `build()`.
pub fn replace_module(
    builder: &mut ContainerBuilder,
    name: &str,
    location: Location,
) -> Vec<ModuleIndex> {
    builder
        .replace_module(name, location)
        .into_iter()
        .map(ModuleIndex::new)
        .collect()
}

/// A module's problem the layer above found (its prefix, say), for `build()` to report with
/// the graph's: GT0015, naming the module and where it was made.
pub fn module_problem(builder: &mut ContainerBuilder, index: ModuleIndex, reason: String) {
    let scope = &builder.module_table[index.0 as usize];
    let problem = Problem::ModuleShape {
        module: scope.path.to_string(),
        location: scope.location,
        reason,
    };
    builder.module_problems.push(problem);
}

/// The path of the registered module `index` (`shop::notifications`).
pub fn module_path(builder: &ContainerBuilder, index: ModuleIndex) -> Arc<str> {
    Arc::clone(&builder.module_table[index.0 as usize].path)
}

/// Takes `module`'s sub-modules out of it, for the layer above to register one by one.
pub fn take_modules(module: &mut crate::Module) -> Vec<crate::Module> {
    std::mem::take(&mut module.modules)
}

/// The layer above's part of `module`, made with `T::default()` if it has none yet.
pub fn extension_mut<T: ModuleExtension + Default>(module: &mut crate::Module) -> &mut T {
    crate::module::extension_mut(module)
}

/// Takes the layer above's part out of `module`, if it has one.
pub fn take_extension<T: ModuleExtension>(module: &mut crate::Module) -> Option<T> {
    crate::module::take_extension(module)
}

/// How many providers each `discover` call on `builder` found.
pub fn discovered(builder: &ContainerBuilder) -> &[usize] {
    &builder.discovered
}

/// Reads the settings of `builder` now (they are read once) and takes the unknown settings
/// that are warnings, for the app's warnings.
pub fn take_settings_warnings(
    builder: &mut ContainerBuilder,
) -> Vec<crate::settings::UnknownSetting> {
    builder.take_settings_warnings()
}

/// A build error of `problems` (those the core found and the layer's own), sorted.
pub fn build_error(problems: Vec<Problem>) -> BuildError {
    BuildError::from_problems(problems)
}

/// The value `at` if its provider is built.
pub fn value(container: &Container, at: AppValue) -> Option<&AnyValue> {
    container.inner.value(at)
}

/// The value `at` if its provider is built; `Err(Closed)` once the container is closed.
pub fn try_value(container: &Container, at: AppValue) -> Result<Option<&AnyValue>, ProvideError> {
    container.inner.try_value(at)
}

/// Builds the provider of `at` (and what it needs), or joins the build under way.
pub fn build(
    container: &Container,
    at: AppValue,
) -> impl Future<Output = Result<(), ProvideError>> + Send + 'static {
    container.inner.ensure(at.provider())
}

/// Builds now the providers of `values` and what they need, independent ones concurrently; on
/// failure, disposes what was built and closes the container.
pub fn build_now(
    container: &Container,
    values: &[AppValue],
) -> impl Future<Output = Result<(), ProvideError>> + Send + 'static {
    let inner = Arc::clone(&container.inner);
    let roots: Vec<_> = values.iter().map(|v| v.provider()).collect();
    async move { inner.build_now(roots).await }
}

/// A request's view of a step's or handler's needs: `sources` read from the app's providers
/// (which must be built) or from `locals`, the request's own values.
pub fn needs<'a>(
    container: &'a Container,
    specs: &'a [KeySpec],
    sources: &'a [Source],
    locals: &'a [AnyValue],
) -> Needs<'a> {
    Needs::of_request(specs, sources, locals, &container.inner.slots)
}

/// The value `source` names: a provider's (if built) or one of the request's `locals`.
#[inline]
pub fn source_value<'a>(
    container: &'a Container,
    locals: &'a [AnyValue],
    source: Source,
) -> Option<&'a AnyValue> {
    crate::value::source_value(&container.inner.slots, locals, source)
}

/// `value` as a list of `T`, if it is a collection of `T`.
#[inline]
pub fn all<T: Send + Sync + 'static>(value: &AnyValue) -> Option<crate::All<'_, T>> {
    crate::value::Members::all(value)
}

/// `value` as a map of `T` by name, if it is a collection of `T`.
#[inline]
pub fn by_name<T: Send + Sync + 'static>(value: &AnyValue) -> Option<crate::ByName<'_, T>> {
    crate::value::Members::by_name(value)
}

/// Checks that `provided` holds one value per spec, of its type.
#[inline]
pub fn check_provided(provided: &Provided, specs: &[KeySpec]) -> Result<(), String> {
    provided.check_against(specs)
}

/// Hands `provided`'s values, in order, to `push`.
#[inline]
pub fn append_provided(provided: Provided, push: impl FnMut(AnyValue)) {
    provided.append_to(push)
}

/// What the provider values `roots` need, in build order; `target` names it.
pub fn explain_values(container: &Container, target: String, roots: &[AppValue]) -> Explain {
    container.explain_values(target, roots)
}

/// The problem with a health setting (`setting`, written at `location`) that names `key`:
/// nothing in `builder` provides it (GT0009, with the closest key), or, for a health check
/// of type `expected`, it is provided with another type.
pub fn health_key_problem(
    builder: &ContainerBuilder,
    key: &Key,
    expected: Option<TypeInfo>,
    setting: String,
    location: Location,
) -> Option<Problem> {
    // Overrides replace keys that something else provides; they add none. A module's keys are
    // named as the graph names them (`billing::breaker`).
    let provided: Vec<(KeySpec, Location)> = builder
        .entries
        .iter()
        .filter(|e| e.kind != NodeKind::Override)
        .flat_map(|e| {
            let location = e.registered.descriptor.location;
            let path = e.module.map(|m| &*builder.module_table[m as usize].path);
            e.registered.descriptor.provides.iter().map(move |s| {
                let mut spec = s.clone();
                spec.key = crate::graph::qualified_key(path, &s.key);
                (spec, location)
            })
        })
        .collect();
    let problem = |found, suggestion| Problem::HealthKey {
        key: key.clone(),
        setting: setting.clone(),
        location,
        found,
        expected,
        suggestion,
    };
    match provided.iter().find(|(s, _)| s.key == *key) {
        Some((spec, _)) => match expected {
            Some(expected) if spec.ty != expected => Some(problem(Some(spec.ty), None)),
            _ => None,
        },
        None => {
            let keys: Vec<&Key> = provided.iter().map(|(s, _)| &s.key).collect();
            let suggestion = crate::graph::closest_key(key, keys.iter().copied()).map(|near| {
                let location = provided
                    .iter()
                    .find(|(s, _)| s.key == *near)
                    .map(|(_, l)| *l)
                    .expect("the suggestion is one of the keys");
                Suggestion {
                    key: near.clone(),
                    location,
                }
            });
            Some(problem(None, suggestion))
        }
    }
}

/// Where `key`'s value lives, if something provides it.
pub fn locate(container: &Container, key: &str) -> Option<AppValue> {
    container.inner.locate(key).ok()
}

/// The picture model the HTTP layer draws a route with (its slice's picture, then its steps and
/// handler): DOT, Mermaid and SVG are its methods, `render_svg_stack` draws several one under
/// the other, and each kind's style is the page legend's too.
pub use crate::picture::{
    Edge as PictureEdge, Kind as PictureKind, Node as PictureNode, Picture, Style as PictureStyle,
    render_stack as render_svg_stack,
};

/// Text safe inside an XML element or a quoted attribute, as the SVG writes it: the HTTP layer's
/// explain page escapes its own text with it.
pub use crate::picture::escape as xml_escape;

/// The key of the value `at` (qualified, for a module's key).
pub fn value_key(container: &Container, at: AppValue) -> &Key {
    &container.inner.spec(at).key
}

/// Every registered module's path, parents before their sub-modules.
pub fn module_paths(container: &Container) -> impl Iterator<Item = &Arc<str>> {
    // Not a module a test's `override_module` emptied: its replacement stands for it.
    container
        .inner
        .modules
        .iter()
        .filter(|m| !m.replaced)
        .map(|m| &m.path)
}

/// The path of the registered module whose key `key` is (`billing` for `billing::client`).
pub fn module_of_key(container: &Container, key: &str) -> Option<Arc<str>> {
    let modules = &container.inner.modules;
    crate::explain::module_of_key(modules, key).map(|m| Arc::clone(&modules[m].path))
}

/// The picture of `explain`'s slice, its boxes' ids `{prefix}{position}`, for a route's picture
/// to add its steps and handler to.
pub fn explain_picture(explain: &Explain, prefix: &str) -> Picture {
    explain.picture(prefix)
}

/// The picture of a worker's explain (its providers, then the worker), for the explain page.
pub fn worker_picture(worker: &crate::explain::ExplainWorker) -> Picture {
    worker.picture()
}

/// The providers the container's workers need, for `start()` to build with the routes'.
pub fn worker_roots(container: &Container) -> Vec<AppValue> {
    container.inner.workers.roots().collect()
}

/// Stops the container's workers (signal, then each waits up to the stop timeout) and
/// returns what went wrong in their lives; the first caller gets the failures.
pub async fn stop_workers(container: &Container) -> Vec<crate::CloseFailure> {
    container.inner.workers.stop().await
}
