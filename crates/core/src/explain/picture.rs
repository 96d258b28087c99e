//! A slice's and a worker's drawings: each turned into the one picture model once (`picture/`),
//! which DOT, Mermaid and SVG render. A declaration's box says what it is (its keys and types,
//! what a collection holds, what a decorator wraps, a settings type's fields), and in the SVG
//! also its scope and whether it is built.

use crate::error::NodeKind;
use crate::picture::{Edge, Kind, Node, Picture};
use crate::worker::WorkerState;

use super::{Explain, ExplainNode, ExplainWorker};

impl Explain {
    /// The slice as a Graphviz `digraph`: one box per declaration (a collection as a folder,
    /// a decorator as a component), an edge per need pointing from what is built first to
    /// what needs it; an optional need's edge is dashed, and an absent one comes from a dotted
    /// box of its own. A module's declarations are in a `subgraph "cluster_<path>"` labelled
    /// with its path, a sub-module's cluster inside its parent's.
    pub fn to_dot(&self) -> String {
        self.picture("n").to_dot()
    }

    /// The slice as a Mermaid `flowchart`: a box per declaration (a collection as a hexagon,
    /// a decorator as a subroutine), a link per need, dotted for an optional need, from a
    /// dashed box of its own for an absent one. Every label is quoted, with the characters
    /// Mermaid would read written as its entity codes. A module's declarations are in a
    /// `subgraph module<i>["<path>"]`, a sub-module's inside its parent's.
    pub fn to_mermaid(&self) -> String {
        self.picture("n").to_mermaid()
    }

    /// The slice as an SVG picture, drawn in process: a box per declaration (dashed while not
    /// built), with its keys and types, kind, name, scope, build time and whether it is an
    /// override; a collection's and a decorator's boxes in colours of their own, saying what
    /// they hold or wrap; an arrow per need, labelled with the key (dashed for an optional
    /// need, from a dotted box for an absent one). Every text is escaped.
    ///
    /// ```
    /// use green_tea::Container;
    /// let container = Container::builder().value("port", 3000_u16).build().unwrap();
    /// let svg = container.explain_key("port").unwrap().to_svg();
    /// assert!(svg.starts_with("<svg") && svg.contains("port: u16"));
    /// ```
    pub fn to_svg(&self) -> String {
        self.picture("n").to_svg()
    }

    /// The slice as a picture of its target: a box per declaration in `nodes`' order (so a
    /// node's position is its box's), with the id `{prefix}{position}`, then a box per absent
    /// need.
    pub(crate) fn picture(&self, prefix: &str) -> Picture {
        let mut picture = Picture::new(&self.target, format!("`{}` builds", self.target));
        for (i, node) in self.nodes.iter().enumerate() {
            picture.push(node.picture_node(self, format!("{prefix}{i}")));
        }
        for (i, node) in self.nodes.iter().enumerate() {
            for (j, need) in node.needs.iter().enumerate() {
                let from = picture.source(need.from, (i, j), &need.key, need.off.as_deref());
                picture.edges.push(Edge {
                    from,
                    to: i,
                    label: node.need_label(j),
                    optional: need.optional,
                });
            }
        }
        picture
    }
}

impl ExplainNode {
    /// This declaration's box, `id`, in a picture of `explain`: labelled with its
    /// [`label_lines`](Self::label_lines), and in the SVG its scope and state too.
    fn picture_node(&self, explain: &Explain, id: String) -> Node {
        let label = self.label_lines(explain);
        let mut lines = label.clone();
        // The scope and the state go under what it is.
        let who = lines.iter().position(|l| *l == self.who()).unwrap_or(0);
        lines[who] = format!("{}, {} scope", lines[who], self.scope);
        lines.push(self.state());
        let kind = match self.kind {
            _ if self.overridden => Kind::Override,
            NodeKind::Collection => Kind::Collection,
            NodeKind::Decorator => Kind::Decorator,
            NodeKind::Settings => Kind::Settings,
            _ => Kind::Provider,
        };
        Node {
            id,
            kind,
            built: self.is_ready(),
            module: self.module.clone(),
            label,
            lines,
        }
    }
}

impl ExplainWorker {
    /// As a Graphviz `digraph`: its providers as [`Explain::to_dot`] draws them, and the
    /// worker as a `cds` box (bold while running, dashed otherwise) with an edge from each
    /// provider it needs (dashed for an optional need, from a dotted box of its own for an
    /// absent one). A worker in a module is in its module's `subgraph "cluster_<path>"`.
    pub fn to_dot(&self) -> String {
        self.picture().to_dot()
    }

    /// As a Mermaid `flowchart`: its providers as [`Explain::to_mermaid`] draws them, and the
    /// worker as an asymmetric box (`w>"..."]`) with a link from each provider it needs
    /// (dotted for an optional need, from a dashed box of its own for an absent one). A worker
    /// in a module is in its module's `subgraph module<i>["<path>"]`.
    pub fn to_mermaid(&self) -> String {
        self.picture().to_mermaid()
    }

    /// As an SVG picture, drawn in process: its providers as [`Explain::to_svg`] draws them,
    /// and the worker's box (its name, restart policy, whether it is critical and its state;
    /// dashed while not running) with an arrow from each provider it needs, labelled with the
    /// key (dashed for an optional need, from a dotted box for an absent one). A worker in a
    /// module is inside its module's box. Every text is escaped.
    ///
    /// ```
    /// use green_tea::Container;
    /// use green_tea::workers::WorkerFn;
    /// let container = Container::builder()
    ///     .value("port", 3000_u16)
    ///     .worker(WorkerFn::new("pinger", |_, _| async { Ok(()) }).needs::<u16>("port"))
    ///     .build()
    ///     .unwrap();
    /// let svg = container.explain_worker("pinger").unwrap().to_svg();
    /// assert!(svg.contains("<g class=\"node worker\"") && svg.contains("port: u16"));
    /// ```
    pub fn to_svg(&self) -> String {
        self.picture().to_svg()
    }

    /// Its providers' picture (boxes `n0`... in `nodes`' order), then the worker's box `w`,
    /// then a box per absent need of the worker.
    pub(crate) fn picture(&self) -> Picture {
        let mut picture = self.providers.picture("n");
        picture.name.clone_from(&self.name);
        picture.caption = Some(self.who());
        let label = self.label_lines();
        let mut lines = label.clone();
        lines.push(self.state_text());
        let worker = picture.push(Node {
            id: "w".to_owned(),
            kind: Kind::Worker,
            built: self.state == WorkerState::Running,
            module: self.module.clone(),
            label,
            lines,
        });
        for (j, need) in self.needs.iter().enumerate() {
            let from = picture.source(need.from, (worker, j), &need.key, need.off.as_deref());
            picture.edges.push(Edge {
                from,
                to: worker,
                label: need.key.clone(),
                optional: need.optional,
            });
        }
        picture
    }
}
