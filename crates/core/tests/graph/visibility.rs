//! Arbitrary module trees, read against the rules of docs/modules.md as an independent model:
//! which key a need inside a module resolves to, and whether the consumer may see it.
//!
//! - a need is looked up in the consumer's module, then in each module around it, then at the
//!   root: the first that has the name (the module's path, `::`, the name as written) is it;
//! - a plain name found so is the consumer's own or an enclosing module's: always visible;
//! - a name with a module (`sms::gateway`, `billing::client`) is another module's key: every
//!   module from the key's out to the one that holds the consumer too must export it (by its
//!   name relative to that module), or the need is GT0014; nothing found is GT0001.
//!
//! Each module provides some of `k0`, `k1` (a value naming its qualified key) and exports some
//! of its keys and of its sub-modules' exports; the root provides some too; one consumer, in a
//! random module, needs one random spelling. `build()` must succeed exactly when the model
//! finds a visible key, and then the consumer gets that key's value; otherwise it fails with
//! the model's one problem.

use green_tea_core::{Container, Module, ProviderFn};
use proptest::prelude::*;
use proptest::sample::Index;

const KEYS: [&str; 2] = ["k0", "k1"];
const NAMES: [&str; 3] = ["a", "b", "c"];

/// One module: its parent (an earlier module), name, keys and exports (relative names).
#[derive(Clone, Debug)]
struct Mod {
    parent: Option<usize>,
    path: String,
    keys: Vec<&'static str>,
    exports: Vec<String>,
}

#[derive(Clone, Debug)]
struct Tree {
    modules: Vec<Mod>,
    root_keys: Vec<&'static str>,
    /// The consumer's module (`None`: the root) and its need as written.
    consumer: Option<usize>,
    need: String,
}

/// What the model expects of the need.
#[derive(Debug, PartialEq)]
enum Expect {
    /// The value of this qualified key.
    Value(String),
    /// GT0014.
    Private,
    /// GT0001.
    Missing,
}

impl Tree {
    /// The modules from `m` outward: `m`, its parent, ... (the root is not a module).
    fn outward(&self, m: Option<usize>) -> Vec<usize> {
        std::iter::successors(m, |&m| self.modules[m].parent).collect()
    }

    fn path_of(&self, m: Option<usize>) -> &str {
        m.map_or("", |m| &self.modules[m].path)
    }

    fn join(path: &str, name: &str) -> String {
        if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}::{name}")
        }
    }

    /// The module whose key `qualified` is, if one provides it (`Some(None)`: the root's).
    fn owner(&self, qualified: &str) -> Option<Option<usize>> {
        let (path, name) = match qualified.rsplit_once("::") {
            Some((path, name)) => (path, name),
            None => ("", qualified),
        };
        if path.is_empty() {
            return self.root_keys.contains(&name).then_some(None);
        }
        let m = self.modules.iter().position(|m| m.path == path)?;
        self.modules[m].keys.contains(&name).then_some(Some(m))
    }

    /// Whether every module from `owner` out to one that holds the consumer exports the key.
    fn visible(&self, owner: Option<usize>, qualified: &str) -> bool {
        let around_consumer = self.outward(self.consumer);
        for m in self.outward(owner) {
            if around_consumer.contains(&m) {
                return true;
            }
            let path = &self.modules[m].path;
            let relative = &qualified[path.len() + 2..];
            if !self.modules[m].exports.iter().any(|e| e == relative) {
                return false;
            }
        }
        true
    }

    fn expect(&self) -> Expect {
        let plain = !self.need.contains("::");
        let scopes = self
            .outward(self.consumer)
            .into_iter()
            .map(Some)
            .chain([None]);
        for scope in scopes {
            let qualified = Tree::join(self.path_of(scope), &self.need);
            if let Some(owner) = self.owner(&qualified) {
                return if plain || self.visible(owner, &qualified) {
                    Expect::Value(qualified)
                } else {
                    Expect::Private
                };
            }
        }
        Expect::Missing
    }

    /// The tree as a container: each module with its values, exports and sub-modules, and the
    /// consumer `use` in its module, returning what it needs.
    fn build(&self) -> Result<Container, green_tea_core::BuildError> {
        let consumer = ProviderFn::new("use", |needs| async move {
            Ok((*needs.get::<String>(0)?).clone())
        })
        .needs::<String>(self.need.clone());
        let mut consumer = Some(consumer);
        // Children before parents: a module is finished once its sub-modules are.
        let mut made: Vec<Option<Module>> = (0..self.modules.len()).map(|_| None).collect();
        for at in (0..self.modules.len()).rev() {
            let m = &self.modules[at];
            let name = m.path.rsplit("::").next().unwrap_or(&m.path);
            let mut module = Module::new(name);
            for key in &m.keys {
                module = module.value(*key, Tree::join(&m.path, key));
            }
            for export in &m.exports {
                module = module.export(export.clone());
            }
            if self.consumer == Some(at) {
                module = module.provider(consumer.take().unwrap());
            }
            let children = self.modules.iter().zip(made.iter_mut()).skip(at + 1);
            for (child, sub) in children {
                if child.parent == Some(at) {
                    module = module.module(sub.take().unwrap());
                }
            }
            made[at] = Some(module);
        }
        let mut builder = Container::builder();
        for key in &self.root_keys {
            builder = builder.value(*key, (*key).to_owned());
        }
        if let Some(consumer) = consumer {
            builder = builder.provider(consumer);
        }
        for (at, m) in self.modules.iter().enumerate() {
            if m.parent.is_none() {
                builder = builder.module(made[at].take().unwrap());
            }
        }
        builder.build()
    }
}

/// Up to five modules, each under the root or an earlier module (paths unique), with keys and
/// exports drawn among what is there to export, a consumer and a need spelled plainly or with
/// a module path (a module's whole path, or its path relative to a module around the
/// consumer).
fn tree() -> impl Strategy<Value = Tree> {
    let module = (any::<Index>(), 0..NAMES.len(), 0..4_usize, any::<u8>());
    (
        prop::collection::vec(module, 0..=5),
        0..4_usize,
        any::<Index>(),
        any::<Index>(),
        any::<Index>(),
        0..3_usize,
    )
        .prop_map(|(drawn, root_keys, consumer, target, scope, spelling)| {
            let keys_of = |bits: usize| -> Vec<&'static str> {
                KEYS.iter()
                    .enumerate()
                    .filter(|(i, _)| bits & (1 << i) != 0)
                    .map(|(_, k)| *k)
                    .collect()
            };
            let mut modules: Vec<Mod> = Vec::new();
            let mut export_bits: Vec<u8> = Vec::new();
            for (parent, name, keys, exports) in drawn {
                // A parent among the earlier modules, or the root.
                let parent = parent.index(modules.len() + 1).checked_sub(1);
                let path = Tree::join(parent.map_or("", |p| &modules[p].path), NAMES[name]);
                if modules.iter().any(|m| m.path == path) {
                    continue;
                }
                modules.push(Mod {
                    parent,
                    path,
                    keys: keys_of(keys),
                    exports: Vec::new(),
                });
                export_bits.push(exports);
            }
            // Exports, children first: a module may export its keys and what its sub-modules
            // export (by their names relative to it); nothing else, so the tree stays valid.
            // Its drawn bits say which of these candidates it exports.
            for at in (0..modules.len()).rev() {
                let mut candidates: Vec<String> =
                    modules[at].keys.iter().map(|k| (*k).to_owned()).collect();
                for child in modules.iter().skip(at + 1) {
                    if child.parent == Some(at) {
                        let name = child.path.rsplit("::").next().unwrap();
                        for export in &child.exports {
                            candidates.push(format!("{name}::{export}"));
                        }
                    }
                }
                let bits = export_bits[at];
                let exports = candidates
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| bits & (1 << (i % 8)) != 0)
                    .map(|(_, export)| export)
                    .collect();
                modules[at].exports = exports;
            }
            let consumer = consumer.index(modules.len() + 1).checked_sub(1);
            let target_module = target.index(modules.len() + 1).checked_sub(1);
            let key = KEYS[target.index(KEYS.len())];
            let mut tree = Tree {
                modules,
                root_keys: keys_of(root_keys),
                consumer,
                need: String::new(),
            };
            tree.need = match (spelling, target_module) {
                (0, _) | (_, None) => key.to_owned(),
                (1, Some(m)) => Tree::join(&tree.modules[m].path, key),
                (_, Some(m)) => {
                    // Relative to a module around the consumer that the target is inside of.
                    let around = tree.outward(tree.consumer);
                    let target_path = tree.modules[m].path.clone();
                    let inside: Vec<usize> = around
                        .into_iter()
                        .filter(|&a| {
                            target_path.starts_with(&format!("{}::", tree.modules[a].path))
                        })
                        .collect();
                    match inside.get(scope.index(inside.len().max(1))) {
                        Some(&a) => {
                            let relative = &target_path[tree.modules[a].path.len() + 2..];
                            Tree::join(relative, key)
                        }
                        None => Tree::join(&target_path, key),
                    }
                }
            };
            tree
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(400)
    ))]

    #[test]
    fn a_need_sees_what_the_visibility_rule_says(tree in tree()) {
        let expected = tree.expect();
        let built = tree.build();
        match (&expected, built) {
            (Expect::Value(key), Ok(container)) => {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                let got = runtime.block_on(async {
                    let used = Tree::join(tree.path_of(tree.consumer), "use");
                    let got = container.get::<String>(&used).await;
                    container.close().await.unwrap();
                    got
                });
                let got = got.unwrap();
                prop_assert_eq!(got.as_str(), key.as_str(), "{:#?}", tree);
            }
            (Expect::Private, Err(error)) => {
                prop_assert!(
                    matches!(error.problems(), [problem] if problem.code() == "GT0014"),
                    "expected GT0014 for {:#?}, got {}", tree, error
                );
            }
            (Expect::Missing, Err(error)) => {
                prop_assert!(
                    matches!(error.problems(), [problem] if problem.code() == "GT0001"),
                    "expected GT0001 for {:#?}, got {}", tree, error
                );
            }
            (expected, Ok(_)) => {
                prop_assert!(false, "expected {:?}, but it built: {:#?}", expected, tree);
            }
            (Expect::Value(key), Err(error)) => {
                prop_assert!(false, "expected `{}`, got {} for {:#?}", key, error, tree);
            }
        }
    }
}

#[test]
fn the_model_reads_the_guides_examples() {
    // docs/modules.md: a module needs its sub-module's export as `sms::gateway`; the root
    // needs it as `notifications::sms::gateway` only if both export it.
    let tree = |consumer, need: &str, outer_exports: Vec<String>| Tree {
        modules: vec![
            Mod {
                parent: None,
                path: "notifications".to_owned(),
                keys: vec![],
                exports: outer_exports,
            },
            Mod {
                parent: Some(0),
                path: "notifications::sms".to_owned(),
                keys: vec!["k0"],
                exports: vec!["k0".to_owned()],
            },
        ],
        root_keys: vec![],
        consumer,
        need: need.to_owned(),
    };
    let inner = tree(Some(0), "sms::k0", vec![]);
    assert_eq!(
        inner.expect(),
        Expect::Value("notifications::sms::k0".to_owned())
    );
    assert!(inner.build().is_ok());
    let hidden = tree(None, "notifications::sms::k0", vec![]);
    assert_eq!(hidden.expect(), Expect::Private);
    let error = hidden.build().unwrap_err();
    assert!(
        matches!(error.problems(), [p] if p.code() == "GT0014"),
        "{error}"
    );
    let exported = tree(None, "notifications::sms::k0", vec!["sms::k0".to_owned()]);
    assert_eq!(
        exported.expect(),
        Expect::Value("notifications::sms::k0".to_owned())
    );
    // A plain name never looks inside: the root's `k0` is the root's, and there is none.
    let plain = tree(None, "k0", vec!["sms::k0".to_owned()]);
    assert_eq!(plain.expect(), Expect::Missing);
    let error = plain.build().unwrap_err();
    assert!(
        matches!(error.problems(), [p] if p.code() == "GT0001"),
        "{error}"
    );
}
