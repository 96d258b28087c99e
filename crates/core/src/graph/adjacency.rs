//! The graph's edges as two flat lists, each node's dependents and each node's dependencies,
//! and the petgraph traits that let petgraph's algorithms walk them where they are.
//!
//! A graph of a hundred thousand declarations has some three hundred thousand edges: kept as
//! one vector per direction, they take a few megabytes read in order, where a `Vec` per node
//! (or petgraph's own `Graph`, a linked list of edges per node) scatters them over the heap.

use std::ops::Range;

use petgraph::Direction;
use petgraph::visit::{
    GraphBase, IntoNeighbors, IntoNeighborsDirected, IntoNodeIdentifiers, NodeIndexable, VisitMap,
    Visitable,
};

use super::NodeId;

/// An edge: `to` needs a value of `from` (or, for a route and its guard, runs after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Edge {
    pub(crate) from: NodeId,
    pub(crate) to: NodeId,
}

/// A list of items per node, all in one vector.
#[derive(Debug)]
pub(crate) struct Rows<T> {
    /// Where each node's row starts in `items`; row `i` ends where row `i + 1` starts.
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Rows<T> {
    /// No rows yet, with room for `rows` rows of `items` items in all.
    pub(crate) fn with_capacity(rows: usize, items: usize) -> Self {
        let mut starts = Vec::with_capacity(rows + 1);
        starts.push(0);
        Rows {
            starts,
            items: Vec::with_capacity(items),
        }
    }

    /// Adds an item to the row being written.
    pub(crate) fn push(&mut self, item: T) {
        self.items.push(item);
    }

    /// Ends the row being written: the next item goes to the next node.
    pub(crate) fn end_row(&mut self) {
        let end = u32::try_from(self.items.len()).expect("fewer than 2^32 items");
        self.starts.push(end);
    }

    /// The row of `node`.
    pub(crate) fn row(&self, node: NodeId) -> &[T] {
        let i = node.index();
        &self.items[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Every row, in node order.
    pub(crate) fn rows(&self) -> impl Iterator<Item = &[T]> {
        self.starts
            .windows(2)
            .map(|w| &self.items[w[0] as usize..w[1] as usize])
    }
}

impl Rows<NodeId> {
    /// `item(edge)` for each edge, in the row of `row(edge)`; each row keeps the order of
    /// `edges` (a counting sort: two passes, no comparison).
    fn grouped(
        nodes: usize,
        edges: &[Edge],
        row: impl Fn(&Edge) -> NodeId,
        item: impl Fn(&Edge) -> NodeId,
    ) -> Self {
        let mut starts = vec![0_u32; nodes + 1];
        for edge in edges {
            starts[row(edge).index() + 1] += 1;
        }
        for i in 0..nodes {
            starts[i + 1] += starts[i];
        }
        let mut next: Vec<u32> = starts[..nodes].to_vec();
        let mut items = vec![NodeId::at(0); edges.len()];
        for edge in edges {
            let at = &mut next[row(edge).index()];
            items[*at as usize] = item(edge);
            *at += 1;
        }
        Rows { starts, items }
    }
}

/// The edges of the graph, both ways.
#[derive(Debug)]
pub(crate) struct Adjacency {
    /// For each node, who needs it, in the order the edges were given.
    dependents: Rows<NodeId>,
    /// For each node, what it needs.
    dependencies: Rows<NodeId>,
}

impl Adjacency {
    /// The graph of `nodes` nodes and `edges`.
    pub(crate) fn new(nodes: usize, edges: &[Edge]) -> Self {
        Adjacency {
            dependents: Rows::grouped(nodes, edges, |e| e.from, |e| e.to),
            dependencies: Rows::grouped(nodes, edges, |e| e.to, |e| e.from),
        }
    }

    /// Who needs `node`, in the order the edges were given.
    pub(crate) fn dependents(&self, node: NodeId) -> &[NodeId] {
        self.dependents.row(node)
    }

    /// Every node's dependents, in node order.
    pub(crate) fn all_dependents(&self) -> impl Iterator<Item = &[NodeId]> {
        self.dependents.rows()
    }

    fn nodes(&self) -> usize {
        self.dependents.starts.len() - 1
    }
}

impl GraphBase for Adjacency {
    type NodeId = NodeId;
    type EdgeId = ();
}

/// Latest edge first: the order in which petgraph's `Graph` walks a node's edges, so that
/// orders and cycles come out as they did when the analysis built one.
type Neighbors<'a> = std::iter::Copied<std::iter::Rev<std::slice::Iter<'a, NodeId>>>;

impl<'a> IntoNeighbors for &'a Adjacency {
    type Neighbors = Neighbors<'a>;
    fn neighbors(self, node: NodeId) -> Neighbors<'a> {
        self.dependents.row(node).iter().rev().copied()
    }
}

impl<'a> IntoNeighborsDirected for &'a Adjacency {
    type NeighborsDirected = Neighbors<'a>;
    fn neighbors_directed(self, node: NodeId, direction: Direction) -> Neighbors<'a> {
        match direction {
            Direction::Outgoing => self.dependents.row(node).iter().rev().copied(),
            Direction::Incoming => self.dependencies.row(node).iter().rev().copied(),
        }
    }
}

impl IntoNodeIdentifiers for &Adjacency {
    type NodeIdentifiers = std::iter::Map<Range<usize>, fn(usize) -> NodeId>;
    fn node_identifiers(self) -> Self::NodeIdentifiers {
        (0..self.nodes()).map(NodeId::at as fn(usize) -> NodeId)
    }
}

impl NodeIndexable for Adjacency {
    fn node_bound(&self) -> usize {
        self.nodes()
    }
    fn to_index(&self, node: NodeId) -> usize {
        node.index()
    }
    fn from_index(&self, index: usize) -> NodeId {
        NodeId::at(index)
    }
}

impl Visitable for Adjacency {
    type Map = Visited;
    fn visit_map(&self) -> Visited {
        Visited(vec![false; self.nodes()])
    }
    fn reset_map(&self, map: &mut Visited) {
        map.0.clear();
        map.0.resize(self.nodes(), false);
    }
}

/// Which nodes a walk has seen.
#[derive(Debug)]
pub(crate) struct Visited(Vec<bool>);

impl VisitMap<NodeId> for Visited {
    fn visit(&mut self, node: NodeId) -> bool {
        !std::mem::replace(&mut self.0[node.index()], true)
    }
    fn is_visited(&self, node: &NodeId) -> bool {
        self.0[node.index()]
    }
    fn unvisit(&mut self, node: NodeId) -> bool {
        std::mem::replace(&mut self.0[node.index()], false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::graph::DiGraph;

    fn edge(from: usize, to: usize) -> Edge {
        Edge {
            from: NodeId::at(from),
            to: NodeId::at(to),
        }
    }

    /// The same edges in petgraph's `Graph` give the same neighbors in the same order, so
    /// petgraph's algorithms give the same answers on either.
    #[test]
    fn neighbors_come_in_the_order_of_petgraphs_graph() {
        let edges = [
            edge(0, 2),
            edge(1, 2),
            edge(0, 3),
            edge(2, 3),
            edge(0, 1),
            edge(3, 3),
        ];
        let adjacency = Adjacency::new(4, &edges);
        let mut graph: DiGraph<(), ()> = DiGraph::new();
        let ids: Vec<_> = (0..4).map(|_| graph.add_node(())).collect();
        for e in &edges {
            graph.add_edge(ids[e.from.index()], ids[e.to.index()], ());
        }
        for (n, &id) in ids.iter().enumerate() {
            for direction in [Direction::Outgoing, Direction::Incoming] {
                let ours: Vec<usize> = adjacency
                    .neighbors_directed(NodeId::at(n), direction)
                    .map(NodeId::index)
                    .collect();
                let theirs: Vec<usize> = graph
                    .neighbors_directed(id, direction)
                    .map(|i| i.index())
                    .collect();
                assert_eq!(ours, theirs, "node {n}, {direction:?}");
            }
        }
        assert_eq!(
            adjacency.dependents(NodeId::at(0)),
            [2, 3, 1].map(NodeId::at)
        );
        let sccs: Vec<Vec<usize>> = petgraph::algo::tarjan_scc(&adjacency)
            .into_iter()
            .map(|c| c.into_iter().map(NodeId::index).collect())
            .collect();
        let expected: Vec<Vec<usize>> = petgraph::algo::tarjan_scc(&graph)
            .into_iter()
            .map(|c| c.into_iter().map(|i| i.index()).collect())
            .collect();
        assert_eq!(sccs, expected);
    }
}
