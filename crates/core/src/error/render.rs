//! How a build problem reads: rustc-style, with the chain that needs a key and "did you mean".
//! `Display` names the function of each variant (two for a variant whose reading depends on
//! what it holds); each writes its problem and nothing else.

use std::fmt;

use crate::key::{Key, KeySpec, Location, TypeInfo};
use crate::settings::SettingSource;

use super::build::Unregistered;
use super::{NodeKind, Origin, Problem, Suggestion};

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = self.code();
        match self {
            Problem::MissingKey {
                key,
                needed_by,
                suggestion,
                unregistered,
            } => missing_key(f, code, key, needed_by, suggestion, unregistered),
            Problem::Cycle { ring } => cycle(f, code, ring),
            Problem::DuplicateProvider { key, first, second } => {
                duplicate_provider(f, code, key, first, second)
            }
            Problem::TypeMismatch {
                key,
                consumer,
                expected,
                provider,
                provided,
            } => type_mismatch(f, code, key, consumer, expected, provider, provided),
            Problem::OverrideTypeMismatch {
                key,
                by,
                declared,
                provider,
                provided,
            } => override_type_mismatch(f, code, key, by, declared, provider, provided),
            Problem::OverrideReplacesNothing {
                key,
                by,
                suggestion,
            } => override_replaces_nothing(f, code, key, by, suggestion),
            Problem::ScopeViolation {
                key,
                consumer,
                provider,
            } => scope_violation(f, code, key, consumer, provider),
            Problem::RouteConflict { route, reason } => route_conflict(f, code, route, reason),
            Problem::HealthKey {
                key,
                setting,
                location,
                found: Some(found),
                expected,
                ..
            } => health_key_of_another_type(f, code, key, setting, location, found, expected),
            Problem::HealthKey {
                key,
                setting,
                location,
                suggestion,
                ..
            } => health_key_missing(f, code, key, setting, location, suggestion),
            Problem::CollectionType {
                key,
                by,
                found,
                expected,
                collection,
            } => collection_type(f, code, key, by, found, expected, collection),
            Problem::KeySpelling { key, by, reason } => key_spelling(f, code, key, by, reason),
            Problem::OptionalNeedBroken {
                optional,
                consumer,
                missing,
                chain,
            } => optional_need_broken(f, code, optional, consumer, missing, chain),
            Problem::DecoratesNothing {
                key,
                decorator,
                suggestion,
                modules,
            } => decorates_nothing(f, code, key, decorator, suggestion, modules),
            Problem::DecoratorShape { decorator, reason } => {
                decorator_shape(f, code, decorator, reason)
            }
            Problem::NoDecorators {
                key,
                location,
                suggestion,
            } => no_decorators(f, code, key, location, suggestion),
            Problem::UnknownAfter {
                key,
                by,
                after,
                suggestion,
            } => unknown_after(f, code, key, by, after, suggestion),
            Problem::OrderCycle { key, ring } => order_cycle(f, code, key, ring),
            Problem::PrivateKey {
                key,
                module,
                consumer,
                provider,
                decorators,
                exports,
            } => private_key(
                f, code, key, module, consumer, provider, decorators, exports,
            ),
            Problem::ModuleShape {
                module,
                location,
                reason,
            } => module_shape(f, code, module, location, reason),
            Problem::Switch {
                subject,
                location,
                reason,
            } => write!(f, "error[{code}]: {subject} ({location}) {reason}"),
            Problem::NeededInShape {
                key,
                consumer,
                shape,
                provided,
            } => needed_in_shape(f, code, key, consumer, shape, provided),
            Problem::InShape { shape, problem } => in_shape(f, code, shape, problem),
            Problem::WorkerShape {
                worker,
                location,
                reason,
            } => worker_shape(f, code, worker, location, reason),
            Problem::SettingMissing {
                settings,
                field,
                variable,
                file_key,
                similar,
            } => setting_missing(f, code, settings, field, variable, file_key, similar),
            // No field: the settings file itself did not read.
            Problem::SettingInvalid {
                field,
                source,
                reason,
                ..
            } if field.is_empty() => settings_file_invalid(f, code, source, reason),
            Problem::SettingInvalid {
                settings,
                field,
                source,
                expected,
                found,
                reason,
            } => setting_invalid(f, code, settings, field, source, expected, found, reason),
            Problem::SettingRejected { settings, reason } => {
                setting_rejected(f, code, settings, reason)
            }
            Problem::UnknownSetting {
                source,
                name,
                suggestion,
                prefix,
            } => unknown_setting(f, code, source, name, suggestion, prefix),
            Problem::FinishingValue {
                step,
                index,
                ty,
                provides,
            } => finishing_value(f, code, step, index, ty, provides),
            Problem::SettingsWithoutPrefix { settings, location } => {
                settings_without_prefix(f, code, settings, location)
            }
            Problem::SettingsFieldsClash {
                settings,
                location,
                variable,
                fields,
            } => settings_fields_clash(f, code, settings, location, variable, fields),
            Problem::SourcesTwice {
                first,
                second,
                settings,
            } => sources_twice(f, code, first, second, settings),
            Problem::UnknownStep {
                step,
                route,
                suggestion,
            } => unknown_step(f, code, step, route, suggestion),
        }
    }
}

fn missing_key(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    needed_by: &[Vec<Origin>],
    suggestion: &Option<Suggestion>,
    unregistered: &Option<Unregistered>,
) -> fmt::Result {
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
        if !unregistered.when.is_empty() {
            let when: Vec<String> = unregistered.when.iter().map(|w| format!("`{w}`")).collect();
            write!(
                f,
                " (it is on only where {} holds: the need is then checked in every shape, and \
                 met only where it is on)",
                when.join(" and ")
            )?;
        }
    }
    write_suggestion(f, suggestion.as_ref())
}

fn cycle(f: &mut fmt::Formatter<'_>, code: &str, ring: &[(Origin, Key)]) -> fmt::Result {
    let names: Vec<String> = ring.iter().map(|(o, _)| format!("`{}`", o.name)).collect();
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

fn duplicate_provider(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    first: &Origin,
    second: &Origin,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: `{key}` is provided twice\n  by {first}\n  and by {second}"
    )?;
    if first.kind == NodeKind::Override && second.kind == NodeKind::Override {
        write!(
            f,
            "\n  help: a key is replaced by one override: keep one of the two"
        )
    } else {
        write!(
            f,
            "\n  help: a key has exactly one provider; in tests, replace it with \
                 `.override_value` or `.override_provider`; to wrap it, register a \
                 decorator (`#[decorator(decorates = \"{key}\")]`)"
        )
    }
}

fn type_mismatch(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    consumer: &Origin,
    expected: &TypeInfo,
    provider: &Origin,
    provided: &TypeInfo,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: `{key}` has type `{provided}`, but {consumer} expects `{expected}`\n  \
         `{key}` is provided by {provider} as `{}`\n  expected `{}`",
        provided.name(),
        expected.name(),
    )
}

fn override_type_mismatch(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    by: &Origin,
    declared: &TypeInfo,
    provider: &Origin,
    provided: &TypeInfo,
) -> fmt::Result {
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

fn override_replaces_nothing(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    by: &Origin,
    suggestion: &Option<Suggestion>,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: {by} replaces `{key}`, but nothing provides `{key}`"
    )?;
    write_suggestion(f, suggestion.as_ref())
}

fn scope_violation(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    consumer: &Origin,
    provider: &Origin,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: app-scoped {consumer} needs request-scoped `{key}`\n  \
             `{key}` is provided by {provider}, which runs on every request\n  "
    )?;
    match consumer.kind {
        NodeKind::Worker => write!(
            f,
            "help: a worker runs for the whole app, outside any request, so it \
                 cannot have a value of one; hand it work through a provider both share \
                 (a queue, a table)"
        ),
        _ => write!(
            f,
            "help: a provider is built once for the whole app, so it cannot hold a \
                 value of one request; make the consumer a step, or pass the value at \
                 call time"
        ),
    }
}

fn route_conflict(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    route: &Origin,
    reason: &str,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: {route} conflicts with another route: {reason}"
    )
}

fn health_key_of_another_type(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    setting: &str,
    location: &Location,
    found: &TypeInfo,
    expected: &Option<TypeInfo>,
) -> fmt::Result {
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

fn health_key_missing(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    setting: &str,
    location: &Location,
    suggestion: &Option<Suggestion>,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: {setting} ({location}) names `{key}`, but nothing provides `{key}`"
    )?;
    write_suggestion(f, suggestion.as_ref())
}

fn collection_type(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    by: &Origin,
    found: &TypeInfo,
    expected: &TypeInfo,
    collection: &Origin,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: {by} contributes a `{found}` to `{key}`, which holds `{expected}`\n  \
         `{key}` is {collection}, its type given by the first to need it (or else \
         the first to contribute)\n  expected `{}`\n  found `{}`",
        expected.name(),
        found.name(),
    )
}

fn key_spelling(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    by: &Origin,
    reason: &str,
) -> fmt::Result {
    write!(f, "error[{code}]: {by} spells a key `{key}`: {reason}")
}

fn optional_need_broken(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    optional: &Key,
    consumer: &Origin,
    missing: &Key,
    chain: &[Origin],
) -> fmt::Result {
    let name = optional.name();
    write!(
        f,
        "error[{code}]: {consumer} needs `{optional}`, which is present but cannot \
             be built: nothing provides `{missing}`"
    )?;
    let mut chain = chain.iter();
    if let Some(first) = chain.next() {
        write!(f, "\n  `{missing}` is needed by {first}")?;
    }
    for origin in chain {
        write!(f, "\n    which is needed by {origin}")?;
    }
    write!(
        f,
        "\n  help: an optional need is `None` only when nothing provides `{name}`; \
             when something does, it must build: provide `{missing}`, or do not register \
             what provides `{name}`"
    )
}

fn decorates_nothing(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    decorator: &Origin,
    suggestion: &Option<Suggestion>,
    modules: &[String],
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: {decorator} decorates `{key}`, but nothing provides `{key}`"
    )?;
    let (_, name) = green_tea_key::split_last(key.as_str());
    for module in modules {
        write!(
            f,
            "\n  help: the module `{module}` provides `{name}` (`{module}::{name}`), \
                 and a decorator wraps a key of the module it is registered in: {}",
            green_tea_key::register_decorator_in(module, name)
        )?;
    }
    write_suggestion(f, suggestion.as_ref())
}

fn decorator_shape(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    decorator: &Origin,
    reason: &str,
) -> fmt::Result {
    write!(f, "error[{code}]: {decorator} {reason}")
}

fn no_decorators(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    location: &Location,
    suggestion: &Option<Key>,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: `without_decorators(\"{key}\")` ({location}) names `{key}`, \
             but no decorator decorates `{key}`"
    )?;
    if let Some(s) = suggestion {
        write!(f, "\n  help: did you mean `{s}`?")?;
    }
    Ok(())
}

fn unknown_after(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    by: &Origin,
    after: &str,
    suggestion: &Option<String>,
) -> fmt::Result {
    let members = match key.spelling() {
        Ok(crate::key::Spelling::List(_)) => format!("contributes to `{key}`"),
        _ => format!("decorates `{key}`"),
    };
    write!(
        f,
        "error[{code}]: {by} comes after `{after}`, but nothing named `{after}` {members}"
    )?;
    if let Some(s) = suggestion {
        write!(f, "\n  help: did you mean `{s}`?")?;
    }
    Ok(())
}

fn order_cycle(f: &mut fmt::Formatter<'_>, code: &str, key: &Key, ring: &[Origin]) -> fmt::Result {
    let names: Vec<String> = ring.iter().map(|o| format!("`{}`", o.name)).collect();
    write!(
        f,
        "error[{code}]: the order of `{key}` is a ring: {}",
        names.join(" after ")
    )?;
    if let Some(first) = ring.first() {
        write!(f, " after `{}`", first.name)?;
    }
    for origin in ring {
        write!(f, "\n  {origin}")?;
    }
    write!(
        f,
        "\n  help: drop one `after`: the others, and registration order, still decide"
    )
}

#[allow(clippy::too_many_arguments)] // the variant's fields, one parameter each
fn private_key(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    module: &str,
    consumer: &Origin,
    provider: &Origin,
    decorators: &[Origin],
    exports: &[Key],
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: {consumer} needs `{key}`, which is private to the module \
             `{module}`\n  `{key}` is provided by {provider}"
    )?;
    for (i, decorator) in decorators.iter().enumerate() {
        let by = if i == 0 { "wrapped by" } else { "then by" };
        write!(f, ", {by} {decorator}")?;
    }
    write!(f, "\n  help: ")?;
    if !exports.is_empty() {
        let exports: Vec<String> = exports.iter().map(|k| format!("`{k}`")).collect();
        write!(
            f,
            "need what `{module}` exports ({}), or ",
            exports.join(", ")
        )?;
    }
    write!(f, "export it from `{module}` (`.export(...)`)")
}

fn needed_in_shape(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    key: &Key,
    consumer: &Origin,
    shape: &str,
    provided: &str,
) -> fmt::Result {
    let provided = match provided {
        "never" => "which nothing on there provides".to_owned(),
        when => format!("which is provided only {when}"),
    };
    write!(
        f,
        "error[{code}]: {shape}, {consumer} needs `{key}`, {provided}\n  \
         help: provide `{key}` in those shapes too, register `{}` under the same condition, \
         or make the need optional (`{key}?`)",
        consumer.name,
    )
}

/// `problem`, said of the shapes `shape` only.
fn in_shape(f: &mut fmt::Formatter<'_>, code: &str, shape: &str, problem: &Problem) -> fmt::Result {
    if let Problem::DuplicateProvider { key, first, second } = problem {
        return write!(
            f,
            "error[{code}]: {shape}, `{key}` is provided twice\n  by {first}\n  and by \
             {second}\n  help: two providers of one key are alternatives when no shape has \
             both on: register them under outcomes of one switch that exclude each other"
        );
    }
    if let Problem::UnknownStep { step, route, .. } = problem {
        return write!(
            f,
            "error[{code}]: {shape}, {route} runs step `{step}`, which is off there\n  help: \
             put the route under the step's condition too, or register a step of that name \
             for the shapes it leaves out"
        );
    }
    let text = problem.to_string();
    let prefix = format!("error[{code}]: ");
    let rest = text.strip_prefix(&prefix).unwrap_or(&text);
    write!(f, "{prefix}{shape}: {rest}")
}

fn module_shape(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    module: &str,
    location: &Location,
    reason: &str,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: the module `{module}` ({location}) {reason}"
    )
}

fn worker_shape(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    worker: &str,
    location: &Location,
    reason: &str,
) -> fmt::Result {
    write!(f, "error[{code}]: worker `{worker}` ({location}): {reason}")
}

fn setting_missing(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    settings: &Key,
    field: &str,
    variable: &str,
    file_key: &str,
    similar: &Option<String>,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: the setting `{field}` of `{settings}` is not set\n  \
             set the variable {variable}, or {file_key} in the settings file\n  "
    )?;
    match similar {
        Some(similar) => write!(
            f,
            "help: did you mean to set `{variable}`? `{similar}` is set"
        ),
        None => f.write_str("help: a field with a default, or an `Option`, may be left unset"),
    }
}

fn settings_file_invalid(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    source: &SettingSource,
    reason: &str,
) -> fmt::Result {
    match source {
        SettingSource::Env(variable) => write!(
            f,
            "error[{code}]: the variable {variable}, which names the settings file, {reason}"
        ),
        SettingSource::File {
            path,
            line: 0,
            column: _,
        } => write!(f, "error[{code}]: the settings file `{path}` {reason}"),
        source => write!(f, "error[{code}]: the settings file, at {source}, {reason}"),
    }
}

#[allow(clippy::too_many_arguments)] // the variant's fields, one parameter each
fn setting_invalid(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    settings: &Key,
    field: &str,
    source: &SettingSource,
    expected: &str,
    found: &str,
    reason: &str,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: the setting `{field}` of `{settings}` does not read as \
         `{expected}`: {reason}\n  from {source}: `{found}`"
    )
}

fn setting_rejected(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    settings: &Key,
    reason: &str,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: the settings `{settings}` were read, but their validation \
         refuses them: {reason}"
    )
}

fn unknown_setting(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    source: &SettingSource,
    name: &str,
    suggestion: &Option<String>,
    prefix: &str,
) -> fmt::Result {
    let unknown = crate::settings::UnknownSetting {
        source: source.clone(),
        name: name.to_owned(),
        suggestion: suggestion.clone(),
        prefix: prefix.to_owned(),
    };
    write!(
        f,
        "error[{code}]: {unknown}\n  note: an error because the sources are strict (`Sources::strict()`)"
    )
}

fn finishing_value(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    step: &Origin,
    index: &usize,
    ty: &TypeInfo,
    provides: &[KeySpec],
) -> fmt::Result {
    let ty = ty.short_name();
    match provides.get(*index) {
        Some(spec) => write!(
            f,
            "error[{code}]: {step} finishes its value {index} as a `{ty}`, but that value is `{}: {}`",
            spec.key,
            spec.ty.short_name()
        )?,
        None => write!(
            f,
            "error[{code}]: {step} finishes its value {index} (a `{ty}`), but it provides {}",
            provided_list(provides)
        )?,
    }
    write!(
        f,
        "\n  help: `Finishing::value::<T>(index)` names the step's provided values by \
             position, from 0, in the order its descriptor declares them"
    )
}

fn settings_without_prefix(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    settings: &Key,
    location: &Location,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: the settings `{settings}` ({location}) have no prefix, and are \
         registered outside a module, whose name would give them one\n  \
         help: give the type a prefix, like `#[settings(prefix = \"{}\")]`, or register \
         it in a module (`Module::provider`), which reads it under the module's name",
        suggested_prefix(settings.as_str())
    )
}

fn settings_fields_clash(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    settings: &Key,
    location: &Location,
    variable: &str,
    [first, second]: &[String; 2],
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: the fields `{first}` and `{second}` of `{settings}` ({location}) \
         both read the variable {variable}\n  \
         help: rename one (`#[settings(rename = \"...\")]`): a nested field's variable \
         joins its path with `_`, so the two cannot be told apart"
    )
}

fn sources_twice(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    first: &Location,
    second: &Location,
    settings: &[Key],
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: the settings sources are given twice: `.settings(..)` at \
             {first}, and again at {second}, which would replace the first\n  \
             help: give the builder one `Sources`\n  help: to give a test's values, "
    )?;
    if settings.is_empty() {
        return f.write_str(
            "override each settings type's key instead: `.override_value(key, value)` \
                 (an overridden settings type is not read)",
        );
    }
    let overrides: Vec<String> = settings
        .iter()
        .map(|key| format!("`.override_value(\"{key}\", ..)`"))
        .collect();
    write!(
        f,
        "override the settings type instead: {} (an overridden settings type is not \
             read)",
        overrides.join(", ")
    )
}

fn unknown_step(
    f: &mut fmt::Formatter<'_>,
    code: &str,
    step: &str,
    route: &Origin,
    suggestion: &Option<String>,
) -> fmt::Result {
    write!(
        f,
        "error[{code}]: {route} runs step `{step}`, but there is no such step"
    )?;
    if let Some(s) = suggestion {
        write!(f, "\n  help: did you mean `{s}`?")?;
    }
    Ok(())
}

impl std::error::Error for Problem {}

/// `nothing`, `1 value: \`tx: Tx\`` or `2 values: \`tx: Tx\` (0), \`requestId: String\` (1)`.
fn provided_list(provides: &[crate::key::KeySpec]) -> String {
    let spec = |s: &crate::key::KeySpec| format!("`{}: {}`", s.key, s.ty.short_name());
    match provides {
        [] => "nothing".to_owned(),
        [one] => format!("1 value: {}", spec(one)),
        many => {
            let listed: Vec<String> = many
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{} ({i})", spec(s)))
                .collect();
            format!("{} values: {}", many.len(), listed.join(", "))
        }
    }
}

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

/// A prefix for a settings type that has none, from its key, for the message that asks for
/// one: `PAYMENT` for `paymentSettings`, `SHOP_CART` for `shopCart`.
fn suggested_prefix(key: &str) -> String {
    let stem = key
        .strip_suffix("Settings")
        .filter(|s| !s.is_empty())
        .unwrap_or(key);
    let mut prefix = String::with_capacity(stem.len() + 2);
    for c in stem.chars() {
        if c.is_ascii_uppercase() && !prefix.is_empty() && !prefix.ends_with('_') {
            prefix.push('_');
        }
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => prefix.push(c.to_ascii_uppercase()),
            _ if !prefix.is_empty() && !prefix.ends_with('_') => prefix.push('_'),
            _ => {}
        }
    }
    let prefix = prefix.trim_end_matches('_');
    if prefix.is_empty() {
        "APP".to_owned()
    } else {
        prefix.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::suggested_prefix;

    #[test]
    fn a_prefix_is_suggested_from_the_key() {
        assert_eq!(suggested_prefix("paymentSettings"), "PAYMENT");
        assert_eq!(suggested_prefix("shopCart"), "SHOP_CART");
        assert_eq!(suggested_prefix("mail"), "MAIL");
        assert_eq!(suggested_prefix("http-client"), "HTTP_CLIENT");
        assert_eq!(suggested_prefix("Settings"), "SETTINGS");
        assert_eq!(suggested_prefix("_"), "APP");
    }
}
