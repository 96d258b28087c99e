//! `explain(path)`: for each method at a path, the handler, its steps in run order and its
//! providers in build order; as text and JSON here, as a picture (DOT, Mermaid, SVG) in
//! `picture.rs`, as a page in `html.rs`. Optional needs, collections, decorators and modules
//! show as the core's explain shows them: what a module registered (a provider, a step, a
//! route) inside a box of the module.

mod html;
mod picture;

use std::fmt;

use serde::Serialize;

use green_tea_core::__private::layer::explain::in_module;
use green_tea_core::{Explain, ExplainModule, ExplainWorker};

/// Everything served at one path template.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainPath {
    /// The path asked about.
    pub path: String,
    /// The template it matched, such as `/orders/{id}`.
    pub template: String,
    /// One entry per method.
    pub routes: Vec<ExplainRoute>,
}

/// One route's chain.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainRoute {
    /// `GET`, `POST`...
    pub method: String,
    /// The path template.
    pub template: String,
    /// The handler's name.
    pub handler: String,
    /// Where the route was declared.
    pub location: String,
    /// The keys the handler needs.
    pub needs: Vec<String>,
    /// The handler's optional needs that nothing provides (each also in `needs`): it reads
    /// them as `None`.
    pub absent: Vec<String>,
    /// Of `absent`, those whose key is off in this shape (switches), each with where it is on
    /// (``when `cacheOn` = true``); left out of the JSON when none is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub off: Vec<(String, String)>,
    /// Where each of `needs` comes from, in the same order.
    pub from: Vec<NeedSource>,
    /// The tower layers a request to this route meets, outermost first: the app's (marked
    /// `(app)`), then the route's own.
    pub layers: Vec<String>,
    /// The request-scoped steps, in run order.
    pub steps: Vec<ExplainStep>,
    /// The providers the route builds, in build order, with their state now.
    pub providers: Explain,
    /// The path of the module the route was registered in (`shop::orders`), or `None` for a
    /// route of the app itself.
    pub module: Option<String>,
}

/// A step in a route's chain.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainStep {
    /// The step's name.
    pub name: String,
    /// `key: Type` for each value it provides per request (none for a guard).
    pub provides: Vec<String>,
    /// The keys it needs.
    pub needs: Vec<String>,
    /// Its optional needs that nothing provides (each also in `needs`): it reads them as
    /// `None`.
    pub absent: Vec<String>,
    /// Of `absent`, those whose key is off in this shape (switches), each with where it is on
    /// (``when `cacheOn` = true``); left out of the JSON when none is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub off: Vec<(String, String)>,
    /// Where each of `needs` comes from, in the same order.
    pub from: Vec<NeedSource>,
    /// Where it was declared.
    pub location: String,
    /// The path of the module it was registered in, or `None` for a step of the app itself;
    /// the keys it provides are qualified by it (`orders::user`).
    pub module: Option<String>,
    /// Whether its values finish with the request (`#[step(..., finish)]`): their `Finish`
    /// hook runs after the handler with the request's outcome, the last-run step first,
    /// before the answer is returned.
    pub finishes: bool,
}

/// Where a step's or a handler's need comes from, as the route's plan reads it. In JSON,
/// `{"provider": 3}`, `{"step": 0}` or `"absent"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NeedSource {
    /// The node at this position in the route's providers.
    Provider(usize),
    /// The step at this position in the route's steps.
    Step(usize),
    /// An optional need that nothing provides.
    Absent,
}

/// The whole app: every path, sorted, every worker, and every module.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainApp {
    /// Every path template with its routes.
    pub paths: Vec<ExplainPath>,
    /// Every worker, in registration order, as
    /// [`App::explain_worker`](crate::App::explain_worker) explains it.
    pub workers: Vec<ExplainWorker>,
    /// Every registered module, parents before their sub-modules, as
    /// [`App::explain_module`](crate::App::explain_module) explains it.
    pub modules: Vec<ExplainModule>,
    /// Every settings type's fields, values (`***` for a secret) and sources; on the explain
    /// page too.
    pub settings: green_tea_core::settings::SettingsReport,
    /// Every switch with its outcome and where it came from, and what this shape leaves out
    /// (left out of the JSON for an app without switches); on the explain page and at the end
    /// of the text too.
    #[serde(skip_serializing_if = "green_tea_core::ExplainSwitches::is_empty")]
    pub switches: green_tea_core::ExplainSwitches,
    /// Where the start spent its time, once it has run ([`App::startup`](crate::App::startup)):
    /// the critical path and each build; at the end of the text and on the explain page (left
    /// out of the JSON before a start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup: Option<green_tea_core::StartupReport>,
    /// The generation serving, the last reload's failure, and what a change of each field
    /// marked `reload` builds anew; at the end of the text and on the explain page (left out
    /// of the JSON for an app that has never reloaded and has no such field).
    #[serde(skip_serializing_if = "ExplainReloads::is_empty")]
    pub reload: ExplainReloads,
}

/// What [`App::reload`](crate::App::reload) has done and would do: the generation serving,
/// the last reload's failure (while it is the last), and, for each field marked `reload`, what
/// a change of it builds anew ([`App::explain_reload`](crate::App::explain_reload)).
#[derive(Clone, Debug, Default, Serialize)]
#[non_exhaustive]
pub struct ExplainReloads {
    /// The generation serving: 0 until a reload takes effect.
    pub generation: u64,
    /// What the last reload said, if it changed nothing for a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<String>,
    /// Each field marked `reload`, in registration order.
    pub settings: Vec<ExplainAppReload>,
}

impl ExplainReloads {
    /// Whether there is nothing to say: never reloaded, no field that may.
    pub fn is_empty(&self) -> bool {
        self.generation == 0 && self.last_failure.is_none() && self.settings.is_empty()
    }
}

impl fmt::Display for ExplainReloads {
    /// ```text
    /// reload: generation 1 serves
    ///   the last reload failed: error[GT0109]: ...
    ///
    /// `BILLING_TIMEOUT` (`billingSettings.timeout`): reloadable
    ///   a change builds anew: `BillingSettings` → `billing`
    ///   ...
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reload: generation {} serves", self.generation)?;
        if let Some(failure) = &self.last_failure {
            let indented = failure.replace('\n', "\n    ");
            write!(f, "\n  the last reload failed: {indented}")?;
        }
        for setting in &self.settings {
            write!(f, "\n\n{setting}")?;
        }
        Ok(())
    }
}

/// What a change of one setting touches in the app, as
/// [`App::explain_reload`](crate::App::explain_reload) says: the container's answer
/// ([`ExplainReload`](green_tea_core::ExplainReload): reloadable or not, the providers a change
/// builds anew, the workers that need them) and the routes whose requests use them.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainAppReload {
    /// The container's answer.
    #[serde(flatten)]
    pub reload: green_tea_core::ExplainReload,
    /// The routes whose slice holds a provider a change builds anew, by name
    /// (`POST /orders -> Orders::create`), in registration order.
    pub routes: Vec<String>,
}

impl ExplainAppReload {
    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the explain model is plain data")
    }
}

impl fmt::Display for ExplainAppReload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reload)?;
        let routes: Vec<String> = self.routes.iter().map(|r| format!("`{r}`")).collect();
        match routes.is_empty() {
            true => f.write_str("\n  routes that use them: none"),
            false => write!(f, "\n  routes that use them: {}", routes.join(", ")),
        }
    }
}

/// GT0104: `explain` was asked about a path no route serves.
#[derive(Clone, thiserror::Error)]
#[error("{}", no_route_text(.path, .routes))]
#[non_exhaustive]
pub struct NoRoute {
    /// The path asked about.
    pub path: String,
    /// The route templates there are, closest first.
    pub routes: Vec<String>,
}

/// As `Display`, so that `?` in a `main` that returns a `Result` prints the message.
impl fmt::Debug for NoRoute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl NoRoute {
    /// The error code, `"GT0104"`, with a page `docs/errors/GT0104.md`.
    pub fn code(&self) -> &'static str {
        "GT0104"
    }
}

fn no_route_text(path: &str, routes: &[String]) -> String {
    if routes.is_empty() {
        return format!(
            "error[GT0104]: no route matches `{path}`: the app has no routes at all (was nothing registered? \
             `discover()` finds declarations only in crates the binary names; see \
             `App::warnings`)"
        );
    }
    format!(
        "error[GT0104]: no route matches `{path}`; routes: {}",
        routes.join(", ")
    )
}

impl ExplainPath {
    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the explain model is plain data")
    }
}

/// ` (finishes)` after the name of a step whose values finish with the request.
pub(crate) fn finishes_mark(step: &ExplainStep) -> &'static str {
    if step.finishes { " (finishes)" } else { "" }
}

/// `needs`, with `(absent)` after each of `absent`, or why it is off in this shape.
fn needs_text(needs: &[String], absent: &[String], off: &[(String, String)]) -> String {
    let needs: Vec<String> = needs
        .iter()
        .map(|n| {
            if let Some((_, on)) = off.iter().find(|(k, _)| k == n) {
                format!("{n} (off: on {on})")
            } else if absent.contains(n) {
                format!("{n} (absent)")
            } else {
                n.clone()
            }
        })
        .collect();
    needs.join(", ")
}

impl fmt::Display for ExplainPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path)?;
        if self.template != self.path {
            write!(f, " (route {})", self.template)?;
        }
        for route in &self.routes {
            write!(f, "\n\n{route}")?;
        }
        Ok(())
    }
}

impl fmt::Display for ExplainRoute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = format!("{} {}", self.method, self.template);
        if self.handler == head {
            write!(f, "{head} ({})", self.location)?;
        } else {
            write!(f, "{head} -> {} ({})", self.handler, self.location)?;
        }
        f.write_str(&in_module(self.module.as_deref()))?;
        if !self.needs.is_empty() {
            write!(
                f,
                "\n  needs: {}",
                needs_text(&self.needs, &self.absent, &self.off)
            )?;
        }
        if !self.layers.is_empty() {
            write!(f, "\n  layers, outermost first: {}", self.layers.join(", "))?;
        }
        if self.steps.is_empty() {
            f.write_str("\n  steps: none")?;
        } else {
            f.write_str("\n  steps, in run order (request scope, every request):")?;
            for (i, step) in self.steps.iter().enumerate() {
                let provides = if step.provides.is_empty() {
                    "guard".to_owned()
                } else {
                    step.provides.join(", ")
                };
                write!(
                    f,
                    "\n    {}. {}{} -> {provides}",
                    i + 1,
                    step.name,
                    finishes_mark(step)
                )?;
                if !step.needs.is_empty() {
                    write!(
                        f,
                        "  <- needs {}",
                        needs_text(&step.needs, &step.absent, &step.off)
                    )?;
                }
                write!(
                    f,
                    "\n      {} at {}",
                    in_module(step.module.as_deref()),
                    step.location
                )?;
            }
        }
        if self.providers.nodes.is_empty() {
            f.write_str("\n  providers: none")
        } else {
            f.write_str("\n  providers, in build order (app scope, built once):")?;
            let text = self.providers.to_string();
            // The core's text, minus its heading, indented under this route.
            for line in text.lines().skip(1) {
                write!(f, "\n  {line}")?;
            }
            Ok(())
        }
    }
}

impl ExplainApp {
    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the explain model is plain data")
    }
}

impl fmt::Display for ExplainApp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, path) in self.paths.iter().enumerate() {
            if i > 0 {
                f.write_str("\n\n")?;
            }
            write!(f, "{path}")?;
        }
        let mut first = self.paths.is_empty();
        for worker in &self.workers {
            if !std::mem::take(&mut first) {
                f.write_str("\n\n")?;
            }
            write!(f, "{worker}")?;
        }
        for module in &self.modules {
            if !std::mem::take(&mut first) {
                f.write_str("\n\n")?;
            }
            write!(f, "{module}")?;
        }
        if !self.switches.is_empty() {
            if !first {
                f.write_str("\n\n")?;
            }
            write!(f, "{}", self.switches)?;
            first = false;
        }
        if let Some(startup) = &self.startup {
            if !std::mem::take(&mut first) {
                f.write_str("\n\n")?;
            }
            write!(f, "the start:\n{startup}")?;
        }
        if !self.reload.is_empty() {
            if !first {
                f.write_str("\n\n")?;
            }
            write!(f, "{}", self.reload)?;
        }
        Ok(())
    }
}
