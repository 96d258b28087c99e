//! The errors of each phase: `BuildError` (validation), `ProvideError` (building values) and
//! `CloseError` (disposing them). Data first; `Display` renders it.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::key::{Key, Location, TypeInfo};

/// Any error a provider's `provide` or `dispose` may return.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What kind of declaration a graph node came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NodeKind {
    /// A provider (`#[provider]` or `.provider(p)`).
    Provider,
    /// A ready value (`.value("key", v)`).
    Value,
    /// A test override (`.override_value` / `.override_provider`).
    Override,
    /// A request-scoped step.
    Step,
    /// A route's handler, which only consumes.
    Route,
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NodeKind::Provider => "provider",
            NodeKind::Value => "value",
            NodeKind::Override => "override",
            NodeKind::Step => "step",
            NodeKind::Route => "route",
        })
    }
}

/// A declaration named in an error: what it is, its name and where it was written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Origin {
    /// Provider, value, override, step or route.
    pub kind: NodeKind,
    /// Its name (for a value, `` value `key` ``).
    pub name: String,
    /// Where it was declared.
    pub location: Location,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            // A value's name already says what it is.
            NodeKind::Value => write!(f, "{} ({})", self.name, self.location),
            NodeKind::Route => write!(f, "route {} ({})", self.name, self.location),
            // `.override_value` names its declaration like a value: "value `clock`".
            NodeKind::Override if self.name.starts_with("value `") => {
                write!(f, "override {} ({})", self.name, self.location)
            }
            kind => write!(f, "{kind} `{}` ({})", self.name, self.location),
        }
    }
}

/// A near-miss key offered as "did you mean".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The key that exists.
    pub key: Key,
    /// Where its provider was declared.
    pub location: Location,
}

/// Everything wrong with a graph, found at `build()` before anything was constructed.
///
/// It holds every [`Problem`] at once, in a deterministic order (by code, then key).
///
/// ```
/// use green_tea::Container;
/// use green_tea::error::Problem;
/// let err = Container::builder()
///     .value("billing_api", 1_u32)
///     .provider(green_tea::ProviderFn::new("billing", |_| async { Ok(2_u32) }).needs::<u32>("billingApi"))
///     .build()
///     .unwrap_err();
/// assert!(matches!(&err.problems()[0], Problem::MissingKey { key, .. } if key.as_str() == "billingApi"));
/// assert!(err.to_string().contains("did you mean `billing_api`?"));
/// ```
#[derive(Clone)]
pub struct BuildError {
    problems: Vec<Problem>,
}

impl BuildError {
    /// An error of these problems, sorted.
    pub(crate) fn from_problems(mut problems: Vec<Problem>) -> Self {
        problems.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        BuildError { problems }
    }

    /// Every problem found, sorted by code and key.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Takes the problems out.
    pub fn into_problems(self) -> Vec<Problem> {
        self.problems
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            writeln!(f, "{problem}")?;
        }
        let n = self.problems.len();
        write!(
            f,
            "the graph has {n} problem{}; nothing was built",
            if n == 1 { "" } else { "s" }
        )
    }
}

impl std::error::Error for BuildError {}

/// As `Display`: `fn main() -> Result<(), BuildError>` prints the readable report.
impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// One thing wrong with a graph. Each class has a code with a page under `docs/errors/`.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Problem {
    /// GT0001: something needs a key that nothing provides.
    MissingKey {
        /// The missing key.
        key: Key,
        /// Each declaration that needs it, sorted, each followed by who needs that, up to a
        /// root.
        needed_by: Vec<Vec<Origin>>,
        /// The closest existing key, if one is close.
        suggestion: Option<Suggestion>,
        /// A `#[provider]` or `#[step]` that provides the key but was not registered.
        unregistered: Option<Unregistered>,
    },
    /// GT0002: declarations that need each other in a ring.
    Cycle {
        /// Each declaration with the key it needs from the next one; the last needs the first.
        ring: Vec<(Origin, Key)>,
    },
    /// GT0003: two declarations provide the same key.
    DuplicateProvider {
        /// The key provided twice.
        key: Key,
        /// The first declaration (by registration order).
        first: Origin,
        /// The other one.
        second: Origin,
    },
    /// GT0004: a consumer expects a key's value as another type than its provider declares.
    TypeMismatch {
        /// The key.
        key: Key,
        /// Who needs it (or the override replacing it).
        consumer: Origin,
        /// The type the consumer expects.
        expected: TypeInfo,
        /// Who provides it.
        provider: Origin,
        /// The type it provides.
        provided: TypeInfo,
    },
    /// GT0004: an override provides a key with another type than the key's provider declares.
    OverrideTypeMismatch {
        /// The key.
        key: Key,
        /// The override.
        by: Origin,
        /// The key's type, as its provider declares it.
        declared: TypeInfo,
        /// The provider the override would replace.
        provider: Origin,
        /// The override's type.
        provided: TypeInfo,
    },
    /// GT0005: an override for a key that no provider provides.
    OverrideReplacesNothing {
        /// The key the override provides.
        key: Key,
        /// The override.
        by: Origin,
        /// The closest existing key, if one is close.
        suggestion: Option<Suggestion>,
    },
    /// GT0006: an app-scoped provider needs a request-scoped value.
    ScopeViolation {
        /// The request-scoped key.
        key: Key,
        /// The app-scoped provider that needs it.
        consumer: Origin,
        /// The request-scoped declaration (a step) that provides it.
        provider: Origin,
    },
    /// GT0008: two routes for the same method and path, or paths the router cannot tell apart.
    RouteConflict {
        /// The route that could not be added.
        route: Origin,
        /// Why, as the router puts it.
        reason: String,
    },
    /// GT0009: a health setting (`critical`, `health_check`) names a key that nothing
    /// provides, or a health check names a key whose type is another one.
    HealthKey {
        /// The key as the setting wrote it.
        key: Key,
        /// The setting, such as `` `critical("db")` ``.
        setting: String,
        /// Where the setting was written.
        location: Location,
        /// The key's type when it exists with another type than the health check's; `None`
        /// when nothing provides the key.
        found: Option<TypeInfo>,
        /// The health check's type, for a health check.
        expected: Option<TypeInfo>,
        /// The closest existing key, when nothing provides this one.
        suggestion: Option<Suggestion>,
    },
    /// GT0007: a route names a step that does not exist.
    UnknownStep {
        /// The step name as the route wrote it.
        step: String,
        /// The route.
        route: Origin,
        /// The closest existing step name.
        suggestion: Option<String>,
    },
}

impl Problem {
    /// The error code, such as `"GT0001"`; each has a page `docs/errors/<code>.md`.
    pub fn code(&self) -> &'static str {
        match self {
            Problem::MissingKey { .. } => "GT0001",
            Problem::Cycle { .. } => "GT0002",
            Problem::DuplicateProvider { .. } => "GT0003",
            Problem::TypeMismatch { .. } | Problem::OverrideTypeMismatch { .. } => "GT0004",
            Problem::OverrideReplacesNothing { .. } => "GT0005",
            Problem::ScopeViolation { .. } => "GT0006",
            Problem::UnknownStep { .. } => "GT0007",
            Problem::RouteConflict { .. } => "GT0008",
            Problem::HealthKey { .. } => "GT0009",
        }
    }

    fn sort_key(&self) -> (&'static str, String, String) {
        let (key, who) = match self {
            Problem::MissingKey { key, needed_by, .. } => (
                key.to_string(),
                needed_by.first().map(|c| first_name(c)).unwrap_or_default(),
            ),
            Problem::Cycle { ring } => (
                ring.first().map(|(_, k)| k.to_string()).unwrap_or_default(),
                ring.first()
                    .map(|(o, _)| o.name.clone())
                    .unwrap_or_default(),
            ),
            Problem::DuplicateProvider { key, second, .. } => {
                (key.to_string(), second.name.clone())
            }
            Problem::TypeMismatch { key, consumer, .. } => (key.to_string(), consumer.name.clone()),
            Problem::OverrideTypeMismatch { key, by, .. } => (key.to_string(), by.name.clone()),
            Problem::OverrideReplacesNothing { key, by, .. } => (key.to_string(), by.name.clone()),
            Problem::ScopeViolation { key, consumer, .. } => {
                (key.to_string(), consumer.name.clone())
            }
            Problem::UnknownStep { step, route, .. } => (step.clone(), route.name.clone()),
            Problem::RouteConflict { route, .. } => (route.name.clone(), String::new()),
            Problem::HealthKey { key, setting, .. } => (key.to_string(), setting.clone()),
        };
        (self.code(), key, who)
    }
}

fn first_name(chain: &[Origin]) -> String {
    chain.first().map(|o| o.name.clone()).unwrap_or_default()
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = self.code();
        match self {
            Problem::MissingKey {
                key,
                needed_by,
                suggestion,
                unregistered,
            } => {
                write!(f, "error[{code}]: no provider for `{key}`")?;
                for chain in needed_by {
                    let mut chain = chain.iter();
                    if let Some(consumer) = chain.next() {
                        write!(f, "\n  needed by {consumer}")?;
                    }
                    for origin in chain {
                        write!(f, "\n    which is needed by {origin}")?;
                    }
                }
                if let Some(unregistered) = unregistered {
                    write!(
                        f,
                        "\n  help: {} provides `{key}`, but it is not registered: register it with `{}`",
                        unregistered.declared, unregistered.register
                    )?;
                }
                write_suggestion(f, suggestion.as_ref())
            }
            Problem::Cycle { ring } => {
                let names: Vec<String> =
                    ring.iter().map(|(o, _)| format!("`{}`", o.name)).collect();
                write!(f, "error[{code}]: dependency cycle: {}", names.join(" -> "))?;
                if let Some((first, _)) = ring.first() {
                    write!(f, " -> `{}`", first.name)?;
                }
                for (origin, needs) in ring {
                    write!(f, "\n  {origin} needs `{needs}`")?;
                }
                if let Some((first, _)) = ring.first() {
                    write!(
                        f,
                        ", which is provided by `{}`: the ring is closed",
                        first.name
                    )?;
                }
                Ok(())
            }
            Problem::DuplicateProvider { key, first, second } => write!(
                f,
                "error[{code}]: `{key}` is provided twice\n  by {first}\n  and by {second}\n  \
                 help: a key has exactly one provider; in tests, replace it with `.override_value` \
                 or `.override_provider`"
            ),
            Problem::TypeMismatch {
                key,
                consumer,
                expected,
                provider,
                provided,
            } => write!(
                f,
                "error[{code}]: `{key}` has type `{provided}`, but {consumer} expects `{expected}`\n  \
                 `{key}` is provided by {provider} as `{}`\n  expected `{}`",
                provided.name(),
                expected.name(),
            ),
            Problem::OverrideTypeMismatch {
                key,
                by,
                declared,
                provider,
                provided,
            } => {
                write!(
                    f,
                    "error[{code}]: {by} provides `{key}` as `{provided}`, but `{key}` has type `{declared}`\n  \
                     `{key}` is provided by {provider}"
                )?;
                match coercion(*declared, *provided) {
                    Some(target) => write!(
                        f,
                        "\n  help: the override must be a `{target}` itself: coerce the value with \
                         `as {target}`"
                    ),
                    None => write!(
                        f,
                        "\n  help: an override provides the same type as what it replaces: give \
                         `{key}` a `{declared}`"
                    ),
                }
            }
            Problem::OverrideReplacesNothing {
                key,
                by,
                suggestion,
            } => {
                write!(
                    f,
                    "error[{code}]: {by} replaces `{key}`, but nothing provides `{key}`"
                )?;
                write_suggestion(f, suggestion.as_ref())
            }
            Problem::ScopeViolation {
                key,
                consumer,
                provider,
            } => write!(
                f,
                "error[{code}]: app-scoped {consumer} needs request-scoped `{key}`\n  \
                 `{key}` is provided by {provider}, which runs on every request\n  \
                 help: a provider is built once for the whole app, so it cannot hold a value \
                 of one request; make the consumer a step, or pass the value at call time"
            ),
            Problem::RouteConflict { route, reason } => {
                write!(
                    f,
                    "error[{code}]: {route} conflicts with another route: {reason}"
                )
            }
            Problem::HealthKey {
                key,
                setting,
                location,
                found: Some(found),
                expected,
                ..
            } => {
                write!(
                    f,
                    "error[{code}]: {setting} ({location}) checks `{key}`, which has type `{found}`"
                )?;
                if let Some(expected) = expected {
                    write!(
                        f,
                        "\n  help: a health check names the key of a value of its own type: `{key}` is not a `{expected}`"
                    )?;
                }
                Ok(())
            }
            Problem::HealthKey {
                key,
                setting,
                location,
                suggestion,
                ..
            } => {
                write!(
                    f,
                    "error[{code}]: {setting} ({location}) names `{key}`, but nothing provides `{key}`"
                )?;
                write_suggestion(f, suggestion.as_ref())
            }
            Problem::UnknownStep {
                step,
                route,
                suggestion,
            } => {
                write!(
                    f,
                    "error[{code}]: {route} runs step `{step}`, but there is no such step"
                )?;
                if let Some(s) = suggestion {
                    write!(f, "\n  help: did you mean `{s}`?")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Problem {}

/// `Arc<dyn Clock>` when `provided` (`Arc<SystemClock>`) would coerce to `declared`: the same
/// pointer around a trait object. Judged on the short names, for a hint only.
fn coercion(declared: TypeInfo, provided: TypeInfo) -> Option<String> {
    let declared_name = declared.short_name();
    let provided_name = provided.short_name();
    for pointer in ["Arc<", "Box<", "Rc<"] {
        if declared_name.starts_with(pointer)
            && declared_name[pointer.len()..].starts_with("dyn ")
            && provided_name.starts_with(pointer)
        {
            return Some(declared_name);
        }
    }
    None
}

/// A macro declaration of a missing key that was never registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unregistered {
    /// The declaration.
    pub declared: Origin,
    /// How to register it, such as `.step(auth::step())`.
    pub register: String,
}

fn write_suggestion(f: &mut fmt::Formatter<'_>, suggestion: Option<&Suggestion>) -> fmt::Result {
    match suggestion {
        Some(s) => write!(
            f,
            "\n  help: did you mean `{}`? (provided by {})",
            s.key, s.location
        ),
        None => Ok(()),
    }
}

/// Why a value could not be had from a container.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ProvideError {
    /// No provider provides the key.
    #[error("no provider for `{key}`{}", suggestion_text(.suggestion))]
    UnknownKey {
        /// The key asked for.
        key: Key,
        /// The closest existing key.
        suggestion: Option<Key>,
    },
    /// The key exists with another type.
    #[error("`{key}` has type `{provided}`, but was asked for as `{requested}`")]
    WrongType {
        /// The key asked for.
        key: Key,
        /// Its declared type.
        provided: TypeInfo,
        /// The type asked for.
        requested: TypeInfo,
    },
    /// A provider in the key's slice failed to build. Not cached: the next request retries.
    #[error("provider `{provider}` failed: {cause}{}", needed_by_text(.needed_by))]
    Failed {
        /// The provider that failed.
        provider: String,
        /// Who needed it, nearest first, ending at the provider that was asked for.
        needed_by: Vec<String>,
        /// What went wrong.
        cause: FailureCause,
    },
    /// The container was closed.
    #[error("the container is closed")]
    Closed,
}

/// As `Display`: `fn main() -> Result<(), ProvideError>` prints the readable report.
impl fmt::Debug for ProvideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl ProvideError {
    pub(crate) fn needed_by(mut self, dependent: &str) -> Self {
        if let ProvideError::Failed { needed_by, .. } = &mut self {
            needed_by.push(dependent.to_owned());
        }
        self
    }
}

fn suggestion_text(s: &Option<Key>) -> String {
    s.as_ref()
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

fn needed_by_text(chain: &[String]) -> String {
    chain.iter().map(|p| format!(", needed by `{p}`")).collect()
}

/// What went wrong in a part of the app: a provider's build or dispose, a plugin's shutdown,
/// the drain.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FailureCause {
    /// It returned an error.
    #[error("{0}")]
    Error(Arc<BoxError>),
    /// It panicked.
    #[error("panicked: {0}")]
    Panicked(String),
    /// A provider returned values that do not match its descriptor.
    #[error("returned {0}")]
    WrongOutput(String),
    /// It did not finish within its timeout; it was abandoned.
    #[error("did not finish within {0:?}")]
    TimedOut(Duration),
}

/// Everything that went wrong while closing: one entry per part that did not close cleanly.
///
/// Every other part was still closed.
#[derive(Clone, thiserror::Error)]
#[error("{} part(s) failed to close:{}", .failures.len(), list_failures(.failures))]
pub struct CloseError {
    /// The failures, in the order they happened.
    pub failures: Vec<CloseFailure>,
}

/// As `Display`: `fn main() -> Result<(), CloseError>` prints the readable report.
impl fmt::Debug for CloseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn list_failures(failures: &[CloseFailure]) -> String {
    failures.iter().map(|f| format!("\n  {f}")).collect()
}

/// One part of the app that did not close cleanly.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{part}: {cause}")]
pub struct CloseFailure {
    /// What was being closed.
    pub part: ClosePart,
    /// What went wrong.
    pub cause: FailureCause,
}

/// A part of the app that `close()` shuts down.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClosePart {
    /// A provider's `dispose`.
    Provider {
        /// The provider's name.
        name: String,
        /// The keys it provided.
        keys: Vec<Key>,
    },
    /// A plugin's `on_shutdown`.
    Plugin {
        /// The plugin's name.
        name: String,
    },
    /// Waiting for requests in flight to finish.
    Drain {
        /// How many were still running when the drain timeout passed.
        in_flight: usize,
    },
}

impl fmt::Display for ClosePart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClosePart::Provider { name, keys } => {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                write!(f, "provider `{name}` (provides {})", keys.join(", "))
            }
            ClosePart::Plugin { name } => write!(f, "plugin `{name}` on_shutdown"),
            ClosePart::Drain { in_flight } => {
                write!(f, "draining ({in_flight} request(s) still in flight)")
            }
        }
    }
}

/// What a task that did not finish says: its panic's message, or why it was cancelled.
pub fn join_message(join: tokio::task::JoinError) -> String {
    match join.try_into_panic() {
        Ok(panic) => panic_message(&*panic),
        Err(join) => join.to_string(),
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_owned()
    }
}
