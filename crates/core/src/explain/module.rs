//! `explain_module(path)`: one module as data: where it was made, its sub-modules, the keys it
//! exports and keeps private, what it needs from outside (and who provides it), and its
//! declarations and workers (for an app, its steps and routes too).

use std::fmt;

use serde::Serialize;

use crate::container::Container;
use crate::error::NodeKind;
use crate::graph::closest;
use crate::module::{RegisteredModule, relative_to};

/// One module: see [`Container::explain_module`]. `Display` is the text form; it is also
/// `serde::Serialize` (JSON). Every key in it is qualified (`shop::orders::db`).
///
/// ```
/// use green_tea::{Container, Module, ProviderFn};
/// let container = Container::builder()
///     .value("db", String::from("the app's db"))
///     .module(
///         Module::new("orders")
///             .value("name", String::from("orders"))
///             .provider(ProviderFn::new("report", |needs| async move {
///                 Ok(format!("{} over {}", needs.get::<String>(0)?, needs.get::<String>(1)?))
///             }).needs::<String>("name").needs::<String>("db"))
///             .export("report"),
///     )
///     .build()
///     .unwrap();
/// let orders = container.explain_module("orders").unwrap();
/// assert_eq!(orders.exports, ["orders::report"]);
/// assert_eq!(orders.private, ["orders::name"]);
/// assert_eq!(orders.imports[0].key, "db");
/// assert_eq!(orders.imports[0].from, None); // the app's own key
/// let err = container.explain_module("ordrs").unwrap_err();
/// assert_eq!(err.suggestion.as_deref(), Some("orders"));
/// ```
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainModule {
    /// Its path from the app's root: `orders`, or `shop::orders` for a sub-module.
    pub path: String,
    /// Where it was made (`Module::new`), `file:line`.
    pub location: String,
    /// The module it is a sub-module of, if any.
    pub parent: Option<String>,
    /// Its sub-modules' paths, in registration order.
    pub modules: Vec<String>,
    /// The keys it exports, qualified (`orders::report`, `shop::sms::gateway` for a
    /// sub-module's export exported again), in the order it exports them.
    pub exports: Vec<String>,
    /// The keys its own declarations provide that it does not export, sorted: no declaration
    /// outside it can need them.
    pub private: Vec<String>,
    /// What its declarations, steps, routes and workers need from outside it (the app's root,
    /// another module, or one of its sub-modules), sorted by key.
    pub imports: Vec<ExplainImport>,
    /// Its own providers, values and decorators (not its sub-modules'), in registration order.
    pub declarations: Vec<ExplainMember>,
    /// Its steps (an app's module; empty for a container's).
    pub steps: Vec<ExplainMember>,
    /// Its routes (an app's module; empty for a container's).
    pub routes: Vec<ExplainMember>,
    /// Its own workers (not its sub-modules'), in registration order; their names are
    /// unqualified (`relay` in `orders`), and they provide nothing.
    pub workers: Vec<ExplainMember>,
    /// With switches: where the module is on, when it is off in this shape (``when
    /// `gateway` = stripe``); left out of the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub off: Option<String>,
    /// With switches: its own declarations and workers that this shape leaves out, each with
    /// where it is on (not in the lists above); left out of the JSON when none is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub switched_off: Vec<super::ExplainOff>,
}

/// A key a module's declarations need from outside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ExplainImport {
    /// The key of the value they get, qualified (`db`, `billing::client`, `notifiers[]`).
    pub key: String,
    /// The module that provides it; `None` for the app's root (a collection, which is the
    /// app's, included).
    pub from: Option<String>,
    /// Who in the module needs it (`` provider `report` ``, `` step `user` ``, a route,
    /// `` worker `relay` ``).
    pub needed_by: Vec<String>,
}

/// A declaration, step or route of a module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ExplainMember {
    /// Provider, value, decorator, step, route or worker.
    pub kind: NodeKind,
    /// Its name (a route's is its title, `GET /orders -> Orders::list`).
    pub name: String,
    /// Where it was declared, `file:line`.
    pub location: String,
    /// The keys it provides, qualified.
    pub provides: Vec<String>,
    /// A step whose values finish with the request (a unit of work's commit or rollback):
    /// ` (finishes)` after its name in the text.
    pub finishes: bool,
}

impl ExplainMember {
    /// What it is and its name: `` provider `report` ``, `` value `name` ``, `` step `user` ``,
    /// `` worker `relay` ``, or a route's title.
    pub fn who(&self) -> String {
        match self.kind {
            NodeKind::Value | NodeKind::Route => self.name.clone(),
            kind => format!("{kind} `{}`", self.name),
        }
    }
}

/// A step or a route of a module, for [`explain_module_with`]: what the layer above knows.
#[derive(Clone, Debug)]
pub struct RequestMember {
    /// Step or route.
    pub kind: NodeKind,
    /// Its name (a route's title).
    pub name: String,
    /// Where it was declared.
    pub location: String,
    /// The keys it provides, qualified.
    pub provides: Vec<String>,
    /// The keys of the values its needs resolved to, qualified (nothing for an absent one).
    pub needs: Vec<String>,
    /// A step whose values finish with the request; `false` for a route.
    pub finishes: bool,
}

/// GT0104: `explain_module` was asked about a path no registered module has.
#[derive(Clone, thiserror::Error)]
#[error("{}", unknown_module_text(.path, .suggestion, .modules))]
#[non_exhaustive]
pub struct UnknownModule {
    /// The path asked about.
    pub path: String,
    /// The closest registered module path, if one is close.
    pub suggestion: Option<String>,
    /// Every registered module's path, parents before their sub-modules.
    pub modules: Vec<String>,
}

/// As `Display`, so that `?` in a `main` that returns a `Result` prints the message.
impl fmt::Debug for UnknownModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl UnknownModule {
    /// The error code, `"GT0104"`, with a page `docs/errors/GT0104.md`.
    pub fn code(&self) -> &'static str {
        "GT0104"
    }
}

fn unknown_module_text(path: &str, suggestion: &Option<String>, modules: &[String]) -> String {
    if modules.is_empty() {
        return format!(
            "error[GT0104]: no module `{path}`: nothing registers a module (`.module(..)`)"
        );
    }
    let mut text = format!("error[GT0104]: no module `{path}`");
    match suggestion {
        Some(near) => text.push_str(&format!("; did you mean `{near}`? ")),
        None => text.push_str("; "),
    }
    text.push_str(&format!("modules: {}", modules.join(", ")));
    text
}

/// The registered module whose key `key` is (`shop::orders` for `shop::orders::db`): the
/// longest path that starts it. `None` for the app's root keys and its collections.
pub(crate) fn module_of_key(modules: &[RegisteredModule], key: &str) -> Option<usize> {
    modules
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.replaced && relative_to(key, &m.path).is_some())
        .max_by_key(|(_, m)| m.path.len())
        .map(|(i, _)| i)
}

impl Container {
    /// The module at `path` (`orders`, `shop::orders` for a sub-module): its exports, its
    /// private keys, what its declarations and workers need from outside it and who provides
    /// that, its sub-modules, declarations and workers. Builds nothing. A path no module has is an error naming
    /// the closest one.
    pub fn explain_module(&self, path: &str) -> Result<ExplainModule, UnknownModule> {
        explain_module_with(self, path, Vec::new())
    }
}

/// [`Container::explain_module`], with the module's steps and routes that the layer above
/// knows (`members`: each one the module's, with what its needs resolved to).
pub fn explain_module_with(
    container: &Container,
    path: &str,
    members: Vec<RequestMember>,
) -> Result<ExplainModule, UnknownModule> {
    let inner = &container.inner;
    let modules = &inner.modules;
    // A module a test's `override_module` emptied is not there any more: its replacement is.
    let live = || modules.iter().filter(|m| !m.replaced);
    let Some(at) = modules.iter().position(|m| !m.replaced && &*m.path == path) else {
        let best = closest(path, live().map(|m| &m.path), |p| &**p);
        return Err(UnknownModule {
            path: path.to_owned(),
            suggestion: best.map(|p| p.to_string()),
            modules: live().map(|m| m.path.to_string()).collect(),
        });
    };
    let scope = &modules[at];
    let mut explain = ExplainModule {
        path: path.to_owned(),
        location: scope.location.to_string(),
        parent: scope.parent.map(|p| modules[p].path.to_string()),
        modules: modules
            .iter()
            .filter(|m| m.parent == Some(at))
            .map(|m| m.path.to_string())
            .collect(),
        exports: scope
            .exports
            .iter()
            .map(|(k, _)| green_tea_key::join(path, k.as_str()))
            .collect(),
        private: Vec::new(),
        imports: Vec::new(),
        declarations: Vec::new(),
        steps: Vec::new(),
        routes: Vec::new(),
        workers: Vec::new(),
        off: None,
        switched_off: Vec::new(),
    };
    let in_module = u32::try_from(at).ok();
    if let Some(shape) = &inner.shape {
        explain.off = shape
            .modules_off
            .iter()
            .find(|(m, _)| *m as usize == at)
            .map(|(_, on)| on.clone());
        explain.switched_off = (shape.off.iter())
            .filter(|o| o.module == in_module)
            .map(super::switches::explain_off)
            .collect();
    }
    for (id, node) in inner.providers.iter_enumerated() {
        // What is off today is not the module's today (`explain_switches` lists it).
        if node.module != in_module || !inner.is_on(id) {
            continue;
        }
        let d = &node.descriptor;
        let member = ExplainMember {
            kind: node.kind,
            name: d.name.to_string(),
            location: d.location.to_string(),
            provides: d.provides.iter().map(|s| s.key.to_string()).collect(),
            finishes: false,
        };
        let needs = inner.needs[id]
            .iter()
            .flatten()
            .map(|&v| inner.spec(v).key.to_string());
        explain.add(modules, at, member, needs);
    }
    for node in inner.workers.nodes.iter() {
        if node.module != in_module {
            continue;
        }
        let d = &node.registered.descriptor;
        let member = ExplainMember {
            kind: NodeKind::Worker,
            name: d.name.to_string(),
            location: d.location.to_string(),
            provides: Vec::new(),
            finishes: false,
        };
        let needs = node
            .needs
            .iter()
            .flatten()
            .map(|&v| inner.spec(v).key.to_string());
        explain.add(modules, at, member, needs);
    }
    for member in members {
        let RequestMember {
            kind,
            name,
            location,
            provides,
            needs,
            finishes,
        } = member;
        let member = ExplainMember {
            kind,
            name,
            location,
            provides,
            finishes,
        };
        explain.add(modules, at, member, needs.into_iter());
    }
    explain.private.sort();
    explain.private.dedup();
    explain.imports.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(explain)
}

impl ExplainModule {
    /// Adds `member` (of the module at `at`) and the keys it `needs`.
    fn add(
        &mut self,
        modules: &[RegisteredModule],
        at: usize,
        member: ExplainMember,
        needs: impl Iterator<Item = String>,
    ) {
        let own = |key: &str| relative_to(key, &self.path).is_some();
        let private: Vec<String> = member
            .provides
            .iter()
            .filter(|k| own(k) && !self.exports.contains(k))
            .cloned()
            .collect();
        self.private.extend(private);
        let who = member.who();
        for key in needs {
            let from = module_of_key(modules, &key);
            if from == Some(at) {
                continue;
            }
            match self.imports.iter_mut().find(|i| i.key == key) {
                Some(import) if import.needed_by.contains(&who) => {}
                Some(import) => import.needed_by.push(who.clone()),
                None => self.imports.push(ExplainImport {
                    key,
                    from: from.map(|m| modules[m].path.to_string()),
                    needed_by: vec![who.clone()],
                }),
            }
        }
        match member.kind {
            NodeKind::Step => self.steps.push(member),
            NodeKind::Route => self.routes.push(member),
            NodeKind::Worker => self.workers.push(member),
            _ => self.declarations.push(member),
        }
    }

    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the explain model is plain data")
    }
}

/// `a, b` or `none`.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

impl fmt::Display for ExplainModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "module `{}` ({})", self.path, self.location)?;
        if let Some(parent) = &self.parent {
            write!(f, ", inside `{parent}`")?;
        }
        write!(f, "\n  exports: {}", list(&self.exports))?;
        write!(f, "\n  private: {}", list(&self.private))?;
        if self.imports.is_empty() {
            f.write_str("\n  imports: none")?;
        } else {
            f.write_str("\n  imports:")?;
            for import in &self.imports {
                let from = match &import.from {
                    Some(module) => format!("module `{module}`"),
                    None => "the app".to_owned(),
                };
                write!(
                    f,
                    "\n    {}, from {from}, needed by {}",
                    import.key,
                    import.needed_by.join(", ")
                )?;
            }
        }
        if let Some(on) = &self.off {
            write!(f, "\n  off in this shape: on {on}")?;
        }
        let sections = [
            ("declarations", &self.declarations),
            ("steps", &self.steps),
            ("routes", &self.routes),
            ("workers", &self.workers),
        ];
        for (title, members) in sections {
            if members.is_empty() {
                continue;
            }
            write!(f, "\n  {title}:")?;
            for member in members {
                write!(f, "\n    {}", member.who())?;
                if member.finishes {
                    f.write_str(" (finishes)")?;
                }
                if !member.provides.is_empty() {
                    write!(f, " -> {}", member.provides.join(", "))?;
                }
                write!(f, " at {}", member.location)?;
            }
        }
        if !self.switched_off.is_empty() {
            f.write_str("\n  off in this shape:")?;
            for off in &self.switched_off {
                write!(f, "\n    {}: on {}", off.name, off.on)?;
            }
        }
        if !self.modules.is_empty() {
            write!(f, "\n  sub-modules: {}", self.modules.join(", "))?;
        }
        Ok(())
    }
}
