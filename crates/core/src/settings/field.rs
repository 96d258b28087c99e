//! `FieldSpec`: one field of a settings type as its type describes it, and the names a field
//! is read under (its variable, its file table; a module's prefix).

/// One field of a settings type, as [`Settings::fields`](super::Settings::fields) describes it.
///
/// ```
/// use green_tea::settings::FieldSpec;
/// let timeout = FieldSpec::new("timeout", "Duration").default("2s");
/// assert_eq!(timeout.default, Some("2s"));
/// assert!(!timeout.secret && !timeout.optional);
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct FieldSpec {
    /// The Rust field name (`timeout`): the variable `PREFIX_TIMEOUT`, the file key `timeout`.
    pub name: &'static str,
    /// The type, for messages: `Duration`, `u32`, `String`.
    pub type_name: &'static str,
    /// Whether its value is never shown (`Secret<T>`, or `#[settings(secret)]`).
    pub secret: bool,
    /// The default, as text (`"2s"`), read like a variable's value.
    pub default: Option<&'static str>,
    /// Whether no source may set it (`Option<T>`).
    pub optional: bool,
    /// For a nested settings struct, its fields.
    pub nested: Option<fn() -> Vec<FieldSpec>>,
    /// Whether a change of it may be applied without a restart (`#[settings(reload)]`, on
    /// the field or on its type; a nested struct's fields inherit it from the field that
    /// holds them).
    pub reload: bool,
}

impl FieldSpec {
    /// A required field `name` of type `type_name`, not secret, without a default.
    pub const fn new(name: &'static str, type_name: &'static str) -> Self {
        FieldSpec {
            name,
            type_name,
            secret: false,
            default: None,
            optional: false,
            nested: None,
            reload: false,
        }
    }

    /// Makes it secret: `***` wherever it would be shown.
    pub const fn secret(mut self) -> Self {
        self.secret = true;
        self
    }

    /// Gives it a default, as text (`"2s"`).
    pub const fn default(mut self, text: &'static str) -> Self {
        self.default = Some(text);
        self
    }

    /// Makes it optional (`Option<T>`).
    pub const fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// Marks it reloadable: a change of it may be applied without a restart.
    pub const fn reload(mut self) -> Self {
        self.reload = true;
        self
    }

    /// Makes it a nested settings struct with these fields.
    pub const fn nested(mut self, fields: fn() -> Vec<FieldSpec>) -> Self {
        self.nested = Some(fields);
        self
    }
}

/// `BILLING_BREAKER_THRESHOLD` for the prefix `BILLING` and the path `breaker.threshold`.
pub(crate) fn variable_name(prefix: &str, path: &[&str]) -> String {
    let mut name = prefix.to_owned();
    for part in path {
        if !name.is_empty() {
            name.push('_');
        }
        name.push_str(&part.to_uppercase());
    }
    name
}

/// `billing.breaker` for the prefix `BILLING` and the path `breaker` (a nested table).
pub(crate) fn table_name(prefix: &str, path: &[&str]) -> String {
    let mut name = prefix.to_lowercase();
    for part in path {
        name.push('.');
        name.push_str(part);
    }
    name
}

/// The prefix a settings type reads under in the module at `path`: the module's path in upper
/// case, each `::` and any other character a variable name does not hold as `_`
/// (`billing_eu` -> `BILLING_EU`, `shop::billing` -> `SHOP_BILLING`). One module registered
/// twice reads two sets of variables.
pub(crate) fn module_prefix(path: &str) -> String {
    let mut prefix = String::with_capacity(path.len());
    for part in green_tea_key::segments(path) {
        if !prefix.is_empty() {
            prefix.push('_');
        }
        prefix.extend(part.chars().map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => c.to_ascii_uppercase(),
            _ => '_',
        }));
    }
    prefix
}
