//! The graph algorithm: resolve every need to a provided value, find every problem, and order
//! the declarations. Wraps petgraph; returns indices, never petgraph types.

mod suggest;

use std::borrow::Cow;
use std::collections::HashMap;

use petgraph::algo::{tarjan_scc, toposort};
use petgraph::graph::{DiGraph, NodeIndex};

use crate::error::{NodeKind, Origin, Problem};
use crate::key::{Key, KeySpec, Location};

pub use suggest::closest;
pub(crate) use suggest::closest_key;

/// How long a node's values live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Built at most once for the whole app (providers and values).
    App,
    /// Built from scratch on every request that needs it (steps, routes).
    Request,
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scope::App => "app",
            Scope::Request => "request",
        })
    }
}

/// One declaration as the graph sees it, borrowed from the builder's own descriptors (the
/// analysis copies nothing per declaration; an [`Origin`] is made only for a problem).
#[derive(Clone, Debug)]
pub(crate) struct Decl<'a> {
    pub(crate) kind: NodeKind,
    pub(crate) name: Cow<'a, str>,
    pub(crate) location: Location,
    pub(crate) scope: Scope,
    pub(crate) provides: Cow<'a, [KeySpec]>,
    pub(crate) needs: Cow<'a, [KeySpec]>,
}

impl Decl<'_> {
    /// Who this is, for an error.
    pub(crate) fn origin(&self) -> Origin {
        Origin {
            kind: self.kind,
            name: self.name.clone().into_owned(),
            location: self.location,
        }
    }

    /// The order of origins (kind, name, location), without making them.
    fn cmp_origin(&self, other: &Decl<'_>) -> std::cmp::Ordering {
        (self.kind, &*self.name, self.location).cmp(&(other.kind, &*other.name, other.location))
    }
}

/// Keys to values: keys come from declarations in code, not from requests, so a fast hasher
/// (foldhash, randomly seeded) is enough.
pub(crate) type KeyMap<V> = HashMap<Key, V, foldhash::fast::RandomState>;

/// A provided value: the `index`-th value of declaration `node`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValueRef {
    pub(crate) node: usize,
    pub(crate) index: usize,
}

/// The checked graph: every need resolved, and an order in which dependencies come first.
#[derive(Debug)]
pub(crate) struct Analysis {
    /// Which value each key resolves to, after overrides.
    pub(crate) keys: KeyMap<ValueRef>,
    /// For each declaration, its needs resolved, in declaration order.
    pub(crate) needs: Vec<Vec<ValueRef>>,
    /// For each declaration, the declarations that need one of its values.
    pub(crate) dependents: Vec<Vec<usize>>,
    /// Every declaration, dependencies before dependents.
    pub(crate) order: Vec<usize>,
}

/// Checks `decls` completely and orders them, or returns every problem found.
pub(crate) fn analyze(decls: &[Decl]) -> Result<Analysis, Vec<Problem>> {
    let mut problems = Vec::new();
    let keys = route_keys(decls, &mut problems);

    let mut graph: DiGraph<usize, ()> = DiGraph::with_capacity(decls.len(), decls.len() * 3);
    let ids: Vec<NodeIndex> = (0..decls.len()).map(|i| graph.add_node(i)).collect();
    let mut needs = Vec::with_capacity(decls.len());
    let mut dependents = vec![Vec::new(); decls.len()];
    let mut missing = Vec::new();

    for (i, decl) in decls.iter().enumerate() {
        let mut resolved = Vec::with_capacity(decl.needs.len());
        for need in decl.needs.iter() {
            let Some(&target) = keys.get(&need.key) else {
                missing.push((i, need.key.clone()));
                continue;
            };
            let provider = &decls[target.node];
            let provided = provider.provides[target.index].ty;
            if provided != need.ty {
                problems.push(Problem::TypeMismatch {
                    key: need.key.clone(),
                    consumer: decl.origin(),
                    expected: need.ty,
                    provider: provider.origin(),
                    provided,
                });
            }
            if decl.scope == Scope::App && provider.scope == Scope::Request {
                problems.push(Problem::ScopeViolation {
                    key: need.key.clone(),
                    consumer: decl.origin(),
                    provider: provider.origin(),
                });
            }
            // Needs are walked per consumer, so a repeat can only be the consumer just added.
            if dependents[target.node].last() != Some(&i) {
                dependents[target.node].push(i);
                graph.add_edge(ids[target.node], ids[i], ());
            }
            resolved.push(target);
        }
        needs.push(resolved);
    }

    for (consumer, key) in missing {
        problems.push(Problem::MissingKey {
            suggestion: closest_key(&key, keys.keys())
                .map(|k| suggest::suggestion(k, &keys, decls)),
            chain: chain_of_dependents(consumer, decls, &dependents),
            key,
        });
    }

    // A topological sort finds whether there is a cycle at no extra cost; only then is it worth
    // a pass over the strongly connected components to report every cycle.
    let order = toposort(&graph, None).ok();
    if order.is_none() {
        for component in tarjan_scc(&graph) {
            let is_cycle = component.len() > 1 || graph.contains_edge(component[0], component[0]);
            if is_cycle {
                let members: Vec<usize> = component.iter().map(|&n| graph[n]).collect();
                problems.push(Problem::Cycle {
                    ring: ring_through(&members, decls, &needs),
                });
            }
        }
    }

    if !problems.is_empty() {
        return Err(problems);
    }
    let order = order
        .expect("no cycle was found")
        .into_iter()
        .map(|n| graph[n])
        .collect();
    Ok(Analysis {
        keys,
        needs,
        dependents,
        order,
    })
}

/// Decides which declaration provides each key: the first one, unless an override replaces it.
fn route_keys(decls: &[Decl], problems: &mut Vec<Problem>) -> KeyMap<ValueRef> {
    let mut keys: KeyMap<ValueRef> =
        KeyMap::with_capacity_and_hasher(decls.len(), Default::default());
    let is_override = |d: &Decl| d.kind == NodeKind::Override;

    for (node, decl) in decls.iter().enumerate().filter(|(_, d)| !is_override(d)) {
        for (index, spec) in decl.provides.iter().enumerate() {
            match keys.get(&spec.key) {
                Some(first) => problems.push(Problem::DuplicateProvider {
                    key: spec.key.clone(),
                    first: decls[first.node].origin(),
                    second: decl.origin(),
                }),
                None => {
                    keys.insert(spec.key.clone(), ValueRef { node, index });
                }
            }
        }
    }

    for (node, decl) in decls.iter().enumerate().filter(|(_, d)| is_override(d)) {
        for (index, spec) in decl.provides.iter().enumerate() {
            let Some(base) = keys.get(&spec.key).copied() else {
                problems.push(Problem::OverrideReplacesNothing {
                    key: spec.key.clone(),
                    by: decl.origin(),
                    suggestion: closest_key(&spec.key, keys.keys())
                        .map(|k| suggest::suggestion(k, &keys, decls)),
                });
                continue;
            };
            let original = &decls[base.node];
            if is_override(original) {
                problems.push(Problem::DuplicateProvider {
                    key: spec.key.clone(),
                    first: original.origin(),
                    second: decl.origin(),
                });
                continue;
            }
            let declared = original.provides[base.index].ty;
            if declared != spec.ty {
                problems.push(Problem::TypeMismatch {
                    key: spec.key.clone(),
                    consumer: decl.origin(),
                    expected: declared,
                    provider: original.origin(),
                    provided: spec.ty,
                });
            }
            keys.insert(spec.key.clone(), ValueRef { node, index });
        }
    }
    keys
}

/// The declaration `start`, then who needs it, then who needs that, up to a root: one path,
/// choosing the first dependent by name at each step so the text is deterministic.
fn chain_of_dependents(start: usize, decls: &[Decl], dependents: &[Vec<usize>]) -> Vec<Origin> {
    const MAX_CHAIN: usize = 16;
    let mut chain = vec![decls[start].origin()];
    let mut seen = vec![start];
    let mut current = start;
    while chain.len() < MAX_CHAIN {
        let next = dependents[current]
            .iter()
            .copied()
            .filter(|d| !seen.contains(d))
            .min_by(|&a, &b| decls[a].cmp_origin(&decls[b]));
        let Some(next) = next else { break };
        chain.push(decls[next].origin());
        seen.push(next);
        current = next;
    }
    chain
}

/// One ring inside a strongly connected component, starting at its first member by name: the
/// shortest path of needs from that member back to itself.
fn ring_through(
    members: &[usize],
    decls: &[Decl],
    needs: &[Vec<crate::graph::ValueRef>],
) -> Vec<(Origin, Key)> {
    let start = *members
        .iter()
        .min_by(|&&a, &&b| decls[a].cmp_origin(&decls[b]))
        .expect("a component has members");
    // Breadth-first over "needs" edges, staying inside the component.
    let mut parent: HashMap<usize, (usize, Key)> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    'search: while let Some(node) = queue.pop_front() {
        for (need, target) in decls[node].needs.iter().zip(&needs[node]) {
            let next = target.node;
            if !members.contains(&next) || parent.contains_key(&next) {
                continue;
            }
            parent.insert(next, (node, need.key.clone()));
            if next == start {
                break 'search;
            }
            queue.push_back(next);
        }
    }
    // Walk back from start to start, then reverse into "X needs key of next".
    let mut ring = Vec::new();
    let mut node = start;
    loop {
        let (prev, key) = parent[&node].clone();
        ring.push((decls[prev].origin(), key));
        node = prev;
        if node == start {
            break;
        }
    }
    ring.reverse();
    ring
}

#[cfg(test)]
mod tests;
