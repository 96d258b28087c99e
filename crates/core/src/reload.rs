//! What a reload says: the settings fields it found changed, what it built anew, and, when it
//! was refused or failed, why (the running generation serving on, untouched).

use std::fmt;

use serde::Serialize;

use crate::error::{BuildError, ProvideError};

/// A reload that took effect: the generation now serving, what changed, and what was built
/// anew for it (every other provider is shared with the generation before).
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Reload {
    /// The generation now serving: 0 is the one `build()` made, each reload adds one.
    pub generation: u64,
    /// Each field whose value changed, in registration order.
    pub changes: Vec<SettingChange>,
    /// The providers the change reaches, in build order (a changed settings type's own
    /// first): each the generation before had built is built anew for this one; the others
    /// are built, as any provider is, when first needed. Every other provider is shared.
    pub rebuilt: Vec<String>,
    /// The workers restarted on the new generation (they need a provider built anew).
    pub workers: Vec<String>,
}

/// One settings field whose value a reload found changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SettingChange {
    /// The variable that sets it (`BILLING_TIMEOUT`).
    pub variable: String,
    /// The field under its settings' key (`billingSettings.timeout`).
    pub field: String,
    /// Its value before (`***` for a secret).
    pub from: String,
    /// Its value now (`***` for a secret), and where it came from: `5s (config.toml:3)`.
    pub to: String,
    /// Why it cannot change without a restart, one line each: empty when it may reload.
    pub restart_because: Vec<String>,
}

impl SettingChange {
    /// Whether it may change without a restart.
    pub fn reloadable(&self) -> bool {
        self.restart_because.is_empty()
    }
}

impl fmt::Display for SettingChange {
    /// ```text
    /// `billingSettings.timeout` (BILLING_TIMEOUT): 2s → 5s (config.toml:3)
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` ({}): {} → {}",
            self.field, self.variable, self.from, self.to
        )
    }
}

impl fmt::Display for Reload {
    /// ```text
    /// reloaded: generation 1
    ///   `billingSettings.timeout` (BILLING_TIMEOUT): 2s → 5s (config.toml:3)
    ///   built anew: `BillingSettings` → `billing`
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reloaded: generation {}", self.generation)?;
        for change in &self.changes {
            write!(f, "\n  {change}")?;
        }
        write!(
            f,
            "\n  built anew: {}",
            quoted(&self.rebuilt, " → ", "nothing")
        )?;
        if !self.workers.is_empty() {
            write!(
                f,
                "\n  workers restarted: {}",
                quoted(&self.workers, ", ", "none")
            )?;
        }
        Ok(())
    }
}

/// `names`, each in backticks, joined by `between`; `empty` when there are none.
pub(crate) fn quoted(names: &[String], between: &str, empty: &str) -> String {
    if names.is_empty() {
        return empty.to_owned();
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    quoted.join(between)
}

/// Why a reload changed nothing: the generation that was serving serves on.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ReloadError {
    /// The settings as read now have problems (GT0016–GT0019, every one, secrets hidden).
    #[error("the reload changed nothing: the settings have problems\n{0}")]
    Invalid(BuildError),
    /// GT0109: a field that changed needs a restart (it is not marked `reload`, or a switch
    /// reads it): nothing was reloaded, not even the fields that could have been.
    #[error("{}", restart_text(.changes))]
    RestartNeeded {
        /// Every field that changed, each saying whether and why it needs a restart.
        changes: Vec<SettingChange>,
    },
    /// A provider of the new generation failed to build (or ran past its build timeout):
    /// what the new generation had built was disposed.
    #[error("the reload changed nothing: the new generation failed to build\n{error}")]
    Failed {
        /// The fields that changed.
        changes: Vec<SettingChange>,
        /// The build that failed, with the chain that needed it.
        error: ProvideError,
    },
    /// GT0110: the new generation was built, but a health check of a value it built (a
    /// synchronous or an async one, critical or not) said down: what it had built was
    /// disposed.
    #[error("{}", unhealthy_text(.reasons))]
    Unhealthy {
        /// The fields that changed.
        changes: Vec<SettingChange>,
        /// What the checks said, one line each.
        reasons: Vec<String>,
    },
    /// The app (or container) is closing or closed.
    #[error("the reload changed nothing: the app is closing")]
    Closed,
    /// A [`Container`](crate::Container)'s reload, asked of a generation that a reload
    /// replaced already: reload the one that serves. (An app always reloads the one that
    /// serves.)
    #[error(
        "the reload changed nothing: generation {generation} was replaced; generation {serving} \
         serves, reload that one"
    )]
    Replaced {
        /// The generation asked to reload.
        generation: u64,
        /// The generation that serves.
        serving: u64,
    },
    /// [`Container::reload`](crate::Container::reload) of an app's container (`App::container`):
    /// reload the app, which checks the new generation's health and swaps in what serves.
    #[error(
        "the reload changed nothing: this container is an app's; reload the app \
         (`App::reload`), which checks the new generation and swaps in what serves"
    )]
    OfAnApp,
}

impl Reload {
    /// The report of a generation that changed and built nothing (what a settled reload's
    /// report is left as once handed on).
    pub(crate) fn none(generation: u64) -> Reload {
        Reload {
            generation,
            changes: Vec::new(),
            rebuilt: Vec::new(),
            workers: Vec::new(),
        }
    }
}

/// As `Display`, so that `?` in a `main` that returns a `Result` prints the message.
impl fmt::Debug for ReloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl ReloadError {
    /// Its error code, when it has one: GT0109 (a restart is needed), GT0110 (the new
    /// generation is unhealthy), a failed build's own; a settings problem has one per
    /// problem ([`BuildError::problems`]).
    pub fn code(&self) -> Option<&'static str> {
        match self {
            ReloadError::RestartNeeded { .. } => Some("GT0109"),
            ReloadError::Unhealthy { .. } => Some("GT0110"),
            ReloadError::Failed { error, .. } => error.code(),
            ReloadError::Invalid(_)
            | ReloadError::Closed
            | ReloadError::Replaced { .. }
            | ReloadError::OfAnApp => None,
        }
    }

    /// Its kind in one word, as the `outcome` label of the `green_tea.reloads` metric says it:
    /// `invalid`, `restart_needed`, `failed`, `unhealthy`, `closed`, `replaced` or
    /// `of_an_app`.
    pub fn kind(&self) -> &'static str {
        match self {
            ReloadError::Invalid(_) => "invalid",
            ReloadError::RestartNeeded { .. } => "restart_needed",
            ReloadError::Failed { .. } => "failed",
            ReloadError::Unhealthy { .. } => "unhealthy",
            ReloadError::Closed => "closed",
            ReloadError::Replaced { .. } => "replaced",
            ReloadError::OfAnApp => "of_an_app",
        }
    }

    /// The fields that changed, where the reload got as far as comparing them.
    pub fn changes(&self) -> &[SettingChange] {
        match self {
            ReloadError::RestartNeeded { changes }
            | ReloadError::Failed { changes, .. }
            | ReloadError::Unhealthy { changes, .. } => changes,
            ReloadError::Invalid(_)
            | ReloadError::Closed
            | ReloadError::Replaced { .. }
            | ReloadError::OfAnApp => &[],
        }
    }
}

fn restart_text(changes: &[SettingChange]) -> String {
    let mut text = "error[GT0109]: the reload changed nothing: a changed setting needs a restart \
                    (a reload applies every change or none)"
        .to_owned();
    for change in changes {
        text.push_str(&format!("\n  {change}"));
        match change.restart_because.is_empty() {
            true => text.push_str("\n    reloadable"),
            false => {
                for reason in &change.restart_because {
                    text.push_str(&format!("\n    needs a restart: {reason}"));
                }
            }
        }
    }
    text
}

fn unhealthy_text(reasons: &[String]) -> String {
    let mut text =
        "error[GT0110]: the reload changed nothing: the new generation is not healthy".to_owned();
    for reason in reasons {
        text.push_str(&format!("\n  {reason}"));
    }
    text
}
