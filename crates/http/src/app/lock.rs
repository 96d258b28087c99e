//! The app's lockfile: the container's blocks with the app's steps and routes, over every shape;
//! and [`assert_graph_lock`], the test that keeps the file and the app in step.

use std::path::Path;

use green_tea_core::__private::layer;
use green_tea_core::lock::{GraphLock, LockDiff, LockItem};

use super::App;

/// The variable that makes [`assert_graph_lock`] write the file rather than compare it.
pub const LOCK_ENV: &str = "GREEN_TEA_LOCK";

impl App {
    /// The app's shape as its lockfile's blocks, over every shape its switches allow: each
    /// route (with the providers and steps it may build, and its needs), step, declaration,
    /// worker, settings variable (never a value) and switch. Nothing is built and nothing
    /// depends on today's settings; see the lockfile guide and [`assert_graph_lock`].
    pub fn graph_lock(&self) -> GraphLock {
        let runtime = &self.inner.runtime();
        let container = &runtime.container;
        let graph = layer::lock::graph(container);
        let mut items = layer::lock::items(container);
        // By position, as the graph numbers them.
        let steps: Vec<_> = runtime.steps.iter().collect();
        let runs: Vec<_> = runtime.routes.iter().collect();
        let step_name = |at: usize| {
            let step = steps[at];
            qualified(step.module.as_deref(), &step.descriptor.name)
        };
        for (at, step) in steps.iter().enumerate() {
            if step.from_connection {
                // green-tea's own: the client's address, from the connection.
                continue;
            }
            let d = &step.descriptor;
            let mut item = LockItem::new("step", step_name(at));
            if let Some(module) = &step.module {
                item.attr("module", &**module);
            }
            for spec in &d.provides {
                item.attr(
                    "provides",
                    format!("{}: {}", spec.key, spec.ty.short_name()),
                );
            }
            for need in &d.needs {
                item.attr("needs", need.key.as_str());
            }
            item.flag("finishes", !step.finishing.is_empty());
            for term in graph.when(Some(at), None) {
                item.attr("when", term);
            }
            items.push(item);
        }
        for (at, route) in self.inner.routes.iter().enumerate() {
            let run = runs[at];
            let id = format!("{} {}", route.method, route.template);
            let mut item = LockItem::new("route", &id);
            if *route.name != *id {
                item.attr("name", &*route.name);
            }
            if let Some(module) = &route.module {
                item.attr("module", &**module);
            }
            for need in &run.descriptor.needs {
                item.attr("needs", need.key.as_str());
            }
            let (builds, reached) = graph.reaches(None, Some(at));
            let mut runs: Vec<String> = reached
                .into_iter()
                .filter(|&s| !steps[s].from_connection)
                .map(step_name)
                .collect();
            runs.sort_unstable();
            for step in runs {
                item.attr("steps", step);
            }
            for key in builds {
                item.attr("builds", key);
            }
            for term in graph.when(None, Some(at)) {
                item.attr("when", term);
            }
            items.push(item);
        }
        GraphLock::new(items)
    }
}

/// `module::name`, or `name` outside a module.
fn qualified(module: Option<&str>, name: &str) -> String {
    match module {
        Some(module) => format!("{module}::{name}"),
        None => name.to_owned(),
    }
}

/// Checks that `app`'s shape is the one the lockfile at `path` records (relative to the
/// package's root, where `cargo test` runs a test), and panics with what changed, in
/// sentences grouped by cause, when it is not. With `GREEN_TEA_LOCK=overwrite` it writes the
/// file instead (the first time, and to accept a change), except under CI (`CI` set), where
/// the file is only ever compared.
///
/// ```no_run
/// # fn app() -> green_tea::App { green_tea::App::builder().build().unwrap() }
/// #[test]
/// fn the_app_s_shape_is_the_locked_one() {
///     green_tea::test::assert_graph_lock(&app(), "green-tea.lock");
/// }
/// ```
#[track_caller]
pub fn assert_graph_lock(app: &App, path: impl AsRef<Path>) {
    if let Err(failure) = check_graph_lock(app, path.as_ref()) {
        panic!("{failure}");
    }
}

/// What [`assert_graph_lock`] does, with its failure as a value.
fn check_graph_lock(app: &App, path: &Path) -> Result<(), String> {
    let lock = app.graph_lock();
    let text = lock.to_text();
    let overwrite = std::env::var(LOCK_ENV).is_ok_and(|v| v == "overwrite");
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
    let written = std::fs::read_to_string(path);
    let accept = format!(
        "to accept it, run the test again with {LOCK_ENV}=overwrite and commit {}",
        path.display()
    );
    if overwrite && ci {
        return Err(format!(
            "{LOCK_ENV}=overwrite is ignored under CI (`CI` is set): the lockfile {} is only \
             compared there",
            path.display()
        ));
    }
    if overwrite {
        if written.as_deref().ok() != Some(text.as_str()) {
            std::fs::write(path, &text)
                .map_err(|e| format!("could not write the lockfile {}: {e}", path.display()))?;
        }
        return Ok(());
    }
    let written = match written {
        Ok(written) => written,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "there is no lockfile at {} yet: run the test with {LOCK_ENV}=overwrite to \
                 write it, and commit it",
                path.display()
            ));
        }
        Err(e) => {
            return Err(format!(
                "could not read the lockfile {}: {e}",
                path.display()
            ));
        }
    };
    if written == text {
        return Ok(());
    }
    let recorded = GraphLock::parse(&written).map_err(|e| {
        format!(
            "the lockfile {} does not read: {e}; {accept}",
            path.display()
        )
    })?;
    let diff: LockDiff = recorded.diff(&lock);
    if diff.is_empty() {
        return Err(format!(
            "the lockfile {} records this shape, written otherwise (by hand, or by another \
             version); {accept}",
            path.display()
        ));
    }
    Err(format!(
        "the app's shape is not the one {} records:\n\n{diff}\n{accept}",
        path.display()
    ))
}
