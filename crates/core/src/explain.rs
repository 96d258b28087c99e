//! The explain model: a slice of the graph in build order, as data, rendered to text, JSON,
//! Graphviz DOT and Mermaid.

use std::fmt::{self, Write as _};
use std::time::Duration;

use serde::Serialize;

use crate::container::Container;
use crate::error::{NodeKind, ProvideError};
use crate::graph::Scope;
use crate::ids::{AppValue, IdVec, ProviderId};
use crate::picture::{Edge, Node, Picture, Shape};

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
}

/// One declaration in an [`Explain`].
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainNode {
    /// Provider, value, override or step.
    pub kind: NodeKind,
    /// The declaration's name.
    pub name: String,
    /// App (built once) or request (built per request).
    pub scope: Scope,
    /// The keys it provides, with their types.
    pub provides: Vec<ExplainKey>,
    /// The keys it needs, each with the position in `nodes` of what provides it.
    pub needs: Vec<ExplainNeed>,
    /// Where it was declared, `file:line`.
    pub location: String,
    /// Whether this declaration is a test override.
    pub overridden: bool,
    /// Whether its values are built now.
    pub built: bool,
    /// How long its last successful build took, in microseconds.
    pub build_micros: Option<u64>,
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
}

impl ExplainNeed {
    /// Whether it is an optional need (`cache?`).
    pub fn is_optional(&self) -> bool {
        self.key.ends_with('?')
    }

    /// The key with `(absent)` after an optional need that nothing provides.
    pub(crate) fn label(&self) -> String {
        match self.from {
            Some(_) => self.key.clone(),
            None => format!("{} (absent)", self.key),
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
                    provides: node.explain_keys().to_vec(),
                    needs: d
                        .needs
                        .iter()
                        .zip(inner.needs[id].iter())
                        .map(|(spec, at)| ExplainNeed {
                            key: spec.key.to_string(),
                            from: at.map(|at| index_in_slice[at.provider]),
                        })
                        .collect(),
                    location: d.location.to_string(),
                    overridden: node.kind == NodeKind::Override,
                    built: node.slot.is_built() && !node.slot.is_disposed(),
                    build_micros: node
                        .slot
                        .build_time()
                        .map(|t| u64::try_from(t.as_micros()).unwrap_or(u64::MAX)),
                }
            })
            .collect();
        Explain { target, nodes }
    }
}

impl Explain {
    /// The explain as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the explain model is plain data")
    }

    /// The slice as a Graphviz `digraph`: one box per declaration, an edge per need, pointing
    /// from what is built first to what needs it.
    pub fn to_dot(&self) -> String {
        let mut out = format!(
            "digraph {} {{\n  rankdir=LR;\n  node [shape=box];\n",
            dot_quote(&self.target)
        );
        for (i, node) in self.nodes.iter().enumerate() {
            let style = if node.built { "solid" } else { "dashed" };
            let label = format!("{}\n{}", node.heading(), node.who());
            let _ = writeln!(out, "  n{i} [label={} style={style}];", dot_quote(&label));
        }
        for (i, node) in self.nodes.iter().enumerate() {
            for (j, need) in node.needs.iter().enumerate() {
                // An optional need's edge is dashed; an absent one comes from a dotted box.
                let style = if need.is_optional() {
                    " style=dashed"
                } else {
                    ""
                };
                let from = match need.from {
                    Some(from) => format!("n{from}"),
                    None => {
                        let _ = writeln!(
                            out,
                            "  n{i}a{j} [label={} style=dotted];",
                            dot_quote(&format!("{}\nabsent", need.key))
                        );
                        format!("n{i}a{j}")
                    }
                };
                let _ = writeln!(
                    out,
                    "  {from} -> n{i} [label={}{style}];",
                    dot_quote(&need.key)
                );
            }
        }
        out.push_str("}\n");
        out
    }

    /// The slice as a Mermaid `flowchart`.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart LR\n");
        for (i, node) in self.nodes.iter().enumerate() {
            let label = format!("{}<br/>{}", node.heading(), node.who());
            let _ = writeln!(out, "  n{i}[\"{}\"]", label.replace('"', "#quot;"));
        }
        for (i, node) in self.nodes.iter().enumerate() {
            for (j, need) in node.needs.iter().enumerate() {
                let key = need.key.replace('"', "#quot;");
                // An optional need's link is dotted; an absent one comes from a box of its own.
                let arrow = if need.is_optional() { "-.->" } else { "-->" };
                let from = match need.from {
                    Some(from) => format!("n{from}"),
                    None => {
                        let _ = writeln!(out, "  n{i}a{j}[\"{key}<br/>absent\"]");
                        format!("n{i}a{j}")
                    }
                };
                let _ = writeln!(out, "  {from} {arrow}|\"{key}\"| n{i}");
            }
        }
        out
    }
}

impl Explain {
    /// The slice as an SVG picture, drawn in process: a box per declaration (dashed while not
    /// built), with its keys and types, kind, name, scope, build time and whether it is an
    /// override; an arrow per need, labelled with the key. Every text is escaped.
    ///
    /// ```
    /// use green_tea::Container;
    /// let container = Container::builder().value("port", 3000_u16).build().unwrap();
    /// let svg = container.explain_key("port").unwrap().to_svg();
    /// assert!(svg.starts_with("<svg") && svg.contains("port: u16"));
    /// ```
    pub fn to_svg(&self) -> String {
        let mut picture = self.picture();
        picture.caption = Some(format!("`{}` builds", self.target));
        crate::picture::render(&picture)
    }

    /// The slice as boxes and needs.
    pub(crate) fn picture(&self) -> Picture {
        Picture {
            caption: None,
            nodes: self.nodes.iter().map(ExplainNode::picture_node).collect(),
            edges: self
                .nodes
                .iter()
                .enumerate()
                .flat_map(|(i, node)| {
                    node.needs.iter().filter_map(move |need| {
                        Some(Edge {
                            from: need.from?,
                            to: i,
                            label: need.key.clone(),
                        })
                    })
                })
                .collect(),
        }
    }
}

impl ExplainNode {
    /// This declaration's box in a picture.
    pub(crate) fn picture_node(&self) -> Node {
        let heading = self.heading();
        let who = format!("{}, {} scope", self.who(), self.scope);
        let mut state = self.state();
        let absent: Vec<&str> = self
            .needs
            .iter()
            .filter(|n| n.from.is_none())
            .map(|n| n.key.as_str())
            .collect();
        if !absent.is_empty() {
            state = format!("{state}; absent: {}", absent.join(", "));
        }
        let lines = if heading.is_empty() {
            vec![who, state]
        } else {
            vec![heading, who, state]
        };
        Node {
            lines,
            shape: if self.overridden {
                Shape::Override
            } else {
                Shape::Provider
            },
            built: self.built,
        }
    }

    /// What it is and its name: `provider `billing``, `value `port`` (a value's name already
    /// says what it is), `override value `clock``, `collection `notifiers[]``.
    pub(crate) fn who(&self) -> String {
        match self.kind {
            NodeKind::Value => self.name.clone(),
            NodeKind::Override if self.name.starts_with("value `") => {
                format!("override {}", self.name)
            }
            NodeKind::Collection => format!("collection `{}`", self.name),
            kind => format!("{kind} `{}`", self.name),
        }
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
            (false, _) => "not built".to_owned(),
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
            if !node.needs.is_empty() {
                // A collection's needs are its contributions: named by their contributors.
                let (verb, needs): (_, Vec<String>) = match node.kind {
                    NodeKind::Collection => (
                        "holds",
                        node.needs
                            .iter()
                            .filter_map(|n| Some(self.nodes[n.from?].who()))
                            .collect(),
                    ),
                    _ => ("needs", node.needs.iter().map(ExplainNeed::label).collect()),
                };
                write!(f, "  <- {verb} {}", needs.join(", "))?;
            }
            write!(
                f,
                "\n     {} at {}, {} scope, {}",
                node.who(),
                node.location,
                node.scope,
                node.state()
            )?;
            if node.overridden {
                f.write_str(" (override)")?;
            }
        }
        Ok(())
    }
}

/// A Graphviz string literal.
pub fn dot_quote(text: &str) -> String {
    format!(
        "\"{}\"",
        text.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}
