//! `when = "cacheOn"` or `when = ["cacheOn", "gateway = stripe"]`: the conditions a declaration
//! is on under, each checked at compile time by the condition language itself
//! (`green_tea_key::when`, the code `build()` reads them with): a condition that does not parse
//! is a compile error at its literal, in `build()`'s words.

use syn::{Expr, LitStr};

use crate::args::{self, NameKind};
use crate::errors::Errors;

/// Conditions in `when = [...]`.
const CONDITIONS: NameKind = NameKind {
    noun: "condition",
    example: "\"cacheOn\"",
    second: "\"gateway = stripe\"",
    empty: "a condition cannot be empty: write `cacheOn`, `!cacheOn`, `gateway = stripe` or \
            `gateway = stripe | paypal`",
};

/// How to write `when`, for an argument written without a value.
pub(crate) const USAGE: &str = "write `when = \"cacheOn\"` (or `\"!cacheOn\"`, \
     `\"gateway = stripe\"`, `\"gateway = stripe | paypal\"`), or a list of conditions that must \
     all hold, `when = [\"cacheOn\", \"gateway = stripe\"]`";

/// The conditions `value` lists (one string literal, or a list of them), every one a condition
/// `green_tea_key::when` reads; each problem is recorded in `errors`, and only the conditions
/// that parse are returned.
pub(crate) fn conditions(value: &Expr, errors: &mut Errors) -> Vec<LitStr> {
    let Some(written) = errors.take(args::names(value, "when", &CONDITIONS)) else {
        return Vec::new();
    };
    written
        .into_iter()
        .filter(|condition| match green_tea_key::when(&condition.value()) {
            Ok(_) => true,
            Err(error) => {
                errors.spanned(condition, error);
                false
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(value: Expr) -> Result<Vec<String>, Vec<String>> {
        let mut errors = Errors::default();
        let found = conditions(&value, &mut errors);
        match errors.finish() {
            Ok(()) => Ok(found.iter().map(LitStr::value).collect()),
            Err(error) => Err(error.into_iter().map(|e| e.to_string()).collect()),
        }
    }

    #[test]
    fn one_condition_or_a_list() {
        assert_eq!(
            read(syn::parse_quote!("cacheOn")),
            Ok(vec!["cacheOn".into()])
        );
        assert_eq!(
            read(syn::parse_quote!([
                "!cacheOn",
                "gateway = stripe | paypal",
                "payments::gateway=fake"
            ])),
            Ok(vec![
                "!cacheOn".into(),
                "gateway = stripe | paypal".into(),
                "payments::gateway=fake".into()
            ])
        );
        assert_eq!(read(syn::parse_quote!([])), Ok(vec![]));
    }

    #[test]
    fn a_condition_that_does_not_parse_says_why_in_build_s_words() {
        let found = read(syn::parse_quote!(["gateway =", "cacheOn", "cache?"])).unwrap_err();
        assert_eq!(
            found,
            [
                green_tea_key::when("gateway =").unwrap_err().to_string(),
                green_tea_key::when("cache?").unwrap_err().to_string(),
            ]
        );
        assert!(found[0].starts_with("the condition `gateway =` has an empty outcome"));
    }

    #[test]
    fn the_shape_is_checked_as_names_are() {
        let found = read(syn::parse_quote!(3)).unwrap_err();
        assert_eq!(
            found,
            [
                "expected a condition as a string literal, like `when = \"cacheOn\"`, or a list \
                 of them, like `when = [\"cacheOn\", \"gateway = stripe\"]`"
            ]
        );
        let found = read(syn::parse_quote!(["", "cacheOn", "cacheOn"])).unwrap_err();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("a condition cannot be empty"));
        assert_eq!(found[1], "`cacheOn` is listed twice in `when`");
    }
}
