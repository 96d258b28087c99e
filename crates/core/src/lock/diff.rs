//! What changed between two lockfiles, as a reviewer reads it: one sentence per change, grouped
//! by cause (a key a change makes several routes build is said once, with the routes), in the
//! order a review looks (routes, settings, declarations, decorators and collections, exports,
//! workers, steps, switches and modules). From the two files alone: nothing is built.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::model::{GraphLock, LockItem};

/// What changed between two lockfiles, in sentences: [`Display`](fmt::Display) writes them as
/// text (what a failing test prints), [`to_markdown`](Self::to_markdown) for a pull request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LockDiff {
    /// Every change, in the order a review reads them.
    pub changes: Vec<Change>,
    /// The relations that changed, for the picture: (who, needs or builds, what, gained).
    edges: Vec<(String, String, bool)>,
    /// The blocks that are new, and those that are gone, as the picture names them.
    new: BTreeSet<String>,
    gone: BTreeSet<String>,
}

/// One change: its section (`routes`, `settings`...) and its sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// `routes`, `settings`, `declarations`, `decorators and collections`, `exports`,
    /// `workers`, `steps`, `switches and modules`.
    pub section: &'static str,
    /// What changed, as a sentence: ``route `POST /checkout` now builds `fraudApi` (new
    /// provider in module `orders`)``.
    pub sentence: String,
}

impl LockDiff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The changes as Markdown, for a pull request: a heading per section, a bullet per
    /// change, and a Mermaid picture of what changed (new blocks, gone blocks, and each
    /// relation gained or lost).
    pub fn to_markdown(&self) -> String {
        let mut out = String::from("## Graph changes\n");
        if self.is_empty() {
            out.push_str("\nThe app's shape did not change.\n");
            return out;
        }
        let mut section = "";
        for change in &self.changes {
            if change.section != section {
                section = change.section;
                out.push_str(&format!(
                    "\n### {}{}\n\n",
                    &section[..1].to_uppercase(),
                    &section[1..]
                ));
            }
            out.push_str(&format!("- {}\n", change.sentence));
        }
        if !self.edges.is_empty() || !self.new.is_empty() || !self.gone.is_empty() {
            out.push_str(&format!("\n```mermaid\n{}```\n", self.mermaid()));
        }
        out
    }

    /// The picture: `flowchart LR`, a node per block named in a change, an arrow from each
    /// block to what it now needs or builds (dotted for what it no longer does).
    fn mermaid(&self) -> String {
        let mut all: BTreeSet<&str> = BTreeSet::new();
        for (from, to, _) in &self.edges {
            all.insert(from);
            all.insert(to);
        }
        all.extend(self.new.iter().map(String::as_str));
        all.extend(self.gone.iter().map(String::as_str));
        let ids: BTreeMap<&str, usize> = all.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let mut out = String::from("flowchart LR\n");
        for (name, id) in &ids {
            out.push_str(&format!("  n{id}[\"{}\"]\n", name.replace('"', "#quot;")));
        }
        for (from, to, gained) in &self.edges {
            let (a, b) = (ids[from.as_str()], ids[to.as_str()]);
            let arrow = if *gained { "-->" } else { "-.-x" };
            out.push_str(&format!("  n{a} {arrow} n{b}\n"));
        }
        let class = |set: &BTreeSet<String>| -> String {
            let members: Vec<String> = set
                .iter()
                .map(|n| format!("n{}", ids[n.as_str()]))
                .collect();
            members.join(",")
        };
        if !self.new.is_empty() {
            out.push_str("  classDef new stroke:#2a2,stroke-width:2px\n");
            out.push_str(&format!("  class {} new\n", class(&self.new)));
        }
        if !self.gone.is_empty() {
            out.push_str("  classDef gone stroke:#c22,stroke-dasharray:4\n");
            out.push_str(&format!("  class {} gone\n", class(&self.gone)));
        }
        out
    }
}

impl fmt::Display for LockDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("the app's shape did not change");
        }
        let mut section = "";
        for change in &self.changes {
            if change.section != section {
                if !section.is_empty() {
                    f.write_str("\n")?;
                }
                section = change.section;
                writeln!(f, "{section}:")?;
            }
            writeln!(f, "  - {}", change.sentence)?;
        }
        Ok(())
    }
}

/// How a block is named in a sentence: ``route `POST /orders` ``, `` `billing` ``.
fn named(item: &LockItem) -> String {
    match item.kind.as_str() {
        "provider" => format!("`{}`", item.id),
        kind => format!("{kind} `{}`", item.id),
    }
}

/// What kind of declaration a provider block is (`provider`, `value`, `settings`...).
fn declared(item: &LockItem) -> String {
    let kind = item.value("kind").unwrap_or(item.kind.as_str());
    match item.value("module") {
        Some(module) => format!("{kind} in module `{module}`"),
        None => kind.to_owned(),
    }
}

/// The values of `name` that `new` has and `old` has not, and those it lost, in order.
fn gained_lost<'a>(
    old: &'a LockItem,
    new: &'a LockItem,
    name: &'a str,
) -> (Vec<&'a str>, Vec<&'a str>) {
    let before: Vec<&str> = old.values(name).collect();
    let after: Vec<&str> = new.values(name).collect();
    let gained = after
        .iter()
        .copied()
        .filter(|v| !before.contains(v))
        .collect();
    let lost = before
        .iter()
        .copied()
        .filter(|v| !after.contains(v))
        .collect();
    (gained, lost)
}

/// The attributes each kind's sentences cover; any other change is said plainly.
fn covered(kind: &str) -> &'static [&'static str] {
    match kind {
        "route" => &["builds", "steps", "needs", "when", "module"],
        "setting" => &["default", "secret", "reload", "type", "when"],
        "provider" => &[
            "needs",
            "type",
            "when",
            "exported",
            "decorated-by",
            "holds",
            "kind",
            "module",
        ],
        "decorator" => &["when"],
        "worker" => &["needs", "when"],
        "step" => &["needs", "provides", "when"],
        _ => &[],
    }
}

struct Differ<'a> {
    old: &'a GraphLock,
    new: &'a GraphLock,
    out: LockDiff,
}

impl<'a> Differ<'a> {
    fn say(&mut self, section: &'static str, sentence: String) {
        self.out.changes.push(Change { section, sentence });
    }

    fn edge(&mut self, from: &LockItem, to: &str, gained: bool) {
        self.out.edges.push((label(from), to.to_owned(), gained));
    }

    /// The blocks of `kind` in both, in the new one's order.
    fn both(&self, kind: &str) -> Vec<(&'a LockItem, &'a LockItem)> {
        let (old, new) = (self.old, self.new);
        (new.items.iter())
            .filter(|i| i.kind == kind)
            .filter_map(|n| Some((old.item(&n.kind, &n.id)?, n)))
            .collect()
    }

    /// The blocks of `kind` only the new one has, and those only the old one has.
    fn added_gone(&self, kind: &str) -> (Vec<&'a LockItem>, Vec<&'a LockItem>) {
        let (old, new) = (self.old, self.new);
        let added = (new.items.iter())
            .filter(|i| i.kind == kind && old.item(kind, &i.id).is_none())
            .collect();
        let gone = (old.items.iter())
            .filter(|i| i.kind == kind && new.item(kind, &i.id).is_none())
            .collect();
        (added, gone)
    }

    /// Why `key` is newly built: a new declaration of it, or what now needs it.
    fn cause(&self, key: &str) -> String {
        if let Some(item) = self.new.item("provider", key)
            && self.old.item("provider", key).is_none()
        {
            return format!(" (new {})", declared(item));
        }
        let needers: Vec<String> = (self.new.items.iter())
            .filter(|i| i.values("needs").any(|n| n.trim_end_matches('?') == key))
            .filter(|i| {
                self.old
                    .item(&i.kind, &i.id)
                    .is_some_and(|o| !o.values("needs").any(|n| n.trim_end_matches('?') == key))
            })
            .map(named)
            .collect();
        match needers.is_empty() {
            true => String::new(),
            false => format!(" ({} now needs it)", needers.join(", ")),
        }
    }

    fn routes(&mut self) {
        let (added, gone) = self.added_gone("route");
        for item in added {
            let module = item
                .value("module")
                .map(|m| format!(" in module `{m}`"))
                .unwrap_or_default();
            self.say("routes", format!("new route `{}`{module}", item.id));
            self.out.new.insert(label(item));
        }
        for item in gone {
            self.say("routes", format!("route `{}` is gone", item.id));
            self.out.gone.insert(label(item));
        }
        // Each key newly built, with the routes that build it: one cause, said once.
        let mut built: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut unbuilt: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut steps = Vec::new();
        let mut edges = Vec::new();
        for (old, new) in self.both("route") {
            let (gained, lost) = gained_lost(old, new, "builds");
            for key in gained {
                built
                    .entry(key.to_owned())
                    .or_default()
                    .push(new.id.clone());
                edges.push((new.clone(), key.to_owned(), true));
            }
            for key in lost {
                unbuilt
                    .entry(key.to_owned())
                    .or_default()
                    .push(new.id.clone());
                edges.push((new.clone(), key.to_owned(), false));
            }
            let (gained, lost) = gained_lost(old, new, "needs");
            for need in gained {
                steps.push(format!("route `{}` now needs `{need}`", new.id));
            }
            for need in lost {
                steps.push(format!("route `{}` no longer needs `{need}`", new.id));
            }
            let (gained, lost) = gained_lost(old, new, "steps");
            for step in gained {
                steps.push(format!("route `{}` now runs step `{step}`", new.id));
            }
            for step in lost {
                steps.push(format!("route `{}` no longer runs step `{step}`", new.id));
            }
        }
        for (key, routes) in built {
            let cause = self.cause(&key);
            let sentence = match routes.as_slice() {
                [one] => format!("route `{one}` now builds `{key}`{cause}"),
                many => format!(
                    "{} routes now build `{key}`{cause}: {}",
                    many.len(),
                    quoted(many)
                ),
            };
            self.say("routes", sentence);
        }
        for (key, routes) in unbuilt {
            let sentence = match routes.as_slice() {
                [one] => format!("route `{one}` no longer builds `{key}`"),
                many => format!(
                    "{} routes no longer build `{key}`: {}",
                    many.len(),
                    quoted(many)
                ),
            };
            self.say("routes", sentence);
        }
        for sentence in steps {
            self.say("routes", sentence);
        }
        for (item, key, gained) in edges {
            self.edge(&item, &format!("`{key}`"), gained);
        }
    }

    fn settings(&mut self) {
        let (added, gone) = self.added_gone("setting");
        // Secrets first: the change a review must not miss.
        let (secret, plain): (Vec<&LockItem>, Vec<&LockItem>) =
            added.into_iter().partition(|i| i.has("secret"));
        for item in secret {
            self.say(
                "settings",
                format!("new secret setting read: `{}`", item.id),
            );
        }
        for item in plain {
            let ty = item
                .value("type")
                .map(|t| format!(" ({t}"))
                .unwrap_or_default();
            let default = match (ty.is_empty(), item.value("default")) {
                (false, Some(d)) => format!(", default `{d}`)"),
                (false, None) => ")".to_owned(),
                (true, _) => String::new(),
            };
            self.say(
                "settings",
                format!("new setting read: `{}`{ty}{default}", item.id),
            );
        }
        for item in gone {
            self.say(
                "settings",
                format!("setting `{}` is no longer read", item.id),
            );
        }
        for (old, new) in self.both("setting") {
            let id = &new.id;
            match (old.has("secret"), new.has("secret")) {
                (false, true) => self.say("settings", format!("`{id}` is now secret")),
                (true, false) => self.say("settings", format!("`{id}` is no longer secret")),
                _ => {}
            }
            match (old.has("reload"), new.has("reload")) {
                (false, true) => self.say("settings", format!("`{id}` is now marked `reload`")),
                (true, false) => {
                    self.say("settings", format!("`{id}` is no longer marked `reload`"))
                }
                _ => {}
            }
            if old.value("default") != new.value("default") {
                let sentence = match (old.value("default"), new.value("default")) {
                    (_, Some(d)) => {
                        format!("`{id}` now defaults to `{d}`{}", was(old.value("default")))
                    }
                    (Some(d), None) => format!("`{id}` no longer has a default (was `{d}`)"),
                    (None, None) => continue,
                };
                self.say("settings", sentence);
            }
            if old.value("type") != new.value("type") {
                let sentence = format!(
                    "`{id}` is now read as `{}`{}",
                    new.value("type").unwrap_or("?"),
                    was(old.value("type"))
                );
                self.say("settings", sentence);
            }
            self.when("settings", old, new);
        }
    }

    fn when(&mut self, section: &'static str, old: &LockItem, new: &LockItem) {
        let before: Vec<&str> = old.values("when").collect();
        let after: Vec<&str> = new.values("when").collect();
        if before == after {
            return;
        }
        let on = |w: &[&str]| match w.is_empty() {
            true => "in every shape".to_owned(),
            false => format!("when {}", w.join(" and ")),
        };
        self.say(
            section,
            format!(
                "{} is now on {} (was {})",
                named(new),
                on(&after),
                on(&before)
            ),
        );
    }

    fn declarations(&mut self) {
        let (added, gone) = self.added_gone("provider");
        let kind = |item: &LockItem| item.value("kind").unwrap_or("provider").to_owned();
        let module = |item: &LockItem| {
            (item.value("module"))
                .map(|m| format!(" in module `{m}`"))
                .unwrap_or_default()
        };
        for item in added {
            let ty = item
                .value("type")
                .map(|t| format!(": `{t}`"))
                .unwrap_or_default();
            let sentence = format!("new {} `{}`{ty}{}", kind(item), item.id, module(item));
            self.say("declarations", sentence);
            self.out.new.insert(label(item));
        }
        for item in gone {
            let sentence = format!("{} `{}`{} is gone", kind(item), item.id, module(item));
            self.say("declarations", sentence);
            self.out.gone.insert(label(item));
        }
        let changed = self.both("provider");
        for &(old, new) in &changed {
            let (gained, lost) = gained_lost(old, new, "needs");
            for need in gained {
                self.say("declarations", format!("{} now needs `{need}`", named(new)));
                self.edge(new, &format!("`{}`", need.trim_end_matches('?')), true);
            }
            for need in lost {
                self.say(
                    "declarations",
                    format!("{} no longer needs `{need}`", named(new)),
                );
                self.edge(new, &format!("`{}`", need.trim_end_matches('?')), false);
            }
            if old.value("type") != new.value("type") {
                let sentence = format!(
                    "{} is now a `{}`{}",
                    named(new),
                    new.value("type").unwrap_or("?"),
                    was(old.value("type"))
                );
                self.say("declarations", sentence);
            }
            if old.value("kind") != new.value("kind") || old.value("module") != new.value("module")
            {
                let sentence = format!(
                    "{} is now a {}{}",
                    named(new),
                    declared(new),
                    was(Some(&declared(old)))
                );
                self.say("declarations", sentence);
            }
            self.when("declarations", old, new);
        }
        for &(old, new) in &changed {
            self.order(old, new, "decorated-by", "decorator", "wraps");
            self.order(old, new, "holds", "contribution", "comes in");
        }
        for &(old, new) in &changed {
            match (old.has("exported"), new.has("exported")) {
                (false, true) => self.say("exports", format!("`{}` is now exported", new.id)),
                (true, false) => self.say("exports", format!("`{}` is no longer exported", new.id)),
                _ => {}
            }
        }
    }

    /// A list whose order means something (a key's decorators, a collection's contributions):
    /// what joined it, what left it, what moved.
    fn order(&mut self, old: &LockItem, new: &LockItem, attr: &str, what: &str, verb: &str) {
        let before: Vec<&str> = old.values(attr).collect();
        let after: Vec<&str> = new.values(attr).collect();
        if before == after {
            return;
        }
        let key = &new.id;
        let next = |list: &[&str], at: usize| {
            list.get(at + 1)
                .map(|n| format!(" before `{n}`"))
                .unwrap_or_default()
        };
        for (at, name) in after.iter().enumerate() {
            let then = before.iter().position(|b| b == name);
            let moved = then.is_some_and(|then| {
                // Before something it followed: it moved.
                after[at + 1..]
                    .iter()
                    .any(|later| before[..then].contains(later))
            });
            if then.is_none() || moved {
                self.say(
                    "decorators and collections",
                    format!("{what} `{name}` now {verb} `{key}`{}", next(&after, at)),
                );
            }
        }
        for name in before.iter().filter(|b| !after.contains(b)) {
            self.say(
                "decorators and collections",
                format!("{what} `{name}` no longer {verb} `{key}`"),
            );
        }
    }

    fn consumers(&mut self, kind: &'static str, section: &'static str) {
        let (added, gone) = self.added_gone(kind);
        for item in added {
            self.say(section, format!("new {kind} `{}`", item.id));
            self.out.new.insert(label(item));
        }
        for item in gone {
            self.say(section, format!("{kind} `{}` is gone", item.id));
            self.out.gone.insert(label(item));
        }
        for (old, new) in self.both(kind) {
            let (gained, lost) = gained_lost(old, new, "needs");
            for need in gained {
                self.say(section, format!("{kind} `{}` now needs `{need}`", new.id));
                self.edge(new, &format!("`{}`", need.trim_end_matches('?')), true);
            }
            for need in lost {
                self.say(
                    section,
                    format!("{kind} `{}` no longer needs `{need}`", new.id),
                );
                self.edge(new, &format!("`{}`", need.trim_end_matches('?')), false);
            }
            let (gained, lost) = gained_lost(old, new, "provides");
            for value in gained {
                self.say(
                    section,
                    format!("{kind} `{}` now provides `{value}`", new.id),
                );
            }
            for value in lost {
                self.say(
                    section,
                    format!("{kind} `{}` no longer provides `{value}`", new.id),
                );
            }
            self.when(section, old, new);
        }
    }

    /// Anything else: new or gone blocks of the other kinds, and attributes no sentence above
    /// covers, said plainly.
    fn rest(&mut self) {
        // (A decorator that joins or leaves a key is said with the key's decorators.)
        for kind in ["switch", "module"] {
            let (added, gone) = self.added_gone(kind);
            for item in added {
                self.say("switches and modules", format!("new {kind} `{}`", item.id));
            }
            for item in gone {
                self.say(
                    "switches and modules",
                    format!("{kind} `{}` is gone", item.id),
                );
            }
        }
        let (old_lock, new_lock) = (self.old, self.new);
        let pairs =
            (new_lock.items.iter()).filter_map(|n| Some((old_lock.item(&n.kind, &n.id)?, n)));
        for (old, new) in pairs {
            let skip = covered(&new.kind);
            let names: BTreeSet<&str> = (old.attrs.iter().chain(&new.attrs))
                .map(|(n, _)| n.as_str())
                .filter(|n| !skip.contains(n))
                .collect();
            for name in names {
                let (gained, lost) = gained_lost(old, new, name);
                for value in gained {
                    let what = if value.is_empty() {
                        format!("`{name}`")
                    } else {
                        format!("`{name} {value}`")
                    };
                    self.say(
                        "switches and modules",
                        format!("{} now has {what}", named(new)),
                    );
                }
                for value in lost {
                    let what = if value.is_empty() {
                        format!("`{name}`")
                    } else {
                        format!("`{name} {value}`")
                    };
                    self.say(
                        "switches and modules",
                        format!("{} no longer has {what}", named(new)),
                    );
                }
            }
        }
    }
}

/// ``, was `old` `` for a sentence, or nothing.
fn was(old: Option<&str>) -> String {
    old.map(|o| format!(" (was `{o}`)")).unwrap_or_default()
}

/// `` `a`, `b` `` for a list in a sentence.
fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How the picture names a block.
fn label(item: &LockItem) -> String {
    match item.kind.as_str() {
        "provider" => format!("`{}`", item.id),
        kind => format!("{kind} {}", item.id),
    }
}

impl GraphLock {
    /// What changed from `self` (the file) to `newer` (the app now), in sentences grouped by
    /// cause.
    pub fn diff(&self, newer: &GraphLock) -> LockDiff {
        diff(self, newer)
    }
}

fn diff(old: &GraphLock, new: &GraphLock) -> LockDiff {
    let mut differ = Differ {
        old,
        new,
        out: LockDiff::default(),
    };
    differ.routes();
    differ.settings();
    differ.declarations();
    differ.consumers("worker", "workers");
    differ.consumers("step", "steps");
    differ.rest();
    // In the order of the sections, each as said.
    const ORDER: [&str; 8] = [
        "routes",
        "settings",
        "declarations",
        "decorators and collections",
        "exports",
        "workers",
        "steps",
        "switches and modules",
    ];
    let rank = |s: &str| ORDER.iter().position(|o| *o == s).unwrap_or(ORDER.len());
    differ.out.changes.sort_by_key(|c| rank(c.section));
    differ.out.edges.sort();
    differ.out.edges.dedup();
    differ.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(kind: &str, id: &str, attrs: &[(&str, &str)]) -> LockItem {
        let mut item = LockItem::new(kind, id);
        for (name, value) in attrs {
            item.attr(name, value);
        }
        item
    }

    fn sentences(old: Vec<LockItem>, new: Vec<LockItem>) -> Vec<String> {
        let diff = GraphLock::new(old).diff(&GraphLock::new(new));
        diff.changes.into_iter().map(|c| c.sentence).collect()
    }

    #[test]
    fn the_same_shape_has_no_change() {
        let lock = vec![item("route", "GET /", &[("builds", "a")])];
        assert!(sentences(lock.clone(), lock).is_empty());
    }

    #[test]
    fn a_new_provider_one_route_builds_is_said_with_its_module() {
        let old = vec![item("route", "POST /checkout", &[("builds", "payments")])];
        let new = vec![
            item(
                "route",
                "POST /checkout",
                &[("builds", "fraudApi"), ("builds", "payments")],
            ),
            item(
                "provider",
                "fraudApi",
                &[("kind", "provider"), ("module", "orders")],
            ),
        ];
        assert_eq!(
            sentences(old, new),
            [
                "route `POST /checkout` now builds `fraudApi` (new provider in module `orders`)",
                "new provider `fraudApi` in module `orders`",
            ]
        );
    }

    #[test]
    fn a_new_need_that_several_routes_reach_is_said_once_with_the_routes() {
        let payments = |needs: &[(&str, &str)]| item("provider", "payments", needs);
        let old = vec![
            item("route", "POST /checkout", &[("builds", "payments")]),
            item("route", "POST /refund", &[("builds", "payments")]),
            payments(&[]),
            item("provider", "fraudApi", &[]),
        ];
        let new = vec![
            item(
                "route",
                "POST /checkout",
                &[("builds", "fraudApi"), ("builds", "payments")],
            ),
            item(
                "route",
                "POST /refund",
                &[("builds", "fraudApi"), ("builds", "payments")],
            ),
            payments(&[("needs", "fraudApi")]),
            item("provider", "fraudApi", &[]),
        ];
        assert_eq!(
            sentences(old, new),
            [
                "2 routes now build `fraudApi` (`payments` now needs it): `POST /checkout`, \
                 `POST /refund`",
                "`payments` now needs `fraudApi`",
            ]
        );
    }

    #[test]
    fn settings_secrets_first_never_with_a_value() {
        let new = vec![
            item(
                "setting",
                "SHOP_PORT",
                &[("type", "u16"), ("default", "8080")],
            ),
            item(
                "setting",
                "STRIPE_KEY",
                &[("type", "String"), ("secret", "")],
            ),
            item(
                "setting",
                "BILLING_TIMEOUT",
                &[("type", "Duration"), ("default", "5s")],
            ),
        ];
        let old = vec![item(
            "setting",
            "BILLING_TIMEOUT",
            &[("type", "Duration"), ("default", "2s")],
        )];
        assert_eq!(
            sentences(old, new),
            [
                "new secret setting read: `STRIPE_KEY`",
                "new setting read: `SHOP_PORT` (u16, default `8080`)",
                "`BILLING_TIMEOUT` now defaults to `5s` (was `2s`)",
            ]
        );
    }

    #[test]
    fn a_setting_that_becomes_reloadable_is_said_so() {
        let old = vec![
            item("setting", "BILLING_TIMEOUT", &[("type", "Duration")]),
            item(
                "setting",
                "BILLING_URL",
                &[("type", "String"), ("reload", "")],
            ),
        ];
        let new = vec![
            item(
                "setting",
                "BILLING_TIMEOUT",
                &[("type", "Duration"), ("reload", "")],
            ),
            item("setting", "BILLING_URL", &[("type", "String")]),
        ];
        assert_eq!(
            sentences(old, new),
            [
                "`BILLING_TIMEOUT` is now marked `reload`",
                "`BILLING_URL` is no longer marked `reload`",
            ]
        );
    }

    #[test]
    fn a_decorator_that_moves_before_another_is_said_so() {
        let old = vec![item(
            "provider",
            "payments",
            &[("decorated-by", "counting"), ("decorated-by", "retrying")],
        )];
        let new = vec![item(
            "provider",
            "payments",
            &[("decorated-by", "retrying"), ("decorated-by", "counting")],
        )];
        assert_eq!(
            sentences(old, new),
            ["decorator `retrying` now wraps `payments` before `counting`"]
        );
        let joined = vec![item(
            "provider",
            "payments",
            &[("decorated-by", "tracing"), ("decorated-by", "counting")],
        )];
        let before = vec![item(
            "provider",
            "payments",
            &[("decorated-by", "counting")],
        )];
        assert_eq!(
            sentences(before, joined),
            ["decorator `tracing` now wraps `payments` before `counting`"]
        );
    }

    #[test]
    fn exports_workers_steps_and_conditions() {
        let old = vec![
            item("provider", "billing::client", &[("module", "billing")]),
            item("worker", "relay", &[]),
            item("step", "auth", &[("provides", "user: User")]),
            item("provider", "cache", &[]),
        ];
        let new = vec![
            item(
                "provider",
                "billing::client",
                &[("module", "billing"), ("exported", "")],
            ),
            item("worker", "relay", &[("needs", "broker")]),
            item(
                "step",
                "auth",
                &[("provides", "user: User"), ("needs", "sessions")],
            ),
            item("provider", "cache", &[("when", "cacheOn = true")]),
        ];
        assert_eq!(
            sentences(old, new),
            [
                "`cache` is now on when cacheOn = true (was in every shape)",
                "`billing::client` is now exported",
                "worker `relay` now needs `broker`",
                "step `auth` now needs `sessions`",
            ]
        );
    }

    #[test]
    fn what_is_new_or_gone() {
        let old = vec![
            item("route", "GET /old", &[]),
            item("switch", "cacheOn", &[]),
        ];
        let new = vec![
            item("route", "GET /new", &[("module", "shop")]),
            item("module", "shop", &[]),
            item("switch", "cacheOn", &[("outcomes", "false | true")]),
        ];
        assert_eq!(
            sentences(old, new),
            [
                "new route `GET /new` in module `shop`",
                "route `GET /old` is gone",
                "new module `shop`",
                "switch `cacheOn` now has `outcomes false | true`",
            ]
        );
    }

    #[test]
    fn markdown_has_a_section_per_kind_and_a_picture() {
        let old = vec![item("route", "POST /checkout", &[("builds", "payments")])];
        let new = vec![
            item(
                "route",
                "POST /checkout",
                &[("builds", "fraudApi"), ("builds", "payments")],
            ),
            item("provider", "fraudApi", &[]),
        ];
        let diff = GraphLock::new(old).diff(&GraphLock::new(new));
        let markdown = diff.to_markdown();
        assert!(markdown.starts_with("## Graph changes\n\n### Routes\n\n- route `POST /checkout` now builds `fraudApi` (new provider)\n"), "{markdown}");
        assert!(
            markdown.contains("\n### Declarations\n\n- new provider `fraudApi`\n"),
            "{markdown}"
        );
        assert!(
            markdown.contains("```mermaid\nflowchart LR\n"),
            "{markdown}"
        );
        assert!(
            markdown.contains("[\"route POST /checkout\"]"),
            "{markdown}"
        );
        assert!(markdown.contains(" --> "), "{markdown}");
        assert!(markdown.contains("class "), "{markdown}");
        let same = GraphLock::default()
            .diff(&GraphLock::default())
            .to_markdown();
        assert_eq!(
            same,
            "## Graph changes\n\nThe app's shape did not change.\n"
        );
    }
}
