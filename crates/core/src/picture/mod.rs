//! The one picture model of `explain`, and its renderers: a small graph of boxes (providers,
//! collections, decorators, settings, steps, a handler or a worker, absent needs), the needs
//! between them, a box per module around its boxes (nested for a sub-module), and a style per
//! kind of box. Each explain result (core's slice and worker, the HTTP layer's routes) turns
//! its data into a [`Picture`] once; DOT (`dot.rs`), Mermaid (`mermaid.rs`) and SVG (`svg.rs`,
//! laid out by `layout.rs`) are functions of it, and the HTTP layer's page embeds the SVG.
//!
//! It sits below `explain`: it knows boxes, needs and modules, not declarations.

mod dot;
mod layout;
mod mermaid;
mod modules;
mod style;
mod svg;

pub use style::Style;
pub use svg::{escape, render_stack};

use crate::key::Key;

/// What a box stands for: each rendering draws it in its kind's [`Style`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// An app-scoped provider or value, built once.
    Provider,
    /// A test override (app scope).
    Override,
    /// A collection (`notifiers[]`, `stores{}`), holding its contributions.
    Collection,
    /// A decorator, wrapping the value of the key it decorates.
    Decorator,
    /// A settings type's value, read at `build()`, with its fields.
    Settings,
    /// An optional need that nothing provides: a dotted box, never built.
    Absent,
    /// A request-scoped step.
    Step,
    /// The route's handler.
    Handler,
    /// A worker: a long-running task that needs providers and provides nothing.
    Worker,
}

/// One box.
#[derive(Clone, Debug)]
pub struct Node {
    /// Its id in DOT and Mermaid: `n0`, `r0s1`, `w`, and its consumer's id, `a` and the need's
    /// position for an absent need's box (`n1a0`).
    pub id: String,
    /// What it stands for.
    pub kind: Kind,
    /// Whether it is built (a worker: running); drawn dashed when not.
    pub built: bool,
    /// The path of its module (`shop::orders`), drawn as a box around it; `None` at the app's
    /// root.
    pub module: Option<String>,
    /// Its label in DOT and Mermaid: what it is, which stays the same from one run to the next.
    pub label: Vec<String>,
    /// The lines of its box in the SVG picture, the first one the title: the label's, with
    /// what the picture has room for (scope, whether and how fast it was built).
    pub lines: Vec<String>,
}

/// A need: from the box that provides `label` to the one that needs it.
#[derive(Clone, Debug)]
pub struct Edge {
    /// Index of the provider in [`Picture::nodes`].
    pub from: usize,
    /// Index of the consumer.
    pub to: usize,
    /// The key.
    pub label: String,
    /// An optional need (`cache?`): drawn dashed.
    pub optional: bool,
}

/// A graph to draw. The boxes of its modules are not stored: they are the modules its nodes are
/// in and the modules around them (`modules.rs`).
#[derive(Clone, Debug, Default)]
pub struct Picture {
    /// What it pictures, DOT's graph name: a key, a worker's name, a path.
    pub name: String,
    /// A caption the SVG draws above the graph.
    pub caption: Option<String>,
    /// The boxes.
    pub nodes: Vec<Node>,
    /// The needs.
    pub edges: Vec<Edge>,
}

impl Picture {
    /// An empty picture of `name`, with `caption` above it.
    pub fn new(name: impl Into<String>, caption: impl Into<String>) -> Self {
        Picture {
            name: name.into(),
            caption: Some(caption.into()),
            nodes: Vec::new(),
            edges: Vec::new(),
        }
    }

    /// Adds `node`; returns its position.
    pub fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Where the `index`-th need of the box at `consumer`, `key` (`cache?`), comes from: the
    /// box at `from`, or, when nothing provides it (`None`), a dotted box of its own that says
    /// so, added now: that nothing provides it, or, when `off` says where it is on, that it is
    /// off in this shape.
    pub fn source(
        &mut self,
        from: Option<usize>,
        (consumer, index): (usize, usize),
        key: &str,
        off: Option<&str>,
    ) -> usize {
        if let Some(from) = from {
            return from;
        }
        let why = match off {
            Some(on) => format!("absent: off, on {on}"),
            None => format!(
                "absent: nothing provides `{}`",
                Key::from(key.to_owned()).name()
            ),
        };
        let lines = vec![key.to_owned(), why];
        self.push(Node {
            id: format!("{}a{index}", self.nodes[consumer].id),
            kind: Kind::Absent,
            built: true,
            module: None,
            label: lines.clone(),
            lines,
        })
    }

    /// `pictures` side by side in one picture of `name` (for a graph of several routes).
    pub fn join(name: impl Into<String>, pictures: impl IntoIterator<Item = Picture>) -> Self {
        let mut joined = Picture {
            name: name.into(),
            ..Picture::default()
        };
        for picture in pictures {
            let offset = joined.nodes.len();
            joined.nodes.extend(picture.nodes);
            joined.edges.extend(picture.edges.into_iter().map(|e| Edge {
                from: e.from + offset,
                to: e.to + offset,
                ..e
            }));
        }
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str) -> Node {
        Node {
            id: id.to_owned(),
            kind: Kind::Provider,
            built: true,
            module: None,
            label: vec![id.to_owned()],
            lines: vec![id.to_owned()],
        }
    }

    #[test]
    fn an_absent_need_has_a_box_of_its_own_named_after_its_consumer() {
        let mut picture = Picture::new("x", "x");
        let consumer = picture.push(node("n0"));
        assert_eq!(picture.source(Some(7), (consumer, 0), "cache?", None), 7);
        let absent = picture.source(None, (consumer, 1), "cache?", None);
        let drawn = &picture.nodes[absent];
        assert_eq!((drawn.id.as_str(), drawn.kind), ("n0a1", Kind::Absent));
        assert_eq!(drawn.lines, ["cache?", "absent: nothing provides `cache`"]);
        // Off in this shape: it says where it is on instead.
        let off = picture.source(None, (consumer, 2), "cache?", Some("when `cacheOn` = true"));
        assert_eq!(
            picture.nodes[off].lines,
            ["cache?", "absent: off, on when `cacheOn` = true"]
        );
    }

    #[test]
    fn joined_pictures_keep_each_one_s_needs() {
        let route = |r: usize| Picture {
            nodes: vec![node(&format!("r{r}p0")), node(&format!("r{r}h"))],
            edges: vec![Edge {
                from: 0,
                to: 1,
                label: "db".to_owned(),
                optional: false,
            }],
            ..Picture::default()
        };
        let joined = Picture::join("/orders", [route(0), route(1)]);
        assert_eq!(joined.name, "/orders");
        let ends: Vec<(&str, &str)> = joined
            .edges
            .iter()
            .map(|e| (&*joined.nodes[e.from].id, &*joined.nodes[e.to].id))
            .collect();
        assert_eq!(ends, [("r0p0", "r0h"), ("r1p0", "r1h")]);
    }
}
