//! `explain(path)`: for each method at a path, the handler, its steps in run order and its
//! providers in build order; as text, JSON, DOT and Mermaid.

mod html;
mod picture;

use std::fmt::{self, Write as _};

use serde::Serialize;

use green_tea_core::__private::sibling::dot_quote;
use green_tea_core::Explain;

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
    /// The tower layers a request to this route meets, outermost first: the app's (marked
    /// `(app)`), then the route's own.
    pub layers: Vec<String>,
    /// The request-scoped steps, in run order.
    pub steps: Vec<ExplainStep>,
    /// The providers the route builds, in build order, with their state now.
    pub providers: Explain,
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
    /// Where it was declared.
    pub location: String,
}

/// The whole app: every path, sorted.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainApp {
    /// Every path template with its routes.
    pub paths: Vec<ExplainPath>,
}

/// `explain` was asked about a path no route serves.
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

fn no_route_text(path: &str, routes: &[String]) -> String {
    if routes.is_empty() {
        return format!(
            "no route matches `{path}`: the app has no routes at all (was nothing registered? \
             `discover()` finds declarations only in crates the binary names; see \
             `App::warnings`)"
        );
    }
    format!("no route matches `{path}`; routes: {}", routes.join(", "))
}

impl ExplainPath {
    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the explain model is plain data")
    }

    /// As a Graphviz `digraph`: providers, then steps, then each handler; an edge per need.
    pub fn to_dot(&self) -> String {
        let mut out = format!(
            "digraph {} {{\n  rankdir=LR;\n  node [shape=box];\n",
            dot_quote(&self.path)
        );
        for (r, route) in self.routes.iter().enumerate() {
            for (id, label, style) in route.graph_nodes(r) {
                let _ = writeln!(out, "  {id} [label={} style={style}];", dot_quote(&label));
            }
            for (from, to, key) in route.graph_edges(r) {
                let _ = writeln!(out, "  {from} -> {to} [label={}];", dot_quote(&key));
            }
        }
        out.push_str("}\n");
        out
    }

    /// As a Mermaid `flowchart`.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart LR\n");
        for (r, route) in self.routes.iter().enumerate() {
            for (id, label, _) in route.graph_nodes(r) {
                let _ = writeln!(
                    out,
                    "  {id}[\"{}\"]",
                    label.replace('"', "#quot;").replace('\n', "<br/>")
                );
            }
            for (from, to, key) in route.graph_edges(r) {
                let _ = writeln!(out, "  {from} -->|{key}| {to}");
            }
        }
        out
    }
}

impl ExplainRoute {
    /// (id, label, style) of every node of route number `r`: providers `r{r}p{i}`, steps
    /// `r{r}s{i}`, the handler `r{r}h`.
    fn graph_nodes(&self, r: usize) -> Vec<(String, String, &'static str)> {
        let mut nodes = Vec::new();
        for (i, p) in self.providers.nodes.iter().enumerate() {
            let keys: Vec<String> = p
                .provides
                .iter()
                .map(|k| format!("{}: {}", k.key, k.type_name))
                .collect();
            let style = if p.built { "solid" } else { "dashed" };
            nodes.push((
                format!("r{r}p{i}"),
                format!("{}\n{} {}", keys.join(", "), p.kind, p.name),
                style,
            ));
        }
        for (i, s) in self.steps.iter().enumerate() {
            nodes.push((
                format!("r{r}s{i}"),
                format!("step {}\n{}", s.name, s.provides.join(", ")),
                "rounded",
            ));
        }
        nodes.push((
            format!("r{r}h"),
            format!("{} {}", self.method, self.handler),
            "bold",
        ));
        nodes
    }

    /// (from, to, key) of every need in route number `r`.
    fn graph_edges(&self, r: usize) -> Vec<(String, String, String)> {
        let source_of = |key: &str| -> Option<String> {
            let step = self
                .steps
                .iter()
                .position(|s| s.provides.iter().any(|p| p.split(':').next() == Some(key)));
            step.map(|i| format!("r{r}s{i}")).or_else(|| {
                self.providers
                    .nodes
                    .iter()
                    .position(|p| p.provides.iter().any(|k| k.key == key))
                    .map(|i| format!("r{r}p{i}"))
            })
        };
        let mut edges = Vec::new();
        for (i, p) in self.providers.nodes.iter().enumerate() {
            for need in &p.needs {
                let Some(from) = need.from else { continue };
                edges.push((
                    format!("r{r}p{from}"),
                    format!("r{r}p{i}"),
                    need.key.clone(),
                ));
            }
        }
        for (i, s) in self.steps.iter().enumerate() {
            for need in &s.needs {
                if let Some(from) = source_of(need) {
                    edges.push((from, format!("r{r}s{i}"), need.clone()));
                }
            }
        }
        for need in &self.needs {
            if let Some(from) = source_of(need) {
                edges.push((from, format!("r{r}h"), need.clone()));
            }
        }
        edges
    }
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
        if !self.needs.is_empty() {
            write!(f, "\n  needs: {}", self.needs.join(", "))?;
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
                write!(f, "\n    {}. {} -> {provides}", i + 1, step.name)?;
                if !step.needs.is_empty() {
                    write!(f, "  <- needs {}", step.needs.join(", "))?;
                }
                write!(f, "\n       at {}", step.location)?;
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

impl fmt::Display for ExplainApp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, path) in self.paths.iter().enumerate() {
            if i > 0 {
                f.write_str("\n\n")?;
            }
            write!(f, "{path}")?;
        }
        Ok(())
    }
}
