//! The serde `Deserializer` of a route's path parameters: one parameter into a value, several
//! into a tuple or a sequence by position (template order), or into a struct or a map by name.

use std::slice;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::error::PathError;
use super::param::ParamDeserializer;

/// `T` from the parameters `(name, raw value)` the router matched, in template order.
pub(super) fn from_params<T: DeserializeOwned>(
    params: &[(String, String)],
) -> Result<T, PathError> {
    T::deserialize(PathDeserializer { params }).map_err(|error| match params {
        // With one parameter, whatever the type refused is about that parameter (a `try_from`
        // newtype refuses after its inner value was read, outside the parameter's reader).
        [(name, raw)] => error.at(name, raw),
        _ => error,
    })
}

/// All the parameters of a route.
struct PathDeserializer<'de> {
    params: &'de [(String, String)],
}

impl<'de> PathDeserializer<'de> {
    /// The parameter a one-value type reads: there must be exactly one.
    fn single(&self) -> Result<ParamDeserializer<'de>, PathError> {
        match self.params {
            [(name, raw)] => Ok(ParamDeserializer::new(name, raw)),
            _ => Err(self.wrong_number(1)),
        }
    }

    fn wrong_number(&self, expected: usize) -> PathError {
        PathError::WrongNumberOfParameters {
            expected,
            actual: self.params.len(),
        }
    }

    fn params(&self) -> Params<'de> {
        Params {
            rest: self.params.iter(),
            current: None,
        }
    }
}

/// One value from the route's only parameter.
macro_rules! from_the_single_param {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
            self.single()?.$method(visitor)
        }
    )*};
}

impl<'de> Deserializer<'de> for PathDeserializer<'de> {
    type Error = PathError;

    from_the_single_param! {
        deserialize_bool deserialize_char deserialize_str deserialize_string
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_bytes deserialize_byte_buf
        deserialize_identifier
    }

    /// A self-describing type (`serde_json::Value`) gets the value of a lone parameter, as
    /// any other type does, and a map of several.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        match self.params.len() {
            1 => self.single()?.deserialize_any(visitor),
            _ => visitor.visit_map(self.params()),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, PathError> {
        self.single()?.deserialize_enum(name, variants, visitor)
    }

    /// `Some` of what the rest would give: the template's parameters are always there.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, PathError> {
        visitor.visit_newtype_struct(self)
    }

    /// `Path<()>` reads nothing, whatever the template.
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

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_unit()
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_seq(self.params())
    }

    /// Exactly `len` parameters: a tuple that skipped one, or lacked one, would hide a
    /// route whose template and handler disagree.
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, PathError> {
        if self.params.len() != len {
            return Err(self.wrong_number(len));
        }
        visitor.visit_seq(self.params())
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, PathError> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        visitor.visit_map(self.params())
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, PathError> {
        visitor.visit_map(self.params())
    }
}

/// The parameters not read yet: elements by position, or entries by name.
struct Params<'de> {
    rest: slice::Iter<'de, (String, String)>,
    /// The entry whose key was just read, whose value comes next.
    current: Option<&'de (String, String)>,
}

impl<'de> SeqAccess<'de> for Params<'de> {
    type Error = PathError;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, PathError> {
        let Some((name, raw)) = self.rest.next() else {
            return Ok(None);
        };
        seed.deserialize(ParamDeserializer::new(name, raw))
            .map(Some)
            .map_err(|error| error.at(name, raw))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rest.len())
    }
}

impl<'de> MapAccess<'de> for Params<'de> {
    type Error = PathError;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, PathError> {
        let Some(param) = self.rest.next() else {
            return Ok(None);
        };
        self.current = Some(param);
        let name = param.0.as_str();
        seed.deserialize(BorrowedStrDeserializer::<PathError>::new(name))
            .map(Some)
            .map_err(|error| match error {
                // A struct's field names never refuse a string; a map's keys of another type do.
                PathError::Custom(reason) => PathError::InvalidKey {
                    name: name.to_owned(),
                    reason,
                },
                other => other,
            })
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, PathError> {
        let (name, raw) = self
            .current
            .take()
            .ok_or_else(|| PathError::Custom("a map value was asked for before its key".into()))?;
        seed.deserialize(ParamDeserializer::new(name, raw))
            .map_err(|error| error.at(name, raw))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rest.len())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::num::NonZeroU32;

    use serde::Deserialize;

    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, raw)| ((*name).to_owned(), (*raw).to_owned()))
            .collect()
    }

    fn read<T: DeserializeOwned>(pairs: &[(&str, &str)]) -> Result<T, PathError> {
        from_params(&params(pairs))
    }

    fn wrong_number(expected: usize, actual: usize) -> PathError {
        PathError::WrongNumberOfParameters { expected, actual }
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct UserOrder {
        user: String,
        id: u64,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Id {
        id: u64,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Pair(String, u64);

    #[derive(Debug, Deserialize, PartialEq)]
    struct OrderId(u64);

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Status {
        Open,
        Done,
    }

    #[test]
    fn one_parameter_into_a_value_of_any_shape_that_holds_one() {
        let id = [("id", "7")];
        assert_eq!(read::<u64>(&id), Ok(7));
        assert_eq!(read::<String>(&id), Ok("7".to_owned()));
        assert_eq!(read::<OrderId>(&id), Ok(OrderId(7)));
        assert_eq!(read::<Option<u64>>(&id), Ok(Some(7)));
        assert_eq!(read::<Id>(&id), Ok(Id { id: 7 }));
        assert_eq!(
            read::<HashMap<String, u64>>(&id),
            Ok(HashMap::from([("id".to_owned(), 7)]))
        );
        assert_eq!(read::<(u64,)>(&id), Ok((7,)));
        assert_eq!(read::<Vec<u64>>(&id), Ok(vec![7]));
        assert_eq!(read::<Status>(&[("status", "open")]), Ok(Status::Open));
        assert_eq!(
            read::<serde_json::Value>(&id),
            Ok(serde_json::json!("7")),
            "a lone parameter is its value"
        );
    }

    #[test]
    fn several_parameters_by_name_in_any_order() {
        let template_order = [("user", "ada%20lovelace"), ("id", "7")];
        let expected = UserOrder {
            user: "ada lovelace".to_owned(),
            id: 7,
        };
        assert_eq!(read::<UserOrder>(&template_order), Ok(expected));
        let reversed = [("id", "7"), ("user", "ada")];
        assert_eq!(
            read::<UserOrder>(&reversed).map(|o| o.user),
            Ok("ada".to_owned())
        );
        assert_eq!(
            read::<HashMap<String, String>>(&reversed),
            Ok(HashMap::from([
                ("id".to_owned(), "7".to_owned()),
                ("user".to_owned(), "ada".to_owned()),
            ]))
        );
        assert_eq!(
            read::<serde_json::Value>(&reversed),
            Ok(serde_json::json!({ "id": "7", "user": "ada" }))
        );
    }

    #[test]
    fn several_parameters_by_position_in_template_order() {
        let both = [("user", "ada"), ("id", "7")];
        assert_eq!(read::<(String, u64)>(&both), Ok(("ada".to_owned(), 7)));
        assert_eq!(read::<Pair>(&both), Ok(Pair("ada".to_owned(), 7)));
        assert_eq!(
            read::<Vec<String>>(&both),
            Ok(vec!["ada".to_owned(), "7".to_owned()])
        );
        assert_eq!(
            read::<[String; 2]>(&both).map(|[a, _]| a),
            Ok("ada".to_owned())
        );
        assert_eq!(read::<Vec<u64>>(&[]), Ok(vec![]));
        assert_eq!(read::<()>(&both), Ok(()), "`Path<()>` reads nothing");
    }

    #[test]
    fn a_value_error_names_the_parameter_from_the_template() {
        let bad_id = [("user", "ada"), ("id", "seven")];
        let invalid = Err(PathError::InvalidValue {
            name: "id".to_owned(),
            value: "seven".to_owned(),
            expected: "u64",
            variants: &[],
        });
        assert_eq!(read::<UserOrder>(&bad_id).map(|_| ()), invalid);
        assert_eq!(read::<(String, u64)>(&bad_id).map(|_| ()), invalid);
        // A map reads every parameter: the first that is no u64 is named.
        assert_eq!(
            read::<HashMap<String, u64>>(&bad_id).unwrap_err(),
            PathError::InvalidValue {
                name: "user".to_owned(),
                value: "ada".to_owned(),
                expected: "u64",
                variants: &[],
            }
        );
    }

    #[test]
    fn a_value_that_is_not_utf8_names_its_parameter() {
        let not_utf8 = PathError::NotUtf8 {
            name: "user".to_owned(),
        };
        let bad = [("user", "%FF"), ("id", "7")];
        assert_eq!(read::<UserOrder>(&bad).unwrap_err(), not_utf8);
        assert_eq!(read::<(String, u64)>(&bad).unwrap_err(), not_utf8);
        // Also when the type does not keep the parameter.
        assert_eq!(read::<Id>(&bad).unwrap_err(), not_utf8);
    }

    #[test]
    fn the_wrong_number_of_parameters_is_the_route_authors_mistake() {
        assert_eq!(read::<(u32, u32)>(&[("id", "1")]), Err(wrong_number(2, 1)));
        assert_eq!(
            read::<(u32,)>(&[("a", "1"), ("b", "2")]),
            Err(wrong_number(1, 2)),
            "a tuple does not skip parameters"
        );
        assert_eq!(
            read::<Pair>(&[("a", "x")]).map(|_| ()),
            Err(wrong_number(2, 1))
        );
        assert_eq!(
            read::<u64>(&[("a", "1"), ("b", "2")]),
            Err(wrong_number(1, 2))
        );
        assert_eq!(read::<u64>(&[]), Err(wrong_number(1, 0)));
        assert_eq!(read::<Status>(&[]).map(|_| ()), Err(wrong_number(1, 0)));
        assert_eq!(read::<serde_json::Value>(&[]), Ok(serde_json::json!({})));
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Paged {
        id: u64,
        page: Option<u32>,
    }

    #[test]
    fn a_field_the_template_does_not_name_is_the_route_authors_mistake() {
        assert_eq!(
            read::<UserOrder>(&[("id", "7")]),
            Err(PathError::MissingField { field: "user" })
        );
        assert_eq!(
            read::<Paged>(&[("id", "7")]),
            Ok(Paged { id: 7, page: None }),
            "an optional field may be missing"
        );
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        id: u64,
    }

    #[test]
    fn a_parameter_a_strict_struct_does_not_know_is_the_route_authors_mistake() {
        let extra = [("id", "7"), ("extra", "x")];
        assert_eq!(
            read::<Strict>(&extra),
            Err(PathError::UnknownField {
                name: "extra".to_owned()
            })
        );
        assert_eq!(read::<Id>(&extra), Ok(Id { id: 7 }), "others ignore it");
    }

    #[test]
    fn a_map_whose_keys_are_not_names_is_the_route_authors_mistake() {
        let error = read::<HashMap<u32, String>>(&[("id", "7")]).unwrap_err();
        assert!(
            matches!(&error, PathError::InvalidKey { name, .. } if name == "id"),
            "{error:?}"
        );
    }

    #[test]
    fn a_struct_field_cannot_be_a_collection() {
        #[derive(Debug, Deserialize)]
        struct Nested {
            #[allow(dead_code)]
            ids: Vec<u32>,
        }
        assert_eq!(
            read::<Nested>(&[("ids", "1")]).map(|_| ()),
            Err(PathError::UnsupportedType {
                name: "ids".to_owned(),
                ty: "sequence",
            })
        );
    }

    /// A newtype whose own check refuses some strings.
    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(try_from = "String")]
    struct Slug(String);

    impl TryFrom<String> for Slug {
        type Error = &'static str;
        fn try_from(value: String) -> Result<Self, &'static str> {
            if value.chars().all(|c| c.is_ascii_lowercase()) {
                Ok(Slug(value))
            } else {
                Err("a slug is lowercase letters")
            }
        }
    }

    #[test]
    fn a_value_the_type_itself_refuses_names_the_parameter_and_the_value() {
        let rejected = |name: &str, value: &str, reason: &str| PathError::Rejected {
            name: name.to_owned(),
            value: value.to_owned(),
            reason: reason.to_owned(),
        };
        assert_eq!(
            read::<Slug>(&[("slug", "Green%20Tea")]).unwrap_err(),
            rejected("slug", "Green Tea", "a slug is lowercase letters")
        );
        assert_eq!(read::<Slug>(&[("slug", "tea")]), Ok(Slug("tea".to_owned())));

        #[derive(Debug, Deserialize)]
        struct Named {
            #[allow(dead_code)]
            user: String,
            #[allow(dead_code)]
            slug: Slug,
        }
        assert_eq!(
            read::<Named>(&[("user", "ada"), ("slug", "Tea")]).unwrap_err(),
            rejected("slug", "Tea", "a slug is lowercase letters")
        );

        let error = read::<(String, NonZeroU32)>(&[("user", "ada"), ("n", "0")]).unwrap_err();
        assert!(
            matches!(&error, PathError::Rejected { name, value, reason }
                if name == "n" && value == "0" && reason.contains("nonzero")),
            "{error:?}"
        );
    }

    /// Two parameters checked together, as a whole.
    #[derive(Debug, Deserialize)]
    #[serde(try_from = "RawRange")]
    struct Range;

    #[derive(Deserialize)]
    struct RawRange {
        from: u32,
        to: u32,
    }

    impl TryFrom<RawRange> for Range {
        type Error = &'static str;
        fn try_from(raw: RawRange) -> Result<Self, &'static str> {
            if raw.from <= raw.to {
                Ok(Range)
            } else {
                Err("`from` is after `to`")
            }
        }
    }

    #[test]
    fn parameters_the_type_refuses_together_are_the_clients_mistake() {
        let error = read::<Range>(&[("from", "9"), ("to", "1")]).unwrap_err();
        assert_eq!(error, PathError::Custom("`from` is after `to`".to_owned()));
        assert!(!error.is_route_mistake());
        assert!(read::<Range>(&[("from", "1"), ("to", "9")]).is_ok());
    }
}
