//! The graph's edges as one flat list of each node's dependents, the order in which
//! dependencies come first, and the petgraph traits that let petgraph's algorithms walk the
//! edges where they are.
//!
//! A graph of a hundred thousand declarations has some three hundred thousand edges: kept in
//! one vector, they take a few megabytes read in order, where a `Vec` per node (or petgraph's
//! own `Graph`, a linked list of edges per node) scatters them over the heap.

use std::ops::Range;

use petgraph::visit::{GraphBase, IntoNeighbors, IntoNodeIdentifiers, NodeIndexable};

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

/// The edges of the graph, by the node they start from. (Only the walk petgraph's `toposort`
/// makes went the other way, to check its order; [`Adjacency::order`] checks the edges instead.)
#[derive(Debug)]
pub(crate) struct Adjacency {
    /// For each node, who needs it, in the order the edges were given.
    dependents: Rows<NodeId>,
}

impl Adjacency {
    /// The graph of `nodes` nodes and `edges`.
    pub(crate) fn new(nodes: usize, edges: &[Edge]) -> Self {
        Adjacency {
            dependents: Rows::grouped(nodes, edges, |e| e.from, |e| e.to),
        }
    }

    /// Every node, dependencies first, or `None` if the graph has a cycle: the order
    /// `petgraph::algo::toposort` gives, by the same depth-first walk (so that orders, and with
    /// them the order of builds and disposals, stay what they were), without its second walk.
    /// The walk goes from each unseen node in turn into its dependents, the earliest edge first;
    /// a node is done when all its dependents are, and the order is the reverse of that. An
    /// edge back to a node on the walk's path closes a cycle, and there is a cycle only if the
    /// walk meets such an edge.
    pub(crate) fn order(&self) -> Option<Vec<NodeId>> {
        const UNSEEN: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let Rows { starts, items } = &self.dependents;
        let nodes = self.nodes();
        let mut state = vec![UNSEEN; nodes];
        // The walk's path: each node on it with the position in `items` of its next dependent.
        let mut path: Vec<(NodeId, u32)> = Vec::new();
        let mut order = vec![NodeId::NONE; nodes];
        let mut done = nodes;
        for start in 0..nodes {
            if state[start] != UNSEEN {
                continue;
            }
            state[start] = ON_PATH;
            path.push((NodeId::at(start), starts[start]));
            while let Some((node, next)) = path.last_mut() {
                let end = starts[node.index() + 1];
                let mut deeper = None;
                while *next < end {
                    let dependent = items[*next as usize];
                    *next += 1;
                    match state[dependent.index()] {
                        UNSEEN => {
                            deeper = Some(dependent);
                            break;
                        }
                        ON_PATH => return None,
                        _ => {}
                    }
                }
                match deeper {
                    Some(dependent) => {
                        state[dependent.index()] = ON_PATH;
                        path.push((dependent, starts[dependent.index()]));
                    }
                    None => {
                        state[node.index()] = DONE;
                        done -= 1;
                        order[done] = *node;
                        path.pop();
                    }
                }
            }
        }
        Some(order)
    }

    /// Who needs `node`, in the order the edges were given.
    pub(crate) fn dependents(&self, node: NodeId) -> &[NodeId] {
        self.dependents.row(node)
    }

    /// Every node's dependents, in node order.
    pub(crate) fn all_dependents(&self) -> impl Iterator<Item = &[NodeId]> {
        self.dependents.rows()
    }

    pub(crate) fn nodes(&self) -> usize {
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
            let ours: Vec<usize> = adjacency
                .neighbors(NodeId::at(n))
                .map(NodeId::index)
                .collect();
            let theirs: Vec<usize> = graph.neighbors(id).map(|i| i.index()).collect();
            assert_eq!(ours, theirs, "node {n}");
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

    /// `order` is petgraph's `toposort` (which the analysis used before): the same order on
    /// graphs without a cycle, `None` where it finds one, over many graphs of each kind.
    #[test]
    fn order_is_petgraphs_toposort() {
        // A small deterministic generator: no dependency for a test's random graphs.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        let (mut acyclic, mut cyclic) = (0, 0);
        for round in 0..2_000 {
            let nodes = 1 + next(12);
            let edges: Vec<Edge> = (0..next(3 * nodes))
                .map(|_| {
                    let (a, b) = (next(nodes), next(nodes));
                    // Mostly forward edges, so that many graphs have no cycle; some back edges
                    // and self edges, so that others do.
                    match (round % 3, a.cmp(&b)) {
                        (0, _) | (_, std::cmp::Ordering::Less) => edge(a, b),
                        _ => edge(b, a),
                    }
                })
                .collect();
            let adjacency = Adjacency::new(nodes, &edges);
            let mut graph: DiGraph<(), ()> = DiGraph::new();
            let ids: Vec<_> = (0..nodes).map(|_| graph.add_node(())).collect();
            for e in &edges {
                graph.add_edge(ids[e.from.index()], ids[e.to.index()], ());
            }
            let ours = adjacency
                .order()
                .map(|order| order.into_iter().map(NodeId::index).collect::<Vec<_>>());
            let theirs = petgraph::algo::toposort(&graph, None)
                .ok()
                .map(|order| order.into_iter().map(|i| i.index()).collect::<Vec<_>>());
            assert_eq!(ours, theirs, "round {round}: {edges:?}");
            match ours {
                Some(_) => acyclic += 1,
                None => cyclic += 1,
            }
        }
        assert!(
            acyclic > 500 && cyclic > 500,
            "{acyclic} without a cycle, {cyclic} with"
        );
    }
}
