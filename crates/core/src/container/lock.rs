//! `Container::graph_lock`: the container's part of the lockfile, over every shape: its
//! switches, modules, declarations (on today or not), settings variables and workers. The
//! layer above adds its steps and routes (`__private::layer::lock`).

use std::collections::BTreeSet;

use super::{Container, Inner};
use crate::error::NodeKind;
use crate::graph::{EveryShape, NodeId};
use crate::ids::ProviderId;
use crate::lock::{GraphLock, LockItem};

impl Container {
    /// The app's shape as a lockfile's blocks, over every shape its switches allow (not today's
    /// alone): each switch, module, declaration, settings variable and worker; nothing built,
    /// no value read, no location. An app adds its steps and routes
    /// (`App::graph_lock` in green-tea); see the lockfile guide.
    pub fn graph_lock(&self) -> GraphLock {
        GraphLock::new(lock_items(self))
    }
}

/// The container's blocks, before the layer above adds its own.
pub(crate) fn lock_items(container: &Container) -> Vec<LockItem> {
    let inner = &container.inner;
    let mut items = Vec::new();
    switches(inner, &mut items);
    modules(inner, &mut items);
    providers(inner, &mut items);
    settings(inner, &mut items);
    workers(inner, &mut items);
    items
}

/// The conditions `node` is on under, each a term of the condition language
/// (`cacheOn = true`, `gateway = stripe | paypal`); none when it is on in every shape.
pub(crate) fn when_of(inner: &Inner, node: usize) -> Vec<String> {
    let Some(shape) = &inner.shape else {
        return Vec::new();
    };
    match shape.of.get(node) {
        Some(&at) => terms(shape, at),
        None => Vec::new(),
    }
}

/// The terms of the condition at `at` in `shape`'s table.
fn terms(shape: &super::shape::Shape, at: u32) -> Vec<String> {
    let condition = &shape.conditions[at as usize];
    (condition.terms().iter())
        .map(|&(switch, outcomes)| {
            let decided = shape.switches.get(switch);
            let named: Vec<&str> = (decided.outcomes.iter().enumerate())
                .filter(|(i, _)| outcomes & (1 << i) != 0)
                .map(|(_, o)| &**o)
                .collect();
            format!("{} = {}", decided.name, named.join(" | "))
        })
        .collect()
}

fn switches(inner: &Inner, items: &mut Vec<LockItem>) {
    let Some(shape) = &inner.shape else {
        return;
    };
    for decided in &shape.switches.table {
        let mut item = LockItem::new("switch", &decided.name);
        let outcomes: Vec<&str> = decided.outcomes.iter().map(|o| &**o).collect();
        item.attr("outcomes", outcomes.join(" | "));
        item.attr("settings", decided.settings.as_str());
        for read in &decided.reads {
            item.attr("reads", read);
        }
        items.push(item);
    }
}

fn modules(inner: &Inner, items: &mut Vec<LockItem>) {
    for (at, module) in inner
        .modules
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.replaced)
    {
        let mut item = LockItem::new("module", &*module.path);
        let mut exports: Vec<&str> = module.exports.iter().map(|(k, _)| k.as_str()).collect();
        exports.sort_unstable();
        for export in exports {
            item.attr("exports", export);
        }
        if let Some(shape) = &inner.shape {
            for term in terms(shape, shape.modules[at]) {
                item.attr("when", term);
            }
        }
        items.push(item);
    }
}

/// Whether the module at `module` exports `key` (as the graph names it: `billing::client`).
fn exported(inner: &Inner, module: Option<u32>, key: &str) -> bool {
    let Some(module) = module.map(|m| &inner.modules[m as usize]) else {
        return false;
    };
    (module.exports.iter())
        .any(|(export, _)| green_tea_key::qualify(Some(&module.path), export.as_str()) == key)
}

fn providers(inner: &Inner, items: &mut Vec<LockItem>) {
    let needs = inner.every_shape.as_ref().map(|e| e.needs());
    let name_of = |id: ProviderId| inner.providers[id].descriptor.qualified_name().into_owned();
    // Each key's decorators, in the order they wrap it (registration order), found once.
    let mut decorators: std::collections::HashMap<&crate::key::Key, Vec<ProviderId>> =
        std::collections::HashMap::new();
    for (id, node) in inner.providers.iter_enumerated() {
        if node.kind == NodeKind::Decorator
            && let Some(spec) = node.descriptor.provides.first()
        {
            decorators.entry(&spec.key).or_default().push(id);
        }
    }
    for (id, node) in inner.providers.iter_enumerated() {
        let d = &node.descriptor;
        let Some(first) = d.provides.first() else {
            continue;
        };
        let module = node.module.map(|m| &*inner.modules[m as usize].path);
        if node.kind == NodeKind::Decorator {
            let mut item = LockItem::new("decorator", format!("{} by {}", first.key, name_of(id)));
            if let Some(path) = module {
                item.attr("module", path);
            }
            for term in when_of(inner, id.index()) {
                item.attr("when", term);
            }
            items.push(item);
            continue;
        }
        let mut item = LockItem::new("provider", first.key.as_str());
        item.attr("kind", node.kind.to_string());
        // A value is named after its key.
        if node.kind != NodeKind::Value {
            item.attr("name", name_of(id));
        }
        match d.provides.as_slice() {
            [one] => {
                item.attr("type", one.ty.short_name());
            }
            many => {
                for spec in many {
                    item.attr(
                        "provides",
                        format!("{}: {}", spec.key, spec.ty.short_name()),
                    );
                }
            }
        }
        if let Some(path) = module {
            item.attr("module", path);
        }
        item.flag("exported", exported(inner, node.module, first.key.as_str()));
        if node.kind == NodeKind::Collection {
            // What it holds in every shape, in registration order (each contribution's
            // `after` orders them).
            let members = needs.as_ref().map_or(&[][..], |n| &n[id.index()][..]);
            for member in members.iter().filter(|m| m.index() < inner.providers.len()) {
                item.attr("holds", name_of(ProviderId::at(member.index())));
            }
        } else {
            for need in &d.needs {
                item.attr("needs", need.key.as_str());
            }
        }
        for after in &d.after {
            item.attr("after", after);
        }
        for &decorator in decorators.get(&first.key).into_iter().flatten() {
            item.attr("decorated-by", name_of(decorator));
        }
        for term in when_of(inner, id.index()) {
            item.attr("when", term);
        }
        items.push(item);
    }
}

fn settings(inner: &Inner, items: &mut Vec<LockItem>) {
    for (id, fields) in inner.settings_fields() {
        let when = when_of(inner, id.index());
        for setting in fields {
            let spec = setting.spec;
            let mut item = LockItem::new("setting", setting.name);
            item.attr("field", setting.field);
            item.attr("type", spec.type_name);
            // A secret's default is as secret as its value.
            if let Some(default) = spec.default.filter(|_| !spec.secret) {
                item.attr("default", default);
            }
            item.flag("secret", spec.secret);
            item.flag("optional", spec.optional);
            item.flag("reload", spec.reload);
            for term in &when {
                item.attr("when", term);
            }
            items.push(item);
        }
    }
}

fn workers(inner: &Inner, items: &mut Vec<LockItem>) {
    let first_worker =
        (inner.every_shape.as_ref()).map_or(0, |e| e.graph.nodes() - inner.workers.nodes.len());
    for (at, worker) in inner.workers.nodes.iter().enumerate() {
        let node = match &inner.shape {
            Some(shape) => shape.worker_nodes[at] as usize,
            None => first_worker + at,
        };
        let d = &worker.registered.descriptor;
        let module = worker.module.map(|m| &*inner.modules[m as usize].path);
        let needs = d.needs.iter().map(|n| n.key.as_str());
        items.push(worker_item(
            d.qualified_name().into_owned(),
            module,
            needs,
            when_of(inner, node),
        ));
    }
    let off = inner.shape.iter().flat_map(|s| &s.off);
    for off in off.filter(|o| o.kind == NodeKind::Worker) {
        let module = off.module.map(|m| &*inner.modules[m as usize].path);
        let needs = off.needs.iter().map(|n| n.as_str());
        items.push(worker_item(
            off.name.clone(),
            module,
            needs,
            when_of(inner, off.node as usize),
        ));
    }
}

fn worker_item<'a>(
    name: String,
    module: Option<&str>,
    needs: impl Iterator<Item = &'a str>,
    when: Vec<String>,
) -> LockItem {
    let mut item = LockItem::new("worker", name);
    if let Some(path) = module {
        item.attr("module", path);
    }
    for need in needs {
        item.attr("needs", need);
    }
    for term in when {
        item.attr("when", term);
    }
    item
}

/// What the layer above needs to lock its steps and routes: each node's conditions, and what
/// a step or route reaches in the graph of every shape.
#[allow(missing_debug_implementations)]
pub struct LockGraph<'a> {
    inner: &'a Inner,
    every_shape: Option<&'a EveryShape>,
    needs: Vec<Vec<NodeId>>,
}

impl<'a> LockGraph<'a> {
    pub(crate) fn new(container: &'a Container) -> Self {
        let every_shape = container.inner.every_shape.as_deref();
        LockGraph {
            inner: &container.inner,
            every_shape,
            needs: every_shape.map(EveryShape::needs).unwrap_or_default(),
        }
    }

    /// The node of the step `step` and of the route `route` (by their positions).
    fn node(&self, step: Option<usize>, route: Option<usize>) -> Option<usize> {
        let layout = self.every_shape?.layout;
        match (step, route) {
            (Some(step), _) => Some(layout.providers() + step),
            (_, Some(route)) => Some(layout.providers() + layout.steps() + route),
            _ => None,
        }
    }

    /// The conditions of the step (`Some(position)`, `None`) or route (`None`, `Some(..)`).
    pub fn when(&self, step: Option<usize>, route: Option<usize>) -> Vec<String> {
        self.node(step, route)
            .map(|n| when_of(self.inner, n))
            .unwrap_or_default()
    }

    /// What a step or route needs in some shape, transitively: the keys of the providers it
    /// builds (a decorated key once), and the positions of the steps it runs.
    pub fn reaches(&self, step: Option<usize>, route: Option<usize>) -> (Vec<String>, Vec<usize>) {
        let (Some(node), Some(every_shape)) = (self.node(step, route), self.every_shape) else {
            return (Vec::new(), Vec::new());
        };
        let layout = every_shape.layout;
        let mut keys = BTreeSet::new();
        let mut steps = Vec::new();
        for at in crate::graph::reaches(&self.needs, NodeId::at(node)) {
            let at = at.index();
            if at < layout.providers() {
                let node = &self.inner.providers[ProviderId::at(at)];
                if let Some(spec) = node.descriptor.provides.first() {
                    keys.insert(spec.key.to_string());
                }
            } else if at < layout.providers() + layout.steps() {
                steps.push(at - layout.providers());
            }
        }
        (keys.into_iter().collect(), steps)
    }
}
