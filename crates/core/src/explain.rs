//! The explain model: a slice of the graph in build order, as data, rendered to text, JSON,
//! Graphviz DOT, Mermaid and SVG. Every rendering shows the graph's shapes the same way: an
//! optional need's edge dashed and an absent one from a box of its own, a collection's
//! contributions in order, a decorator over what it wraps, a module's declarations inside a box
//! of the module (nested for a sub-module): `picture.rs` turns a slice and a worker into the
//! picture model those three are drawn from. `module.rs` explains one module, `worker.rs` a
//! worker.

mod module;
mod picture;
mod reload;
mod switches;
mod worker;

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::container::Container;
use crate::error::{NodeKind, ProvideError};
use crate::graph::Scope;
use crate::ids::{AppValue, IdVec, ProviderId};
use crate::key::Spelling;
use crate::settings::ExplainSetting;

pub(crate) use module::module_of_key;
pub use module::{
    ExplainImport, ExplainMember, ExplainModule, RequestMember, UnknownModule, explain_module_with,
};
pub use reload::{ExplainReload, UnknownSettingName};
pub use switches::{ExplainOff, ExplainSwitch, ExplainSwitches};
pub use worker::{ExplainWorker, ExplainWorkerNeed, UnknownWorker};

/// What asking for something builds, in build order. `Display` is the text form; it is also
/// `serde::Serialize` (JSON) and renders to [DOT](Self::to_dot) and
/// [Mermaid](Self::to_mermaid).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use green_tea::{Container, ProviderFn};
/// let container = Container::builder()
///     .value("billingUrl", String::from("http://127.0.0.1:3001"))
///     .provider(ProviderFn::new("billingApi", |needs| async move {
///         Ok(needs.get::<String>(0)?.len())
///     }).needs::<String>("billingUrl"))
///     .build()
///     .unwrap();
/// let explain = container.explain_key("billingApi").unwrap();
/// assert_eq!(explain.nodes.len(), 2);
/// assert_eq!(explain.nodes[0].provides[0].key, "billingUrl"); // built first
/// assert!(!explain.nodes[1].built);
/// println!("{explain}");
/// # container.close().await.unwrap(); }
/// ```
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Explain {
    /// What was explained (a key, later a route).
    pub target: String,
    /// Every declaration the target needs, itself last, dependencies first.
    pub nodes: Vec<ExplainNode>,
    /// The positions in `nodes` of what was explained, in the order asked: for
    /// [`Container::explain_key`], the key's declaration (the last node); for a route, each
    /// provider value its steps and handler read, which its renderings draw their needs from.
    pub roots: Vec<usize>,
}

/// One declaration in an [`Explain`].
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainNode {
    /// Provider, value, override, decorator or collection.
    pub kind: NodeKind,
    /// The declaration's name.
    pub name: String,
    /// App (built once) or request (built per request).
    pub scope: Scope,
    /// The keys it provides, with their types.
    pub provides: Vec<ExplainKey>,
    /// The keys it needs, each with the position in `nodes` of what provides it. A
    /// collection's needs are its contributions, in its order (a list's in registration
    /// order, a map's by name); a decorator's need of the key it decorates is the value it
    /// wraps.
    pub needs: Vec<ExplainNeed>,
    /// Where it was declared, `file:line`. A collection, which no one declares, is placed
    /// where its element type was decided: its first consumer, or else its first
    /// contribution (the text names its contributions' places instead).
    pub location: String,
    /// Whether this declaration is a test override.
    pub overridden: bool,
    /// Whether its values are built now.
    pub built: bool,
    /// How long its last successful build took, in microseconds.
    pub build_micros: Option<u64>,
    /// For a decorator, the key it decorates (`billing`): it wraps the value its need of that
    /// key points at (the key's provider, or the decorator before it), and whatever needs the
    /// key gets the last decorator's value. `None` for every other kind.
    pub decorates: Option<String>,
    /// The path of the module it was registered in (`notifications`, or `shop::orders` for a
    /// sub-module), or `None` for a declaration of the app itself. The keys it provides are
    /// qualified by it (`notifications::http`); a renderer draws a box per module.
    pub module: Option<String>,
    /// For a settings type, each field's value (`***` for a secret) and where it came from
    /// (`default`, `config.toml:3`, `env BILLING_TIMEOUT`), as read at `build()`. `None` for
    /// every other kind (and then left out of the JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings: Option<Vec<ExplainSetting>>,
}

/// A provided key and its type.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainKey {
    /// The key.
    pub key: String,
    /// Its Rust type, without module paths.
    #[serde(rename = "type")]
    pub type_name: String,
}

/// A needed key and where in the slice it comes from.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainNeed {
    /// The key, as the consumer wrote it (`cache?` for an optional need, `notifiers[]` for a
    /// list).
    pub key: String,
    /// The position in [`Explain::nodes`] of its provider; `None` for an optional need that
    /// nothing provides (absent).
    pub from: Option<usize>,
    /// Whether it is an optional need (`cache?`), read as `None` when nothing provides it.
    pub optional: bool,
    /// For an absent optional need whose key is provided under some outcomes of the switches,
    /// where it is on (``when `cacheOn` = true``): absent because it is off in this shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub off: Option<String>,
}

impl ExplainNeed {
    /// Whether it is an optional need (`cache?`).
    pub fn is_optional(&self) -> bool {
        self.optional
    }

    /// The key with `(absent)` after an optional need that nothing provides, and why when it
    /// is off in this shape (`(off: on when `cacheOn` = true)`).
    pub(crate) fn label(&self) -> String {
        match (self.from, &self.off) {
            (Some(_), _) => self.key.clone(),
            (None, Some(on)) => format!("{} (off: on {on})", self.key),
            (None, None) => format!("{} (absent)", self.key),
        }
    }
}

impl Container {
    /// The slice of the graph that `key` needs, in build order, with what is built now.
    pub fn explain_key(&self, key: &str) -> Result<Explain, ProvideError> {
        let at = self.inner.locate(key)?;
        Ok(self.explain_providers(key.to_owned(), &[at.provider]))
    }

    /// The slice of the graph that the provider values `roots` need, in build order (what a
    /// route builds); `target` names it.
    pub(crate) fn explain_values(&self, target: String, roots: &[AppValue]) -> Explain {
        let providers: Vec<ProviderId> = roots.iter().map(|v| v.provider).collect();
        self.explain_providers(target, &providers)
    }

    fn explain_providers(&self, target: String, roots: &[ProviderId]) -> Explain {
        let inner = &self.inner;
        let slice = inner.slice_of(roots);
        let mut index_in_slice = IdVec::filled(0_usize, inner.providers.len());
        for (i, &id) in slice.iter().enumerate() {
            index_in_slice[id] = i;
        }
        let nodes = slice
            .iter()
            .map(|&id| {
                let node = &inner.providers[id];
                let d = &node.descriptor;
                ExplainNode {
                    kind: node.kind,
                    name: d.name.to_string(),
                    scope: Scope::App,
                    provides: (node.descriptor.provides.iter())
                        .zip(node.short_type_names())
                        .map(|(spec, type_name)| ExplainKey {
                            key: spec.key.to_string(),
                            type_name: type_name.clone(),
                        })
                        .collect(),
                    needs: d
                        .needs
                        .iter()
                        .zip(inner.needs[id].iter())
                        .map(|(spec, at)| ExplainNeed {
                            key: spec.key.to_string(),
                            from: at.map(|at| index_in_slice[at.provider]),
                            optional: matches!(spec.key.spelling(), Ok(Spelling::Optional(_))),
                            off: match at {
                                None => inner.shape.as_ref().and_then(|shape| {
                                    shape.off_reason(&inner.modules, node.module, &spec.key)
                                }),
                                Some(_) => None,
                            },
                        })
                        .collect(),
                    location: d.location.to_string(),
                    overridden: node.kind == NodeKind::Override,
                    built: inner.slots[id].is_built() && !inner.slots[id].is_disposed(),
                    build_micros: inner.slots[id]
                        .build_time()
                        .map(|t| u64::try_from(t.as_micros()).unwrap_or(u64::MAX)),
                    module: node
                        .module
                        .map(|m| inner.modules[m as usize].path.to_string()),
                    decorates: match node.kind {
                        NodeKind::Decorator => d.provides.first().map(|s| s.key.to_string()),
                        _ => None,
                    },
                    settings: node
                        .provider
                        .settings_hook()
                        .and_then(|hook| hook.explain()),
                }
            })
            .collect();
        Explain {
            target,
            nodes,
            roots: roots.iter().map(|&id| index_in_slice[id]).collect(),
        }
    }
}

impl Explain {
    /// The explain as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the explain model is plain data")
    }
}

impl ExplainNode {
    /// The lines of its box in a picture of `explain` (DOT, Mermaid, SVG): its keys and
    /// types, what it is, and what a collection holds or a decorator wraps.
    ///
    /// ```
    /// use green_tea::{Container, ProviderFn};
    /// let container = Container::builder()
    ///     .value("billing", 1_u32)
    ///     .decorator(
    ///         ProviderFn::new("billing", |needs| async move { Ok(*needs.get::<u32>(0)? + 1) })
    ///             .needs::<u32>("billing")
    ///             .named("retrying"),
    ///     )
    ///     .build()
    ///     .unwrap();
    /// let explain = container.explain_key("billing").unwrap();
    /// assert_eq!(
    ///     explain.nodes[1].label_lines(&explain),
    ///     ["billing: u32", "decorator `retrying`", "wraps value `billing`"]
    /// );
    /// ```
    pub fn label_lines(&self, explain: &Explain) -> Vec<String> {
        let heading = self.heading();
        let mut lines = Vec::with_capacity(3);
        if !heading.is_empty() {
            lines.push(heading);
        }
        lines.push(self.who());
        match self.kind {
            NodeKind::Collection => lines.push(self.holds_count()),
            NodeKind::Decorator => lines.extend(self.wraps(explain)),
            _ => {}
        }
        lines.extend(self.setting_lines());
        lines
    }

    /// For a settings type, a line per field: `timeout = 2s (default)`, `token = *** (env
    /// BILLING_TOKEN)`.
    pub fn setting_lines(&self) -> Vec<String> {
        self.settings
            .iter()
            .flatten()
            .map(crate::settings::ExplainSetting::line)
            .collect()
    }

    /// The label of the edge of its `index`-th need in a picture: the key, and for a list's
    /// contribution its place in the list (`notifiers[] (1 of 2)`). Empty past its needs.
    pub fn need_label(&self, index: usize) -> String {
        let Some(need) = self.needs.get(index) else {
            return String::new();
        };
        let is_list = self.kind == NodeKind::Collection
            && matches!(
                crate::key::Key::from(need.key.clone()).spelling(),
                Ok(Spelling::List(_))
            );
        if is_list {
            format!("{} ({} of {})", need.key, index + 1, self.needs.len())
        } else {
            need.key.clone()
        }
    }

    /// What it is and its name: `` provider `billing` ``, `` value `port` `` (a value's name
    /// already says what it is), `` override value `clock` ``, `` decorator `retrying` ``,
    /// `` collection `notifiers[]` ``.
    pub fn who(&self) -> String {
        match self.kind {
            NodeKind::Value => self.name.clone(),
            NodeKind::Override if self.name.starts_with("value `") => {
                format!("override {}", self.name)
            }
            kind => format!("{kind} `{}`", self.name),
        }
    }

    /// Where it was declared, as its line of text says it: `at file:line`; for a collection,
    /// which no one declares, where its contributions are (`contributed at a.rs:3, b.rs:9`),
    /// or, with none, where it is needed (its [`location`](Self::location)).
    fn declared_at(&self, explain: &Explain) -> String {
        if self.kind != NodeKind::Collection {
            return format!("at {}", self.location);
        }
        let mut places: Vec<&str> = self
            .needs
            .iter()
            .filter_map(|n| explain.nodes.get(n.from?))
            .map(|n| n.location.as_str())
            .collect();
        places.dedup();
        match places.is_empty() {
            true => format!("(no contributions) needed at {}", self.location),
            false => format!("contributed at {}", places.join(", ")),
        }
    }

    /// For a decorator, `` wraps provider `billing` ``: who its need of the key it decorates
    /// points at.
    fn wraps(&self, explain: &Explain) -> Option<String> {
        let decorates = self.decorates.as_deref()?;
        let wrapped = self.needs.iter().find(|n| n.key == decorates)?.from?;
        Some(format!("wraps {}", explain.nodes.get(wrapped)?.who()))
    }

    /// For a collection, how many contributions it holds and in what order.
    fn holds_count(&self) -> String {
        match (self.needs.len(), self.is_map()) {
            (0, _) => "holds nothing: no contributions".to_owned(),
            (1, false) => "holds 1 contribution".to_owned(),
            (1, true) => "holds 1 entry".to_owned(),
            (n, false) => format!("holds {n} contributions, in order"),
            (n, true) => format!("holds {n} entries, by name"),
        }
    }

    /// For a collection, its contributors in its order, each a map's entry name first:
    /// `` provider `email`, provider `sms` ``, `` eu: provider `eu_store` ``.
    fn holds(&self, explain: &Explain) -> String {
        if self.needs.is_empty() {
            return "nothing (no contributions)".to_owned();
        }
        let members: Vec<String> = self
            .needs
            .iter()
            .filter_map(|need| {
                let who = explain.nodes.get(need.from?)?.who();
                let key = crate::key::Key::from(need.key.clone());
                Some(match key.spelling() {
                    Ok(Spelling::Entry { name, .. }) => format!("{name}: {who}"),
                    _ => who,
                })
            })
            .collect();
        members.join(", ")
    }

    /// Whether it is a map's collection (`stores{}`).
    fn is_map(&self) -> bool {
        self.provides.first().is_some_and(|k| k.key.ends_with("{}"))
    }

    /// Whether its value is there now: built, or a settings type's, whose value `build()`
    /// read (handing it out later costs an `Arc` clone, so explain draws and names it as
    /// there: "read at build()", never "not built").
    pub fn is_ready(&self) -> bool {
        self.built || self.kind == NodeKind::Settings
    }

    /// `key: Type` for each provided key.
    fn heading(&self) -> String {
        let keys: Vec<String> = self
            .provides
            .iter()
            .map(|k| format!("{}: {}", k.key, k.type_name))
            .collect();
        keys.join(", ")
    }

    fn state(&self) -> String {
        match (self.built, self.build_micros) {
            (true, Some(us)) => format!("built in {:?}", Duration::from_micros(us)),
            (true, None) => "built".to_owned(),
            (false, _) if self.kind == NodeKind::Settings => "read at build()".to_owned(),
            (false, _) => "not built".to_owned(),
        }
    }

    /// What comes after `<-` on its line of text: what a collection holds, what a decorator
    /// wraps (and its other needs), or the needs (`cache? (absent)` for an absent one).
    fn text_needs(&self, explain: &Explain) -> Option<String> {
        if self.kind == NodeKind::Collection {
            return Some(format!("holds {}", self.holds(explain)));
        }
        let wraps = self.wraps(explain);
        let decorates = self.decorates.as_deref();
        let needs: Vec<String> = self
            .needs
            .iter()
            .filter(|n| wraps.is_none() || Some(n.key.as_str()) != decorates)
            .map(ExplainNeed::label)
            .collect();
        let needs = (!needs.is_empty()).then(|| format!("needs {}", needs.join(", ")));
        match (wraps, needs) {
            (Some(wraps), Some(needs)) => Some(format!("{wraps}; {needs}")),
            (one, other) => one.or(other),
        }
    }
}

impl fmt::Display for Explain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.nodes.len();
        write!(
            f,
            "`{}` builds {n} declaration{} in this order:",
            self.target,
            if n == 1 { "" } else { "s" }
        )?;
        for (i, node) in self.nodes.iter().enumerate() {
            write!(f, "\n  {}. {}", i + 1, node.heading())?;
            if let Some(needs) = node.text_needs(self) {
                write!(f, "  <- {needs}")?;
            }
            write!(
                f,
                "\n     {}{} {}, {} scope, {}",
                node.who(),
                in_module(node.module.as_deref()),
                node.declared_at(self),
                node.scope,
                node.state()
            )?;
            if node.overridden {
                f.write_str(" (override)")?;
            }
            for line in node.setting_lines() {
                write!(f, "\n       {line}")?;
            }
        }
        Ok(())
    }
}

/// ` in module `shop::orders`` for a declaration in a module, nothing at the app's root.
pub fn in_module(module: Option<&str>) -> String {
    module.map_or_else(String::new, |m| format!(" in module `{m}`"))
}
