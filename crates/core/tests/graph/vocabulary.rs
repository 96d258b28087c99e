//! Arbitrary valid graphs with the vocabulary — optional needs (present and absent), lists
//! whose contributions say `after`, decorators that say `after`, and overrides of a list —
//! built and read against an independent model of what each key must hold: a declaration's
//! value is its name around what it saw of each need, a decorated key's value is its chain of
//! decorators in order around its provider's, a list holds its contributions in order (or its
//! overrides' values). Each declaration is built at most once, and disposed once, after what
//! needs it.
//!
//! CI runs a few hundred cases; `PROPTEST_CASES=20000` runs more.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use green_tea_core::{BoxError, Container, Descriptor, Needs, Provided, Provider};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;

/// Plain keys `p0..p4`; lists `l0[]`, `l1[]`.
const PLAIN: usize = 5;
const LISTS: usize = 2;

#[derive(Clone, Debug, PartialEq)]
enum Role {
    /// Provides `p{0}`.
    Plain(usize),
    /// Contributes to `l{0}[]`.
    Contribution(usize),
    /// Decorates `p{0}`.
    Decorator(usize),
}

/// One declaration, in registration order.
#[derive(Clone, Debug)]
struct Decl {
    /// Unique: `n{position}`.
    name: String,
    role: Role,
    /// Its needs as written, besides a decorator's own key: `p2`, `p1?`, `absent6?`, `l0[]`.
    needs: Vec<String>,
    /// The declarations (of its list, or decorators of its key) it comes after.
    after: Vec<String>,
}

impl Decl {
    fn key(&self) -> String {
        match self.role {
            Role::Plain(i) | Role::Decorator(i) => format!("p{i}"),
            Role::Contribution(list) => format!("l{list}[]"),
        }
    }

    fn group(&self) -> Option<(u8, usize)> {
        match self.role {
            Role::Plain(_) => None,
            Role::Contribution(list) => Some((0, list)),
            Role::Decorator(of) => Some((1, of)),
        }
    }
}

#[derive(Clone, Debug)]
struct Graph {
    decls: Vec<Decl>,
    /// Overrides of a list, each one value, in order: (list, value).
    overrides: Vec<(usize, String)>,
}

/// Plain key `i` needs only keys below it, and lists only from `p3` up; a contribution needs
/// at most `p0`, which needs no list. So the graph has no cycle whatever the order.
fn graph() -> impl Strategy<Value = Graph> {
    let plain_needs = proptest::collection::vec(
        proptest::collection::vec((0_usize..12, any::<bool>()), 0..4),
        PLAIN,
    );
    let contributions = proptest::collection::vec((0..LISTS, any::<bool>()), 0..6);
    let decorators = proptest::collection::vec(0..PLAIN, 0..6);
    let afters = proptest::collection::vec((any::<Index>(), any::<Index>()), 0..6);
    let overrides = proptest::collection::vec(0..LISTS, 0..3);
    let shuffle = proptest::collection::vec(any::<Index>(), 20);
    (
        plain_needs,
        contributions,
        decorators,
        afters,
        overrides,
        shuffle,
    )
        .prop_map(
            |(plain_needs, contributions, decorators, afters, overrides, shuffle)| {
                let decl = |role, needs| Decl {
                    name: String::new(),
                    role,
                    needs,
                    after: Vec::new(),
                };
                let mut decls = Vec::new();
                for (i, needs) in plain_needs.into_iter().enumerate() {
                    let needs: BTreeSet<String> = needs
                        .into_iter()
                        .filter_map(|(n, optional)| match n {
                            0..=4 if n < i && optional => Some(format!("p{n}?")),
                            0..=4 if n < i => Some(format!("p{n}")),
                            5..=7 => Some(format!("absent{n}?")),
                            8..=11 if i >= 3 => Some(format!("l{}[]", n % LISTS)),
                            _ => None,
                        })
                        .collect();
                    decls.push(decl(Role::Plain(i), needs.into_iter().collect()));
                }
                for (list, needs_p0) in contributions {
                    let needs = if needs_p0 {
                        vec!["p0".to_owned()]
                    } else {
                        Vec::new()
                    };
                    decls.push(decl(Role::Contribution(list), needs));
                }
                for of in decorators {
                    decls.push(decl(Role::Decorator(of), Vec::new()));
                }
                for (i, at) in shuffle.iter().enumerate().take(decls.len()) {
                    let len = decls.len();
                    decls.swap(i, i + at.index(len - i));
                }
                for (i, decl) in decls.iter_mut().enumerate() {
                    decl.name = format!("n{i}");
                }
                // An `after` always goes from a member registered earlier to one registered later
                // in the same group (so it moves the first behind the second), all in that one
                // direction, so that no ring forms; the model orders them itself.
                for (a, b) in afters {
                    let (a, b) = (a.index(decls.len()), b.index(decls.len()));
                    let (first, second) = (a.min(b), a.max(b));
                    if first != second
                        && decls[first].group().is_some()
                        && decls[first].group() == decls[second].group()
                    {
                        let name = decls[second].name.clone();
                        if !decls[first].after.contains(&name) {
                            decls[first].after.push(name);
                        }
                    }
                }
                // Overrides of a list only where the list is there (something needs or adds to it).
                let mentioned = |list: usize| {
                    decls.iter().any(|d| {
                        d.role == Role::Contribution(list)
                            || d.needs.contains(&format!("l{list}[]"))
                    })
                };
                let overrides = overrides
                    .into_iter()
                    .enumerate()
                    .filter(|&(_, list)| mentioned(list))
                    .map(|(k, list)| (list, format!("o{k}")))
                    .collect();
                Graph { decls, overrides }
            },
        )
}

/// A declaration as a provider: its value is `name(what it saw of each need;...)`.
struct Node {
    decl: Decl,
    log: Arc<Mutex<Vec<String>>>,
}

impl Provider for Node {
    fn descriptor(&self) -> Descriptor {
        let mut d = Descriptor::new(self.decl.name.clone()).provides::<String>(self.decl.key());
        if let Role::Decorator(_) = self.decl.role {
            d = d.needs::<String>(self.decl.key());
        }
        for need in &self.decl.needs {
            d = d.needs::<String>(need.clone());
        }
        for after in &self.decl.after {
            d = d.after(after.clone());
        }
        d
    }

    async fn provide(&self, needs: Needs<'_>) -> Result<Provided, BoxError> {
        self.log
            .lock()
            .unwrap()
            .push(format!("provide {}", self.decl.name));
        let own = match self.decl.role {
            Role::Decorator(_) => Some(self.decl.key()),
            _ => None,
        };
        let keys: Vec<String> = own.into_iter().chain(self.decl.needs.clone()).collect();
        let mut seen = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            seen.push(if key.ends_with('?') {
                needs
                    .optional::<String>(i)?
                    .map_or_else(|| "none".to_owned(), |v| (*v).clone())
            } else if key.ends_with("[]") {
                let all: Vec<&str> = needs.all::<String>(i)?.iter().map(String::as_str).collect();
                format!("[{}]", all.join(","))
            } else {
                (*needs.get::<String>(i)?).clone()
            });
        }
        Ok(Provided::one(format!(
            "{}({})",
            self.decl.name,
            seen.join(";")
        )))
    }

    async fn dispose(&self, _provided: &Provided) -> Result<(), BoxError> {
        self.log
            .lock()
            .unwrap()
            .push(format!("dispose {}", self.decl.name));
        Ok(())
    }
}

/// The model: members of a group in registration order, each moved behind those it names
/// (repeatedly the first member whose `after`s are all placed).
fn ordered<'a>(members: &[&'a Decl]) -> Vec<&'a Decl> {
    let mut placed: Vec<&Decl> = Vec::new();
    while placed.len() < members.len() {
        let next = members
            .iter()
            .find(|m| {
                !placed.iter().any(|p| p.name == m.name)
                    && m.after.iter().all(|a| placed.iter().any(|p| &p.name == a))
            })
            .expect("the generated afters have no ring");
        placed.push(next);
    }
    placed
}

/// What the model says each key holds.
struct Model<'a> {
    graph: &'a Graph,
    memo: HashMap<String, String>,
}

impl Model<'_> {
    /// The value a consumer of `key` (as written) sees.
    fn seen(&mut self, key: &str) -> String {
        if let Some(optional) = key.strip_suffix('?') {
            return if optional.starts_with("absent") {
                "none".to_owned()
            } else {
                self.value(optional)
            };
        }
        self.value(key)
    }

    /// The value of `key`: a plain key's, decorated; a list's contributions.
    fn value(&mut self, key: &str) -> String {
        if let Some(value) = self.memo.get(key) {
            return value.clone();
        }
        let decls = &self.graph.decls;
        let value = if let Some(list) = key.strip_suffix("[]") {
            let list: usize = list[1..].parse().unwrap();
            let overrides: Vec<&String> = self
                .graph
                .overrides
                .iter()
                .filter(|(l, _)| *l == list)
                .map(|(_, v)| v)
                .collect();
            let items: Vec<String> = if overrides.is_empty() {
                let members: Vec<&Decl> = decls
                    .iter()
                    .filter(|d| d.role == Role::Contribution(list))
                    .collect();
                ordered(&members)
                    .into_iter()
                    .map(|d| self.made(d, None))
                    .collect()
            } else {
                overrides.into_iter().cloned().collect()
            };
            format!("[{}]", items.join(","))
        } else {
            let i: usize = key[1..].parse().unwrap();
            let base = decls.iter().find(|d| d.role == Role::Plain(i)).unwrap();
            let mut value = self.made(base, None);
            let decorators: Vec<&Decl> = decls
                .iter()
                .filter(|d| d.role == Role::Decorator(i))
                .collect();
            for decorator in ordered(&decorators) {
                value = self.made(decorator, Some(value));
            }
            value
        };
        self.memo.insert(key.to_owned(), value.clone());
        value
    }

    /// `decl`'s own value, given what it wraps (a decorator's).
    fn made(&mut self, decl: &Decl, wraps: Option<String>) -> String {
        let mut seen: Vec<String> = wraps.into_iter().collect();
        for need in &decl.needs {
            seen.push(self.seen(need));
        }
        format!("{}({})", decl.name, seen.join(";"))
    }
}

fn run(graph: &Graph) -> Result<(), TestCaseError> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut builder = Container::builder();
    for decl in &graph.decls {
        let node = Node {
            decl: decl.clone(),
            log: Arc::clone(&log),
        };
        builder = match decl.role {
            Role::Decorator(_) => builder.decorator(node),
            _ => builder.provider(node),
        };
    }
    for (list, value) in &graph.overrides {
        builder = builder.override_value(format!("l{list}[]"), value.clone());
    }
    let container = builder
        .build()
        .map_err(|e| TestCaseError::fail(format!("a valid graph failed to build: {e}")))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut model = Model {
        graph,
        memo: HashMap::new(),
    };
    for i in 0..PLAIN {
        let key = format!("p{i}");
        let got = runtime
            .block_on(container.get::<String>(&key))
            .map_err(|e| TestCaseError::fail(format!("{key}: {e}")))?;
        prop_assert_eq!(&*got, &model.value(&key), "{}", key);
    }
    runtime.block_on(container.close()).unwrap();

    let events = log.lock().unwrap().clone();
    let position = |event: &str| events.iter().position(|e| e == event);
    for decl in &graph.decls {
        let provided = events
            .iter()
            .filter(|e| **e == format!("provide {}", decl.name))
            .count();
        let disposed = events
            .iter()
            .filter(|e| **e == format!("dispose {}", decl.name))
            .count();
        prop_assert!(provided <= 1, "{} built {provided} times", decl.name);
        prop_assert_eq!(
            provided,
            disposed,
            "{} disposed as often as built",
            decl.name
        );
    }
    // A decorator is disposed before what it wraps, a consumer before what it needs.
    for decl in &graph.decls {
        let Some(mine) = position(&format!("dispose {}", decl.name)) else {
            continue;
        };
        for other in &graph.decls {
            let needed = match (&decl.role, &other.role) {
                (Role::Decorator(a), Role::Plain(b)) => a == b,
                _ => decl.needs.iter().any(|n| {
                    let n = n.trim_end_matches('?');
                    other.role == Role::Plain(n[1..].parse().unwrap_or(usize::MAX))
                        && n.starts_with('p')
                }),
            };
            if let (true, Some(theirs)) = (needed, position(&format!("dispose {}", other.name))) {
                prop_assert!(
                    mine < theirs,
                    "{} is disposed before {}, which it needs: {events:?}",
                    decl.name,
                    other.name
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn vocabulary_graphs_hold_what_the_model_says(graph in graph()) {
        run(&graph)?;
    }
}

/// Any text made of a key's characters, the reserved ones included.
fn key_text() -> impl Strategy<Value = String> {
    "[a-c:?\\[\\]{}]{0,8}"
}

/// `build()`'s verdict on a key a value provides, at the root or in a module: a GT0010 (its
/// report) or none.
fn build_verdict(key: &str, in_module: bool) -> Result<(), String> {
    use green_tea_core::Module;
    let builder = Container::builder();
    let builder = match in_module {
        false => builder.value(key.to_owned(), 1_u8),
        true => builder.module(Module::new("m").value(key.to_owned(), 1_u8)),
    };
    match builder.build() {
        Err(error) if error.problems().iter().any(|p| p.code() == "GT0010") => {
            Err(error.to_string())
        }
        _ => Ok(()),
    }
}

proptest! {
    /// `build()` refuses a key a value provides exactly when the key language does
    /// (`green_tea_key::check_provided`, what the macros call at a literal), with its reason.
    #[test]
    fn builds_verdict_on_a_provided_key_is_the_key_languages(key in key_text()) {
        let language = green_tea_key::check_provided(&key, green_tea_key::Declarer::Value);
        for in_module in [false, true] {
            match (&language, build_verdict(&key, in_module)) {
                (Ok(_), Ok(())) => {}
                (Err(reason), Err(report)) => prop_assert!(
                    report.contains(reason.as_str()),
                    "{key:?} (in a module: {in_module}): {reason} not in\n{report}"
                ),
                (language, build) => prop_assert!(
                    false,
                    "{key:?} (in a module: {in_module}): the key language says {language:?}, \
                     build() {build:?}"
                ),
            }
        }
    }
}
