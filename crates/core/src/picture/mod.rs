//! `explain` as a picture: a small graph of boxes (providers, collections, decorators, steps,
//! a handler or a worker, absent needs) and the needs between them, laid out in layers left to
//! right and drawn as SVG, in process.
//!
//! The graphs are small and acyclic (a route's slice), so the layout is a plain layered one
//! (longest path, then a few barycenter sweeps to untangle each layer); see `layout.rs`. A box
//! in a module is drawn inside a labelled box of its module (nested for a sub-module): each
//! module gets a band of rows of its own, so that no other box falls inside its box.

mod layout;
mod modules;
mod svg;

pub use modules::{dot_groups, mermaid_groups};
pub use svg::{escape, render, render_stack};

/// What a box stands for: its colours and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
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

/// One box: its lines of text (the first in bold), its shape, whether it is built (a box not
/// built is drawn dashed), and the module it is in.
#[derive(Clone, Debug)]
pub struct Node {
    /// The lines, the first one the title.
    pub lines: Vec<String>,
    /// Its shape and colours.
    pub shape: Shape,
    /// Dashed when false.
    pub built: bool,
    /// The path of its module (`shop::orders`), drawn as a box around it; `None` at the app's
    /// root.
    pub module: Option<String>,
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

/// A graph to draw.
#[derive(Clone, Debug, Default)]
pub struct Picture {
    /// An optional caption drawn above the graph.
    pub caption: Option<String>,
    /// The boxes.
    pub nodes: Vec<Node>,
    /// The needs.
    pub edges: Vec<Edge>,
}
