//! The text deserializer: one field's value, as text (a variable, a default, a TOML string) or
//! as a TOML value, turned into the field's type through serde, the type asked deciding how
//! the text reads. Numbers are parsed for the type asked (out of range is an error, not a
//! wrap), `bool` is `true`/`false`/`1`/`0`, a sequence is comma-separated text or a TOML
//! array, a map is `k=v,k=v` or a TOML table, a unit enum is its variant's name, and
//! `std::time::Duration` is read with humantime (`2s`, `1m 30s`, `500ms`; a bare number is an
//! error: which unit?).

use std::fmt;
use std::num::{IntErrorKind, ParseIntError};
use std::time::Duration;

use serde::de::value::{SeqDeserializer, StrDeserializer};
use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use toml::de::DeValue;

/// A value to deserialize: text, or a TOML value that is not a string.
#[derive(Clone, Copy)]
pub(crate) enum Raw<'a> {
    Text(&'a str),
    Toml(&'a DeValue<'a>),
}

impl<'a> Raw<'a> {
    /// A TOML value: its text if it is a string.
    pub(crate) fn of_toml(value: &'a DeValue<'a>) -> Self {
        match value {
            DeValue::String(text) => Raw::Text(text),
            other => Raw::Toml(other),
        }
    }
}

/// Why a value did not deserialize. `content_free` when the message cannot quote the value
/// (green-tea's own messages): otherwise a secret's problem says less.
#[derive(Debug)]
pub(crate) struct DeError {
    pub(crate) message: String,
    pub(crate) content_free: bool,
}

impl DeError {
    fn new(message: impl Into<String>) -> Self {
        DeError {
            message: message.into(),
            content_free: true,
        }
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError {
            message: msg.to_string(),
            content_free: false,
        }
    }

    fn invalid_type(unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        DeError::new(format!("expected {exp}, found {}", kind_of(&unexp)))
    }

    fn invalid_value(unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        DeError::new(format!("expected {exp}, found another {}", kind_of(&unexp)))
    }

    fn invalid_length(len: usize, exp: &dyn de::Expected) -> Self {
        DeError::new(format!("expected {exp}, found {len} items"))
    }
}

/// What kind of value serde found, without quoting it.
fn kind_of(unexp: &de::Unexpected<'_>) -> &'static str {
    use de::Unexpected as U;
    match unexp {
        U::Bool(_) => "a boolean",
        U::Unsigned(_) | U::Signed(_) => "an integer",
        U::Float(_) => "a number",
        U::Char(_) => "a character",
        U::Str(_) | U::Bytes(_) => "text",
        U::Unit | U::Option => "nothing",
        U::NewtypeStruct | U::NewtypeVariant | U::TupleVariant | U::StructVariant => "a value",
        U::Seq => "a list",
        U::Map => "a table",
        U::Enum | U::UnitVariant => "a variant",
        U::Other(_) => "something else",
    }
}

/// Deserializes one value.
pub(crate) struct ValueDeserializer<'a> {
    pub(crate) raw: Raw<'a>,
}

impl<'a> ValueDeserializer<'a> {
    pub(crate) fn new(raw: Raw<'a>) -> Self {
        ValueDeserializer { raw }
    }

    fn text(&self, expected: &str) -> Result<&'a str, DeError> {
        match self.raw {
            Raw::Text(text) => Ok(text),
            Raw::Toml(value) => Err(DeError::new(format!(
                "expected {expected}, found a TOML {}",
                value.type_str()
            ))),
        }
    }

    /// The integer, for a type of `name`: from text (trimmed), or a TOML integer.
    fn integer<T>(
        &self,
        name: &str,
        range: (impl fmt::Display, impl fmt::Display),
        parse: impl Fn(&str, u32) -> Result<T, ParseIntError>,
    ) -> Result<T, DeError> {
        let (digits, radix) = match self.raw {
            Raw::Text(text) => (text.trim(), 10),
            Raw::Toml(DeValue::Integer(int)) => (int.as_str(), int.radix()),
            Raw::Toml(other) => {
                return Err(DeError::new(format!(
                    "expected an integer (`{name}`), found a TOML {}",
                    other.type_str()
                )));
            }
        };
        // `-1` for an unsigned type is a number, out of its range.
        let negative = digits
            .strip_prefix('-')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        parse(digits, radix).map_err(|e| match e.kind() {
            IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => DeError::new(format!(
                "out of range for `{name}` ({} to {})",
                range.0, range.1
            )),
            IntErrorKind::InvalidDigit if negative => DeError::new(format!(
                "out of range for `{name}` ({} to {})",
                range.0, range.1
            )),
            _ => DeError::new(format!("not a whole number (`{name}`)")),
        })
    }

    fn float(&self, name: &str) -> Result<f64, DeError> {
        let text = match self.raw {
            Raw::Text(text) => text.trim(),
            Raw::Toml(DeValue::Float(f)) => f.as_str(),
            Raw::Toml(DeValue::Integer(int)) => {
                return i64::from_str_radix(int.as_str(), int.radix())
                    .map(|n| n as f64)
                    .map_err(|_| DeError::new(format!("out of range for `{name}`")));
            }
            Raw::Toml(other) => {
                return Err(DeError::new(format!(
                    "expected a number (`{name}`), found a TOML {}",
                    other.type_str()
                )));
            }
        };
        text.parse::<f64>()
            .map_err(|_| DeError::new(format!("not a number (`{name}`)")))
    }

    fn duration(&self) -> Result<Duration, DeError> {
        let text = match self.raw {
            Raw::Text(text) => text.trim(),
            Raw::Toml(DeValue::Integer(_) | DeValue::Float(_)) => {
                return Err(needs_a_unit());
            }
            Raw::Toml(other) => {
                return Err(DeError::new(format!(
                    "expected a duration (`2s`, `500ms`), found a TOML {}",
                    other.type_str()
                )));
            }
        };
        if text.parse::<f64>().is_ok() {
            return Err(needs_a_unit());
        }
        // humantime's own words ("expected number at 0") describe its parser, not the value:
        // say what a duration looks like instead.
        humantime::parse_duration(text).map_err(|_| {
            DeError::new(
                "not a duration: write a number and a unit, like `2s`, `150ms` or `1m 30s`",
            )
        })
    }
}

fn needs_a_unit() -> DeError {
    DeError::new("a duration needs a unit: write `30s` or `500ms`, not a bare number")
}

macro_rules! integers {
    ($($method:ident $visit:ident $ty:ty;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
                let n = self.integer(stringify!($ty), (<$ty>::MIN, <$ty>::MAX), <$ty>::from_str_radix)?;
                visitor.$visit(n)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for ValueDeserializer<'_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.raw {
            Raw::Text(text) => visitor.visit_str(text),
            Raw::Toml(value) => match value {
                DeValue::String(text) => visitor.visit_str(text),
                DeValue::Integer(int) => match i64::from_str_radix(int.as_str(), int.radix()) {
                    Ok(n) => visitor.visit_i64(n),
                    Err(_) => {
                        let n = u64::from_str_radix(int.as_str(), int.radix())
                            .map_err(|_| DeError::new("an integer out of range"))?;
                        visitor.visit_u64(n)
                    }
                },
                DeValue::Float(_) => visitor.visit_f64(self.float("f64")?),
                DeValue::Boolean(b) => visitor.visit_bool(*b),
                DeValue::Datetime(dt) => visitor.visit_string(dt.to_string()),
                DeValue::Array(items) => visitor.visit_seq(Items {
                    items: items.iter().map(|v| Raw::of_toml(v.get_ref())).collect(),
                    at: 0,
                }),
                DeValue::Table(table) => visitor.visit_map(Entries {
                    entries: table
                        .iter()
                        .map(|(k, v)| (k.get_ref().as_ref(), Raw::of_toml(v.get_ref())))
                        .collect(),
                    at: 0,
                }),
            },
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.raw {
            Raw::Toml(DeValue::Boolean(b)) => visitor.visit_bool(*b),
            _ => {
                let text = self.text("a boolean (`true` or `false`)")?.trim();
                let b = if text.eq_ignore_ascii_case("true") || text == "1" {
                    true
                } else if text.eq_ignore_ascii_case("false") || text == "0" {
                    false
                } else {
                    return Err(DeError::new(
                        "not a boolean: write `true` or `false` (or `1` or `0`)",
                    ));
                };
                visitor.visit_bool(b)
            }
        }
    }

    integers! {
        deserialize_i8 visit_i8 i8;
        deserialize_i16 visit_i16 i16;
        deserialize_i32 visit_i32 i32;
        deserialize_i64 visit_i64 i64;
        deserialize_i128 visit_i128 i128;
        deserialize_u8 visit_u8 u8;
        deserialize_u16 visit_u16 u16;
        deserialize_u32 visit_u32 u32;
        deserialize_u64 visit_u64 u64;
        deserialize_u128 visit_u128 u128;
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let n = self.float("f32")?;
        #[allow(clippy::cast_possible_truncation)]
        let narrow = n as f32;
        if narrow.is_infinite() && n.is_finite() {
            return Err(DeError::new(format!(
                "out of range for `f32` ({} to {})",
                f32::MIN,
                f32::MAX
            )));
        }
        visitor.visit_f32(narrow)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_f64(self.float("f64")?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let text = self.text("a character")?;
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => visitor.visit_char(c),
            _ => Err(DeError::new("expected one character")),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_str(self.text("text (a TOML string, in quotes)")?)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_bytes(self.text("text (a TOML string, in quotes)")?.as_bytes())
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_bytes(visitor)
    }

    /// A value that is present is `Some`: an absent setting never reaches a deserializer.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, DeError> {
        Err(DeError::new("a unit `()` cannot be set"))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.raw {
            Raw::Text(text) => {
                let items: Vec<Raw<'_>> = text.split(',').map(|s| Raw::Text(s.trim())).collect();
                if items.iter().any(|i| matches!(i, Raw::Text(""))) {
                    return Err(DeError::new(
                        "a list is comma-separated items, and one of them is empty",
                    ));
                }
                visitor.visit_seq(Items { items, at: 0 })
            }
            Raw::Toml(DeValue::Array(items)) => visitor.visit_seq(Items {
                items: items.iter().map(|v| Raw::of_toml(v.get_ref())).collect(),
                at: 0,
            }),
            Raw::Toml(other) => Err(DeError::new(format!(
                "expected a list (a TOML array, or comma-separated text), found a TOML {}",
                other.type_str()
            ))),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.raw {
            Raw::Text(text) => {
                let mut entries = Vec::new();
                for pair in text.split(',') {
                    let Some((k, v)) = pair.split_once('=') else {
                        return Err(DeError::new(
                            "a table as text is comma-separated `key=value` pairs",
                        ));
                    };
                    entries.push((k.trim(), Raw::Text(v.trim())));
                }
                visitor.visit_map(Entries { entries, at: 0 })
            }
            Raw::Toml(DeValue::Table(table)) => visitor.visit_map(Entries {
                entries: table
                    .iter()
                    .map(|(k, v)| (k.get_ref().as_ref(), Raw::of_toml(v.get_ref())))
                    .collect(),
                at: 0,
            }),
            Raw::Toml(other) => Err(DeError::new(format!(
                "expected a table, found a TOML {}",
                other.type_str()
            ))),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        // serde's `Duration` asks for a struct of `secs` and `nanos`; it takes them as a
        // sequence too, which is what it gets from the parsed text.
        if name == "Duration" && fields == ["secs", "nanos"] {
            let d = self.duration()?;
            let parts = [d.as_secs(), u64::from(d.subsec_nanos())];
            return visitor.visit_seq(SeqDeserializer::new(
                parts.into_iter().map(IntoDeserializer::into_deserializer),
            ));
        }
        match self.raw {
            Raw::Toml(DeValue::Table(_)) => self.deserialize_map(visitor),
            _ => Err(DeError::new(format!(
                "expected a table of {} (in the file, or `key=value,...` as text)",
                fields
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let text = self.text(&format!(
            "one of {}",
            variants
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))?;
        let de: StrDeserializer<'_, DeError> = text.trim().into_deserializer();
        visitor.visit_enum(de)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
}

/// A list's items.
struct Items<'a> {
    items: Vec<Raw<'a>>,
    at: usize,
}

impl<'de> de::SeqAccess<'de> for Items<'_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(&raw) = self.items.get(self.at) else {
            return Ok(None);
        };
        self.at += 1;
        seed.deserialize(ValueDeserializer::new(raw))
            .map(Some)
            .map_err(|e| DeError {
                message: format!("item {}: {}", self.at, e.message),
                content_free: e.content_free,
            })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len() - self.at)
    }
}

/// A table's entries.
struct Entries<'a> {
    entries: Vec<(&'a str, Raw<'a>)>,
    at: usize,
}

impl<'de> de::MapAccess<'de> for Entries<'_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some(&(key, _)) = self.entries.get(self.at) else {
            return Ok(None);
        };
        seed.deserialize(ValueDeserializer::new(Raw::Text(key)))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let (key, raw) = self.entries[self.at];
        self.at += 1;
        seed.deserialize(ValueDeserializer::new(raw))
            .map_err(|e| DeError {
                message: format!("`{key}`: {}", e.message),
                content_free: e.content_free,
            })
    }
}

/// Deserializes a `T` from `raw`.
pub(crate) fn from_raw<T: de::DeserializeOwned>(raw: Raw<'_>) -> Result<T, DeError> {
    T::deserialize(ValueDeserializer::new(raw))
}
