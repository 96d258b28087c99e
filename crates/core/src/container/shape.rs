//! Today's shape of a container with switches, as `explain`, health and errors show it: each
//! switch's outcome, and what this shape leaves out, with where it is on.

use crate::error::NodeKind;
use crate::key::{Key, Location};
use crate::module::RegisteredModule;
use crate::switch::condition::Condition;
use crate::switch::decide::Switches;

/// Today's shape, as `explain` and health show it: each switch's outcome, and what is off.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shape {
    pub(crate) switches: Switches,
    pub(crate) off: Vec<Off>,
    /// Each module that is off today (by its position among the modules), with where it is on.
    pub(crate) modules_off: Vec<(u32, String)>,
    /// Each node's condition (the graph's numbering), as a position in `conditions`: what the
    /// lockfile reads (it records every shape, not today's).
    pub(crate) of: Vec<u32>,
    /// The distinct conditions, on in every shape first.
    pub(crate) conditions: Vec<Condition>,
    /// Each module's condition, as a position in `conditions`.
    pub(crate) modules: Vec<u32>,
    /// The node of each worker that is on today, in registration order.
    pub(crate) worker_nodes: Vec<u32>,
}

/// A declaration that today's shape leaves out, and why.
#[derive(Clone, Debug)]
pub(crate) struct Off {
    pub(crate) kind: NodeKind,
    /// Its name, qualified by its module's path.
    pub(crate) name: String,
    /// The keys it would provide, as the graph names them.
    pub(crate) provides: Vec<Key>,
    /// Where it is on: ``when `cacheOn` = true``.
    pub(crate) on: String,
    pub(crate) location: Location,
    /// The module it was registered in (its position), if any.
    pub(crate) module: Option<u32>,
    /// Its node in the graph of every shape.
    pub(crate) node: u32,
    /// The keys it needs, as spelled (`cache?`).
    pub(crate) needs: Vec<Key>,
}

impl Off {
    /// How an error names it: ``provider `priceCache` `` (a value by its key).
    pub(crate) fn describe(&self) -> String {
        match self.kind {
            NodeKind::Value => self.name.clone(),
            kind => format!("{kind} `{}`", self.name),
        }
    }
}

impl Shape {
    /// Where the key an optional need `need` of a declaration in the module at `module` (of
    /// `modules`) names is on, when it is off in this shape: the module's own key of that
    /// name, else its parents', else the app's.
    pub(crate) fn off_reason(
        &self,
        modules: &[RegisteredModule],
        module: Option<u32>,
        need: &Key,
    ) -> Option<String> {
        let name = match need.spelling() {
            Ok(crate::key::Spelling::Optional(name)) => name,
            _ => return None,
        };
        let mut at = module.map(|m| m as usize);
        loop {
            let path = at.map(|m| &*modules[m].path);
            let key = green_tea_key::qualify(path, name);
            if let Some(off) = self.providing(&key) {
                return Some(off.on.clone());
            }
            at = modules[at?].parent;
        }
    }

    /// The off declaration that provides `key`, if one does.
    pub(crate) fn providing(&self, key: &str) -> Option<&Off> {
        self.off
            .iter()
            .find(|off| off.provides.iter().any(|k| k.as_str() == key))
    }
}
