//! Which declaration provides each key: the key table the analysis looks needs up in
//! ([`KeyTable`], its hottest lookup), the values it holds ([`ValueRef`], by node), and what a
//! key resolves to in typed ids ([`Value`]).

use std::collections::HashMap;

use super::numbering::{Declared, NodeId, Numbering};
use crate::ids::{AppValue, StepValue};
use crate::key::Key;

/// Keys to values: keys come from declarations in code, not from requests, so a fast hasher
/// (foldhash, randomly seeded) is enough.
pub(crate) type KeyMap<V> = HashMap<Key, V, foldhash::fast::RandomState>;

/// A provided value: the `index`-th value of node `node`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValueRef {
    pub(crate) node: NodeId,
    pub(crate) index: u32,
}

impl ValueRef {
    /// Nothing: an optional need that nothing provides (or a need left unresolved by a
    /// problem, so that each declaration's row of needs stays one entry per need).
    pub(crate) const ABSENT: ValueRef = ValueRef {
        node: NodeId::NONE,
        index: 0,
    };
}

/// What a key resolves to: a provider's value or a step's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    App(AppValue),
    Step(StepValue),
    /// An optional need that nothing provides.
    Absent,
}

/// Which declaration provides each key: providers' keys apart from steps' keys, so that the
/// providers' map is the container's, handed over as it is.
pub(crate) struct KeyTable {
    pub(crate) layout: Numbering,
    pub(crate) app: KeyMap<AppValue>,
    pub(crate) request: KeyMap<StepValue>,
}

impl KeyTable {
    // Always inlined: the graph check's hottest lookup, called from several places, which can
    // make the compiler keep it out of line (at some 10% of a 10k `build()`).
    #[inline(always)]
    pub(crate) fn get(&self, key: &Key) -> Option<ValueRef> {
        self.get_str(key.as_str())
    }

    #[inline(always)]
    pub(crate) fn get_str(&self, key: &str) -> Option<ValueRef> {
        if let Some(at) = self.app.get(key) {
            return Some(ValueRef {
                node: self.layout.provider(at.provider),
                index: at.index,
            });
        }
        if self.request.is_empty() {
            return None;
        }
        self.request.get(key).map(|at| ValueRef {
            node: self.layout.step(at.step),
            index: at.index,
        })
    }

    /// Makes `at` the provider of `key` if nothing provides it yet (one hash of the key, where
    /// a lookup and then an insert would take two); otherwise returns what does.
    #[inline]
    pub(crate) fn insert_first(&mut self, key: &Key, at: ValueRef) -> Option<ValueRef> {
        use std::collections::hash_map::Entry;
        match self.layout.declared(at.node) {
            Declared::Provider(provider) => {
                if !self.request.is_empty()
                    && let Some(first) = self.request.get(key)
                {
                    return Some(ValueRef {
                        node: self.layout.step(first.step),
                        index: first.index,
                    });
                }
                match self.app.entry(key.clone()) {
                    Entry::Occupied(first) => Some(ValueRef {
                        node: self.layout.provider(first.get().provider),
                        index: first.get().index,
                    }),
                    Entry::Vacant(vacant) => {
                        vacant.insert(AppValue {
                            provider,
                            index: at.index,
                        });
                        None
                    }
                }
            }
            Declared::Step(_) | Declared::Route(_) => match self.get(key) {
                Some(first) => Some(first),
                None => {
                    self.insert(key, at);
                    None
                }
            },
        }
    }

    /// Makes `at` the provider of `key`, in place of any other.
    pub(crate) fn insert(&mut self, key: &Key, at: ValueRef) {
        match self.layout.declared(at.node) {
            Declared::Provider(provider) => {
                if !self.request.is_empty() {
                    self.request.remove(key);
                }
                let at = AppValue {
                    provider,
                    index: at.index,
                };
                self.app.insert(key.clone(), at);
            }
            Declared::Step(step) => {
                self.app.remove(key);
                let at = StepValue {
                    step,
                    index: at.index,
                };
                self.request.insert(key.clone(), at);
            }
            Declared::Route(_) => unreachable!("a route provides nothing"),
        }
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &Key> {
        self.app.keys().chain(self.request.keys())
    }

    /// Every key with what provides it.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&Key, ValueRef)> {
        let app = self.app.iter().map(|(k, at)| {
            let node = self.layout.provider(at.provider);
            (
                k,
                ValueRef {
                    node,
                    index: at.index,
                },
            )
        });
        let request = self.request.iter().map(|(k, at)| {
            let node = self.layout.step(at.step);
            (
                k,
                ValueRef {
                    node,
                    index: at.index,
                },
            )
        });
        app.chain(request)
    }
}

/// The `index`-th value of `node`.
pub(crate) fn value_ref(node: NodeId, index: usize) -> ValueRef {
    ValueRef {
        node,
        index: u32::try_from(index).expect("fewer than 2^32 keys per declaration"),
    }
}
