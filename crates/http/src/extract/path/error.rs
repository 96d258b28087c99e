//! Why path parameters did not deserialize: the data, whose `Display` is the message.

use std::fmt;

use serde::de;

/// Why `Path<T>` refused a request's path parameters.
///
/// Two kinds. A value that is not a `T` is the client's mistake: the message goes back in a
/// 400. A `T` that the route's template cannot fill, whatever the client sends (a tuple of the
/// wrong size, a field the template does not name), is the route author's: a 500, and the
/// message goes to the log only.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PathError {
    /// A value that does not parse as the type asked for (for an enum, as one of its variants).
    #[error(
        "invalid path parameter `{name}`: {value:?} is not a valid {expected}{}",
        OneOf(.variants)
    )]
    InvalidValue {
        name: String,
        /// Percent-decoded.
        value: String,
        /// The type's short name: `u64`, `bool`, the enum's name.
        expected: &'static str,
        /// An enum's variants; empty for anything else.
        variants: &'static [&'static str],
    },
    /// A value that is not UTF-8 once percent-decoded.
    #[error("invalid path parameter `{name}`: not valid UTF-8 once percent-decoded")]
    NotUtf8 { name: String },
    /// The type's own `Deserialize` refused one value (a `NonZeroU32` given `0`, a
    /// `try_from` that failed), with its message.
    #[error("invalid path parameter `{name}`: {value:?} is not valid: {reason}")]
    Rejected {
        name: String,
        /// Percent-decoded.
        value: String,
        reason: String,
    },
    /// The type's own `Deserialize` refused the parameters as a whole. serde raises every
    /// error as this (its `custom`); [`at`](Self::at) ties it to a parameter where one is
    /// known.
    #[error("invalid path parameters: {0}")]
    Custom(String),

    /// The type takes a different number of parameters than the template has.
    #[error(
        "wrong number of path parameters: the type expects {expected}, the route's template has {actual}"
    )]
    WrongNumberOfParameters { expected: usize, actual: usize },
    /// A struct field that no parameter of the template is named after.
    #[error("the route's template has no parameter named `{field}`, which the type requires")]
    MissingField { field: &'static str },
    /// A template parameter that a struct with `deny_unknown_fields` does not know.
    #[error("the route's template has a parameter `{name}` that the type does not accept")]
    UnknownField { name: String },
    /// A parameter's name that is no key of the map asked for (a `HashMap<u32, _>`).
    #[error("the route's parameter name `{name}` is not a valid key for the map: {reason}")]
    InvalidKey { name: String, reason: String },
    /// A parameter asked to be something one value cannot be (a seq, a struct, an enum
    /// variant with data).
    #[error("path parameter `{name}` cannot be deserialized into a {ty}: a parameter is one value")]
    UnsupportedType { name: String, ty: &'static str },
}

impl PathError {
    /// Whether the route's author, not the client, has to fix this: the same request would
    /// fail on every request to this route.
    pub(crate) fn is_route_mistake(&self) -> bool {
        match self {
            PathError::InvalidValue { .. }
            | PathError::NotUtf8 { .. }
            | PathError::Rejected { .. }
            | PathError::Custom(_) => false,
            PathError::WrongNumberOfParameters { .. }
            | PathError::MissingField { .. }
            | PathError::UnknownField { .. }
            | PathError::InvalidKey { .. }
            | PathError::UnsupportedType { .. } => true,
        }
    }

    /// Ties an error serde raised while reading parameter `name` (raw value `raw`) to it.
    /// Only a [`Custom`](Self::Custom) error lacks its place; the rest are left as they are.
    pub(super) fn at(self, name: &str, raw: &str) -> Self {
        match self {
            PathError::Custom(reason) => PathError::Rejected {
                name: name.to_owned(),
                // An error path: decoding twice costs nothing that matters, and a value that
                // was not UTF-8 has already failed as `NotUtf8` if anything read it.
                value: percent_encoding::percent_decode_str(raw)
                    .decode_utf8_lossy()
                    .into_owned(),
                reason,
            },
            located => located,
        }
    }
}

impl de::Error for PathError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        PathError::Custom(message.to_string())
    }

    fn missing_field(field: &'static str) -> Self {
        PathError::MissingField { field }
    }

    fn unknown_field(field: &str, _expected: &'static [&'static str]) -> Self {
        PathError::UnknownField {
            name: field.to_owned(),
        }
    }
}

/// ` (expected one of `a`, `b`)` after an enum's name; nothing for other types.
struct OneOf<'a>(&'a [&'static str]);

impl fmt::Display for OneOf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some((first, rest)) = self.0.split_first() else {
            return Ok(());
        };
        write!(f, " (expected one of `{first}`")?;
        for variant in rest {
            write!(f, ", `{variant}`")?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(value: &str, expected: &'static str) -> PathError {
        PathError::InvalidValue {
            name: "id".to_owned(),
            value: value.to_owned(),
            expected,
            variants: &[],
        }
    }

    #[test]
    fn a_clients_mistake_reads_as_parameter_value_and_type() {
        assert_eq!(
            invalid("abc", "u64").to_string(),
            r#"invalid path parameter `id`: "abc" is not a valid u64"#
        );
        assert_eq!(
            invalid("say \"hi\"\n", "u8").to_string(),
            r#"invalid path parameter `id`: "say \"hi\"\n" is not a valid u8"#,
            "the value is quoted and escaped, so it cannot forge the rest of the message"
        );
        let status = PathError::InvalidValue {
            name: "status".to_owned(),
            value: "closed".to_owned(),
            expected: "Status",
            variants: &["open", "done"],
        };
        assert_eq!(
            status.to_string(),
            r#"invalid path parameter `status`: "closed" is not a valid Status (expected one of `open`, `done`)"#
        );
        assert_eq!(
            PathError::NotUtf8 {
                name: "file".to_owned()
            }
            .to_string(),
            "invalid path parameter `file`: not valid UTF-8 once percent-decoded"
        );
        assert_eq!(
            PathError::Rejected {
                name: "slug".to_owned(),
                value: "Tea".to_owned(),
                reason: "a slug is lowercase".to_owned(),
            }
            .to_string(),
            r#"invalid path parameter `slug`: "Tea" is not valid: a slug is lowercase"#
        );
        assert_eq!(
            PathError::Custom("`from` is after `to`".to_owned()).to_string(),
            "invalid path parameters: `from` is after `to`"
        );
    }

    #[test]
    fn a_route_mistake_names_what_to_fix() {
        let wrong = PathError::WrongNumberOfParameters {
            expected: 2,
            actual: 1,
        };
        assert_eq!(
            wrong.to_string(),
            "wrong number of path parameters: the type expects 2, the route's template has 1"
        );
        assert!(
            PathError::MissingField { field: "user" }
                .to_string()
                .contains("no parameter named `user`")
        );
        assert!(
            PathError::UnknownField {
                name: "extra".to_owned()
            }
            .to_string()
            .contains("a parameter `extra`")
        );
        let key = PathError::InvalidKey {
            name: "id".to_owned(),
            reason: "expected u32".to_owned(),
        };
        assert!(key.to_string().contains("`id`") && key.to_string().contains("expected u32"));
        let shape = PathError::UnsupportedType {
            name: "ids".to_owned(),
            ty: "sequence",
        };
        assert_eq!(
            shape.to_string(),
            "path parameter `ids` cannot be deserialized into a sequence: a parameter is one value"
        );
    }

    #[test]
    fn only_what_the_client_sent_is_the_clients_mistake() {
        let clients = [
            invalid("abc", "u64"),
            PathError::NotUtf8 {
                name: "id".to_owned(),
            },
            PathError::Rejected {
                name: "id".to_owned(),
                value: "0".to_owned(),
                reason: "zero".to_owned(),
            },
            PathError::Custom("refused".to_owned()),
        ];
        for error in clients {
            assert!(!error.is_route_mistake(), "{error:?}");
        }
        let routes = [
            PathError::WrongNumberOfParameters {
                expected: 2,
                actual: 1,
            },
            PathError::MissingField { field: "user" },
            PathError::UnknownField {
                name: "extra".to_owned(),
            },
            PathError::InvalidKey {
                name: "id".to_owned(),
                reason: "expected u32".to_owned(),
            },
            PathError::UnsupportedType {
                name: "ids".to_owned(),
                ty: "sequence",
            },
        ];
        for error in routes {
            assert!(error.is_route_mistake(), "{error:?}");
        }
    }

    #[test]
    fn at_ties_only_an_unplaced_error_to_its_parameter() {
        assert_eq!(
            PathError::Custom("zero".to_owned()).at("n", "0%20"),
            PathError::Rejected {
                name: "n".to_owned(),
                value: "0 ".to_owned(),
                reason: "zero".to_owned(),
            }
        );
        let placed = invalid("abc", "u64");
        assert_eq!(placed.clone().at("other", "x"), placed);
        let missing = PathError::MissingField { field: "user" };
        assert_eq!(missing.clone().at("id", "7"), missing);
    }

    #[test]
    fn serde_raises_field_errors_as_route_mistakes() {
        use serde::de::Error as _;
        assert_eq!(
            PathError::missing_field("user"),
            PathError::MissingField { field: "user" }
        );
        assert_eq!(
            PathError::unknown_field("extra", &["id"]),
            PathError::UnknownField {
                name: "extra".to_owned()
            }
        );
        assert_eq!(
            PathError::custom(format_args!("no {}", 1)),
            PathError::Custom("no 1".to_owned())
        );
    }
}
