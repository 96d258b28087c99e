//! Node ids: the graph numbers providers, then steps, then routes, in one sequence. This is the
//! one place that knows the arithmetic; everywhere else a node is converted with
//! [`Numbering::declared`] into the typed id of what it stands for.

use crate::ids::{ProviderId, RouteId, StepId};

/// A declaration's position in the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct NodeId(u32);

impl NodeId {
    /// No node: what an optional need that nothing provides resolves to.
    pub(crate) const NONE: NodeId = NodeId(u32::MAX);

    pub(crate) fn at(index: usize) -> Self {
        NodeId(u32::try_from(index).expect("fewer than 2^32 declarations"))
    }

    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Declared {
    Provider(ProviderId),
    Step(StepId),
    Route(RouteId),
}

/// How many declarations of each kind there are, and so where each kind's nodes start.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Numbering {
    providers: usize,
    steps: usize,
    routes: usize,
}

impl Numbering {
    pub(crate) fn new(providers: usize, steps: usize, routes: usize) -> Self {
        Numbering {
            providers,
            steps,
            routes,
        }
    }

    pub(crate) fn providers(&self) -> usize {
        self.providers
    }

    pub(crate) fn steps(&self) -> usize {
        self.steps
    }

    pub(crate) fn routes(&self) -> usize {
        self.routes
    }

    /// Every node, in order: providers, steps, routes.
    pub(crate) fn nodes(&self) -> impl Iterator<Item = NodeId> + use<> {
        (0..self.providers + self.steps + self.routes).map(NodeId::at)
    }

    pub(crate) fn provider(&self, provider: ProviderId) -> NodeId {
        NodeId::at(provider.index())
    }

    pub(crate) fn step(&self, step: StepId) -> NodeId {
        NodeId::at(self.providers + step.index())
    }

    pub(crate) fn route(&self, route: RouteId) -> NodeId {
        NodeId::at(self.providers + self.steps + route.index())
    }

    /// The declaration node `node` stands for, or `None` for [`NodeId::NONE`].
    pub(crate) fn declared_or_none(&self, node: NodeId) -> Option<Declared> {
        (node != NodeId::NONE).then(|| self.declared(node))
    }

    /// The declaration node `node` stands for.
    pub(crate) fn declared(&self, node: NodeId) -> Declared {
        let i = node.index();
        if i < self.providers {
            Declared::Provider(ProviderId::at(i))
        } else if i < self.providers + self.steps {
            Declared::Step(StepId::at(i - self.providers))
        } else {
            assert!(
                i < self.providers + self.steps + self.routes,
                "a node of this layout"
            );
            Declared::Route(RouteId::at(i - self.providers - self.steps))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_converts_to_its_declaration_and_back() {
        let layout = Numbering::new(2, 3, 1);
        let declared: Vec<Declared> = layout.nodes().map(|n| layout.declared(n)).collect();
        assert_eq!(
            declared,
            [
                Declared::Provider(ProviderId::at(0)),
                Declared::Provider(ProviderId::at(1)),
                Declared::Step(StepId::at(0)),
                Declared::Step(StepId::at(1)),
                Declared::Step(StepId::at(2)),
                Declared::Route(RouteId::at(0)),
            ]
        );
        assert_eq!(
            layout.declared(layout.step(StepId::at(2))),
            Declared::Step(StepId::at(2))
        );
        assert_eq!(
            layout.declared(layout.route(RouteId::at(0))),
            Declared::Route(RouteId::at(0))
        );
    }
}
