//! The attribute's arguments: `provides = ...` (none for a guard), `needs = ...`, `finish`
//! and `when = ...`.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{LitStr, Meta, Token};

use crate::args::{self, KEYS, Known};
use crate::errors::Errors;
use crate::key;

/// The validated arguments of `#[step(...)]`.
pub(super) struct Args {
    /// The keys provided, in order; empty for a guard.
    pub(super) provides: Vec<LitStr>,
    /// The keys needed, in order.
    pub(super) needs: Vec<LitStr>,
    /// `finish`: its values finish with the request (their types implement `Finish`).
    pub(super) finish: bool,
    /// The conditions it is on under, all of which must hold, in the order written.
    pub(super) when: Vec<LitStr>,
}

/// The arguments `#[step]` takes.
const KNOWN: Known = Known {
    names: &["provides", "needs", "finish", "when"],
    synonyms: &[
        ("finishes", "finish"),
        ("finishing", "finish"),
        ("provide", "provides"),
        ("produces", "provides"),
        ("keys", "provides"),
        ("key", "provides"),
        ("requires", "needs"),
        ("deps", "needs"),
        ("depends_on", "needs"),
        ("inject", "needs"),
        ("condition", "when"),
        ("only_when", "when"),
        ("enabled_when", "when"),
        ("switch", "when"),
    ],
};

/// Why a step takes no `after`, which would otherwise be one more unknown argument.
const AFTER: &str = "a step takes no `after`: a step runs once the values it needs are there, \
                     so to run after another step, name one of that step's values in `needs`; \
                     `after` orders a list's contributions (`#[provider]`) and a key's \
                     decorators (`#[decorator]`)";

/// Parses and validates the attribute, reporting every problem at once.
pub(super) fn parse(attr: TokenStream) -> syn::Result<Args> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    let mut errors = Errors::default();
    let mut provides = Vec::new();
    let mut needs = Vec::new();
    let mut finish = None;
    let mut when = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for meta in metas {
        if meta.path().is_ident("after") {
            errors.spanned(meta.path(), AFTER);
            continue;
        }
        let Some(name) = KNOWN.find(meta.path()) else {
            errors.spanned(meta.path(), KNOWN.unknown(meta.path()).0);
            continue;
        };
        if name == "finish" {
            match meta {
                Meta::Path(path) if finish.is_none() => finish = Some(path),
                Meta::Path(path) => errors.spanned(&path, "`finish` is given twice"),
                other => errors.spanned(
                    &other,
                    "`finish` takes no value: write `finish` alone (the step's values finish \
                     with the request, through their types' `Finish` impls)",
                ),
            }
            continue;
        }
        let Meta::NameValue(pair) = meta else {
            let usage = match name {
                "when" => crate::when::USAGE.to_owned(),
                _ => format!("write `{name} = \"key\"` or `{name} = [\"a\", \"b\"]`"),
            };
            errors.spanned(&meta, format!("expected `{name} = ...`; {usage}"));
            continue;
        };
        if seen.contains(&name) {
            errors.spanned(&pair.path, format!("`{name}` is given twice"));
            continue;
        }
        seen.push(name);
        if name == "when" {
            when = crate::when::conditions(&pair.value, &mut errors);
            continue;
        }
        let keys = errors.take(args::names(&pair.value, name, &KEYS));
        let keys = keys.unwrap_or_default();
        if name == "provides" {
            key::check_provided(&keys, green_tea_key::Declarer::Step, &mut errors);
            provides = keys;
        } else {
            key::check_needed(&keys, &mut errors);
            needs = keys;
        }
    }
    if let (Some(path), true) = (&finish, provides.is_empty()) {
        errors.spanned(
            path,
            "a guard provides nothing to finish: `finish` goes on a step with `provides`, whose \
             values' types implement `Finish`",
        );
    }
    errors.finish()?;
    Ok(Args {
        provides,
        needs,
        finish: finish.is_some(),
        when,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn messages(err: syn::Error) -> Vec<String> {
        err.into_iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn everything_is_optional() {
        let args = parse(quote!()).unwrap();
        assert!(args.provides.is_empty() && args.needs.is_empty());
        let args = parse(quote!(provides = ["a", "b"], needs = "c")).unwrap();
        assert_eq!(args.provides.len(), 2);
        assert_eq!(args.needs[0].value(), "c");
    }

    #[test]
    fn a_step_provides_its_request_values_only() {
        assert!(parse(quote!(provides = "user", needs = ["sessions?", "hooks[]"])).is_ok());
        assert!(
            parse(quote!(
                provides = "user",
                needs = ["auth::sessions", "auth::tokens?"]
            ))
            .is_ok()
        );
        let err = parse(quote!(provides = "auth::user")).err().unwrap();
        assert!(
            err.to_string().starts_with(
                "a step cannot provide `auth::user`: a declaration provides a name of its own"
            ),
            "{err}"
        );
        let err = parse(quote!(provides = ["a[]", "b{eu}", "c?"]))
            .err()
            .unwrap();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].starts_with("a step cannot provide `a[]`: a step's values"));
        assert!(messages[1].starts_with("a step cannot provide `b{eu}`"));
        assert!(messages[2].starts_with("a step cannot provide `c?`: `?` marks"));
    }

    #[test]
    fn finish_is_a_flag_of_a_step_with_values() {
        assert!(parse(quote!(provides = "tx", finish)).unwrap().finish);
        assert!(!parse(quote!(provides = "tx")).unwrap().finish);
        let messages =
            |err: syn::Error| -> Vec<String> { err.into_iter().map(|e| e.to_string()).collect() };
        let err = parse(quote!(finish)).err().unwrap();
        assert!(messages(err)[0].starts_with("a guard provides nothing to finish"));
        let err = parse(quote!(provides = "tx", finish = true)).err().unwrap();
        assert!(messages(err)[0].starts_with("`finish` takes no value"));
        let err = parse(quote!(provides = "tx", finish, finish))
            .err()
            .unwrap();
        assert!(messages(err)[0].starts_with("`finish` is given twice"));
    }

    #[test]
    fn a_step_takes_no_after() {
        let err = parse(quote!(provides = "user", after = "auth"))
            .err()
            .unwrap();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].starts_with("a step takes no `after`"));
    }

    #[test]
    fn when_takes_a_condition_or_a_list_of_them() {
        let args = parse(quote!(provides = "user", when = "cacheOn")).unwrap();
        let when: Vec<String> = args.when.iter().map(LitStr::value).collect();
        assert_eq!(when, ["cacheOn"]);
        let args = parse(quote!(when = ["!cacheOn", "gateway = stripe | paypal"])).unwrap();
        let when: Vec<String> = args.when.iter().map(LitStr::value).collect();
        assert_eq!(when, ["!cacheOn", "gateway = stripe | paypal"]);
        assert!(parse(quote!(provides = "user")).unwrap().when.is_empty());
    }

    // Spanned at the literal: see tests/ui/step/fail/when_malformed.rs.
    #[test]
    fn a_condition_that_does_not_parse_is_an_error_in_build_s_words() {
        let err = parse(quote!(provides = "user", when = ["cacheOn", "cache On"]))
            .err()
            .unwrap();
        assert_eq!(
            messages(err),
            [green_tea_key::when("cache On").unwrap_err().to_string()]
        );
        let err = parse(quote!(when("cacheOn"))).err().unwrap();
        let expected = "expected `when = ...`; write `when = \"cacheOn\"`";
        assert!(messages(err)[0].starts_with(expected));
        let err = parse(quote!(when = "cacheOn", when = "mailOn"))
            .err()
            .unwrap();
        assert_eq!(messages(err), ["`when` is given twice"]);
    }

    #[test]
    fn when_is_suggested_for_its_near_misses() {
        for written in ["condition", "only_when", "enabled_when", "switch", "wen"] {
            assert_eq!(KNOWN.suggestion(written), Some("when"), "{written}");
        }
        let err = parse(quote!(provides = "user", only_when = "cacheOn"))
            .err()
            .unwrap();
        assert_eq!(
            messages(err),
            ["unknown argument `only_when`; did you mean `when`?"]
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let err = parse(quote!(provide = "a", needs = ["x", "x"], needs = []))
            .err()
            .unwrap();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].contains("did you mean `provides`"));
        assert!(messages[1].contains("listed twice"));
        assert!(messages[2].contains("given twice"));
    }
}
