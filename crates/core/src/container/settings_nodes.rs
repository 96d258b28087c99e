//! The settings providers as `build()` read them, walked once for the settings report, the
//! settings fields and a reload's re-read.

use super::Inner;
use crate::error::NodeKind;
use crate::ids::ProviderId;
use crate::key::Key;
use crate::settings::SettingsHook;

/// A settings provider as `build()` read it: its hook, its key, the prefix it reads under (a
/// module's settings read under its path's), and whether its key is another's today: an
/// override took it (then it was not read), or the provider is off today (then nothing needs
/// it, and a reload does not read it: neither a problem in it nor a change of it counts;
/// its variables stay known under `strict()`, as every registered type's do).
pub(crate) struct SettingsNode<'a> {
    pub(crate) id: ProviderId,
    pub(crate) node: &'a super::Node,
    pub(crate) hook: &'a dyn SettingsHook,
    pub(crate) key: Key,
    pub(crate) prefix: String,
    pub(crate) overridden: bool,
}

impl Inner {
    /// Every settings provider, on today or not: registration made each one's kind
    /// `Settings` (or `Override`, for one a test put in place of another).
    pub(crate) fn settings_nodes(&self) -> impl Iterator<Item = SettingsNode<'_>> {
        (self.providers.iter_enumerated())
            .filter(|(_, node)| matches!(node.kind, NodeKind::Settings | NodeKind::Override))
            .filter_map(|(id, node)| {
                let hook = node.provider.settings_hook()?;
                let key = node.descriptor.provides.first()?.key.clone();
                let prefix = match node.module {
                    Some(m) => crate::settings::module_prefix(&self.modules[m as usize].path),
                    None => hook.prefix().to_owned(),
                };
                let overridden = self.keys.get(&key).map(|v| v.provider()) != Some(id);
                Some(SettingsNode {
                    id,
                    node,
                    hook,
                    key,
                    prefix,
                    overridden,
                })
            })
    }
}
