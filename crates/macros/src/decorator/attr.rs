//! The attribute's arguments: `decorates = "key", needs = ..., after = ..., when = ...,
//! timeout = "5s", discover = false`.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, LitStr, Meta, Token};

use crate::args::{self, KEYS, Known, NameKind};
use crate::errors::Errors;
use crate::key;

/// The validated arguments of `#[decorator(...)]`.
pub(super) struct Args {
    /// The key decorated: provided, and needed first.
    pub(super) decorates: LitStr,
    /// The keys needed after it, in order.
    pub(super) needs: Vec<LitStr>,
    /// The decorators of the same key whose values it wraps, by name.
    pub(super) after: Vec<LitStr>,
    /// The conditions it is on under, all of which must hold.
    pub(super) when: Vec<LitStr>,
    /// How long one build may take, in milliseconds (`timeout = "5s"`); `None`: the app's.
    pub(super) timeout: Option<u64>,
    /// Whether `discover()` finds it (`discover = false` says no; default yes).
    pub(super) discover: bool,
}

/// The arguments `#[decorator]` takes.
const KNOWN: Known = Known {
    names: &["decorates", "needs", "after", "when", "timeout", "discover"],
    synonyms: &[
        ("decorate", "decorates"),
        ("wraps", "decorates"),
        ("wrap", "decorates"),
        ("key", "decorates"),
        ("of", "decorates"),
        ("requires", "needs"),
        ("deps", "needs"),
        ("depends_on", "needs"),
        ("inject", "needs"),
        ("comes_after", "after"),
        ("ordered_after", "after"),
        ("condition", "when"),
        ("only_when", "when"),
        ("enabled_when", "when"),
        ("switch", "when"),
        ("build_timeout", "timeout"),
        ("timeout_ms", "timeout"),
        ("timeout_secs", "timeout"),
        ("deadline", "timeout"),
        ("time_limit", "timeout"),
        ("max_duration", "timeout"),
        ("discoverable", "discover"),
        ("discovery", "discover"),
        ("inventory", "discover"),
        ("register", "discover"),
    ],
};

/// Names in `after = [...]`: other decorators of the same key.
const DECORATORS: NameKind = NameKind {
    noun: "decorator's name",
    example: "\"retrying\"",
    second: "\"logged\"",
    empty: "a decorator's name cannot be empty: name another decorator of the same key as it \
            is declared (its fn's name, like `\"retrying\"`)",
};

/// Parses and validates the attribute, reporting every problem at once.
pub(super) fn parse(attr: TokenStream) -> syn::Result<Args> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    let mut errors = Errors::default();
    let mut decorates: Option<LitStr> = None;
    let mut needs = Vec::new();
    let mut after = Vec::new();
    let mut when = Vec::new();
    let mut timeout = None;
    let mut discover = true;
    let mut seen: Vec<&str> = Vec::new();
    // Whether `decorates` was meant but written otherwise (reported already, not as missing).
    let mut meant = false;

    for meta in metas {
        if meta.path().is_ident("provides") {
            meant = true;
            errors.spanned(
                &meta,
                "a decorator provides the key it decorates, and nothing else: name it with \
                 `decorates = \"key\"` instead of `provides`",
            );
            continue;
        }
        let Some(name) = KNOWN.find(meta.path()) else {
            let (message, suggestion) = KNOWN.unknown(meta.path());
            meant |= suggestion == Some("decorates");
            errors.spanned(meta.path(), message);
            continue;
        };
        let Meta::NameValue(pair) = meta else {
            meant |= name == "decorates";
            errors.spanned(&meta, format!("expected `{name} = ...`; {}", usage(name)));
            continue;
        };
        if seen.contains(&name) {
            errors.spanned(&pair.path, format!("`{name}` is given twice"));
            continue;
        }
        seen.push(name);
        match name {
            "decorates" => match args::unwrap_expr(&pair.value) {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(key), ..
                }) if !key.value().is_empty() => {
                    key::check_provided(
                        std::slice::from_ref(key),
                        green_tea_key::Declarer::Decorator,
                        &mut errors,
                    );
                    decorates = Some(key.clone());
                }
                other => {
                    meant = true;
                    errors.spanned(other, format!("expected one key; {}", usage("decorates")));
                }
            },
            "needs" => {
                needs = errors
                    .take(args::names(&pair.value, "needs", &KEYS))
                    .unwrap_or_default();
                key::check_needed(&needs, &mut errors);
            }
            "after" => {
                after = errors
                    .take(args::names(&pair.value, "after", &DECORATORS))
                    .unwrap_or_default();
            }
            "when" => when = crate::when::conditions(&pair.value, &mut errors),
            "timeout" => timeout = crate::duration::timeout(&pair.value, &mut errors),
            _ => match args::unwrap_expr(&pair.value) {
                Expr::Lit(ExprLit {
                    lit: Lit::Bool(flag),
                    ..
                }) => discover = flag.value,
                other => errors.spanned(
                    other,
                    format!("expected `true` or `false`; {}", usage("discover")),
                ),
            },
        }
    }
    if let Some(decorates) = &decorates
        && let Some(again) = needs.iter().find(|n| n.value() == decorates.value())
    {
        errors.spanned(
            again,
            format!(
                "`{}` is the key this decorator decorates, whose value its first parameter \
                 receives: leave it out of `needs`, which lists what the parameters after it \
                 receive",
                again.value()
            ),
        );
    }
    if decorates.is_none() && !meant {
        errors.push(syn::Error::new(
            Span::call_site(),
            "missing `decorates`: name the key whose value this decorator wraps, like \
             `#[decorator(decorates = \"billing\")]`",
        ));
    }
    errors.finish()?;
    let Some(decorates) = decorates else {
        unreachable!("a missing `decorates` recorded an error");
    };
    Ok(Args {
        decorates,
        needs,
        after,
        when,
        timeout,
        discover,
    })
}

fn usage(name: &str) -> &'static str {
    match name {
        "decorates" => "write `decorates = \"key\"`, the one key whose value the decorator wraps",
        "needs" => "write `needs = \"key\"` or `needs = [\"a\", \"b\"]`",
        "after" => {
            "write `after = \"retrying\"` or `after = [\"retrying\", \"logged\"]`: the other \
             decorators of its key whose values it wraps"
        }
        "when" => crate::when::USAGE,
        "timeout" => crate::duration::USAGE,
        _ => {
            "write `discover = false` for a decorator you register yourself, which \
             `discover()` then leaves out (`discover = true` is the default)"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn messages(tokens: TokenStream) -> Vec<String> {
        let error = parse(tokens).err().unwrap();
        error.into_iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn decorates_one_key_with_needs() {
        let args = parse(quote!(decorates = "billing", needs = ["clock", "audit[]"])).unwrap();
        assert_eq!(args.decorates.value(), "billing");
        assert_eq!(args.needs.len(), 2);
        assert!(args.discover);
        let args = parse(quote!(decorates = "billing", discover = false)).unwrap();
        assert!(!args.discover && args.needs.is_empty());
    }

    #[test]
    fn every_problem_is_reported() {
        let found = messages(quote!(provides = "billing"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("instead of `provides`"));
        let found = messages(quote!(needs = "clock"));
        assert!(found[0].starts_with("missing `decorates`"), "{found:?}");
        let found = messages(quote!(decorate = "billing"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("did you mean `decorates`"));
        let found = messages(quote!(decorates = ["a", "b"]));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("expected one key"));
        let found = messages(quote!(decorates = "billing", needs = ["clock", "billing"]));
        assert!(found[0].contains("leave it out of `needs`"), "{found:?}");
    }

    #[test]
    fn after_names_other_decorators() {
        let args = parse(quote!(
            decorates = "billing",
            after = ["retrying", "logged"]
        ))
        .unwrap();
        let after: Vec<String> = args.after.iter().map(LitStr::value).collect();
        assert_eq!(after, ["retrying", "logged"]);
        let args = parse(quote!(decorates = "billing", after = "retrying")).unwrap();
        assert_eq!(args.after[0].value(), "retrying");
        let found = messages(quote!(
            decorates = "billing",
            after = ["retrying", "", "retrying"]
        ));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("a decorator's name cannot be empty"));
        assert_eq!(found[1], "`retrying` is listed twice in `after`");
        let found = messages(quote!(decorates = "billing", after = retrying));
        assert!(
            found[0].starts_with("expected a decorator's name"),
            "{found:?}"
        );
    }

    #[test]
    fn when_puts_it_under_conditions() {
        let args = parse(quote!(decorates = "billing", when = "!cacheOn")).unwrap();
        assert_eq!(args.when[0].value(), "!cacheOn");
        let args = parse(quote!(
            decorates = "billing",
            when = ["cacheOn", "gateway = stripe"]
        ))
        .unwrap();
        assert_eq!(args.when.len(), 2);
        assert!(
            parse(quote!(decorates = "billing"))
                .unwrap()
                .when
                .is_empty()
        );
        let found = messages(quote!(decorates = "billing", when = "!"));
        assert_eq!(found, [green_tea_key::when("!").unwrap_err().to_string()]);
    }

    #[test]
    fn timeout_is_read_at_compile_time() {
        let args = parse(quote!(decorates = "billing", timeout = "2h")).unwrap();
        assert_eq!(args.timeout, Some(7_200_000));
        assert_eq!(parse(quote!(decorates = "billing")).unwrap().timeout, None);
        for typo in ["build_timeout", "timeout_ms", "deadline", "timeouts"] {
            assert_eq!(KNOWN.suggestion(typo), Some("timeout"), "{typo}");
        }
        assert_eq!(
            messages(quote!(decorates = "billing", timeout = "5")),
            ["a timeout is a duration with a unit: write `5s`, `500ms` or `1m 30s`, not `5`"]
        );
        assert_eq!(
            messages(quote!(decorates = "billing", timeout = "0ms")),
            ["a timeout of zero would fail every build: give it a length"]
        );
        assert_eq!(
            messages(quote!(decorates = "billing", timeout = "5x")),
            ["`5x` is not a unit of time: use `ms`, `s`, `m` or `h`"]
        );
        assert_eq!(
            messages(quote!(
                decorates = "billing",
                timeout = "1s",
                timeout = "2s"
            )),
            ["`timeout` is given twice"]
        );
        assert_eq!(
            messages(quote!(decorates = "billing", timeout)),
            [format!(
                "expected `timeout = ...`; {}",
                crate::duration::USAGE
            )]
        );
        assert_eq!(
            messages(quote!(decorates = "billing", build_timeout = "5s")),
            ["unknown argument `build_timeout`; did you mean `timeout`?"]
        );
    }

    #[test]
    fn a_decorator_decorates_one_plain_key() {
        for key in ["billing?", "notifiers[]", "stores{}", "stores{eu}"] {
            let found = messages(quote!(decorates = #key));
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(
                found[0].starts_with(&format!("a decorator cannot decorate `{key}`")),
                "{found:?}"
            );
        }
        let found = messages(quote!(decorates = "billing::client"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with(
                "a decorator cannot decorate `billing::client`: a decorator wraps a key of the \
                 module it is registered in"
            ),
            "{found:?}"
        );
        let args = parse(quote!(
            decorates = "billing",
            needs = ["clock::now", "cache::store?"]
        ))
        .unwrap();
        assert_eq!(args.needs.len(), 2, "another module's keys may be needed");
    }
}
