//! `explain` across the layers: the slice of providers a route's steps need, a module's
//! members with the layer's own, and the one picture model every drawing is made from.

use crate::container::Container;
use crate::explain::Explain;
use crate::ids::AppValue;

pub use crate::explain::{RequestMember, explain_module_with, in_module};
pub use crate::picture::{
    Edge as PictureEdge, Kind as PictureKind, Node as PictureNode, Picture, Style as PictureStyle,
    render_stack as render_svg_stack,
};

/// Text safe inside an XML element or a quoted attribute, as the SVG writes it: the HTTP layer's
/// explain page escapes its own text with it.
pub use crate::picture::escape as xml_escape;

/// What the provider values `roots` need, in build order; `target` names it.
pub fn explain_values(container: &Container, target: String, roots: &[AppValue]) -> Explain {
    container.explain_values(target, roots)
}

/// The picture of `explain`'s slice, its boxes' ids `{prefix}{position}`, for a route's picture
/// to add its steps and handler to.
pub fn explain_picture(explain: &Explain, prefix: &str) -> Picture {
    explain.picture(prefix)
}

/// The picture of a worker's explain (its providers, then the worker), for the explain page.
pub fn worker_picture(worker: &crate::explain::ExplainWorker) -> Picture {
    worker.picture()
}
