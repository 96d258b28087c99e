//! The graph algorithm: resolve every need to a provided value, find every problem, and order
//! the declarations. Wraps petgraph; returns typed ids, never petgraph types.
//!
//! The declarations come in three typed lists (providers, steps, routes). Inside, they are
//! nodes of one graph, numbered by [`NodeId`]; [`Numbering`] is the one place that converts
//! between a node and the declaration it stands for.

mod adjacency;
pub(crate) mod collections;
mod decl;
mod keys;
mod modules;
mod numbering;
mod order;
mod shapes;
mod suggest;

use std::collections::HashMap;
use std::sync::Arc;

use petgraph::algo::tarjan_scc;

use crate::error::{NodeKind, Origin, Problem, Suggestion};
use crate::ids::{AppValue, IdLists, IdVec, ProviderId, RouteId, StepId, StepValue};
use crate::key::{Key, KeySpec, Spelling};
use crate::registry;

use adjacency::{Adjacency, Edge, Rows};
pub use decl::Scope;
pub(crate) use decl::{Decl, Input, RouteDecl, Shapes};
pub(crate) use keys::{KeyMap, KeyTable, Value};
use keys::{ValueRef, value_ref};
use modules::{Lookup, ModuleTable, QualifiedNames};
pub(crate) use modules::{RegisteredKeys, qualified_key};
pub(crate) use numbering::{Declared, NodeId, Numbering};
use shapes::Alternatives;
pub(crate) use suggest::closest;
pub(crate) use suggest::closest_key;

/// The checked graph, in typed ids: every need resolved, and orders in which dependencies come
/// first.
#[derive(Debug)]
pub(crate) struct Analysis {
    /// Which provider value each app-scoped key resolves to, after overrides.
    pub(crate) keys: KeyMap<AppValue>,
    /// For each provider, its needs resolved, in declaration order (all app values: a provider
    /// needing a step's value is a problem; `None` for an optional need nothing provides).
    pub(crate) provider_needs: IdLists<ProviderId, Option<AppValue>>,
    /// For each provider, the providers that need one of its values.
    pub(crate) provider_dependents: IdLists<ProviderId, ProviderId>,
    /// Every provider, dependencies first.
    pub(crate) provider_order: Vec<ProviderId>,
    /// For each step, its needs resolved.
    pub(crate) step_needs: IdVec<StepId, Box<[Value]>>,
    /// For each step, its position in an order of all steps where dependencies come first.
    pub(crate) step_rank: IdVec<StepId, u32>,
    /// For each route, its handler's needs resolved.
    pub(crate) route_needs: IdVec<RouteId, Box<[Value]>>,
    /// For each route, the steps it names as guards.
    pub(crate) route_guards: IdVec<RouteId, Box<[StepId]>>,
    /// For each collection, what it needs: its contributions' keys and types, in order.
    pub(crate) collections: Vec<(ProviderId, Vec<KeySpec>)>,
    /// Every key of a module's provider that the graph qualified (`notifications::http`),
    /// rather than its registration: what the container's descriptors say, made once.
    pub(crate) module_keys: Vec<(AppValue, Key)>,
    /// With switches: the settings types on today that something needs in some shape and
    /// nothing on today needs (only what is off reads them: they are not needed today).
    pub(crate) needed_only_off: Vec<ProviderId>,
    /// The graph of every shape (today's, without switches), for what reads it after `build()`.
    pub(crate) every_shape: Option<Arc<EveryShape>>,
}

/// The graph of every shape, as the analysis checked it: an edge from each declaration to each
/// that needs it in some shape (a guard to its route, a contribution to its collection, a
/// wrapped value to its decorator), over every node: providers, then steps, routes, workers.
#[derive(Debug)]
pub(crate) struct EveryShape {
    pub(crate) graph: Adjacency,
    pub(crate) layout: Numbering,
}

impl EveryShape {
    /// What each node needs in some shape, directly: the edges walked backwards.
    pub(crate) fn needs(&self) -> Vec<Vec<NodeId>> {
        let mut needs: Vec<Vec<NodeId>> = vec![Vec::new(); self.graph.nodes()];
        for (from, users) in self.graph.all_dependents().enumerate() {
            for user in users {
                needs[user.index()].push(NodeId::at(from));
            }
        }
        needs
    }
}

/// Every node `node` needs in some shape, transitively (not itself), in node order, from what
/// each needs directly ([`EveryShape::needs`]).
pub(crate) fn reaches(needs: &[Vec<NodeId>], node: NodeId) -> Vec<NodeId> {
    let mut seen = vec![false; needs.len()];
    let mut stack = vec![node];
    while let Some(at) = stack.pop() {
        for &need in &needs[at.index()] {
            if !std::mem::replace(&mut seen[need.index()], true) {
                stack.push(need);
            }
        }
    }
    seen[node.index()] = false;
    (0..needs.len())
        .filter(|&i| seen[i])
        .map(NodeId::at)
        .collect()
}

/// Checks `input` completely and orders it, or returns every problem found.
pub(crate) fn analyze(input: &Input<'_>) -> Result<Analysis, Vec<Problem>> {
    let layout = Numbering::new(input.providers.len(), input.steps.len(), input.routes.len());
    let decls: Vec<Decl<'_>> = input
        .providers
        .iter()
        .chain(input.steps.iter())
        .chain(input.routes.iter().map(|r| &r.decl))
        .copied()
        .collect();
    let decl = |node: NodeId| &decls[node.index()];

    let mut problems = Vec::new();
    let module_table = ModuleTable(input.module_table);
    // For the names of keys and needs in modules (`orders::name`).
    let mut names = QualifiedNames::default();
    let shapes = input.shapes;
    let routing = route_keys(
        &layout,
        &decls,
        module_table,
        shapes.as_ref(),
        &mut names,
        &mut problems,
    );
    let keys = &routing.keys;
    module_table.check(keys, &decls, &mut names, &mut problems);
    let route_guards = resolve_guards(input, &layout, &mut problems);

    // Every consumer's needs resolved, and an edge from each declaration it needs to it, in
    // one vector each: a few flat allocations however large the graph. A row has one entry per
    // need, even when the need is not resolved (an absent optional need, or a problem).
    let total_needs = decls.iter().map(|d| d.descriptor.needs.len()).sum();
    let mut needs: Rows<ValueRef> = Rows::with_capacity(decls.len(), total_needs);
    // With switches, a need has an edge to each alternative of its key too: room for some.
    let alternatives_room = input.shapes.map_or(0, |_| total_needs / 8);
    let mut edges: Vec<Edge> = Vec::with_capacity(total_needs + alternatives_room);
    let mut missing: Vec<(NodeId, Key)> = Vec::new();
    let mut collections = Vec::new();

    for consumer in layout.nodes() {
        let consumer_decl = decl(consumer);
        let first_edge = edges.len();
        if consumer_decl.kind == NodeKind::Collection {
            // A collection needs its contributions, which `route_keys` found; each has the
            // collection's type.
            let collection = &consumer_decl.descriptor.provides[0];
            let mut specs = Vec::new();
            let members = routing.members(collection);
            let members = match collection.key.spelling() {
                Ok(Spelling::List(_)) => {
                    let members: Vec<_> = members.iter().map(|m| (m.node, *m)).collect();
                    order::order(&collection.key, &members, &decls, &mut problems)
                }
                _ => members,
            };
            for target in members {
                // A contribution that is off today is an edge of every shape's graph, and not
                // in today's collection.
                if shapes.is_some_and(|s| !s.on(target.node)) {
                    add_edge(&mut edges, first_edge, target.node, consumer);
                    continue;
                }
                let contributor = decl(target.node);
                let contributed = &contributor.descriptor.provides[target.index as usize];
                if contributed.ty != collection.ty {
                    problems.push(Problem::CollectionType {
                        key: collection.key.clone(),
                        by: contributor.origin(),
                        found: contributed.ty,
                        expected: collection.ty,
                        collection: consumer_decl.origin(),
                    });
                }
                add_edge(&mut edges, first_edge, target.node, consumer);
                needs.push(target);
                specs.push(contributed.clone());
            }
            if let Declared::Provider(id) = layout.declared(consumer) {
                collections.push((id, specs));
            }
            needs.end_row();
            continue;
        }
        let decorates = match consumer_decl.kind {
            NodeKind::Decorator => consumer_decl.descriptor.provides.first().map(|s| &s.key),
            _ => None,
        };
        for need in &consumer_decl.descriptor.needs {
            let plain = need.key.is_plain();
            let spelling = match plain {
                true => Ok(Spelling::One(need.key.as_str())),
                false => need.key.spelling(),
            };
            // Inside a module, a plain name is most often the module's own key
            // (`orders::name`): looked up here first, and through `resolve` if it is not.
            let own = match consumer_decl.module() {
                Some(m) if plain && decorates.is_none() => {
                    keys.get_str(names.of(module_table, m as usize, need.key.as_str()))
                }
                _ => None,
            };
            let found = match spelling {
                _ if own.is_some() => own,
                // The usual need: a plain name, outside any module, is the app's key of that
                // name (a plain name holds no `::`).
                Ok(_) if plain && consumer_decl.in_module.is_none() && decorates.is_none() => {
                    let found = keys.get(&need.key);
                    if found.is_none() {
                        missing.push((consumer, need.key.clone()));
                    }
                    found
                }
                Err(reason) => {
                    problems.push(Problem::KeySpelling {
                        key: need.key.clone(),
                        by: consumer_decl.origin(),
                        reason,
                    });
                    None
                }
                // A decorator's own key is the value it wraps: the one before it in the chain.
                Ok(_) if decorates == Some(&need.key) => {
                    routing.decorated.get(consumer.index()).copied().flatten()
                }
                Ok(spelling) => {
                    let (name, optional) = match spelling {
                        Spelling::Optional(name) => (name, true),
                        _ => (need.key.as_str(), false),
                    };
                    match module_table.resolve(
                        keys,
                        &decls,
                        consumer_decl.module(),
                        name,
                        &mut names,
                    ) {
                        Lookup::Found(at) => Some(at),
                        Lookup::Private { at, module } => {
                            let (base, decorators) = undecorated(&routing, at);
                            problems.push(Problem::PrivateKey {
                                key: need.key.clone(),
                                exports: module_table.exports_seen(
                                    keys,
                                    &decls,
                                    &module,
                                    consumer_decl.module(),
                                ),
                                module,
                                consumer: consumer_decl.origin(),
                                provider: decl(base.node).origin(),
                                decorators: decorators
                                    .into_iter()
                                    .map(|node| decl(node).origin())
                                    .collect(),
                            });
                            None
                        }
                        // Absent is fine for an optional need: it reads as `None`. Present,
                        // it is a need like any other.
                        Lookup::Missing if optional => None,
                        Lookup::Missing => {
                            missing.push((consumer, need.key.clone()));
                            None
                        }
                    }
                }
            };
            let Some(target) = found else {
                needs.push(ValueRef::ABSENT);
                continue;
            };
            // With switches: every shape's providers of the key, and whether today has one.
            let mut today = target;
            if let Some(shapes) = &shapes
                && !shapes.on_everywhere(consumer, target, &routing.alternatives)
            {
                today = every_shape(
                    shapes,
                    (consumer, consumer_decl, need),
                    target,
                    (&routing, &decls),
                    (&mut edges, first_edge),
                    &mut problems,
                );
            }
            let provider = decl(target.node);
            let provided = provider.descriptor.provides[target.index as usize].ty;
            if provided != need.ty {
                problems.push(Problem::TypeMismatch {
                    key: need.key.clone(),
                    consumer: consumer_decl.origin(),
                    expected: need.ty,
                    provider: provider.origin(),
                    provided,
                });
            }
            if consumer_decl.scope() == Scope::App && provider.scope() == Scope::Request {
                problems.push(Problem::ScopeViolation {
                    key: need.key.clone(),
                    consumer: consumer_decl.origin(),
                    provider: provider.origin(),
                });
            }
            add_edge(&mut edges, first_edge, target.node, consumer);
            needs.push(today);
        }
        needs.end_row();
    }
    // A guard runs before its route: the route is its dependent, so that a key the guard needs
    // and nothing provides names the routes that run it. (Nothing needs a route, so these
    // edges close no cycle.)
    for (route, guards) in route_guards.iter_enumerated() {
        let route = layout.route(route);
        let first_edge = edges.len();
        for &guard in guards.iter() {
            let guard = layout.step(guard);
            let needed = needs.row(route).iter().any(|v| v.node == guard);
            if !needed && !edges[first_edge..].iter().any(|e| e.from == guard) {
                edges.push(Edge {
                    from: guard,
                    to: route,
                });
            }
        }
    }
    let graph = Adjacency::new(decls.len(), &edges);

    report_missing(
        missing,
        &decls,
        keys,
        module_table,
        &needs,
        &graph,
        &mut problems,
    );

    // A topological sort finds whether there is a cycle at no extra cost; only then is it worth
    // a pass over the strongly connected components to report every cycle.
    let mut order = graph.order();
    if order.is_none() {
        for component in tarjan_scc(&graph) {
            let is_cycle =
                component.len() > 1 || graph.dependents(component[0]).contains(&component[0]);
            match &shapes {
                // The graph of every shape has a ring; some shape may not.
                Some(shapes) if is_cycle => {
                    shapes.cycles(&component, &graph, &decls, &needs, &mut problems);
                }
                _ if is_cycle => problems.push(Problem::Cycle {
                    ring: ring_through(&component, &decls, &needs),
                }),
                _ => {}
            }
        }
    }

    if !problems.is_empty() {
        return Err(problems);
    }
    // With switches, the container is today's graph. An order of the graph of every shape
    // orders today's (what is off today is never built, and its dependents are left out
    // below); where that graph has a ring no shape has, today's graph is ordered alone.
    let today = match &shapes {
        Some(shapes) if order.is_none() => {
            let (today, today_order) = today_graph(shapes, decls.len(), edges);
            order = today_order;
            Some(today)
        }
        _ => None,
    };
    let every_shape = graph;
    let graph = today.as_ref().unwrap_or(&every_shape);
    let order = order.expect("a ring of today's graph is a cycle reported above");
    let mut keys = routing.keys;
    if let Some(shapes) = &shapes {
        // A key that is off today is not the container's (asking for it says where it is on).
        let providers = &decls[..layout.providers()];
        for (node, decl) in providers.iter().enumerate().filter(|(n, _)| !shapes.on[*n]) {
            for spec in &decl.descriptor.provides {
                let key = module_table.qualify(decl.module(), &spec.key, &mut names);
                if keys
                    .app
                    .get(&key)
                    .is_some_and(|at| at.provider.index() == node)
                {
                    keys.app.remove(&key);
                }
            }
        }
    }
    let on = shapes.map(|s| s.on);
    let mut analysis = typed(&layout, keys, &needs, (graph, on), order, route_guards);
    analysis.collections = collections;
    analysis.module_keys = routing.qualified;
    if let Some(shapes) = &shapes {
        // Settings types only: whether anything on today needs them, in the graph of every
        // shape (`typed` kept today's dependents).
        let settings = decls[..layout.providers()]
            .iter()
            .enumerate()
            .filter(|(node, d)| d.kind == NodeKind::Settings && shapes.on[*node]);
        for (node, _) in settings {
            let users = every_shape.dependents(NodeId::at(node));
            if !users.is_empty() && users.iter().all(|u| !shapes.on(*u)) {
                analysis.needed_only_off.push(ProviderId::at(node));
            }
        }
    }
    // Kept for what reads the graph of every shape later (the lockfile); moved, not copied.
    analysis.every_shape = Some(Arc::new(EveryShape {
        graph: every_shape,
        layout,
    }));
    Ok(analysis)
}

/// An edge from `from` to `to`, whose edges start at `first_edge`: one edge per declaration
/// needed, however many of its values are needed.
#[inline]
fn add_edge(edges: &mut Vec<Edge>, first_edge: usize, from: NodeId, to: NodeId) {
    if !edges[first_edge..].iter().any(|e| e.from == from) {
        edges.push(Edge { from, to });
    }
}

/// A need of `consumer`, met in the graph of every shape by `target` (a key's provider today,
/// or its first if none is on): checked in every shape where `consumer` is on against the
/// key's providers (the first beneath its decorators, and its alternatives), each an edge for
/// the cycles of every shape. Returns what today's graph reads: `target`, or nothing where it
/// is off today (an optional need: a required one unmet is a problem already).
#[cold]
#[inline(never)]
fn every_shape(
    shapes: &Shapes<'_>,
    (consumer, consumer_decl, need): (NodeId, &Decl<'_>, &KeySpec),
    target: ValueRef,
    (routing, decls): (&Routing, &[Decl<'_>]),
    (edges, first_edge): (&mut Vec<Edge>, usize),
    problems: &mut Vec<Problem>,
) -> ValueRef {
    let (base, _) = undecorated(routing, target);
    if !shapes.met_everywhere(consumer, base, &routing.alternatives) {
        let optional = matches!(need.key.spelling(), Ok(Spelling::Optional(_)));
        shapes.check_need(
            (consumer, consumer_decl),
            (need, optional),
            base,
            &routing.alternatives,
            problems,
        );
        for other in routing.alternatives.of(base.node) {
            let other_decl = &decls[other.node.index()];
            let provided = other_decl.descriptor.provides[other.index as usize].ty;
            if provided != need.ty {
                problems.push(Problem::TypeMismatch {
                    key: need.key.clone(),
                    consumer: consumer_decl.origin(),
                    expected: need.ty,
                    provider: other_decl.origin(),
                    provided,
                });
            }
            add_edge(edges, first_edge, other.node, consumer);
        }
    }
    match shapes.on(consumer) && !shapes.on(target.node) {
        true => ValueRef::ABSENT,
        false => target,
    }
}

/// Today's graph, of `nodes` nodes: `edges` between what is on today, and its order (`None`
/// only with a ring today's shape has, which the check reported).
#[cold]
#[inline(never)]
fn today_graph(
    shapes: &Shapes<'_>,
    nodes: usize,
    mut edges: Vec<Edge>,
) -> (Adjacency, Option<Vec<NodeId>>) {
    edges.retain(|e| shapes.on(e.from) && shapes.on(e.to));
    let today = Adjacency::new(nodes, &edges);
    let order = today.order();
    (today, order)
}

/// `analysis`, failed with `problems` found before it too (all of them, in one error).
pub(crate) fn with_problems(
    analysis: Result<Analysis, Vec<Problem>>,
    problems: &mut Vec<Problem>,
) -> Result<Analysis, Vec<Problem>> {
    match analysis {
        Ok(analysis) if problems.is_empty() => Ok(analysis),
        Ok(_) => Err(std::mem::take(problems)),
        Err(found) => {
            problems.extend(found);
            Err(std::mem::take(problems))
        }
    }
}

/// The analysis in typed ids. Only called on a graph without problems, so every provider's
/// needs are app values.
fn typed(
    layout: &Numbering,
    keys: KeyTable,
    needs: &Rows<ValueRef>,
    (graph, on): (&Adjacency, Option<&[bool]>),
    order: Vec<NodeId>,
    route_guards: IdVec<RouteId, Box<[StepId]>>,
) -> Analysis {
    let value = |at: &ValueRef| match layout.declared_or_none(at.node) {
        None => Value::Absent,
        Some(Declared::Provider(provider)) => Value::App(AppValue {
            provider,
            index: at.index,
        }),
        Some(Declared::Step(step)) => Value::Step(StepValue {
            step,
            index: at.index,
        }),
        Some(Declared::Route(_)) => {
            unreachable!("a route provides nothing, so no need resolves to it")
        }
    };
    let app_value = |at: &ValueRef| match value(at) {
        Value::App(at) => Some(at),
        Value::Absent => None,
        Value::Step(_) => unreachable!("a provider needing a step's value is a scope violation"),
    };
    let provider = |node: &NodeId| match layout.declared(*node) {
        Declared::Provider(p) => Some(p),
        _ => None,
    };

    let providers = layout.providers();
    let provider_needs_count = needs.rows().take(providers).map(<[_]>::len).sum();
    let mut provider_needs = IdLists::with_capacity(providers, provider_needs_count);
    for resolved in needs.rows().take(providers) {
        provider_needs.push(resolved.iter().map(app_value));
    }
    // A provider's dependents among providers are the other end of their needs' edges.
    let mut provider_dependents = IdLists::with_capacity(providers, provider_needs_count);
    match on {
        None => {
            for users in graph.all_dependents().take(providers) {
                provider_dependents.push(users.iter().filter_map(provider));
            }
        }
        // A dependent that is off today is none (switches).
        Some(on) => {
            for users in graph.all_dependents().take(providers) {
                let on_today = users.iter().filter(|u| on[u.index()]);
                provider_dependents.push(on_today.filter_map(provider));
            }
        }
    }
    let mut step_needs = IdVec::with_capacity(layout.steps());
    let mut route_needs = IdVec::with_capacity(layout.routes());
    for (node, resolved) in layout.nodes().zip(needs.rows()).skip(providers) {
        match layout.declared(node) {
            Declared::Provider(_) => unreachable!("providers come first"),
            Declared::Step(_) => {
                step_needs.push(resolved.iter().map(value).collect());
            }
            Declared::Route(_) => {
                route_needs.push(resolved.iter().map(value).collect());
            }
        }
    }
    let mut provider_order = Vec::with_capacity(providers);
    let mut step_rank = IdVec::filled(0, layout.steps());
    let mut rank = 0;
    for node in order {
        match layout.declared(node) {
            Declared::Provider(provider) => provider_order.push(provider),
            Declared::Step(step) => {
                step_rank[step] = rank;
                rank += 1;
            }
            Declared::Route(_) => {}
        }
    }
    Analysis {
        keys: keys.app,
        provider_needs,
        provider_dependents,
        provider_order,
        step_needs,
        step_rank,
        route_needs,
        route_guards,
        collections: Vec::new(),
        module_keys: Vec::new(),
        needed_only_off: Vec::new(),
        every_shape: None,
    }
}

/// Who provides what: each key's provider after overrides and decorators, and what each
/// collection and decorator is made of.
pub(crate) struct Routing {
    keys: KeyTable,
    /// Each list's contributions (`notifiers[]`), in registration order, or its overrides'.
    lists: KeyMap<Vec<ValueRef>>,
    /// Each map's entry keys (`stores{eu}` under `stores{}`).
    entries: KeyMap<Vec<Key>>,
    /// For each decorator, the value it wraps: the base's, or the decorator before it.
    decorated: Vec<Option<ValueRef>>,
    /// Every key a module's provider provides (not its contributions), as qualified here
    /// (not those qualified at registration, which its descriptor holds already).
    qualified: Vec<(AppValue, Key)>,
    /// With switches, the other providers of a key, each on where the first is not.
    alternatives: Alternatives,
}

impl Routing {
    /// What the collection `spec` (the key its node provides) holds, in order: a list's
    /// contributions as registered, a map's entries by name.
    fn members(&self, spec: &KeySpec) -> Vec<ValueRef> {
        match spec.key.spelling() {
            Ok(Spelling::List(_)) => self.lists.get(&spec.key).cloned().unwrap_or_default(),
            Ok(Spelling::Map(_)) => {
                let mut entries: Vec<(&str, ValueRef)> = self
                    .entries
                    .get(&spec.key)
                    .into_iter()
                    .flatten()
                    .filter_map(|key| Some((entry_name(key), self.keys.get(key)?)))
                    .collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                entries.into_iter().map(|(_, at)| at).collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The entry's name in a key spelled `map{name}`.
pub(crate) fn entry_name(key: &Key) -> &str {
    match key.spelling() {
        Ok(Spelling::Entry { name, .. }) => name,
        _ => key.as_str(),
    }
}

/// Decides which declaration provides each key: the first one, unless an override replaces it,
/// then wrapped by the key's decorators, in registration order. An override of another type is
/// reported once, and the key stays with the declaration it would have replaced, so its
/// consumers are not reported too. A list's contributions are gathered instead (its key is
/// provided by its collection); an override of a list replaces all of them.
fn route_keys(
    layout: &Numbering,
    decls: &[Decl<'_>],
    module_table: ModuleTable<'_>,
    shapes: Option<&Shapes<'_>>,
    names: &mut QualifiedNames,
    problems: &mut Vec<Problem>,
) -> Routing {
    let mut alternatives = Alternatives::default();
    let provided = |decls: &[Decl<'_>]| decls.iter().map(|d| d.descriptor.provides.len()).sum();
    let (providers, rest) = decls.split_at(layout.providers());
    let mut keys = KeyTable {
        layout: *layout,
        app: KeyMap::with_capacity_and_hasher(provided(providers), Default::default()),
        request: KeyMap::with_capacity_and_hasher(provided(rest), Default::default()),
    };
    let mut lists: KeyMap<Vec<ValueRef>> = KeyMap::default();
    let mut entries: KeyMap<Vec<Key>> = KeyMap::default();
    // Room for every key of a module's declaration that is qualified here, counted rather than
    // grown into.
    let in_modules = match module_table.0.is_empty() {
        true => 0,
        false => decls
            .iter()
            .filter(|d| d.in_module.is_some() && !d.keys_qualified)
            .map(|d| d.descriptor.provides.len())
            .sum(),
    };
    let mut qualified_keys = Vec::with_capacity(in_modules);
    let nodes = || (0..decls.len()).map(NodeId::at);
    let of_kind = |kind: NodeKind| move |n: &NodeId| decls[n.index()].kind == kind;
    let plain = |n: &NodeId| {
        !matches!(
            decls[n.index()].kind,
            NodeKind::Override | NodeKind::Decorator
        )
    };
    for node in nodes().filter(plain) {
        let decl = &decls[node.index()];
        for (index, spec) in decl.descriptor.provides.iter().enumerate() {
            let Some(spelling) = spelled(decl, spec, problems) else {
                continue;
            };
            if let (Spelling::List(_), false) = (spelling, decl.kind == NodeKind::Collection) {
                lists
                    .entry(spec.key.clone())
                    .or_default()
                    .push(value_ref(node, index));
                continue;
            }
            // A module's own key is qualified by its path (at registration already, or here);
            // its contributions to collections are the app's.
            let qualified;
            let key = match (spelling, decl.in_module) {
                (Spelling::One(_), Some(_)) if !decl.keys_qualified => {
                    qualified = module_table.qualify(decl.module(), &spec.key, names);
                    if let Declared::Provider(provider) = layout.declared(node) {
                        let at = AppValue {
                            provider,
                            index: value_ref(node, index).index,
                        };
                        qualified_keys.push((at, qualified.clone()));
                    }
                    &qualified
                }
                _ => &spec.key,
            };
            match keys.insert_first(key, value_ref(node, index)) {
                // With switches, another provider of the key is its alternative when no shape
                // has both.
                Some(first) if let Some(shapes) = shapes => {
                    let at = value_ref(node, index);
                    let today = (first, at);
                    if shapes.provided_again(key, today, decls, &mut alternatives, problems) {
                        keys.insert(key, at);
                    }
                }
                Some(first) => problems.push(Problem::DuplicateProvider {
                    key: key.clone(),
                    first: decls[first.node.index()].origin(),
                    second: decl.origin(),
                }),
                None => {
                    if let Spelling::Entry { map, .. } = spelling {
                        entries
                            .entry(Key::from(format!("{map}{{}}")))
                            .or_default()
                            .push(spec.key.clone());
                    }
                }
            }
        }
    }

    let mut list_overrides: KeyMap<Vec<ValueRef>> = KeyMap::default();
    for node in nodes().filter(of_kind(NodeKind::Override)) {
        // An override follows what it replaces: off where the key is off today.
        if shapes.is_some_and(|s| !s.on(node)) {
            continue;
        }
        let decl = &decls[node.index()];
        for (index, spec) in decl.descriptor.provides.iter().enumerate() {
            let Some(spelling) = spelled(decl, spec, problems) else {
                continue;
            };
            let Some(base) = keys.get(&spec.key) else {
                problems.push(Problem::OverrideReplacesNothing {
                    key: spec.key.clone(),
                    by: decl.origin(),
                    suggestion: closest_key(&spec.key, keys.keys())
                        .map(|k| suggest::suggestion(k, &keys, decls)),
                });
                continue;
            };
            let original = &decls[base.node.index()];
            if is_override(original) {
                problems.push(Problem::DuplicateProvider {
                    key: spec.key.clone(),
                    first: original.origin(),
                    second: decl.origin(),
                });
                continue;
            }
            let declared = original.descriptor.provides[base.index as usize].ty;
            if declared != spec.ty {
                problems.push(Problem::OverrideTypeMismatch {
                    key: spec.key.clone(),
                    by: decl.origin(),
                    declared,
                    provider: original.origin(),
                    provided: spec.ty,
                });
                continue;
            }
            match spelling {
                // Its collection stays; what it holds is the overrides'.
                Spelling::List(_) => list_overrides
                    .entry(spec.key.clone())
                    .or_default()
                    .push(value_ref(node, index)),
                // It replaces the key in every shape where it is on (its alternatives too).
                _ => keys.insert(&spec.key, value_ref(node, index)),
            }
        }
    }
    lists.extend(list_overrides);

    let decorated = decorate(
        &mut keys,
        decls,
        (module_table, shapes),
        names,
        nodes().filter(of_kind(NodeKind::Decorator)),
        &mut qualified_keys,
        problems,
    );
    Routing {
        keys,
        lists,
        entries,
        decorated,
        qualified: qualified_keys,
        alternatives,
    }
}

/// How `spec` (a key `decl` provides) is spelled, if it is spelled as its place allows
/// (the key language's verdict, the macros' too); otherwise the problem is recorded.
#[inline]
fn spelled<'k>(
    decl: &Decl<'_>,
    spec: &'k KeySpec,
    problems: &mut Vec<Problem>,
) -> Option<Spelling<'k>> {
    // Nearly every key is a plain name, which every declaration may provide: one pass over
    // its bytes, inline; the key language's whole verdict only for the others. A key
    // qualified at registration was a plain name.
    if decl.keys_qualified || spec.key.is_plain() {
        return Some(Spelling::One(spec.key.as_str()));
    }
    spelled_otherwise(decl, spec, problems)
}

/// [`spelled`] of a key that is not a plain name.
#[cold]
fn spelled_otherwise<'k>(
    decl: &Decl<'_>,
    spec: &'k KeySpec,
    problems: &mut Vec<Problem>,
) -> Option<Spelling<'k>> {
    green_tea_key::check_provided(spec.key.as_str(), declarer(decl.kind))
        .map_err(|reason| {
            problems.push(Problem::KeySpelling {
                key: spec.key.clone(),
                by: decl.origin(),
                reason,
            })
        })
        .ok()
}

/// The key language's name for what a declaration of `kind` is, when it provides keys (a
/// route and a worker only consume).
fn declarer(kind: NodeKind) -> green_tea_key::Declarer {
    use green_tea_key::Declarer;
    match kind {
        NodeKind::Provider | NodeKind::Route | NodeKind::Worker => Declarer::Provider,
        NodeKind::Value => Declarer::Value,
        NodeKind::Override => Declarer::Override,
        NodeKind::Decorator => Declarer::Decorator,
        NodeKind::Collection => Declarer::Collection,
        NodeKind::Settings => Declarer::Settings,
        NodeKind::Step => Declarer::Step,
    }
}

fn is_override(decl: &Decl<'_>) -> bool {
    decl.kind == NodeKind::Override
}

/// Chains each key's decorators, in registration order, onto the key's provider: the first
/// wraps the provider's value, each next one the one before, and the key resolves to the last.
/// A module's decorator's key, qualified, is added to `qualified`.
fn decorate(
    keys: &mut KeyTable,
    decls: &[Decl<'_>],
    (module_table, shapes): (ModuleTable<'_>, Option<&Shapes<'_>>),
    names: &mut QualifiedNames,
    decorators: impl Iterator<Item = NodeId>,
    qualified: &mut Vec<(AppValue, Key)>,
    problems: &mut Vec<Problem>,
) -> Vec<Option<ValueRef>> {
    // Each chain under its key as the graph knows it (a module's decorator decorates the
    // module's own key).
    let mut chains: Vec<(Key, Vec<NodeId>)> = Vec::new();
    let mut chain_of: KeyMap<usize> = KeyMap::default();
    for node in decorators {
        let decl = &decls[node.index()];
        let provides = &decl.descriptor.provides;
        let shape = |reason: String| Problem::DecoratorShape {
            decorator: decl.origin(),
            reason,
        };
        let [spec] = provides.as_slice() else {
            problems.push(shape(format!(
                "provides {} keys: a decorator provides exactly the key it decorates",
                provides.len()
            )));
            continue;
        };
        if spelled(decl, spec, problems).is_none() {
            continue;
        }
        if !decl.descriptor.needs.iter().any(|n| n.key == spec.key) {
            problems.push(shape(format!(
                "decorates `{}` but does not take it: a decorator needs the key it decorates \
                 (the value it wraps)",
                spec.key
            )));
            continue;
        }
        let key = module_table.qualify(decl.module(), &spec.key, names);
        if let (Some(_), Declared::Provider(provider)) =
            (decl.in_module, keys.layout.declared(node))
        {
            qualified.push((AppValue { provider, index: 0 }, key.clone()));
        }
        match chain_of.get(&key) {
            Some(&at) => chains[at].1.push(node),
            None => {
                chain_of.insert(key.clone(), chains.len());
                chains.push((key, vec![node]));
            }
        }
    }
    // By node: a vector as long as the declarations, but only when there are decorators.
    let mut decorated = if chains.is_empty() {
        Vec::new()
    } else {
        vec![None; decls.len()]
    };
    for (key, chain) in &chains {
        let chain: Vec<(NodeId, NodeId)> = chain.iter().map(|&n| (n, n)).collect();
        let chain = order::order(key, &chain, decls, problems);
        let Some(base) = keys.get(key) else {
            for &node in &chain {
                let decl = &decls[node.index()];
                problems.push(Problem::DecoratesNothing {
                    key: key.clone(),
                    decorator: decl.origin(),
                    suggestion: closest_key(key, keys.keys())
                        .map(|k| suggest::suggestion(k, keys, decls)),
                    modules: modules_providing(keys, key, decl.descriptor.provides[0].key.as_str()),
                });
            }
            continue;
        };
        let base_decl = &decls[base.node.index()];
        if base_decl.scope() == Scope::Request {
            for &node in &chain {
                problems.push(Problem::DecoratorShape {
                    decorator: decls[node.index()].origin(),
                    reason: format!(
                        "decorates `{key}`, a request's value (provided by {}): decorators wrap \
                         app-scoped values, built once",
                        base_decl.origin()
                    ),
                });
            }
            continue;
        }
        let base_ty = base_decl.descriptor.provides[base.index as usize].ty;
        let mut current = base;
        for node in chain {
            let decl = &decls[node.index()];
            let ty = decl.descriptor.provides[0].ty;
            if ty != base_ty {
                problems.push(Problem::TypeMismatch {
                    key: key.clone(),
                    consumer: decl.origin(),
                    expected: ty,
                    provider: base_decl.origin(),
                    provided: base_ty,
                });
            }
            decorated[node.index()] = Some(current);
            // One that is off today wraps what is there (its need is checked in every shape)
            // and is no link of today's chain.
            if shapes.is_none_or(|s| s.on(node)) {
                current = value_ref(node, 0);
            }
        }
        keys.insert(key, current);
    }
    decorated
}

/// What provides the value at `at` under its decorators, and the decorators wrapping it,
/// innermost first (none for a key without decorators).
fn undecorated(routing: &Routing, mut at: ValueRef) -> (ValueRef, Vec<NodeId>) {
    let mut decorators = Vec::new();
    while let Some(Some(inner)) = routing.decorated.get(at.node.index()) {
        decorators.push(at.node);
        at = *inner;
    }
    decorators.reverse();
    (at, decorators)
}

/// The modules with a key named `name` of their own (`orders` for `orders::payment`), other
/// than `key` itself, sorted: where a decorator of `name` that decorates nothing may belong.
fn modules_providing(keys: &KeyTable, key: &Key, name: &str) -> Vec<String> {
    let mut modules: Vec<String> = keys
        .app
        .keys()
        .filter(|k| *k != key)
        .filter_map(|k| match green_tea_key::split_last(k.as_str()) {
            (Some(module), own) if own == name => Some(module.to_owned()),
            _ => None,
        })
        .collect();
    modules.sort();
    modules
}

/// For each route, the steps it names as guards; an unknown name is GT0007.
fn resolve_guards(
    input: &Input<'_>,
    layout: &Numbering,
    problems: &mut Vec<Problem>,
) -> IdVec<RouteId, Box<[StepId]>> {
    // A step is named by its module and its name; a guard resolves inside-out from its
    // route's module, like a need, or names another module's step as `module::name`.
    let module_table = ModuleTable(input.module_table);
    // With switches, steps of one name may be alternatives (each on in some shapes).
    let mut by_name: HashMap<(Option<u32>, &str), Vec<StepId>> = HashMap::new();
    for (id, s) in input.steps.iter_enumerated() {
        by_name
            .entry((s.module(), &*s.descriptor.name))
            .or_default()
            .push(id);
    }
    let find = |module: Option<u32>, name: &str| -> Option<Vec<StepId>> {
        if let (Some(path), step) = green_tea_key::split_last(name) {
            // A sub-module's step by its relative path (`sms::auth`), inside-out, then from
            // the root.
            let module = module_table
                .outward(module)
                .find_map(|m| {
                    let mut inner = String::new();
                    green_tea_key::join_into(&mut inner, &module_table.0[m].path, path);
                    module_table.position(&inner)
                })
                .or_else(|| module_table.position(path))?;
            return by_name.get(&(Some(module), step)).cloned();
        }
        module_table
            .outward(module)
            .map(|m| Some(m as u32))
            .chain([None])
            .find_map(|m| by_name.get(&(m, name)).cloned())
    };
    let mut names: Vec<String> = input
        .steps
        .iter()
        .map(|s| match s.module() {
            Some(m) => green_tea_key::join(&module_table.0[m as usize].path, &s.descriptor.name),
            None => s.descriptor.name.to_string(),
        })
        .collect();
    names.sort_unstable();
    input
        .routes
        .iter_enumerated()
        .map(|(id, route)| {
            route
                .guards
                .iter()
                .filter_map(|name| match find(route.decl.module(), name) {
                    Some(steps) => match &input.shapes {
                        None => steps.last().copied(),
                        Some(shapes) => {
                            let route = (layout.route(id), &route.decl);
                            shapes.guard(route, (name, &steps), layout, problems)
                        }
                    },
                    None => {
                        problems.push(Problem::UnknownStep {
                            step: name.to_string(),
                            route: route.decl.origin(),
                            // A namesake in another module first (`staff::auth` for `auth`).
                            suggestion: names
                                .iter()
                                .find(|n| green_tea_key::split_last(n).1 == name.as_ref())
                                .or_else(|| closest(name, names.iter(), |n| n))
                                .map(|n| n.to_string()),
                        });
                        None
                    }
                })
                .collect()
        })
        .collect()
}

/// One GT0001 per missing key, naming every declaration that needs it (each with who needs
/// that, up to a root), a near miss, and a declaration of the key that was not registered. A
/// chain that reaches an optional need is that need's problem instead (GT0011): what provides
/// it is there, so it must build.
fn report_missing(
    mut missing: Vec<(NodeId, Key)>,
    decls: &[Decl<'_>],
    keys: &KeyTable,
    module_table: ModuleTable<'_>,
    needs: &Rows<ValueRef>,
    graph: &Adjacency,
    problems: &mut Vec<Problem>,
) {
    missing.sort_by(|(a, ka), (b, kb)| {
        ka.cmp(kb)
            .then_with(|| decls[a.index()].cmp_origin(&decls[b.index()]))
    });
    missing.dedup();
    for group in missing.chunk_by(|(_, a), (_, b)| a == b) {
        let key = group[0].1.clone();
        let mut needed_by = Vec::new();
        for &(consumer, _) in group {
            let chain = chain_of_dependents(consumer, decls, graph);
            match through_optional(&chain, decls, needs) {
                Some((at, optional)) => problems.push(Problem::OptionalNeedBroken {
                    optional,
                    consumer: decls[chain[at].index()].origin(),
                    missing: key.clone(),
                    chain: chain[..at]
                        .iter()
                        .map(|n| decls[n.index()].origin())
                        .collect(),
                }),
                None => needed_by.push(chain.iter().map(|n| decls[n.index()].origin()).collect()),
            }
        }
        if needed_by.is_empty() {
            continue;
        }
        problems.push(Problem::MissingKey {
            suggestion: match module_table.0.is_empty() {
                true => closest_key(&key, keys.keys()).map(|k| suggest::suggestion(k, keys, decls)),
                // Only what the (first) consumer can see, as it would spell it.
                false => {
                    let consumer = decls[group[0].0.index()].module();
                    let visible = module_table.visible(keys, decls, consumer);
                    closest_key(&key, visible.iter().map(|(k, _)| k)).map(|k| {
                        let (_, at) = visible.iter().find(|(v, _)| v == k).expect("a candidate");
                        Suggestion {
                            key: k.clone(),
                            location: decls[at.node.index()].descriptor.location,
                        }
                    })
                }
            },
            unregistered: registry::declaration_of(&key),
            needed_by,
            key,
        });
    }
}

/// The first link of `chain` (each node needed by the next) made by an optional need: the
/// position of the node that needs it optionally, and the need as written.
fn through_optional(
    chain: &[NodeId],
    decls: &[Decl<'_>],
    needs: &Rows<ValueRef>,
) -> Option<(usize, Key)> {
    chain.windows(2).enumerate().find_map(|(i, pair)| {
        let (needed, needer) = (pair[0], pair[1]);
        let specs = &decls[needer.index()].descriptor.needs;
        specs
            .iter()
            .zip(needs.row(needer))
            .find(|(spec, at)| {
                at.node == needed && matches!(spec.key.spelling(), Ok(Spelling::Optional(_)))
            })
            .map(|(spec, _)| (i + 1, spec.key.clone()))
    })
}

/// The declaration `start`, then who needs it, then who needs that, up to a root: one path,
/// choosing the first dependent by name at each step so the text is deterministic.
fn chain_of_dependents(start: NodeId, decls: &[Decl<'_>], graph: &Adjacency) -> Vec<NodeId> {
    const MAX_CHAIN: usize = 16;
    let mut chain = vec![start];
    let mut current = start;
    while chain.len() < MAX_CHAIN {
        let next = graph
            .dependents(current)
            .iter()
            .copied()
            .filter(|d| !chain.contains(d))
            .min_by(|a, b| decls[a.index()].cmp_origin(&decls[b.index()]));
        let Some(next) = next else { break };
        chain.push(next);
        current = next;
    }
    chain
}

/// One ring inside a strongly connected component, starting at its first member by name: the
/// shortest path of needs from that member back to itself. (Guards are edges too: a ring
/// through a guard shows the guard's name as what is needed.)
fn ring_through(
    members: &[NodeId],
    decls: &[Decl<'_>],
    needs: &Rows<ValueRef>,
) -> Vec<(Origin, Key)> {
    let start = *members
        .iter()
        .min_by(|a, b| decls[a.index()].cmp_origin(&decls[b.index()]))
        .expect("a component has members");
    // Breadth-first over "needs" edges, staying inside the component.
    let mut parent: HashMap<NodeId, (NodeId, Key)> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    'search: while let Some(node) = queue.pop_front() {
        for (i, target) in needs.row(node).iter().enumerate() {
            let next = target.node;
            if !members.contains(&next) || parent.contains_key(&next) {
                continue;
            }
            parent.insert(next, (node, need_key(&decls[node.index()], i)));
            if next == start {
                break 'search;
            }
            queue.push_back(next);
        }
    }
    // Walk back from start to start, then reverse into "X needs key of next".
    let mut ring = Vec::new();
    let mut node = start;
    while let Some((prev, key)) = parent.get(&node).cloned() {
        ring.push((decls[prev.index()].origin(), key));
        node = prev;
        if node == start {
            break;
        }
    }
    ring.reverse();
    ring
}

/// The key of `decl`'s `index`-th need: a collection's needs are its contributions, each
/// under the collection's key.
fn need_key(decl: &Decl<'_>, index: usize) -> Key {
    match decl.kind {
        NodeKind::Collection => decl.descriptor.provides[0].key.clone(),
        _ => decl.descriptor.needs[index].key.clone(),
    }
}

#[cfg(test)]
mod tests;
