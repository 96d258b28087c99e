//! `explain(path)`: for each method at a path, the handler, its steps in run order and its
//! providers in build order; as text, JSON, DOT and Mermaid. Optional needs, collections,
//! decorators and modules show as the core's explain shows them: what a module registered (a
//! provider, a step, a route) inside a box of the module.

mod html;
mod picture;

use std::fmt::{self, Write as _};

use serde::Serialize;

use green_tea_core::__private::sibling::{
    dot_groups, dot_quote, in_module, mermaid_groups, mermaid_text,
};
use green_tea_core::{Explain, ExplainModule, ExplainWorker, Key, NodeKind, Spelling};

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

    /// As a Graphviz `digraph`: providers (a collection as a folder, a decorator as a
    /// component), then steps, then each handler; an edge per need, dashed for an optional
    /// need, from a dotted box for an absent one; a step whose values finish is labelled
    /// `step tx (finishes)`. What a module registered is in a
    /// `subgraph "cluster_<path>"` labelled with its path (one per module, for every route at
    /// the path), a sub-module's inside its parent's.
    pub fn to_dot(&self) -> String {
        let mut out = format!(
            "digraph {} {{\n  rankdir=LR;\n  node [shape=box];\n",
            dot_quote(&self.path)
        );
        let graphs: Vec<Graph> = self
            .routes
            .iter()
            .enumerate()
            .map(|(r, route)| route.graph(r))
            .collect();
        let mut nodes: Vec<(Option<&str>, String)> = Vec::new();
        let mut edges = String::new();
        for graph in &graphs {
            for node in &graph.nodes {
                let style = match node.kind {
                    GraphKind::Provider { built: true, .. } => "solid",
                    GraphKind::Provider { built: false, .. } => "dashed",
                    GraphKind::Step => "rounded",
                    GraphKind::Handler => "bold",
                    GraphKind::Absent => "dotted",
                };
                let shape = match node.kind {
                    GraphKind::Provider {
                        kind: NodeKind::Collection,
                        ..
                    } => " shape=folder",
                    GraphKind::Provider {
                        kind: NodeKind::Decorator,
                        ..
                    } => " shape=component",
                    GraphKind::Provider {
                        kind: NodeKind::Settings,
                        ..
                    } => " shape=note",
                    _ => "",
                };
                nodes.push((
                    node.module.as_deref(),
                    format!(
                        "{} [label={} style={style}{shape}];",
                        node.id,
                        dot_quote(&node.lines.join("\n"))
                    ),
                ));
            }
            for edge in &graph.edges {
                let style = if edge.optional { " style=dashed" } else { "" };
                let _ = writeln!(
                    edges,
                    "  {} -> {} [label={}{style}];",
                    edge.from,
                    edge.to,
                    dot_quote(&edge.label)
                );
            }
        }
        dot_groups(&mut out, &nodes);
        out.push_str(&edges);
        out.push_str("}\n");
        out
    }

    /// As a Mermaid `flowchart`: the same boxes and needs as [`to_dot`](Self::to_dot), a
    /// collection as a hexagon and a decorator as a subroutine, an optional need's link
    /// dotted; every label quoted, with the characters Mermaid would read as entity codes.
    /// What a module registered is in a `subgraph module<i>["<path>"]`, nested for a
    /// sub-module.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart LR\n");
        let graphs: Vec<Graph> = self
            .routes
            .iter()
            .enumerate()
            .map(|(r, route)| route.graph(r))
            .collect();
        let mut nodes: Vec<(Option<&str>, String)> = Vec::new();
        let mut links = String::new();
        for graph in &graphs {
            for node in &graph.nodes {
                let (open, close) = match node.kind {
                    GraphKind::Provider {
                        kind: NodeKind::Collection,
                        ..
                    } => ("{{", "}}"),
                    GraphKind::Provider {
                        kind: NodeKind::Decorator,
                        ..
                    } => ("[[", "]]"),
                    GraphKind::Provider {
                        kind: NodeKind::Settings,
                        ..
                    } => ("[/", "/]"),
                    GraphKind::Step => ("(", ")"),
                    _ => ("[", "]"),
                };
                let lines: Vec<String> = node.lines.iter().map(|l| mermaid_text(l)).collect();
                let mut statement = format!("{}{open}\"{}\"{close}", node.id, lines.join("<br/>"));
                if node.kind == GraphKind::Absent {
                    let _ = write!(statement, "\nstyle {} stroke-dasharray: 3 3", node.id);
                }
                nodes.push((node.module.as_deref(), statement));
            }
            for edge in &graph.edges {
                let arrow = if edge.optional { "-.->" } else { "-->" };
                let _ = writeln!(
                    links,
                    "  {} {arrow}|\"{}\"| {}",
                    edge.from,
                    mermaid_text(&edge.label),
                    edge.to
                );
            }
        }
        mermaid_groups(&mut out, &nodes);
        out.push_str(&links);
        out
    }
}

/// A route's chain as boxes and needs, for DOT and Mermaid.
struct Graph {
    nodes: Vec<GraphNode>,
    edges: Vec<GraphEdge>,
}

struct GraphNode {
    /// `r0p1` (a provider), `r0s0` (a step), `r0h` (the handler), `r0ha1` (an absent need).
    id: String,
    lines: Vec<String>,
    kind: GraphKind,
    /// The module it was registered in.
    module: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum GraphKind {
    Provider { kind: NodeKind, built: bool },
    Step,
    Handler,
    Absent,
}

struct GraphEdge {
    from: String,
    to: String,
    label: String,
    optional: bool,
}

impl ExplainRoute {
    /// The boxes and needs of route number `r`: providers `r{r}p{i}`, steps `r{r}s{i}`, the
    /// handler `r{r}h`, and a box per absent need after its consumer's id (`r{r}ha{j}`).
    fn graph(&self, r: usize) -> Graph {
        let providers = &self.providers;
        let mut graph = Graph {
            nodes: Vec::new(),
            edges: Vec::new(),
        };
        for (i, p) in providers.nodes.iter().enumerate() {
            graph.nodes.push(GraphNode {
                id: format!("r{r}p{i}"),
                lines: p.label_lines(providers),
                kind: GraphKind::Provider {
                    kind: p.kind,
                    built: p.is_ready(),
                },
                module: p.module.clone(),
            });
        }
        for (i, s) in self.steps.iter().enumerate() {
            let mut lines = vec![format!("step {}{}", s.name, finishes_mark(s))];
            if !s.provides.is_empty() {
                lines.push(s.provides.join(", "));
            }
            graph.nodes.push(GraphNode {
                id: format!("r{r}s{i}"),
                lines,
                kind: GraphKind::Step,
                module: s.module.clone(),
            });
        }
        // An unnamed handler's name is already `GET /path`.
        let handler = if self.handler == format!("{} {}", self.method, self.template) {
            self.handler.clone()
        } else {
            format!("{} {}", self.method, self.handler)
        };
        graph.nodes.push(GraphNode {
            id: format!("r{r}h"),
            lines: vec![handler],
            kind: GraphKind::Handler,
            module: self.module.clone(),
        });

        for (i, p) in providers.nodes.iter().enumerate() {
            let to = format!("r{r}p{i}");
            for (j, need) in p.needs.iter().enumerate() {
                let from = match need.from {
                    Some(from) => format!("r{r}p{from}"),
                    None => graph.absent(&to, j, &need.key),
                };
                graph.edges.push(GraphEdge {
                    from,
                    to: to.clone(),
                    label: p.need_label(j),
                    optional: need.optional,
                });
            }
        }
        let consumers = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("r{r}s{i}"), &s.needs, &s.from))
            .chain([(format!("r{r}h"), &self.needs, &self.from)]);
        for (to, needs, from) in consumers {
            for (j, (key, source)) in needs.iter().zip(from).enumerate() {
                let from = match *source {
                    NeedSource::Provider(i) => format!("r{r}p{i}"),
                    NeedSource::Step(i) => format!("r{r}s{i}"),
                    NeedSource::Absent => graph.absent(&to, j, key),
                };
                graph.edges.push(GraphEdge {
                    from,
                    to: to.clone(),
                    label: key.clone(),
                    optional: is_optional(key),
                });
            }
        }
        graph
    }
}

impl Graph {
    /// Adds the box of `consumer`'s absent `index`-th need, `key`; returns its id.
    fn absent(&mut self, consumer: &str, index: usize, key: &str) -> String {
        let id = format!("{consumer}a{index}");
        self.nodes.push(GraphNode {
            id: id.clone(),
            lines: absent_lines(key),
            kind: GraphKind::Absent,
            module: None,
        });
        id
    }
}

/// Whether `key` is spelled as an optional need (`cache?`).
pub(crate) fn is_optional(key: &str) -> bool {
    matches!(
        Key::from(key.to_owned()).spelling(),
        Ok(Spelling::Optional(_))
    )
}

/// The lines of the box of an absent need, as the core's pictures write them: `cache?`, then
/// why it is absent.
pub(crate) fn absent_lines(key: &str) -> Vec<String> {
    vec![
        key.to_owned(),
        format!(
            "absent: nothing provides `{}`",
            Key::from(key.to_owned()).name()
        ),
    ]
}

/// ` (finishes)` after the name of a step whose values finish with the request.
pub(crate) fn finishes_mark(step: &ExplainStep) -> &'static str {
    if step.finishes { " (finishes)" } else { "" }
}

/// `needs`, with `(absent)` after each of `absent`.
fn needs_text(needs: &[String], absent: &[String]) -> String {
    let needs: Vec<String> = needs
        .iter()
        .map(|n| {
            if absent.contains(n) {
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
            write!(f, "\n  needs: {}", needs_text(&self.needs, &self.absent))?;
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
                    write!(f, "  <- needs {}", needs_text(&step.needs, &step.absent))?;
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
        Ok(())
    }
}
