//! The graph of every shape at once: each node with the condition it is on under, checked edge
//! by edge over the conditions rather than shape by shape. Two providers of one key are
//! alternatives when no shape has both on, and a duplicate where one does; a need is met when
//! its providers' conditions cover its consumer's; a ring is a cycle when its nodes can all be
//! on together.

use std::collections::HashSet;

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

use super::adjacency::{Adjacency, Rows};
use super::decl::{Decl, Shapes};
use super::keys::ValueRef;
use super::numbering::NodeId;
use crate::error::{Origin, Problem};
use crate::key::{Key, KeySpec};
use crate::switch::condition::{Condition, SwitchId};

/// The other providers of a key, each beside the first one registered (what the key table
/// holds): no shape has two of them on.
#[derive(Default)]
pub(crate) struct Alternatives {
    of: Vec<(NodeId, ValueRef)>,
}

impl Alternatives {
    /// The alternatives of `first`'s key, besides `first`.
    pub(crate) fn of(&self, first: NodeId) -> impl Iterator<Item = ValueRef> + '_ {
        self.of
            .iter()
            .filter(move |(f, _)| *f == first)
            .map(|(_, at)| *at)
    }

    /// Forgets `first`'s alternatives: an override replaced them all.
    pub(crate) fn replaced(&mut self, first: NodeId) {
        self.of.retain(|(f, _)| *f != first);
    }
}

impl Shapes<'_> {
    #[inline]
    pub(crate) fn of(&self, node: NodeId) -> &Condition {
        &self.of[node.index()]
    }

    pub(crate) fn describe(&self, condition: &Condition) -> String {
        self.switches.describe(condition)
    }

    fn count(&self) -> impl Fn(SwitchId) -> usize + '_ {
        |s| self.switches.count(s)
    }

    /// `second` provides `key` as `first` did: an alternative of it when no shape has both
    /// (and each alternative before it) on, otherwise a duplicate, in the shapes where two are.
    pub(crate) fn provided_again(
        &self,
        key: &Key,
        first: ValueRef,
        second: ValueRef,
        decls: &[Decl<'_>],
        alternatives: &mut Alternatives,
        problems: &mut Vec<Problem>,
    ) {
        let mine = self.of(second.node);
        let earlier = std::iter::once(first).chain(alternatives.of(first.node));
        for other in earlier.collect::<Vec<_>>() {
            if let Some(both) = self.of(other.node).and(mine) {
                let duplicate = Problem::DuplicateProvider {
                    key: key.clone(),
                    first: decls[other.node.index()].origin(),
                    second: decls[second.node.index()].origin(),
                };
                problems.push(match both.is_always() {
                    true => duplicate,
                    false => Problem::InShape {
                        shape: self.describe(&both),
                        problem: Box::new(duplicate),
                    },
                });
                return;
            }
        }
        alternatives.of.push((first.node, second));
    }

    /// Checks that `consumer`'s need `need` (met, in the union, by `base`, a key's first
    /// provider, and its alternatives) is met in every shape where `consumer` is on; an
    /// optional need is met by absence too.
    pub(crate) fn check_need(
        &self,
        (consumer, consumer_decl): (NodeId, &Decl<'_>),
        (need, optional): (&KeySpec, bool),
        base: ValueRef,
        alternatives: &Alternatives,
        problems: &mut Vec<Problem>,
    ) {
        let wanted = self.of(consumer);
        let first = self.of(base.node);
        if first.contains(wanted) || optional {
            return;
        }
        let cover: Vec<&Condition> = std::iter::once(first)
            .chain(alternatives.of(base.node).map(|at| self.of(at.node)))
            .collect();
        if let Some(left) = wanted.uncovered(cover.iter().copied(), &self.count()) {
            let provided = match cover.iter().filter(|c| c.overlaps(wanted)).count() {
                0 => "never".to_owned(),
                _ => cover
                    .iter()
                    .map(|c| self.describe(c))
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            problems.push(Problem::NeededInShape {
                key: need.key.clone(),
                consumer: consumer_decl.origin(),
                shape: self.describe(&left),
                provided,
            });
        }
    }

    /// Reports the cycles among `component` (a strongly connected component of the graph of
    /// every shape) that some shape has: those whose nodes can all be on together. Splits on
    /// one switch at a time, where the nodes cannot, and looks again in each outcome's graph.
    pub(crate) fn cycles(
        &self,
        component: &[NodeId],
        graph: &Adjacency,
        decls: &[Decl<'_>],
        needs: &Rows<ValueRef>,
        problems: &mut Vec<Problem>,
    ) {
        let mut rings = Rings {
            graph,
            decls,
            needs,
            reported: HashSet::new(),
            problems,
        };
        self.cycles_within(component.to_vec(), &Condition::ALWAYS, &mut rings);
    }

    fn cycles_within(&self, members: Vec<NodeId>, within: &Condition, rings: &mut Rings<'_, '_>) {
        let Rings {
            graph,
            decls,
            needs,
            ..
        } = *rings;
        let together = members
            .iter()
            .try_fold(within.clone(), |all, m| all.and(self.of(*m)));
        if together.is_some() {
            let ring = ring(&members, graph);
            let mut set = ring.clone();
            set.sort();
            if !rings.reported.insert(set) {
                return;
            }
            let shape = ring
                .iter()
                .try_fold(Condition::ALWAYS, |all, m| all.and(self.of(*m)))
                .expect("members that can be on together");
            let cycle = Problem::Cycle {
                ring: named_ring(&ring, decls, needs),
            };
            rings.problems.push(match shape.is_always() {
                true => cycle,
                false => Problem::InShape {
                    shape: self.describe(&shape),
                    problem: Box::new(cycle),
                },
            });
            return;
        }
        // A switch that some member is on for only some outcomes of, still open in `within`.
        let open = |s: SwitchId| within.allowed(s).is_none_or(|o| o.count_ones() > 1);
        let Some(switch) = members
            .iter()
            .flat_map(|m| self.of(*m).terms().iter().map(|(s, _)| *s))
            .find(|s| open(*s))
        else {
            return;
        };
        let count = self.switches.count(switch);
        for outcome in 0..count {
            let Some(narrow) =
                Condition::of(switch, 1 << outcome, count).and_then(|one| within.and(&one))
            else {
                continue;
            };
            let on: Vec<NodeId> = members
                .iter()
                .copied()
                .filter(|m| self.of(*m).overlaps(&narrow))
                .collect();
            for component in components(&on, graph) {
                self.cycles_within(component, &narrow, rings);
            }
        }
    }
}

/// What the search for the rings of every shape reads, and what it found.
struct Rings<'g, 'p> {
    graph: &'g Adjacency,
    decls: &'g [Decl<'g>],
    needs: &'g Rows<ValueRef>,
    /// Each ring reported, by its members, sorted: one ring found under several outcomes is
    /// said once.
    reported: HashSet<Vec<NodeId>>,
    problems: &'p mut Vec<Problem>,
}

/// The strongly connected components of the graph among `members` that hold a cycle.
fn components(members: &[NodeId], graph: &Adjacency) -> Vec<Vec<NodeId>> {
    let mut sub: DiGraph<NodeId, ()> = DiGraph::new();
    let index: std::collections::HashMap<NodeId, _> =
        members.iter().map(|&m| (m, sub.add_node(m))).collect();
    for &m in members {
        for d in graph.dependents(m) {
            if let Some(&to) = index.get(d) {
                sub.add_edge(index[&m], to, ());
            }
        }
    }
    tarjan_scc(&sub)
        .into_iter()
        .filter(|c| c.len() > 1 || sub.contains_edge(c[0], c[0]))
        .map(|c| c.into_iter().map(|i| sub[i]).collect())
        .collect()
}

/// A ring through the least of `members` (a component with a cycle), in "needs" order: each
/// node needs the next, and the last needs the first.
fn ring(members: &[NodeId], graph: &Adjacency) -> Vec<NodeId> {
    let start = *members.iter().min().expect("a component has members");
    let mut parent: std::collections::HashMap<NodeId, NodeId> = Default::default();
    let mut queue = std::collections::VecDeque::from([start]);
    'search: while let Some(node) = queue.pop_front() {
        for &next in graph.dependents(node) {
            if !members.contains(&next) || parent.contains_key(&next) {
                continue;
            }
            parent.insert(next, node);
            if next == start {
                break 'search;
            }
            queue.push_back(next);
        }
    }
    let mut ring = vec![start];
    let mut node = start;
    while let Some(&prev) = parent.get(&node) {
        if prev == start {
            break;
        }
        ring.push(prev);
        node = prev;
    }
    ring
}

/// The ring `nodes` (each needs the next, the last the first) as a cycle problem names it.
fn named_ring(nodes: &[NodeId], decls: &[Decl<'_>], needs: &Rows<ValueRef>) -> Vec<(Origin, Key)> {
    (0..nodes.len())
        .map(|i| {
            let (node, next) = (nodes[i], nodes[(i + 1) % nodes.len()]);
            let decl = &decls[node.index()];
            let key = needs
                .row(node)
                .iter()
                .position(|v| v.node == next)
                .and_then(|at| decl.descriptor.needs.get(at))
                .map(|spec| spec.key.clone())
                .unwrap_or_else(|| {
                    let provided = &decls[next.index()].descriptor.provides;
                    provided
                        .first()
                        .map(|s| s.key.clone())
                        .unwrap_or_else(|| Key::from_static(""))
                });
            (decl.origin(), key)
        })
        .collect()
}
