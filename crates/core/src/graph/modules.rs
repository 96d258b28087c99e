//! Modules in the graph: the keys a module's declarations provide are qualified by its path
//! (`notifications::http`), a need inside a module resolves to its own key first and then
//! outward, and a need of another module's key (`notifications::http`) must be exported by
//! every module between the key and the consumer.

use std::sync::Arc;

use super::decl::Decl;
use super::keys::{KeyTable, ValueRef};
use crate::error::{NodeKind, Problem};
use crate::key::Key;
use crate::module::{RegisteredModule, relative_to};

/// The modules of one graph.
#[derive(Clone, Copy)]
pub(crate) struct ModuleTable<'a>(pub(crate) &'a [RegisteredModule]);

/// What a need's name resolved to.
pub(crate) enum Lookup {
    Found(ValueRef),
    /// The key exists, but a module between it and the consumer does not export it.
    Private {
        at: ValueRef,
        module: String,
    },
    Missing,
}

impl<'a> ModuleTable<'a> {
    /// `key` as the declaration providing it in `module` means it: the module's path before it,
    /// written in `names`.
    pub(crate) fn qualify(
        &self,
        module: Option<u32>,
        key: &Key,
        names: &mut QualifiedNames,
    ) -> Key {
        match module {
            // The one rule of the key language (`green_tea_key::qualify`): a plain name gets
            // its module's path; a contribution, an entry or a path is as written.
            Some(m) if key.is_plain() => {
                Key::shared(Arc::from(names.of(*self, m as usize, key.as_str())))
            }
            _ => key.clone(),
        }
    }

    /// The position of the module at `path` (`shop::orders`), if one is there.
    pub(crate) fn position(&self, path: &str) -> Option<u32> {
        self.0
            .iter()
            .position(|s| !s.replaced && &*s.path == path)
            .map(|m| m as u32)
    }

    /// The modules from `module` out to the root's child: `module`, its parent, ...
    pub(crate) fn outward(&self, module: Option<u32>) -> impl Iterator<Item = usize> + 'a {
        let module_table = self.0;
        std::iter::successors(module.map(|m| m as usize), move |&m| module_table[m].parent)
    }

    /// What a need named `name` (no `?`) of a declaration in `consumer` resolves to: in
    /// `consumer`'s own module first, then in each module outward, then at the root. A name
    /// with a module (`sms::gateway`, `billing::client`) is looked up the same way (a
    /// sub-module's export by its relative name, another module's from the root), and must be
    /// visible from `consumer`.
    #[inline(never)] // off the path of a need outside any module
    pub(crate) fn resolve(
        &self,
        keys: &KeyTable,
        decls: &[Decl<'_>],
        consumer: Option<u32>,
        name: &str,
        names: &mut QualifiedNames,
    ) -> Lookup {
        // A well-spelled name holds `:` only in `::` (and a str pattern would cost a searcher).
        if name.as_bytes().contains(&b':') {
            for m in self.outward(consumer) {
                let qualified = names.of(*self, m, name);
                if let Some(at) = keys.get_str(qualified) {
                    return self.visible_from(decls, at, consumer, qualified);
                }
            }
            return match keys.get_str(name) {
                Some(at) => self.visible_from(decls, at, consumer, name),
                None => Lookup::Missing,
            };
        }
        for m in self.outward(consumer) {
            if let Some(at) = keys.get_str(names.of(*self, m, name)) {
                return Lookup::Found(at);
            }
        }
        match keys.get_str(name) {
            Some(at) => Lookup::Found(at),
            None => Lookup::Missing,
        }
    }

    /// `at`, the value of the qualified key `name`, as a consumer in `consumer` sees it.
    fn visible_from(
        &self,
        decls: &[Decl<'_>],
        at: ValueRef,
        consumer: Option<u32>,
        name: &str,
    ) -> Lookup {
        match self.hidden_by(self.owner(decls, at, name), consumer, name) {
            Some(module) => Lookup::Private { at, module },
            None => Lookup::Found(at),
        }
    }

    /// The module the key `name`, provided by `at`, belongs to: its declaration's, or, for a
    /// test's override (registered at the app's root, but replacing a module's key), the
    /// module its qualified name names. An override does not make a private key visible.
    pub(crate) fn owner(&self, decls: &[Decl<'_>], at: ValueRef, name: &str) -> Option<u32> {
        let decl = &decls[at.node.index()];
        if decl.kind != NodeKind::Override {
            return decl.module();
        }
        let (path, _) = green_tea_key::split_last(name);
        let path = path?;
        self.position(path)
    }

    /// The module that hides `name` (qualified, provided in `module`) from a consumer in
    /// `consumer`, if one does: every module from the key's out to the one the two share must
    /// export it (the part of the name after that module's path).
    fn hidden_by(&self, module: Option<u32>, consumer: Option<u32>, name: &str) -> Option<String> {
        if module == consumer {
            return None; // the usual case: a module's own key
        }
        for m in self.outward(module) {
            if self.outward(consumer).any(|c| c == m) {
                return None; // the consumer is inside it: everything in it is visible
            }
            let scope = &self.0[m];
            let relative = relative_to(name, &scope.path).unwrap_or(name);
            if !scope.exports.iter().any(|(k, _)| k.as_str() == relative) {
                return Some(scope.path.to_string());
            }
        }
        None
    }
}

impl ModuleTable<'_> {
    /// The keys a consumer in `consumer` can need, each as it would spell it (its own and
    /// enclosing modules' keys by their plain names, another module's exports qualified), with
    /// what provides it: the candidates of a "did you mean".
    pub(crate) fn visible(
        &self,
        keys: &KeyTable,
        decls: &[Decl<'_>],
        consumer: Option<u32>,
    ) -> Vec<(Key, ValueRef)> {
        let mut visible = Vec::new();
        for (key, at) in keys.entries() {
            let module = self.owner(decls, at, key.as_str());
            let Some(m) = module else {
                visible.push((key.clone(), at));
                continue;
            };
            if self.outward(consumer).any(|c| c == m as usize) {
                let path = &*self.0[m as usize].path;
                let plain = relative_to(key.as_str(), path).unwrap_or(key.as_str());
                visible.push((Key::from(plain.to_owned()), at));
            } else if self.hidden_by(module, consumer, key.as_str()).is_none() {
                visible.push((key.clone(), at));
            }
        }
        visible.sort_by(|a, b| a.0.cmp(&b.0));
        visible
    }

    /// The exports of the module at `path` that a consumer in `consumer` can need, qualified
    /// (`billing::billing`): what a GT0014 offers instead of a private key.
    pub(crate) fn exports_seen(
        &self,
        keys: &KeyTable,
        decls: &[Decl<'_>],
        path: &str,
        consumer: Option<u32>,
    ) -> Vec<Key> {
        let Some(m) = self.position(path) else {
            return Vec::new();
        };
        let mut exports: Vec<Key> = self.0[m as usize]
            .exports
            .iter()
            .map(|(export, _)| green_tea_key::join(path, export.as_str()))
            .filter(|qualified| {
                keys.get_str(qualified).is_some_and(|at| {
                    self.hidden_by(self.owner(decls, at, qualified), consumer, qualified)
                        .is_none()
                })
            })
            .map(Key::from)
            .collect();
        exports.sort();
        exports
    }

    /// Every module's problems: a name that is not one, a path two modules share, an export of
    /// a key the module does not have (or that a sub-module keeps private).
    pub(crate) fn check(
        &self,
        keys: &KeyTable,
        decls: &[Decl<'_>],
        names: &mut QualifiedNames,
        problems: &mut Vec<Problem>,
    ) {
        let shape = |scope: &RegisteredModule, location, reason: String| Problem::ModuleShape {
            module: scope.path.to_string(),
            location,
            reason,
        };
        for (i, scope) in self.0.iter().enumerate() {
            if scope.replaced {
                continue; // a test's override emptied it; its replacement is checked
            }
            // The name it was registered under: its path after its parent's.
            let name = match scope.parent {
                Some(parent) => {
                    relative_to(&scope.path, &self.0[parent].path).unwrap_or(&scope.path)
                }
                None => &scope.path,
            };
            let bad_name = name.is_empty()
                || name.contains(':')
                || Key::from(name.to_owned()).spelling() != Ok(crate::key::Spelling::One(name));
            if bad_name {
                problems.push(shape(
                    scope,
                    scope.location,
                    format!(
                        "is named `{name}`: a module's name is a key's name, without `:`, `?`, \
                         `[]` or `{{}}`"
                    ),
                ));
                continue;
            }
            if self.0[..i]
                .iter()
                .any(|earlier| !earlier.replaced && earlier.path == scope.path)
            {
                problems.push(shape(
                    scope,
                    scope.location,
                    "is registered twice: register the second under another name \
                     (`.named(\"...\")`), and each has keys of its own"
                        .to_owned(),
                ));
                continue;
            }
            for (export, location) in &scope.exports {
                let qualified = names.of(*self, i, export.as_str());
                let reason = match keys.get_str(qualified) {
                    None => Some(format!("exports `{export}`, which it does not provide")),
                    Some(at) => self
                        .hidden_by(self.owner(decls, at, qualified), Some(i as u32), qualified)
                        .map(|sub| {
                            format!(
                                "exports `{export}`, which its sub-module `{sub}` keeps private"
                            )
                        }),
                };
                if let Some(reason) = reason {
                    problems.push(shape(scope, *location, reason));
                }
            }
        }
    }
}

/// `key` as a declaration of the module at `path` provides it (`green_tea_key::qualify`: a
/// plain name gets the path; at the root, or anything but a plain name, the key as written),
/// made in one allocation (this runs for every key of every module).
pub(crate) fn qualified_key(path: Option<&str>, key: &Key) -> Key {
    thread_local! {
        static BUFFER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    match path {
        Some(path) if key.is_plain() => BUFFER.with_borrow_mut(|buffer| {
            buffer.clear();
            push_joined(buffer, path, key.as_str());
            Key::shared(Arc::from(buffer.as_str()))
        }),
        _ => key.clone(),
    }
}

/// The keys a module's declarations are registered with, qualified as the graph would
/// ([`ModuleTable::qualify`]), one buffer for a module's keys.
#[derive(Default)]
pub(crate) struct RegisteredKeys {
    names: QualifiedNames,
}

impl RegisteredKeys {
    /// `name`, a plain name ([`Key::is_plain`]: the caller asked), as a declaration registered
    /// in the module at `module` of `module_table` provides it: `path::name`.
    pub(crate) fn qualify_plain(
        &mut self,
        module_table: &[RegisteredModule],
        module: u32,
        name: &Key,
    ) -> Key {
        debug_assert!(name.is_plain(), "only a plain name is qualified: {name}");
        let qualified = self
            .names
            .of(ModuleTable(module_table), module as usize, name.as_str());
        Key::shared(Arc::from(qualified))
    }
}

use green_tea_key::join_into as push_joined;

/// Qualified names (`orders::name`), written one at a time into one buffer that keeps the
/// module's `orders::` while names of one module follow each other, as a module's
/// declarations do: no allocation, and one copy per name (the graph writes one for every
/// key and every need in a module).
#[derive(Default)]
pub(crate) struct QualifiedNames {
    buffer: String,
    /// The module whose path (and `::`) the buffer starts with.
    module: Option<usize>,
}

impl QualifiedNames {
    /// `name` in the module at `module`: `path::name`.
    #[inline(always)] // for each need in a module, as small as its work
    pub(crate) fn of(&mut self, module_table: ModuleTable<'_>, module: usize, name: &str) -> &str {
        let path = &module_table.0[module].path;
        if self.module == Some(module) {
            self.buffer.truncate(path.len() + 2);
        } else {
            self.buffer.clear();
            push_joined(&mut self.buffer, path, "");
            self.module = Some(module);
        }
        self.buffer.push_str(name);
        &self.buffer
    }
}
