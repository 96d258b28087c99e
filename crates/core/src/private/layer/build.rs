//! Checking the whole app at `build()`: the layer's steps and routes with the core's
//! providers, each route's plan compiled; what discovery found and which Rust modules it
//! leaves to registered modules; the settings' warnings; and the problems the layer finds of
//! its own (a health setting's key), reported with the graph's in one `BuildError`.

use crate::container::ContainerBuilder;
use crate::error::{BuildError, NodeKind, Problem, Suggestion};
use crate::key::{Key, KeySpec, Location, TypeInfo};

pub use crate::provider::in_modules;
pub use crate::request_decls::{
    PlannedStep, RequestDecls, RoutePlan, Wired, WiredRoute, WiredStep,
};

/// Checks the providers of `builder` together with the steps and routes of `scope`, and
/// compiles each route's plan.
pub fn build_scope<S, R>(
    builder: ContainerBuilder,
    scope: RequestDecls<S, R>,
) -> Result<Wired<S, R>, BuildError> {
    let wired = builder.build_scope(scope)?;
    // Reloaded by the app, never by `Container::reload`.
    wired.container.inner.lineage.mark_app();
    Ok(wired)
}

/// How many providers each `discover` call on `builder` found.
pub fn discovered(builder: &ContainerBuilder) -> &[usize] {
    &builder.discovered
}

/// The Rust modules registered modules discover in: the app's own discovery leaves them out.
pub fn claimed(builder: &ContainerBuilder) -> Vec<&str> {
    builder
        .claimed
        .iter()
        .map(|(path, _)| path.as_str())
        .collect()
}

/// Reads the settings of `builder` now (they are read once) and takes the unknown settings
/// that are warnings, for the app's warnings.
pub fn take_settings_warnings(
    builder: &mut ContainerBuilder,
) -> Vec<crate::settings::UnknownSetting> {
    builder.take_settings_warnings()
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

/// A build error of `problems` (those the core found and the layer's own), sorted.
pub fn build_error(problems: Vec<Problem>) -> BuildError {
    BuildError::from_problems(problems)
}
