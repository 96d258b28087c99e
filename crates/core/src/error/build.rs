//! What `build()` finds: every problem of a graph at once.

use std::fmt;

use crate::key::{Key, KeySpec, Location, TypeInfo};
use crate::settings::{SettingSource, UnknownSetting};

use super::{Origin, Suggestion};

/// The name of the first declaration of `chain` (the one that needs the key directly).
fn first_name(chain: &[Origin]) -> String {
    chain.first().map(|o| o.name.clone()).unwrap_or_default()
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
    /// GT0004: a contribution to a collection has another type than the collection's.
    CollectionType {
        /// The collection (`notifiers[]`, `stores{}`).
        key: Key,
        /// The contributor.
        by: Origin,
        /// What it contributes.
        found: TypeInfo,
        /// The collection's element type.
        expected: TypeInfo,
        /// The collection, at the declaration that gave it its type (its first consumer, or
        /// else its first contributor).
        collection: Origin,
    },
    /// GT0010: a key spelled in a way its place does not allow: a reserved character in a
    /// name, `?` on a provided key, a collection provided by a step.
    KeySpelling {
        /// The key as written.
        key: Key,
        /// Who wrote it.
        by: Origin,
        /// What is wrong with it.
        reason: String,
    },
    /// GT0011: an optional need is present, but what provides it needs a key that nothing
    /// provides: present, an optional need is a need like any other, and must build.
    OptionalNeedBroken {
        /// The optional need, as written (`cache?`).
        optional: Key,
        /// Who needs it.
        consumer: Origin,
        /// The key nothing provides.
        missing: Key,
        /// Who needs the missing key, then who needs that, up to the optional need's provider.
        chain: Vec<Origin>,
    },
    /// GT0012: a decorator of a key that nothing provides.
    DecoratesNothing {
        /// The key it decorates.
        key: Key,
        /// The decorator.
        decorator: Origin,
        /// The closest existing key, if one is close.
        suggestion: Option<Suggestion>,
        /// The modules whose own key of that name it may mean (`orders`, which provides
        /// `orders::payment`, for `payment` decorated at the root), sorted: a decorator wraps a
        /// key of the module it is registered in.
        modules: Vec<String>,
    },
    /// GT0012: a decorator that is not one: it provides other than exactly one key, does not
    /// take the value it decorates, or decorates a request's value.
    DecoratorShape {
        /// The decorator.
        decorator: Origin,
        /// What is wrong with it.
        reason: String,
    },
    /// GT0012: `without_decorators` names a key that no decorator decorates.
    NoDecorators {
        /// The key it names.
        key: Key,
        /// Where `without_decorators` was called.
        location: Location,
        /// The closest decorated key, if one is close.
        suggestion: Option<Key>,
    },
    /// GT0013: a declaration asks to come `after` one that is not a member of the same list (or
    /// a decorator of the same key).
    UnknownAfter {
        /// The list, or the decorated key.
        key: Key,
        /// The declaration that asks.
        by: Origin,
        /// The name it gave.
        after: String,
        /// The closest member's name, if one is close.
        suggestion: Option<String>,
    },
    /// GT0013: the `after` orders of a list's contributions (or a key's decorators) form a ring.
    OrderCycle {
        /// The list, or the decorated key.
        key: Key,
        /// Each declaration, which comes after the next; the last comes after the first.
        ring: Vec<Origin>,
    },
    /// GT0014: a need of a module's key that the module does not export (or that a module
    /// around it does not export again).
    PrivateKey {
        /// The key as the consumer wrote it (`notifications::http`).
        key: Key,
        /// The module that keeps it private.
        module: String,
        /// Who needs it.
        consumer: Origin,
        /// Who provides it: the key's own provider, under any decorators.
        provider: Origin,
        /// The decorators wrapping its value, innermost first.
        decorators: Vec<Origin>,
        /// What that module exports that the consumer can need (`billing::billing`).
        exports: Vec<Key>,
    },
    /// GT0015: a module that cannot be registered as it is: a name that is not one, a name
    /// two modules share, or an export of a key it does not have.
    ModuleShape {
        /// The module's path (`notifications`, `shop::notifications`).
        module: String,
        /// Where it was made (or where the export was written).
        location: Location,
        /// What is wrong.
        reason: String,
    },
    /// GT0023: a switch that cannot be decided as registered (its settings are not
    /// registered, it reads a secret, its value is none of its outcomes, it is registered
    /// twice), or a condition that names no switch or no outcome of one.
    Switch {
        /// What is wrong, named: ``the switch `cacheOn` `` or ``the condition `cacheOn = maybe` ``.
        subject: String,
        /// Where the switch was made, or the declaration with the condition registered.
        location: Location,
        /// What is wrong.
        reason: String,
    },
    /// GT0001 in some shapes: a declaration needs a key that is provided only under other
    /// outcomes of the switches than those it is on for.
    NeededInShape {
        /// The key needed.
        key: Key,
        /// Who needs it.
        consumer: Origin,
        /// Where the need is not met: ``when `cacheOn` = false``.
        shape: String,
        /// When the key is provided: ``when `cacheOn` = true``, or `never` (every provider
        /// of it is off in every shape the consumer is on in).
        provided: String,
    },
    /// A problem that only some outcomes of the switches make (GT0002, GT0003): the graph of
    /// those shapes has it, whatever today's settings are.
    InShape {
        /// The shapes: ``when `gateway` = stripe``.
        shape: String,
        /// The problem in them.
        problem: Box<Problem>,
    },
    /// GT0016: a required setting that no source sets (no variable, no file key, no default).
    SettingMissing {
        /// The settings type's key (`billingSettings`).
        settings: Key,
        /// The field, dotted for a nested one (`breaker.threshold`).
        field: String,
        /// The variable that would set it (`BILLING_BREAKER_THRESHOLD`).
        variable: String,
        /// The file key that would set it (`[billing.breaker] threshold`).
        file_key: String,
        /// A variable that is set, one edit from `variable` (or the same in another case), and
        /// that no field reads: most likely the one meant (`BILING_URL`).
        similar: Option<String>,
    },
    /// GT0017: a setting's value that does not read as its type: text that does not parse, a
    /// number out of range, a duration without a unit, an empty or whitespace-only value (a
    /// secret's too), a variable that is not UTF-8. With `settings` empty and `field` empty,
    /// the settings file itself: it does not exist, cannot be read, or does not parse (a
    /// duplicate key too), at its line and column.
    SettingInvalid {
        /// The settings type's key; empty for the file itself.
        settings: Key,
        /// The field, dotted for a nested one; empty for the file itself.
        field: String,
        /// Where the value came from.
        source: SettingSource,
        /// The type it should read as (`Duration`, `u32`).
        expected: &'static str,
        /// The text found, as its source wrote it; `***` for a secret.
        found: String,
        /// Why it does not read.
        reason: String,
    },
    /// GT0018: a settings type's `validate` refused its values.
    SettingRejected {
        /// The settings type's key.
        settings: Key,
        /// What `validate` said (for a nested type, after the field: `` `breaker`: ... ``).
        reason: String,
    },
    /// GT0019: a variable under a settings prefix, or a key in a settings table, that no field
    /// reads; a problem with `Sources::strict()`, else a warning.
    UnknownSetting {
        /// The variable, or the key's place in the file.
        source: SettingSource,
        /// The variable (`BILLING_URLL`), or the dotted key (`billing.urll`).
        name: String,
        /// The closest name a field reads, if one is close.
        suggestion: Option<String>,
        /// The prefix (`BILLING_`) or the table (`[billing]`).
        prefix: String,
    },
    /// GT0020: workers that cannot be told apart (two of one name in one module), or a test's
    /// `override_worker` / `without_worker` that names no worker.
    WorkerShape {
        /// The worker's name as written or registered (`orders::relay`).
        worker: String,
        /// Where the (second) worker, or the test's setting, was written.
        location: Location,
        /// What is wrong.
        reason: String,
    },
    /// GT0021: a step's finishing names a value it does not provide: an index past the keys
    /// its descriptor provides, or a value of another type than the key's.
    FinishingValue {
        /// The step.
        step: Origin,
        /// The position its finishing names, counted from 0 in the order its keys are declared.
        index: usize,
        /// The type its finishing takes the value as.
        ty: TypeInfo,
        /// What the step provides, in order.
        provides: Vec<KeySpec>,
    },
    /// GT0022: a settings type without a prefix (one only a module's name gives a prefix to)
    /// registered outside a module.
    SettingsWithoutPrefix {
        /// Its key (`paymentSettings`).
        settings: Key,
        /// Where it was declared.
        location: Location,
    },
    /// GT0022: two fields of one settings type that read one variable (`breaker_threshold`
    /// beside the nested `breaker.threshold`).
    SettingsFieldsClash {
        /// The settings type's key.
        settings: Key,
        /// Where it was declared.
        location: Location,
        /// The variable both read (`BILLING_BREAKER_THRESHOLD`).
        variable: String,
        /// The two fields, dotted, in the order they are declared (a nested one by its first
        /// field).
        fields: [String; 2],
    },
    /// GT0022: the builder's `.settings(..)` called twice: the second call would replace the
    /// first's sources.
    SourcesTwice {
        /// Where the first call is.
        first: Location,
        /// Where the second call is.
        second: Location,
        /// The settings types registered, whose values a test gives with an override instead.
        settings: Vec<Key>,
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
            Problem::MissingKey { .. } | Problem::NeededInShape { .. } => "GT0001",
            Problem::Cycle { .. } => "GT0002",
            Problem::DuplicateProvider { .. } => "GT0003",
            Problem::TypeMismatch { .. }
            | Problem::OverrideTypeMismatch { .. }
            | Problem::CollectionType { .. } => "GT0004",
            Problem::OverrideReplacesNothing { .. } => "GT0005",
            Problem::ScopeViolation { .. } => "GT0006",
            Problem::UnknownStep { .. } => "GT0007",
            Problem::RouteConflict { .. } => "GT0008",
            Problem::HealthKey { .. } => "GT0009",
            Problem::KeySpelling { .. } => "GT0010",
            Problem::OptionalNeedBroken { .. } => "GT0011",
            Problem::DecoratesNothing { .. }
            | Problem::DecoratorShape { .. }
            | Problem::NoDecorators { .. } => "GT0012",
            Problem::UnknownAfter { .. } | Problem::OrderCycle { .. } => "GT0013",
            Problem::PrivateKey { .. } => "GT0014",
            Problem::ModuleShape { .. } => "GT0015",
            Problem::SettingMissing { .. } => "GT0016",
            Problem::SettingInvalid { .. } => "GT0017",
            Problem::SettingRejected { .. } => "GT0018",
            Problem::UnknownSetting { .. } => "GT0019",
            Problem::WorkerShape { .. } => "GT0020",
            Problem::FinishingValue { .. } => "GT0021",
            Problem::SettingsWithoutPrefix { .. }
            | Problem::SettingsFieldsClash { .. }
            | Problem::SourcesTwice { .. } => "GT0022",
            Problem::Switch { .. } => "GT0023",
            Problem::InShape { problem, .. } => problem.code(),
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
            Problem::FinishingValue { step, index, .. } => (step.name.clone(), index.to_string()),
            Problem::RouteConflict { route, .. } => (route.name.clone(), String::new()),
            Problem::HealthKey { key, setting, .. } => (key.to_string(), setting.clone()),
            Problem::CollectionType { key, by, .. } | Problem::KeySpelling { key, by, .. } => {
                (key.to_string(), by.name.clone())
            }
            Problem::OptionalNeedBroken {
                optional, consumer, ..
            } => (optional.to_string(), consumer.name.clone()),
            Problem::DecoratesNothing { key, decorator, .. } => {
                (key.to_string(), decorator.name.clone())
            }
            Problem::DecoratorShape { decorator, .. } => (decorator.name.clone(), String::new()),
            Problem::NoDecorators { key, .. } => (key.to_string(), String::new()),
            Problem::UnknownAfter { key, by, .. } => (key.to_string(), by.name.clone()),
            Problem::PrivateKey { key, consumer, .. } => (key.to_string(), consumer.name.clone()),
            Problem::ModuleShape { module, reason, .. } => (module.clone(), reason.clone()),
            Problem::WorkerShape { worker, reason, .. } => (worker.clone(), reason.clone()),
            Problem::SettingMissing {
                settings, field, ..
            }
            | Problem::SettingInvalid {
                settings, field, ..
            } => (settings.to_string(), field.clone()),
            Problem::SettingRejected { settings, reason } => (settings.to_string(), reason.clone()),
            Problem::UnknownSetting { name, source, .. } => (name.clone(), source.to_string()),
            Problem::SettingsWithoutPrefix { settings, .. } => {
                (settings.to_string(), String::new())
            }
            Problem::SettingsFieldsClash {
                settings, variable, ..
            } => (settings.to_string(), variable.clone()),
            Problem::SourcesTwice { second, .. } => (String::new(), second.to_string()),
            Problem::Switch {
                subject, reason, ..
            } => (subject.clone(), reason.clone()),
            Problem::NeededInShape { key, consumer, .. } => {
                (key.to_string(), consumer.name.clone())
            }
            Problem::InShape { problem, .. } => {
                let (_, key, who) = problem.sort_key();
                (key, who)
            }
            Problem::OrderCycle { key, ring } => (
                key.to_string(),
                ring.first().map(|o| o.name.clone()).unwrap_or_default(),
            ),
        };
        (self.code(), key, who)
    }
}

impl Problem {
    /// GT0019 of an unknown setting (with `Sources::strict()`).
    pub(crate) fn from_unknown(unknown: UnknownSetting) -> Self {
        let UnknownSetting {
            source,
            name,
            suggestion,
            prefix,
        } = unknown;
        Problem::UnknownSetting {
            source,
            name,
            suggestion,
            prefix,
        }
    }
}

/// A macro declaration of a missing key that was never registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unregistered {
    /// The declaration.
    pub declared: Origin,
    /// How to register it, such as `.step(auth::step())`.
    pub register: String,
    /// The conditions it is on under (`cacheOn`), all of which must hold: registered, it
    /// provides the key only in the shapes where they do.
    pub when: Vec<String>,
}
