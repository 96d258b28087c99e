//! Modules across the layers: a module registered with the core, which the layer above
//! extends with its own part (steps, routes, a prefix), and the paths the graph knows them by.

use std::sync::Arc;

use crate::container::{Container, ContainerBuilder};
use crate::error::Problem;
use crate::key::Location;

pub use crate::module::{ModuleExtension, ModuleIndex};

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

/// Whether the module at `index` is on in today's shape (always, without switches): a module
/// that is off runs no shutdown hook.
pub fn module_on(container: &Container, index: ModuleIndex) -> bool {
    (container.inner.shape.as_ref())
        .is_none_or(|shape| !shape.modules_off.iter().any(|(m, _)| *m == index.0))
}

/// The path of the registered module whose key `key` is (`billing` for `billing::client`).
pub fn module_of_key(container: &Container, key: &str) -> Option<Arc<str>> {
    let modules = &container.inner.modules;
    crate::explain::module_of_key(modules, key).map(|m| Arc::clone(&modules[m].path))
}
