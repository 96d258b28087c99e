//! Unknown settings: a variable under a registered prefix, or a key in a registered table,
//! that no field reads, with the closest name a field does read. A variable under a longer
//! registered prefix (`BILLING_EU_URL` when `BILLING_EU` is one) is that prefix's.

use std::collections::BTreeSet;

use super::field::FieldSpec;
use super::file::TableAt;
use super::reader::Snapshot;
use super::variables::flattened;
use super::{SettingSource, UnknownSetting};

/// A settings type's claim: its prefix and its fields.
pub(crate) struct Claim<'p> {
    pub(crate) prefix: &'p str,
    pub(crate) fields: Vec<FieldSpec>,
}

/// Every variable name the claims' fields read, nested ones flattened.
pub(crate) fn known_variables(claims: &[Claim<'_>]) -> BTreeSet<String> {
    claims
        .iter()
        .filter(|c| !c.prefix.is_empty())
        .flat_map(|c| flattened(c.prefix, &c.fields))
        .map(|(variable, _)| variable)
        .collect()
}

/// Every unknown variable and file key, sorted (variables first, by name; then file keys).
/// A variable the snapshot knows (a field's, or one the sources read themselves, such as the
/// one that names the file) is never unknown.
pub(crate) fn unknown(snapshot: &Snapshot<'_>, claims: &[Claim<'_>]) -> Vec<UnknownSetting> {
    let prefixes: BTreeSet<&str> = claims
        .iter()
        .map(|c| c.prefix)
        .filter(|p| !p.is_empty())
        .collect();
    let mut found = Vec::new();
    for &prefix in &prefixes {
        let known: BTreeSet<String> = claims
            .iter()
            .filter(|c| c.prefix == prefix)
            .flat_map(|c| flattened(prefix, &c.fields))
            .map(|(variable, _)| variable)
            .collect();
        let under = format!("{prefix}_");
        let longer: Vec<String> = prefixes
            .iter()
            .filter(|q| q.len() > prefix.len() && q.starts_with(&under))
            .map(|q| format!("{q}_"))
            .collect();
        for name in snapshot.env.keys() {
            if !name.starts_with(&under)
                || snapshot.known.contains(name)
                || longer.iter().any(|q| name.starts_with(q.as_str()))
            {
                continue;
            }
            found.push(UnknownSetting {
                source: SettingSource::Env(name.clone()),
                name: name.clone(),
                suggestion: green_tea_key::closest(name, known.iter(), String::as_str).cloned(),
                prefix: under.clone(),
            });
        }
        if let Some(file) = &snapshot.file {
            let table = prefix.to_lowercase();
            let fields: Vec<FieldSpec> = claims
                .iter()
                .filter(|c| c.prefix == prefix)
                .flat_map(|c| c.fields.iter().copied())
                .collect();
            if let TableAt::Found(entries) = file.table(&[table.as_str()]) {
                unknown_keys(file, &table, entries, &fields, &mut found);
            }
        }
    }
    found
}

/// The keys of the file table `table` (`billing.breaker`) that none of `fields` reads.
fn unknown_keys(
    file: &super::file::SettingsFile<'_>,
    table: &str,
    entries: &toml::de::DeTable<'_>,
    fields: &[FieldSpec],
    found: &mut Vec<UnknownSetting>,
) {
    for (key, value) in entries {
        let name = key.get_ref().as_ref();
        match fields.iter().find(|f| f.name == name) {
            Some(FieldSpec {
                nested: Some(nested),
                ..
            }) => {
                if let toml::de::DeValue::Table(inner) = value.get_ref() {
                    unknown_keys(file, &format!("{table}.{name}"), inner, &nested(), found);
                }
            }
            Some(_) => {}
            None => {
                let names: Vec<String> = fields
                    .iter()
                    .map(|f| format!("{table}.{}", f.name))
                    .collect();
                let dotted = format!("{table}.{name}");
                found.push(UnknownSetting {
                    source: file.source(&key.span()),
                    suggestion: green_tea_key::closest(&dotted, names.iter(), String::as_str)
                        .cloned(),
                    name: dotted,
                    prefix: format!("[{table}]"),
                });
            }
        }
    }
}
