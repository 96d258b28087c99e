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

/// Where the key an optional need `need` of a declaration in the module at `module` (its
/// path) names is on, when it is off in this shape (switches): what a route's or step's
/// absent need says of itself.
pub fn off_reason(
    container: &Container,
    module: Option<&str>,
    need: &crate::key::Key,
) -> Option<String> {
    let inner = &container.inner;
    let shape = inner.shape.as_ref()?;
    let module = match module {
        Some(path) => {
            Some(u32::try_from(inner.modules.iter().position(|m| &*m.path == path)?).ok()?)
        }
        None => None,
    };
    shape.off_reason(&inner.modules, module, need)
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

/// Whether the slice of the provider values `roots` (a route's) holds a provider that a
/// change `reload` explains would build anew.
pub fn slice_rebuilt(
    container: &Container,
    roots: &[AppValue],
    reload: &crate::explain::ExplainReload,
) -> bool {
    let roots: Vec<_> = roots.iter().map(|at| at.provider).collect();
    (container.inner.slice_of(&roots).iter()).any(|id| reload.rebuilt.contains(id))
}
