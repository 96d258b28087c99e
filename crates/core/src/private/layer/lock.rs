//! The lockfile across the layers: the container's blocks, and what the layer above needs to
//! lock its steps and routes over every shape.

use crate::container::Container;
use crate::lock::LockItem;

pub use crate::container::lock::LockGraph;

/// The container's blocks: switches, modules, declarations, settings variables, workers.
pub fn items(container: &Container) -> Vec<LockItem> {
    crate::container::lock::lock_items(container)
}

/// The graph of every shape, to read steps' and routes' conditions and what they reach.
pub fn graph(container: &Container) -> LockGraph<'_> {
    LockGraph::new(container)
}
