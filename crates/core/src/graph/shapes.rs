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
use super::numbering::{NodeId, Numbering};
use crate::error::{Origin, Problem};
use crate::ids::StepId;
use crate::key::{Key, KeySpec};
use crate::switch::condition::{Condition, SwitchId};

/// The providers of one key that no shape has two of, in groups: each a key's first provider
/// and its alternatives. Empty (and free) without switches.
#[derive(Default)]
pub(crate) struct Alternatives {
    /// Each node's group, or [`NONE`](Self::NONE); as long as the declarations once any
    /// alternative is found.
    group: Vec<u32>,
    /// Each group's members, in registration order.
    members: Vec<Vec<ValueRef>>,
}

impl Alternatives {
    const NONE: u32 = u32::MAX;

    /// The other providers of the key `at` provides, each on where `at` is not.
    #[inline]
    pub(crate) fn of(&self, at: NodeId) -> impl Iterator<Item = ValueRef> + '_ {
        let group = self.group.get(at.index()).copied().unwrap_or(Self::NONE);
        let members = match group {
            Self::NONE => &[][..],
            g => &self.members[g as usize][..],
        };
        members.iter().copied().filter(move |m| m.node != at)
    }

    /// Whether `at` has alternatives.
    #[inline]
    fn has(&self, at: NodeId) -> bool {
        self.group.get(at.index()).is_some_and(|g| *g != Self::NONE)
    }

    /// `at` and its alternatives.
    fn with(&self, at: ValueRef) -> Vec<ValueRef> {
        std::iter::once(at).chain(self.of(at.node)).collect()
    }

    /// Adds `second` to the group of `first`.
    fn join(&mut self, first: ValueRef, second: ValueRef, nodes: usize) {
        if self.group.is_empty() {
            self.group = vec![Self::NONE; nodes];
        }
        let group = match self.group[first.node.index()] {
            Self::NONE => {
                let g = u32::try_from(self.members.len()).expect("fewer than 2^32 keys");
                self.members.push(vec![first]);
                self.group[first.node.index()] = g;
                g
            }
            g => g,
        };
        self.members[group as usize].push(second);
        self.group[second.node.index()] = group;
    }
}

impl Shapes<'_> {
    #[inline]
    pub(crate) fn of(&self, node: NodeId) -> &Condition {
        &self.conditions[self.of[node.index()] as usize]
    }

    pub(crate) fn describe(&self, condition: &Condition) -> String {
        self.switches.describe(condition)
    }

    fn count(&self) -> impl Fn(SwitchId) -> usize + '_ {
        |s| self.switches.count(s)
    }

    /// Whether a need of `consumer` met by `base` is met in every shape without looking
    /// further: both are on in every shape, and `base` has no alternative (nearly every need).
    #[inline]
    pub(crate) fn met_everywhere(
        &self,
        consumer: NodeId,
        base: ValueRef,
        alternatives: &Alternatives,
    ) -> bool {
        self.of[consumer.index()] == 0
            && self.of[base.node.index()] == 0
            && !alternatives.has(base.node)
    }

    /// Whether `consumer` and `target`, the provider a need of it resolved to, are both on
    /// in every shape and `target` has no alternative: the need is met in every shape and
    /// read today as it is (nearly every need; decorators check their own need).
    #[inline]
    pub(crate) fn on_everywhere(
        &self,
        consumer: NodeId,
        target: ValueRef,
        alternatives: &Alternatives,
    ) -> bool {
        self.of[consumer.index()] == 0
            && self.of[target.node.index()] == 0
            && !alternatives.has(target.node)
    }

    /// Whether `node` is on in today's shape.
    #[inline]
    pub(crate) fn on(&self, node: NodeId) -> bool {
        self.on[node.index()]
    }

    /// `second` provides `key` as `first` (the key's provider so far) does: an alternative of
    /// it when no shape has both (and each alternative before it) on, otherwise a duplicate,
    /// in the shapes where two are. Returns whether `second` is the key's provider today in
    /// `first`'s place (it is on, and `first` is off).
    pub(crate) fn provided_again(
        &self,
        key: &Key,
        (first, second): (ValueRef, ValueRef),
        decls: &[Decl<'_>],
        alternatives: &mut Alternatives,
        problems: &mut Vec<Problem>,
    ) -> bool {
        let mine = self.of(second.node);
        for other in alternatives.with(first) {
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
                return false;
            }
        }
        alternatives.join(first, second, self.of.len());
        self.on(second.node) && !self.on(first.node)
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
        if first.contains(wanted)
            || optional
            || self.covered_on_one_switch(wanted, base, alternatives)
        {
            return;
        }
        // In registration order, whichever is today's.
        let mut members = alternatives.with(base);
        members.sort_unstable_by_key(|m| m.node);
        let cover: Vec<&Condition> = members.iter().map(|at| self.of(at.node)).collect();
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

    /// The step a guard `name` of `route` runs, of `steps` (the steps of that name, which may
    /// be alternatives): today's. In every shape where the route is served, one of them must
    /// be on; a shape where none is is the guard's problem there.
    pub(crate) fn guard(
        &self,
        (route, route_decl): (NodeId, &Decl<'_>),
        (name, steps): (&str, &[StepId]),
        layout: &Numbering,
        problems: &mut Vec<Problem>,
    ) -> Option<StepId> {
        let wanted = self.of(route);
        let cover: Vec<&Condition> = steps.iter().map(|&s| self.of(layout.step(s))).collect();
        if !cover.iter().any(|c| c.contains(wanted))
            && let Some(left) = wanted.uncovered(cover.iter().copied(), &self.count())
        {
            problems.push(Problem::InShape {
                shape: self.describe(&left),
                problem: Box::new(Problem::UnknownStep {
                    step: name.to_owned(),
                    route: route_decl.origin(),
                    suggestion: None,
                }),
            });
        }
        (steps.iter().rev())
            .find(|&&s| self.on(layout.step(s)))
            .or(steps.last())
            .copied()
    }

    /// Whether `base` and its alternatives, each on for some outcomes of one switch (the same
    /// one), cover `wanted` between them: the usual alternatives (`gateway = stripe`,
    /// `gateway = fake`), told without the general search.
    fn covered_on_one_switch(
        &self,
        wanted: &Condition,
        base: ValueRef,
        alternatives: &Alternatives,
    ) -> bool {
        let mut on: Option<(SwitchId, u64)> = None;
        for member in std::iter::once(base).chain(alternatives.of(base.node)) {
            match (self.of(member.node).terms(), on) {
                (&[(switch, outcomes)], None) => on = Some((switch, outcomes)),
                (&[(switch, outcomes)], Some((s, union))) if s == switch => {
                    on = Some((s, union | outcomes));
                }
                _ => return false,
            }
        }
        on.is_some_and(|(switch, union)| {
            let wanted = wanted
                .allowed(switch)
                .unwrap_or_else(|| crate::switch::condition::every(self.switches.count(switch)));
            wanted & !union == 0
        })
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
