//! The attribute's arguments: `provides = ...` (none for a guard) and `needs = ...`.

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
}

/// The arguments `#[step]` takes.
const KNOWN: Known = Known {
    names: &["provides", "needs", "finish"],
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
    let mut seen: Vec<&str> = Vec::new();
    for meta in metas {
        if meta.path().is_ident("after") {
            errors.spanned(meta.path(), AFTER);
            continue;
        }
        if meta.path().is_ident("when") {
            errors.spanned(meta.path(), crate::when::NOT_SWITCHED);
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
            errors.spanned(
                &meta,
                format!(
                    "expected `{name} = ...`; write `{name} = \"key\"` or `{name} = [\"a\", \"b\"]`"
                ),
            );
            continue;
        };
        if seen.contains(&name) {
            errors.spanned(&pair.path, format!("`{name}` is given twice"));
            continue;
        }
        seen.push(name);
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

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
    fn a_step_takes_no_when() {
        let err = parse(quote!(provides = "user", when = "cacheOn"))
            .err()
            .unwrap();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages, [crate::when::NOT_SWITCHED]);
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
