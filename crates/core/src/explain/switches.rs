//! The switches of a built container, as `explain` shows them: each one's outcome in this
//! shape and where it came from, and every declaration this shape leaves out, with where it is
//! on.

use std::fmt;

use serde::Serialize;

use crate::container::Container;
use crate::error::NodeKind;

/// The switches and what they leave out, as decided at `build()`. `Display` is the text
/// form; it is also `serde::Serialize` (JSON).
///
/// ```
/// use green_tea::prelude::*;
/// use green_tea::settings::Sources;
///
/// #[derive(Settings)]
/// #[settings(provides = "shopSettings", prefix = "SHOP", discover = false)]
/// pub struct ShopSettings {
///     #[settings(default = "false")]
///     pub cache: bool,
/// }
///
/// let container = Container::builder()
///     .settings(Sources::from_env_map([("SHOP_CACHE", "false")]))
///     .provider(ShopSettings::provider())
///     .switch(Switch::new("cacheOn", |shop: &ShopSettings| shop.cache).reads("cache"))
///     .when("cacheOn", |on| on.value("cache", 64_u32))
///     .build()
///     .unwrap();
/// let switches = container.explain_switches();
/// assert_eq!(switches.switches[0].outcome.as_deref(), Some("false"));
/// assert_eq!(
///     switches.to_string().lines().take(2).collect::<Vec<_>>(),
///     [
///         "1 switch:",
///         "  `cacheOn` = false (of false, true), from `shopSettings`: cache = false (env SHOP_CACHE)",
///     ]
/// );
/// assert!(switches.to_string().contains("value `cache`: on when `cacheOn` = true ("));
/// ```
#[derive(Clone, Debug, Default, Serialize)]
#[non_exhaustive]
pub struct ExplainSwitches {
    /// Every switch, in registration order (the app's, then each module's as registered).
    pub switches: Vec<ExplainSwitch>,
    /// Every declaration this shape leaves out, in registration order.
    pub off: Vec<ExplainOff>,
}

/// One switch as decided.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainSwitch {
    /// Its name (`cacheOn`, `payments::gateway` for a module's).
    pub name: String,
    /// Its outcome in this shape; `None` when it could not be decided (the build failed).
    pub outcome: Option<String>,
    /// Every outcome it can have, in order.
    pub outcomes: Vec<String>,
    /// The settings it reads, by key.
    pub settings: String,
    /// The fields it says it reads (`Switch::reads`).
    pub reads: Vec<String>,
    /// Where its outcome came from: the fields it reads with their values and sources, or a
    /// test's `override_switch`.
    pub from: String,
    /// Where it was made.
    pub location: String,
}

/// A declaration this shape leaves out.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainOff {
    /// What it is.
    pub kind: NodeKind,
    /// Its name, qualified by its module's path.
    pub name: String,
    /// The keys it provides where it is on.
    pub provides: Vec<String>,
    /// Where it is on: ``when `cacheOn` = true``.
    pub on: String,
    /// Where it was declared.
    pub location: String,
}

impl ExplainSwitches {
    /// Whether the app has no switch.
    pub fn is_empty(&self) -> bool {
        self.switches.is_empty()
    }
}

impl Container {
    /// The switches, each one's outcome in this shape and where it came from, and every
    /// declaration this shape leaves out; empty for an app without switches.
    pub fn explain_switches(&self) -> ExplainSwitches {
        let Some(shape) = &self.inner.shape else {
            return ExplainSwitches::default();
        };
        ExplainSwitches {
            switches: shape
                .switches
                .table
                .iter()
                .map(|s| ExplainSwitch {
                    name: s.name.clone(),
                    outcome: s.outcome.map(|o| s.outcomes[o as usize].to_string()),
                    outcomes: s.outcomes.iter().map(|o| o.to_string()).collect(),
                    settings: s.settings.to_string(),
                    reads: s.reads.iter().map(|r| (*r).to_owned()).collect(),
                    from: s.from.clone(),
                    location: s.location.to_string(),
                })
                .collect(),
            off: shape.off.iter().map(explain_off).collect(),
        }
    }
}

/// `off` as explain shows it.
pub(crate) fn explain_off(off: &crate::container::Off) -> ExplainOff {
    ExplainOff {
        kind: off.kind,
        name: off.describe(),
        provides: off.provides.iter().map(|k| k.to_string()).collect(),
        on: off.on.clone(),
        location: off.location.to_string(),
    }
}

impl fmt::Display for ExplainSwitches {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.switches.len();
        write!(f, "{n} switch{}:", if n == 1 { "" } else { "es" })?;
        for s in &self.switches {
            write!(
                f,
                "\n  `{}` = {} (of {}), from {}",
                s.name,
                s.outcome.as_deref().unwrap_or("(undecided)"),
                s.outcomes.join(", "),
                s.from
            )?;
        }
        if self.off.is_empty() {
            return f.write_str("\nnothing is off in this shape");
        }
        write!(f, "\noff in this shape ({}):", self.off.len())?;
        for o in &self.off {
            write!(f, "\n  {}: on {} ({})", o.name, o.on, o.location)?;
        }
        Ok(())
    }
}
