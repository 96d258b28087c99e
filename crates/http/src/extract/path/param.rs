//! The serde `Deserializer` of one path parameter: a primitive, a string, a newtype, an
//! `Option` or a unit variant, parsed from the percent-decoded value.

use std::borrow::Cow;
use std::str::FromStr;

use serde::de::value::StrDeserializer;
use serde::de::{DeserializeSeed, Deserializer, EnumAccess, VariantAccess, Visitor};

use super::error::PathError;

/// One parameter: its name (for errors) and its raw value, percent-decoded only when read.
/// A value without escapes decodes to a borrow, so reading a number allocates nothing.
pub(super) struct ParamDeserializer<'de> {
    name: &'de str,
    raw: &'de str,
}

impl<'de> ParamDeserializer<'de> {
    pub(super) fn new(name: &'de str, raw: &'de str) -> Self {
        ParamDeserializer { name, raw }
    }

    fn decoded(&self) -> Result<Cow<'de, str>, PathError> {
        percent_encoding::percent_decode_str(self.raw)
            .decode_utf8()
            .map_err(|_| PathError::NotUtf8 {
                name: self.name.to_owned(),
            })
    }

    /// The value as a `T`, or an error naming the parameter, the value and `expected`.
    fn parse<T: FromStr>(&self, expected: &'static str) -> Result<T, PathError> {
        let value = self.decoded()?;
        value.parse().map_err(|_| PathError::InvalidValue {
            name: self.name.to_owned(),
            value: value.into_owned(),
            expected,
            variants: &[],
        })
    }

    fn unsupported(&self, ty: &'static str) -> PathError {
        PathError::UnsupportedType {
            name: self.name.to_owned(),
            ty,
        }
    }

    /// The decoded string: borrowed when the value had no escapes (so `&str` targets work),
    /// otherwise the decoded `String`, handed over without a copy.
    fn visit_text<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        match self.decoded()? {
            Cow::Borrowed(text) => visitor.visit_borrowed_str(text),
            Cow::Owned(text) => visitor.visit_string(text),
        }
    }
}

/// Parse the value as `$ty`, then visit it with `$visit`.
macro_rules! parse_and_visit {
    ($($method:ident => $visit:ident($ty:ident);)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
            visitor.$visit(self.parse::<$ty>(stringify!($ty))?)
        }
    )*};
}

/// A parameter is one value: these shapes are the route author's mistake.
macro_rules! unsupported {
    ($($method:ident($($arg:ident: $arg_ty:ty),*) => $ty:literal;)*) => {$(
        fn $method<V: Visitor<'de>>(
            self,
            $($arg: $arg_ty,)*
            _visitor: V,
        ) -> Result<V::Value, PathError> {
            Err(self.unsupported($ty))
        }
    )*};
}

impl<'de> Deserializer<'de> for ParamDeserializer<'de> {
    type Error = PathError;

    parse_and_visit! {
        deserialize_bool => visit_bool(bool);
        deserialize_i8 => visit_i8(i8);
        deserialize_i16 => visit_i16(i16);
        deserialize_i32 => visit_i32(i32);
        deserialize_i64 => visit_i64(i64);
        deserialize_i128 => visit_i128(i128);
        deserialize_u8 => visit_u8(u8);
        deserialize_u16 => visit_u16(u16);
        deserialize_u32 => visit_u32(u32);
        deserialize_u64 => visit_u64(u64);
        deserialize_u128 => visit_u128(u128);
        deserialize_f32 => visit_f32(f32);
        deserialize_f64 => visit_f64(f64);
        deserialize_char => visit_char(char);
    }

    unsupported! {
        deserialize_seq() => "sequence";
        deserialize_tuple(_len: usize) => "tuple";
        deserialize_tuple_struct(_name: &'static str, _len: usize) => "tuple struct";
        deserialize_map() => "map";
        deserialize_struct(_name: &'static str, _fields: &'static [&'static str]) => "struct";
    }

    /// A self-describing type (`serde_json::Value`, an untagged enum) gets the string.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        self.visit_text(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        self.visit_text(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        self.visit_text(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        self.visit_text(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_bytes(self.decoded()?.as_bytes())
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_byte_buf(self.decoded()?.into_owned().into_bytes())
    }

    /// A parameter the template names is always there.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, PathError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, PathError> {
        visitor.visit_newtype_struct(self)
    }

    /// A unit variant, by its (serde) name. Anything else is not a valid `name`, and the
    /// message lists the variants.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, PathError> {
        let value = self.decoded()?;
        let access = UnitVariant {
            param: &self,
            value: &value,
        };
        visitor.visit_enum(access).map_err(|error| match error {
            PathError::Custom(_) => PathError::InvalidValue {
                name: self.name.to_owned(),
                value: value.into_owned(),
                expected: name,
                variants,
            },
            other => other,
        })
    }

    /// Still read, so that a value which is not UTF-8 is refused even when the type skips it.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        self.decoded()?;
        visitor.visit_unit()
    }
}

/// An enum read from one value: the value names the variant, which must be a unit one.
struct UnitVariant<'a, 'de> {
    param: &'a ParamDeserializer<'de>,
    value: &'a str,
}

impl<'de> EnumAccess<'de> for UnitVariant<'_, 'de> {
    type Error = PathError;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), PathError> {
        let variant = seed.deserialize(StrDeserializer::<PathError>::new(self.value))?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for UnitVariant<'_, 'de> {
    type Error = PathError;

    fn unit_variant(self) -> Result<(), PathError> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(
        self,
        _seed: S,
    ) -> Result<S::Value, PathError> {
        Err(self.param.unsupported("enum variant with data"))
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, PathError> {
        Err(self.param.unsupported("enum variant with data"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, PathError> {
        Err(self.param.unsupported("enum variant with data"))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::fmt;

    use serde::de::{self, IgnoredAny};
    use serde::{Deserialize, Deserializer as _};

    use super::*;

    /// `T` from parameter `name` with raw (percent-encoded) value `raw`.
    fn read<'de, T: Deserialize<'de>>(name: &'de str, raw: &'de str) -> Result<T, PathError> {
        T::deserialize(ParamDeserializer::new(name, raw))
    }

    fn invalid(name: &str, value: &str, expected: &'static str) -> PathError {
        PathError::InvalidValue {
            name: name.to_owned(),
            value: value.to_owned(),
            expected,
            variants: &[],
        }
    }

    #[test]
    fn primitives_parse_from_the_decoded_value() {
        assert_eq!(read::<bool>("b", "true"), Ok(true));
        assert_eq!(read::<i8>("n", "-5"), Ok(-5));
        assert_eq!(read::<i16>("n", "-300"), Ok(-300));
        assert_eq!(read::<i32>("n", "%2D7"), Ok(-7));
        assert_eq!(read::<i64>("n", "-9000000000"), Ok(-9_000_000_000));
        assert_eq!(read::<i128>("n", "-1"), Ok(-1));
        assert_eq!(read::<u8>("n", "255"), Ok(255));
        assert_eq!(read::<u16>("n", "65535"), Ok(65_535));
        assert_eq!(read::<u32>("n", "7"), Ok(7));
        assert_eq!(read::<u64>("id", "42"), Ok(42));
        assert_eq!(read::<u128>("n", "1"), Ok(1));
        assert_eq!(read::<f32>("x", "0.5"), Ok(0.5));
        assert_eq!(read::<f64>("x", "1.5"), Ok(1.5));
        assert_eq!(read::<char>("c", "%C3%A9"), Ok('é'));
    }

    #[test]
    fn a_value_that_does_not_parse_names_the_parameter_the_value_and_the_type() {
        assert_eq!(read::<u64>("id", "abc"), Err(invalid("id", "abc", "u64")));
        assert_eq!(read::<u64>("id", "-1"), Err(invalid("id", "-1", "u64")));
        assert_eq!(read::<u8>("n", "300"), Err(invalid("n", "300", "u8")));
        assert_eq!(read::<i8>("n", "-129"), Err(invalid("n", "-129", "i8")));
        assert_eq!(read::<i16>("n", "x"), Err(invalid("n", "x", "i16")));
        assert_eq!(read::<i32>("n", "1.5"), Err(invalid("n", "1.5", "i32")));
        assert_eq!(read::<i64>("n", ""), Err(invalid("n", "", "i64")));
        assert_eq!(read::<i128>("n", "x"), Err(invalid("n", "x", "i128")));
        assert_eq!(read::<u16>("n", "65536"), Err(invalid("n", "65536", "u16")));
        assert_eq!(read::<u32>("n", "x"), Err(invalid("n", "x", "u32")));
        assert_eq!(read::<u128>("n", "-1"), Err(invalid("n", "-1", "u128")));
        assert_eq!(read::<f32>("x", "half"), Err(invalid("x", "half", "f32")));
        assert_eq!(read::<f64>("x", "1,5"), Err(invalid("x", "1,5", "f64")));
        assert_eq!(read::<bool>("b", "yes"), Err(invalid("b", "yes", "bool")));
        assert_eq!(read::<char>("c", "ab"), Err(invalid("c", "ab", "char")));
        // The value in the error is the decoded one.
        assert_eq!(read::<u64>("id", "4%202"), Err(invalid("id", "4 2", "u64")));
    }

    #[test]
    fn strings_are_percent_decoded_and_plus_is_literal() {
        assert_eq!(
            read::<String>("f", "tea%20leaves%2Ftxt"),
            Ok("tea leaves/txt".to_owned())
        );
        assert_eq!(read::<String>("f", "a+b&c=d"), Ok("a+b&c=d".to_owned()));
    }

    #[test]
    fn a_value_without_escapes_is_borrowed_not_copied() {
        assert_eq!(read::<&str>("f", "plain"), Ok("plain"));
        // Decoding makes a new string, which a `&str` cannot borrow.
        assert!(matches!(
            read::<&str>("f", "tea%20leaves"),
            Err(PathError::Custom(_))
        ));
    }

    #[test]
    fn a_value_that_is_not_utf8_is_refused_even_when_skipped() {
        let not_utf8 = PathError::NotUtf8 {
            name: "f".to_owned(),
        };
        assert_eq!(read::<String>("f", "tea%FF").unwrap_err(), not_utf8);
        assert_eq!(read::<u64>("f", "%FF").unwrap_err(), not_utf8);
        assert_eq!(read::<IgnoredAny>("f", "%FF").unwrap_err(), not_utf8);
        assert_eq!(read::<IgnoredAny>("f", "tea").map(|_| ()), Ok(()));
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct OrderId(u64);

    #[test]
    fn newtypes_and_options_wrap_the_value() {
        assert_eq!(read::<OrderId>("id", "7"), Ok(OrderId(7)));
        assert_eq!(read::<OrderId>("id", "x"), Err(invalid("id", "x", "u64")));
        assert_eq!(read::<Option<u32>>("n", "5"), Ok(Some(5)));
        assert_eq!(read::<Option<u32>>("n", "x"), Err(invalid("n", "x", "u32")));
        assert_eq!(read::<()>("n", "anything"), Ok(()));
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Status {
        Open,
        Done,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    enum Shape {
        Dot,
        Line(u32),
    }

    #[test]
    fn a_unit_variant_by_its_name() {
        assert_eq!(read::<Status>("status", "done"), Ok(Status::Done));
        assert_eq!(read::<Status>("status", "open"), Ok(Status::Open));
        assert_eq!(
            read::<Status>("status", "Done"),
            Err(PathError::InvalidValue {
                name: "status".to_owned(),
                value: "Done".to_owned(),
                expected: "Status",
                variants: &["open", "done"],
            })
        );
        assert_eq!(
            read::<Status>("status", "%FF"),
            Err(PathError::NotUtf8 {
                name: "status".to_owned()
            })
        );
    }

    #[test]
    fn a_variant_with_data_is_the_route_authors_mistake() {
        assert_eq!(read::<Shape>("shape", "Dot"), Ok(Shape::Dot));
        assert_eq!(
            read::<Shape>("shape", "Line"),
            Err(PathError::UnsupportedType {
                name: "shape".to_owned(),
                ty: "enum variant with data",
            })
        );
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        id: u64,
    }

    #[test]
    fn one_value_cannot_be_a_collection_or_a_struct() {
        let unsupported = |ty| {
            Err(PathError::UnsupportedType {
                name: "p".to_owned(),
                ty,
            })
        };
        assert_eq!(
            read::<Vec<u32>>("p", "1").map(|_| ()),
            unsupported("sequence")
        );
        assert_eq!(
            read::<(u32, u32)>("p", "1").map(|_| ()),
            unsupported("tuple")
        );
        assert_eq!(
            read::<HashMap<String, u32>>("p", "1").map(|_| ()),
            unsupported("map")
        );
        assert_eq!(read::<Inner>("p", "1").map(|_| ()), unsupported("struct"));

        #[derive(Debug, Deserialize)]
        struct Pair(#[allow(dead_code)] u32, #[allow(dead_code)] u32);
        assert_eq!(
            read::<Pair>("p", "1").map(|_| ()),
            unsupported("tuple struct")
        );
    }

    #[test]
    fn a_self_describing_type_gets_the_string() {
        assert_eq!(
            read::<serde_json::Value>("id", "5"),
            Ok(serde_json::Value::String("5".to_owned()))
        );
    }

    /// What `deserialize_bytes` / `deserialize_byte_buf` hand over.
    #[derive(Debug, PartialEq)]
    struct Bytes(Vec<u8>);

    struct BytesVisitor;

    impl de::Visitor<'_> for BytesVisitor {
        type Value = Bytes;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("bytes")
        }
        fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Bytes, E> {
            Ok(Bytes(bytes.to_vec()))
        }
        fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Bytes, E> {
            Ok(Bytes(bytes))
        }
    }

    #[test]
    fn bytes_are_the_decoded_value() {
        let bytes = ParamDeserializer::new("b", "a%20b").deserialize_bytes(BytesVisitor);
        assert_eq!(bytes, Ok(Bytes(b"a b".to_vec())));
        let buf = ParamDeserializer::new("b", "a%20b").deserialize_byte_buf(BytesVisitor);
        assert_eq!(buf, Ok(Bytes(b"a b".to_vec())));
    }
}
