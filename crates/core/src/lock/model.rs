//! The lockfile's blocks: what [`GraphLock`] holds, put in the file's order.

use std::collections::BTreeMap;

/// What this version of green-tea writes: `version 1`. A file of another version is read as
/// a change of format ([`LockError::Format`](super::LockError::Format)): write it again with
/// this version.
pub const LOCK_VERSION: u32 = 1;

/// The kinds of block, in the file's order: what a reader looks for first.
pub(crate) const KINDS: [&str; 8] = [
    "route",
    "setting",
    "switch",
    "module",
    "provider",
    "decorator",
    "step",
    "worker",
];

/// The app's shape: every block of its lockfile. [`to_text`](Self::to_text) writes the file,
/// [`parse`](Self::parse) reads one back, [`diff`](Self::diff) says what changed in sentences.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphLock {
    pub(crate) items: Vec<LockItem>,
}

/// One block: a route, a settings variable, a switch, a module, a declaration, a step or a
/// worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockItem {
    /// `route`, `setting`, `switch`, `module`, `provider`, `decorator`, `step` or `worker`.
    pub kind: String,
    /// What names it among its kind: a route's method and path (`POST /orders`), a variable
    /// (`BILLING_URL`), a key (`billing::client`), a worker's name.
    pub id: String,
    /// Its attributes, in order, each a name and a value (empty for a flag).
    pub attrs: Vec<(String, String)>,
}

impl LockItem {
    /// A block of `kind` named `id`, without attributes yet.
    pub fn new(kind: &str, id: impl Into<String>) -> Self {
        LockItem {
            kind: kind.to_owned(),
            id: one_line(&id.into()),
            attrs: Vec::new(),
        }
    }

    /// Adds the attribute `name` with `value` (one line: a line break becomes a space).
    pub fn attr(&mut self, name: &str, value: impl AsRef<str>) -> &mut Self {
        self.attrs.push((name.to_owned(), one_line(value.as_ref())));
        self
    }

    /// Adds the flag `name` (an attribute without a value) if `on`.
    pub fn flag(&mut self, name: &str, on: bool) -> &mut Self {
        if on {
            self.attrs.push((name.to_owned(), String::new()));
        }
        self
    }

    /// The values of the attribute `name`, in order.
    pub fn values<'a, 'n>(&'a self, name: &'n str) -> impl Iterator<Item = &'a str> + use<'a, 'n> {
        self.attrs
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of the attribute `name`, if it has one.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values(name).next()
    }

    /// Whether it has the flag (or attribute) `name`.
    pub fn has(&self, name: &str) -> bool {
        self.attrs.iter().any(|(n, _)| n == name)
    }
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

impl GraphLock {
    /// A lock of `items`, put in the file's order: by kind, then by id; two blocks of one kind
    /// and id (two alternatives of a key) are told apart by their conditions, then numbered.
    pub fn new(items: Vec<LockItem>) -> Self {
        let mut items = items;
        let rank = |kind: &str| KINDS.iter().position(|k| *k == kind).unwrap_or(KINDS.len());
        items.sort_by(|a, b| {
            (rank(&a.kind), &a.kind, &a.id, &a.attrs).cmp(&(
                rank(&b.kind),
                &b.kind,
                &b.id,
                &b.attrs,
            ))
        });
        let mut count: BTreeMap<(String, String), usize> = BTreeMap::new();
        for item in &items {
            *count
                .entry((item.kind.clone(), item.id.clone()))
                .or_default() += 1;
        }
        for item in &mut items {
            if count[&(item.kind.clone(), item.id.clone())] > 1 {
                let when: Vec<&str> = item.values("when").collect();
                if !when.is_empty() {
                    item.id = format!("{} when {}", item.id, when.join(" and "));
                }
            }
        }
        // What conditions did not tell apart, numbered in order.
        let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
        let mut again: BTreeMap<(String, String), usize> = BTreeMap::new();
        for item in &items {
            *again
                .entry((item.kind.clone(), item.id.clone()))
                .or_default() += 1;
        }
        for item in &mut items {
            let key = (item.kind.clone(), item.id.clone());
            if again[&key] > 1 {
                let n = seen.entry(key).or_default();
                *n += 1;
                item.id = format!("{} #{n}", item.id);
            }
        }
        items.sort_by(|a, b| (rank(&a.kind), &a.id).cmp(&(rank(&b.kind), &b.id)));
        // Each switch with what each of its outcomes turns on: every block with a condition on
        // it (`when cacheOn = true`).
        let mut turns_on: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for item in &items {
            for term in item.values("when") {
                let Some((switch, outcomes)) = term.split_once(" = ") else {
                    continue;
                };
                for outcome in outcomes.split(" | ") {
                    turns_on
                        .entry(switch.to_owned())
                        .or_default()
                        .push(format!("{outcome}: {} {}", item.kind, item.id));
                }
            }
        }
        for item in items.iter_mut().filter(|i| i.kind == "switch") {
            for on in turns_on.remove(&item.id).unwrap_or_default() {
                item.attr("turns-on", on);
            }
        }
        GraphLock { items }
    }

    /// Every block, in the file's order.
    pub fn items(&self) -> &[LockItem] {
        &self.items
    }

    /// The block of `kind` named `id`, if there is one.
    pub fn item(&self, kind: &str, id: &str) -> Option<&LockItem> {
        self.items.iter().find(|i| i.kind == kind && i.id == id)
    }
}
