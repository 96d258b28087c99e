//! Deciding the switches at `build()`, once the settings are read: each switch's outcome
//! (from its settings, or a test's `override_switch`), and each declaration's condition from
//! the `when`s it and its modules were registered under.

use std::borrow::Cow;

use super::Switch;
use super::condition::{Condition, Outcomes, SwitchId};
use crate::error::{NodeKind, Problem};
use crate::key::{Key, Location};
use crate::module::RegisteredModule;
use crate::provider::Registered;

/// A switch as registered: where, and in which module.
pub(crate) struct SwitchEntry {
    pub(crate) switch: Switch,
    /// Its module's position among the registered modules, if any.
    pub(crate) module: Option<u32>,
}

/// A switch once decided, as `explain`, health and errors show it.
#[derive(Clone, Debug)]
pub(crate) struct Decided {
    /// Its name in the graph: its module's path and its own (`payments::gateway`).
    pub(crate) name: String,
    pub(crate) outcomes: Vec<Cow<'static, str>>,
    /// Today's outcome; `None` when it could not be decided (its settings failed to read, a
    /// problem says why).
    pub(crate) outcome: Option<u32>,
    /// Where the outcome came from: the fields it reads with their sources
    /// (`SHOP_CACHE=true (env)`), or the test's override.
    pub(crate) from: String,
    /// The settings it reads, as the graph names their key.
    pub(crate) settings: Key,
    pub(crate) reads: Vec<&'static str>,
    pub(crate) location: Location,
}

/// Every switch, decided.
#[derive(Clone, Debug, Default)]
pub(crate) struct Switches {
    pub(crate) table: Vec<Decided>,
}

impl Switches {
    /// The switch named `name` as a declaration in the module at `module` means it: its own
    /// module's switch of that name, else its parent's, out to the app's; a name with `::`
    /// is a path from the app's root.
    pub(crate) fn resolve(
        &self,
        modules: &[RegisteredModule],
        module: Option<u32>,
        name: &str,
    ) -> Option<SwitchId> {
        let mut at = module.map(|m| m as usize);
        loop {
            let path = at.map(|m| &*modules[m].path);
            let wanted = green_tea_key::qualify(path, name);
            if let Some(i) = self.table.iter().position(|s| s.name == *wanted) {
                return Some(SwitchId(
                    u32::try_from(i).expect("fewer than 2^32 switches"),
                ));
            }
            match at {
                Some(m) => at = modules[m].parent,
                None => return None,
            }
        }
    }

    pub(crate) fn get(&self, id: SwitchId) -> &Decided {
        &self.table[id.0 as usize]
    }

    pub(crate) fn count(&self, id: SwitchId) -> usize {
        self.get(id).outcomes.len()
    }

    /// Whether `condition` holds in today's shape. A switch that could not be decided holds
    /// nothing (its problem fails the build anyway).
    pub(crate) fn holds(&self, condition: &Condition) -> bool {
        condition.terms().iter().all(|&(switch, outcomes)| {
            self.get(switch)
                .outcome
                .is_some_and(|o| outcomes & (1 << o) != 0)
        })
    }

    /// `condition` for a sentence: ``when `cacheOn` = false``.
    pub(crate) fn describe(&self, condition: &Condition) -> String {
        let name = |s: SwitchId| self.get(s).name.as_str();
        let outcome = |s: SwitchId, o: u32| &*self.get(s).outcomes[o as usize];
        condition.display(&name, &outcome).to_string()
    }

    /// The condition the `when`s `written` (registered in the module at `module`) make, or the
    /// problems of each that names no switch or no outcome of it; `None` when they cannot hold
    /// together.
    pub(crate) fn condition(
        &self,
        modules: &[RegisteredModule],
        module: Option<u32>,
        written: &[Cow<'static, str>],
        location: Location,
        problems: &mut Vec<Problem>,
    ) -> Option<Condition> {
        let mut condition = Condition::ALWAYS;
        for text in written {
            let when = match green_tea_key::when(text) {
                Ok(when) => when,
                Err(error) => {
                    problems.push(switch_problem(text, location, error.to_string()));
                    continue;
                }
            };
            let Some(id) = self.resolve(modules, module, when.switch) else {
                let names: Vec<&str> = self.table.iter().map(|s| s.name.as_str()).collect();
                let hint = match green_tea_key::closest(when.switch, names.iter().copied(), |n| n) {
                    Some(close) => format!("; did you mean `{close}`?"),
                    None if names.is_empty() => {
                        "; no switch is registered: register one with `.switch(Switch::new(..))`"
                            .to_owned()
                    }
                    None => format!(
                        "; the switches are {}",
                        names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                problems.push(switch_problem(
                    text,
                    location,
                    format!(
                        "names the switch `{}`, which is not registered{hint}",
                        when.switch
                    ),
                ));
                continue;
            };
            let switch = self.get(id);
            let mut outcomes: Outcomes = 0;
            for name in &when.outcomes {
                match switch.outcomes.iter().position(|o| o == name) {
                    Some(i) => outcomes |= 1 << i,
                    None => problems.push(switch_problem(
                        text,
                        location,
                        format!(
                            "names the outcome `{name}` of `{}`, whose outcomes are {}",
                            switch.name,
                            listed(&switch.outcomes)
                        ),
                    )),
                }
            }
            if outcomes == 0 {
                continue;
            }
            let term = Condition::of(id, outcomes, switch.outcomes.len())
                .expect("a named outcome is an outcome");
            condition = condition.and(&term)?;
        }
        Some(condition)
    }
}

/// A GT0023 about the condition `text`.
pub(crate) fn switch_problem(text: &str, location: Location, reason: String) -> Problem {
    Problem::Switch {
        subject: format!("the condition `{text}`"),
        location,
        reason,
    }
}

/// A registered declaration that may carry a ready value: what a switch reads its settings
/// from.
pub(crate) struct Ready<'a> {
    pub(crate) registered: &'a Registered,
    pub(crate) kind: NodeKind,
    /// Its key, as the graph names it.
    pub(crate) key: Key,
}

/// Decides every switch in `entries` from the ready values in `ready` (settings read at
/// `build()`, and the values of overrides), then applies `overrides` (a test's
/// `override_switch`). Returns the decided switches; problems go to `problems`.
pub(crate) fn decide(
    entries: &[SwitchEntry],
    modules: &[RegisteredModule],
    ready: &[Ready<'_>],
    overrides: &[(Cow<'static, str>, Location)],
    problems: &mut Vec<Problem>,
) -> Switches {
    let mut switches = Switches::default();
    for entry in entries {
        let switch = &entry.switch;
        let path = entry.module.map(|m| &*modules[m as usize].path);
        let name = green_tea_key::qualify(path, &switch.name).into_owned();
        let fail = |reason: String| Problem::Switch {
            subject: format!("the switch `{name}`"),
            location: switch.location,
            reason,
        };
        if let Err(reason) = green_tea_key::check_switch_name(&switch.name) {
            problems.push(fail(format!("is not a switch's name: it {reason}")));
        }
        if switch.outcomes.is_empty() || switch.outcomes.len() > 64 {
            problems.push(fail(format!(
                "has {} outcomes: a switch has between 1 and 64",
                switch.outcomes.len()
            )));
            continue;
        }
        for (i, outcome) in switch.outcomes.iter().enumerate() {
            if !green_tea_key::is_outcome(outcome) || switch.outcomes[..i].contains(outcome) {
                problems.push(fail(format!(
                    "has the outcome `{outcome}`, {}",
                    if green_tea_key::is_outcome(outcome) {
                        "twice"
                    } else {
                        "which is not a name (letters, digits, `_` and `-`)"
                    }
                )));
            }
        }
        if let Some(first) = switches.table.iter().find(|s| s.name == name) {
            problems.push(fail(format!(
                "is registered twice (first at {}): a condition would not know which it means",
                first.location
            )));
            continue;
        }
        let (settings, outcome, from) = read_outcome(entry, modules, ready, &fail, problems);
        switches.table.push(Decided {
            name,
            outcomes: switch.outcomes.clone(),
            outcome,
            from,
            settings,
            reads: (switch.reads.iter())
                .chain(&switch.reads_set)
                .copied()
                .collect(),
            location: switch.location,
        });
    }
    for (text, location) in overrides {
        let problem = |reason: String| switch_problem(text, *location, reason);
        let when = match green_tea_key::when(text) {
            Ok(when) => when,
            Err(error) => {
                problems.push(problem(error.to_string()));
                continue;
            }
        };
        let Some(id) = switches.resolve(modules, None, when.switch) else {
            problems.push(problem(format!(
                "overrides the switch `{}`, which is not registered",
                when.switch
            )));
            continue;
        };
        let decided = &mut switches.table[id.0 as usize];
        match &when.outcomes[..] {
            [one] => match decided.outcomes.iter().position(|o| o == one) {
                Some(i) => {
                    decided.outcome = Some(u32::try_from(i).expect("at most 64 outcomes"));
                    decided.from = format!("override_switch at {location}");
                }
                None => problems.push(problem(format!(
                    "overrides `{}` with `{one}`, which is none of its outcomes ({})",
                    decided.name,
                    listed(&decided.outcomes)
                ))),
            },
            _ => problems.push(problem(
                "names several outcomes: an override decides one".to_owned(),
            )),
        }
    }
    switches
}

/// The settings key `entry`'s switch reads (as the graph names it), its outcome and where that
/// came from.
fn read_outcome(
    entry: &SwitchEntry,
    modules: &[RegisteredModule],
    ready: &[Ready<'_>],
    fail: &dyn Fn(String) -> Problem,
    problems: &mut Vec<Problem>,
) -> (Key, Option<u32>, String) {
    let switch = &entry.switch;
    let short = green_tea_key::short_type_name(switch.settings_type_name);
    // The settings of its own module, else its parent's, out to the app's: as a need of that
    // module finds the key.
    let mut at = entry.module.map(|m| m as usize);
    let found = loop {
        let path = at.map(|m| &*modules[m].path);
        let wanted = green_tea_key::qualify(path, switch.settings);
        // An override replaces the settings: the switch reads what the test gave (the first
        // override, else the first registration).
        let found = (ready.iter())
            .filter(|r| r.key.as_str() == &*wanted)
            .min_by_key(|r| r.kind != NodeKind::Override);
        if found.is_some() {
            break found;
        }
        match at {
            Some(m) => at = modules[m].parent,
            None => break None,
        }
    };
    let Some(found) = found else {
        problems.push(fail(format!(
            "reads the settings `{}` ({short}), which are not registered: register \
             `{short}::provider()` where the switch is",
            switch.settings
        )));
        return (Key::from_static(switch.settings), None, String::new());
    };
    let key = found.key.clone();
    if let Some(hook) = found.registered.provider.settings_hook() {
        let fields = hook.fields();
        for read in &switch.reads {
            match fields.iter().find(|f| f.name == *read) {
                Some(field) if field.secret => {
                    problems.push(fail(format!(
                        "reads the secret field `{read}` of `{key}`: a switch's outcome is \
                         shown wherever the graph is (explain, health, errors) and would tell \
                         a bit of the secret; decide it from a setting that is not secret"
                    )));
                    return (key, None, String::new());
                }
                Some(_) => {}
                None => problems.push(fail(no_field(read, &key, short, &fields))),
            }
        }
        for read in &switch.reads_set {
            match fields.iter().find(|f| f.name == *read) {
                Some(field) if !field.optional => problems.push(fail(format!(
                    "reads whether the field `{read}` of `{key}` is set, and it always is (it \
                     is not an `Option`): name it with `.reads` instead"
                ))),
                Some(_) => {}
                None => problems.push(fail(no_field(read, &key, short, &fields))),
            }
        }
    }
    let Some(value) = found.registered.provider.ready_value() else {
        // Its settings did not read: their problems say why.
        return (key, None, String::new());
    };
    if value.type_id() != switch.settings_type {
        problems.push(fail(format!(
            "reads `{key}` as {short}, and its value is of another type"
        )));
        return (key, None, String::new());
    }
    let from = match found.registered.provider.settings_hook() {
        Some(hook) => {
            let rows = hook.explain().unwrap_or_default();
            let row = |read: &&str| rows.iter().find(|r| r.field == *read);
            let shown: Vec<String> = (switch.reads.iter().filter_map(row))
                .map(|row| format!("{} = {} ({})", row.field, row.value, row.source))
                .chain(switch.reads_set.iter().filter_map(row).map(
                    |row| match row.source.as_str() {
                        "unset" => format!("`{}` is unset", row.field),
                        source => format!("`{}` is set ({source})", row.field),
                    },
                ))
                .collect();
            if shown.is_empty() {
                format!("`{key}`")
            } else {
                format!("`{key}`: {}", shown.join(", "))
            }
        }
        None => format!("`{key}`, overridden"),
    };
    match (switch.decide)(value) {
        Ok(i) if i < switch.outcomes.len() => {
            let outcome = u32::try_from(i).expect("at most 64 outcomes");
            (key, Some(outcome), from)
        }
        Ok(i) => {
            problems.push(fail(format!(
                "decided the outcome number {i}, and it has {}: an `Outcome`'s `index` is a \
                 position in its `NAMES`",
                switch.outcomes.len()
            )));
            (key, None, from)
        }
        Err(found) => {
            problems.push(fail(format!(
                "read `{found}` from {from}, which is none of its outcomes ({})",
                listed(&switch.outcomes)
            )));
            (key, None, from)
        }
    }
}

/// Why `read` is not a field of the settings `key` (of type `short`, with `fields`).
fn no_field(read: &str, key: &Key, short: &str, fields: &[crate::settings::FieldSpec]) -> String {
    let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
    let hint = green_tea_key::closest(read, names.iter().copied(), |n| n)
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default();
    format!("reads the field `{read}`, which `{key}` ({short}) does not have{hint}")
}

/// Outcomes for a sentence: `` `stripe`, `paypal`, `fake` ``.
fn listed(outcomes: &[Cow<'static, str>]) -> String {
    let quoted: Vec<String> = outcomes.iter().map(|o| format!("`{o}`")).collect();
    quoted.join(", ")
}
