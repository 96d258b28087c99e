//! The variables a settings type's fields read, nested fields flattened (`breaker.threshold`
//! -> `BILLING_BREAKER_THRESHOLD`): what the unknown-variable check knows, what a missing
//! setting's did-you-mean leaves out, and where two fields would read one variable.

use std::collections::BTreeMap;

use super::field::{FieldSpec, variable_name};

/// Each variable the fields read under `prefix`, with the dotted field that reads it, in the
/// order the fields are declared.
pub(crate) fn flattened(prefix: &str, fields: &[FieldSpec]) -> Vec<(String, String)> {
    (flat_fields(prefix, fields).into_iter())
        .map(|field| (field.variable, field.path.join(".")))
        .collect()
}

/// A field, nested ones flattened: the variable it reads, its path, and its spec, marked
/// `reload` when a field holding it is.
pub(crate) struct FlatField {
    pub(crate) variable: String,
    pub(crate) path: Vec<&'static str>,
    pub(crate) spec: FieldSpec,
}

/// Each field under `prefix`, nested fields flattened, in declaration order.
pub(crate) fn flat_fields(prefix: &str, fields: &[FieldSpec]) -> Vec<FlatField> {
    fn walk(
        prefix: &str,
        path: &mut Vec<&'static str>,
        held_by_reload: bool,
        fields: &[FieldSpec],
        out: &mut Vec<FlatField>,
    ) {
        for field in fields {
            path.push(field.name);
            let mut spec = *field;
            spec.reload |= held_by_reload;
            match spec.nested {
                Some(nested) => walk(prefix, path, spec.reload, &nested(), out),
                None => out.push(FlatField {
                    variable: variable_name(prefix, path),
                    path: path.clone(),
                    spec,
                }),
            }
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(prefix, &mut Vec::new(), false, fields, &mut out);
    out
}

/// The first variable two fields read (`breaker_threshold` beside `breaker.threshold`), with
/// both fields in declaration order; the derive never sees a nested type's fields, so only
/// the flattened names tell.
pub(crate) fn clash(flattened: &[(String, String)]) -> Option<(String, [String; 2])> {
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (variable, field) in flattened {
        if let Some(first) = seen.insert(variable, field) {
            return Some((variable.clone(), [first.to_owned(), field.clone()]));
        }
    }
    None
}

pub(crate) use green_tea_key::one_edit_away;

#[cfg(test)]
mod tests {
    use super::*;

    fn breaker() -> Vec<FieldSpec> {
        vec![FieldSpec::new("threshold", "u32")]
    }

    #[test]
    fn nested_fields_flatten_and_a_clash_names_both_in_order() {
        let fields = [
            FieldSpec::new("url", "String"),
            FieldSpec::new("breaker", "Breaker").nested(breaker),
            FieldSpec::new("breaker_threshold", "u32"),
        ];
        let flat = flattened("BILLING", &fields);
        assert_eq!(
            flat.iter().map(|(v, _)| v.as_str()).collect::<Vec<_>>(),
            [
                "BILLING_URL",
                "BILLING_BREAKER_THRESHOLD",
                "BILLING_BREAKER_THRESHOLD"
            ]
        );
        assert_eq!(
            clash(&flat),
            Some((
                "BILLING_BREAKER_THRESHOLD".to_owned(),
                [
                    "breaker.threshold".to_owned(),
                    "breaker_threshold".to_owned()
                ]
            ))
        );
        assert_eq!(clash(&flat[..2]), None);
    }

    #[test]
    fn one_edit_away_is_one_character_or_the_case() {
        for set in [
            "BILING_URL",
            "BILLING_URLS",
            "BILLNIG_URL",
            "BILLING_URI",
            "billing_url",
        ] {
            assert!(one_edit_away("BILLING_URL", set), "{set}");
        }
        for set in ["BILLING_URL", "BILL_URL", "SHOP_URL"] {
            assert!(!one_edit_away("BILLING_URL", set), "{set}");
        }
    }
}
