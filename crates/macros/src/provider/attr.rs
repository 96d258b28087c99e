//! The attribute's arguments: `provides = ..., needs = ..., after = ..., when = ...,
//! dispose = path, timeout = "5s", discover = false`.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, LitStr, Meta, Path, Token};

use crate::args::{self, KEYS, Known, NameKind};
use crate::errors::Errors;
use crate::key;

/// The validated arguments of `#[provider(...)]`.
pub(super) struct Args {
    /// The keys provided, in order; never empty.
    pub(super) provides: Vec<LitStr>,
    /// The keys needed, in order.
    pub(super) needs: Vec<LitStr>,
    /// The contributors to its lists it comes after, by name.
    pub(super) after: Vec<LitStr>,
    /// The conditions it is on under, all of which must hold.
    pub(super) when: Vec<LitStr>,
    /// `dispose = path`, with the `dispose` key for spans.
    pub(super) dispose: Option<Dispose>,
    /// How long one build may take, in milliseconds (`timeout = "5s"`); `None`: the app's.
    pub(super) timeout: Option<u64>,
    /// `timeout = "5s"` as written, to point at.
    pub(super) timeout_written: Option<syn::MetaNameValue>,
    /// Whether `discover()` finds it (`discover = false` says no; default yes).
    pub(super) discover: bool,
}

/// `dispose = path` as written.
pub(super) struct Dispose {
    /// The `dispose` key, to point at it.
    pub(super) key: Path,
    /// The async fn to call.
    pub(super) path: Path,
}

/// The arguments `#[provider]` takes.
const KNOWN: Known = Known {
    names: &[
        "provides", "needs", "after", "when", "dispose", "timeout", "discover",
    ],
    synonyms: &[
        ("provide", "provides"),
        ("produces", "provides"),
        ("keys", "provides"),
        ("key", "provides"),
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
        ("drop", "dispose"),
        ("close", "dispose"),
        ("teardown", "dispose"),
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

/// Names in `after = [...]`: other contributors to the same list.
const CONTRIBUTORS: NameKind = NameKind {
    noun: "contributor's name",
    example: "\"email\"",
    second: "\"sms\"",
    empty: "a contributor's name cannot be empty: name another provider of the same list as \
            it is declared (its fn's or type's name, like `\"email\"`)",
};

/// Parses and validates the attribute, reporting every problem at once.
pub(super) fn parse(attr: TokenStream) -> syn::Result<Args> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    let mut errors = Errors::default();
    let mut provides: Option<Vec<LitStr>> = None;
    let mut needs: Option<Vec<LitStr>> = None;
    // With the value as written, to point at.
    let mut after: Option<(Expr, Vec<LitStr>)> = None;
    let mut when = Vec::new();
    let mut dispose: Option<Dispose> = None;
    let mut timeout = None;
    let mut timeout_written = None;
    let mut discover = true;
    let mut seen: Vec<String> = Vec::new();
    let mut misspelled: Vec<&str> = Vec::new();

    for meta in metas {
        let Some(name) = KNOWN.find(meta.path()).map(str::to_owned) else {
            let (message, meant) = KNOWN.unknown(meta.path());
            misspelled.extend(meant);
            errors.spanned(meta.path(), message);
            continue;
        };
        let Meta::NameValue(pair) = meta else {
            errors.spanned(&meta, format!("expected `{name} = ...`; {}", usage(&name)));
            continue;
        };
        if seen.contains(&name) {
            errors.spanned(&pair.path, format!("`{name}` is given twice"));
            continue;
        }
        seen.push(name.clone());
        match name.as_str() {
            "provides" => {
                if let Some(keys) = errors.take(args::names(&pair.value, "provides", &KEYS)) {
                    if keys.is_empty() {
                        errors.spanned(&pair.value, "`provides` needs at least one key");
                    }
                    key::check_provided(&keys, green_tea_key::Declarer::Provider, &mut errors);
                    provides = Some(keys);
                }
            }
            "needs" => {
                needs = errors.take(args::names(&pair.value, "needs", &KEYS));
                key::check_needed(needs.as_deref().unwrap_or_default(), &mut errors);
            }
            "after" => {
                if let Some(names) = errors.take(args::names(&pair.value, "after", &CONTRIBUTORS)) {
                    after = Some((pair.value.clone(), names));
                }
            }
            "when" => when = crate::when::conditions(&pair.value, &mut errors),
            "timeout" => {
                timeout = crate::duration::timeout(&pair.value, &mut errors);
                timeout_written = Some(pair.clone());
            }
            "discover" => match args::unwrap_expr(&pair.value) {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(flag),
                    ..
                }) => discover = flag.value,
                other => errors.spanned(
                    other,
                    format!("expected `true` or `false`; {}", usage("discover")),
                ),
            },
            _ => match args::unwrap_expr(&pair.value) {
                Expr::Path(p) if p.qself.is_none() => {
                    dispose = Some(Dispose {
                        key: pair.path.clone(),
                        path: p.path.clone(),
                    });
                }
                other => errors.spanned(
                    other,
                    "expected the path of an async fn, like `dispose = close_billing`",
                ),
            },
        }
    }

    // A misspelled `provides` was reported already; don't also call it missing.
    if provides.is_none()
        && !seen.iter().any(|n| n == "provides")
        && !misspelled.contains(&"provides")
    {
        errors.push(syn::Error::new(
            Span::call_site(),
            "missing `provides`: name the key(s) this provider provides, \
             like `#[provider(provides = \"billing\")]`",
        ));
    }
    // Only a list's contributions have an order to ask for. (Keys that are not keys were
    // reported already.)
    if let (Some((value, _)), Some(provides)) = (&after, &provides)
        && let Ok(spellings) = provides
            .iter()
            .map(|key| key::spelling(&key.value()).map(|s| s.form()))
            .collect::<Result<Vec<_>, _>>()
        && !spellings.contains(&key::Form::List)
    {
        errors.spanned(
            args::unwrap_expr(value),
            "`after` orders a list's contributions (`provides = \"notifiers[]\"`), and this \
             provider contributes to no list: a plain key has one provider, and a map's \
             entries come in their names' order",
        );
    }
    errors.finish()?;
    Ok(Args {
        provides: provides.unwrap_or_default(),
        needs: needs.unwrap_or_default(),
        after: after.map(|(_, names)| names).unwrap_or_default(),
        when,
        dispose,
        timeout,
        timeout_written,
        discover,
    })
}

fn usage(name: &str) -> &'static str {
    match name {
        "provides" => "write `provides = \"key\"` or `provides = [\"a\", \"b\"]`",
        "needs" => "write `needs = \"key\"` or `needs = [\"a\", \"b\"]`",
        "after" => {
            "write `after = \"email\"` or `after = [\"email\", \"sms\"]`: the other contributors \
             to its list that come before it"
        }
        "when" => crate::when::USAGE,
        "timeout" => crate::duration::USAGE,
        "discover" => {
            "write `discover = false` for a provider you register yourself, which `discover()` \
             then leaves out (`discover = true` is the default)"
        }
        _ => "write `dispose = path::to::async_fn`",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn near_misses_are_suggested() {
        assert_eq!(KNOWN.suggestion("provide"), Some("provides"));
        assert_eq!(KNOWN.suggestion("need"), Some("needs"));
        assert_eq!(KNOWN.suggestion("Needs"), Some("needs"));
        assert_eq!(KNOWN.suggestion("requires"), Some("needs"));
        assert_eq!(KNOWN.suggestion("disposes"), Some("dispose"));
        assert_eq!(KNOWN.suggestion("discovery"), Some("discover"));
        assert_eq!(KNOWN.suggestion("scope"), None);
    }

    #[test]
    fn single_key_and_list_are_both_accepted() {
        let args = parse(quote!(provides = "a", needs = "b")).unwrap();
        assert_eq!(args.provides[0].value(), "a");
        assert_eq!(args.needs[0].value(), "b");
        let args = parse(quote!(provides = ["a", "b"], needs = [])).unwrap();
        assert_eq!(args.provides.len(), 2);
        assert!(args.needs.is_empty());
        assert!(args.discover);
        assert!(
            !parse(quote!(provides = "a", discover = false))
                .unwrap()
                .discover
        );
        assert!(parse(quote!(provides = "a", discover = "no")).is_err());
    }

    #[test]
    fn keys_are_spelled_as_core_reads_them() {
        let args = parse(quote!(
            provides = ["notifiers[]", "stores{eu}", "a"],
            needs = [
                "cache?",
                "notifiers[]",
                "stores{}",
                "stores{us}",
                "billing::client",
                "cache::store?"
            ]
        ))
        .unwrap();
        assert_eq!(args.provides.len(), 3);
        assert_eq!(args.needs.len(), 6);
        let err = parse(quote!(provides = ["a?", "b{}", "c::d"], needs = "e]"))
            .err()
            .unwrap();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].starts_with("a provider cannot provide `a?`"));
        assert!(messages[1].starts_with("a provider cannot provide `b{}`"));
        assert!(messages[2].starts_with(
            "a provider cannot provide `c::d`: a declaration provides a name of its own"
        ));
        assert!(messages[3].starts_with("a key's name `e]` holds `]`"));
    }

    #[test]
    fn after_names_other_contributors_to_a_list() {
        let args = parse(quote!(provides = "notifiers[]", after = ["email", "sms"])).unwrap();
        let after: Vec<String> = args.after.iter().map(LitStr::value).collect();
        assert_eq!(after, ["email", "sms"]);
        let args = parse(quote!(
            provides = ["billing", "notifiers[]"],
            after = "email"
        ))
        .unwrap();
        assert_eq!(args.after[0].value(), "email");
        assert!(parse(quote!(provides = "a")).unwrap().after.is_empty());
        assert_eq!(KNOWN.suggestion("afer"), Some("after"));
        for provides in [quote!("billing"), quote!(["stores{eu}", "billing"])] {
            let err = parse(quote!(provides = #provides, after = "email"))
                .err()
                .unwrap();
            let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
            assert_eq!(messages.len(), 1, "{messages:?}");
            assert!(
                messages[0].contains("contributes to no list"),
                "{messages:?}"
            );
        }
        let err = parse(quote!(provides = "notifiers[]", after = ["", "sms", "sms"]))
            .err()
            .unwrap();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].starts_with("a contributor's name cannot be empty"));
        assert_eq!(messages[1], "`sms` is listed twice in `after`");
        // A key that is not one is reported once, not again as "no list".
        let err = parse(quote!(provides = "notifiers[", after = "email"))
            .err()
            .unwrap();
        assert_eq!(err.into_iter().count(), 1);
    }

    #[test]
    fn when_takes_a_condition_or_a_list_of_them() {
        let args = parse(quote!(provides = "cache", when = "cacheOn")).unwrap();
        let when: Vec<String> = args.when.iter().map(LitStr::value).collect();
        assert_eq!(when, ["cacheOn"]);
        let args = parse(quote!(
            provides = "payments",
            when = ["!cacheOn", "gateway = stripe | paypal"]
        ))
        .unwrap();
        assert_eq!(args.when.len(), 2);
        assert!(parse(quote!(provides = "a")).unwrap().when.is_empty());
        assert_eq!(KNOWN.suggestion("condition"), Some("when"));
        assert_eq!(KNOWN.suggestion("wen"), Some("when"));
        let err = parse(quote!(provides = "a", when = ["gateway =", "cacheOn"]))
            .err()
            .unwrap();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(
            messages,
            [green_tea_key::when("gateway =").unwrap_err().to_string()]
        );
        let err = parse(quote!(provides = "a", when("cacheOn")))
            .err()
            .unwrap();
        assert!(
            err.to_string()
                .starts_with("expected `when = ...`; write `when = \"cacheOn\"`")
        );
    }

    #[test]
    fn timeout_is_read_at_compile_time() {
        let args = parse(quote!(provides = "a", timeout = "1m 30s")).unwrap();
        assert_eq!(args.timeout, Some(90_000));
        assert_eq!(
            parse(quote!(provides = "a", timeout = "500ms"))
                .unwrap()
                .timeout,
            Some(500)
        );
        assert_eq!(parse(quote!(provides = "a")).unwrap().timeout, None);
        for typo in [
            "build_timeout",
            "timeout_ms",
            "deadline",
            "timout",
            "Timeout",
        ] {
            assert_eq!(KNOWN.suggestion(typo), Some("timeout"), "{typo}");
        }
        let messages = |tokens| -> Vec<String> {
            let err = parse(tokens).err().unwrap();
            err.into_iter().map(|e| e.to_string()).collect()
        };
        assert_eq!(
            messages(quote!(provides = "a", timeout = "5")),
            ["a timeout is a duration with a unit: write `5s`, `500ms` or `1m 30s`, not `5`"]
        );
        assert_eq!(
            messages(quote!(provides = "a", timeout = "0s")),
            ["a timeout of zero would fail every build: give it a length"]
        );
        assert_eq!(
            messages(quote!(provides = "a", timeout = "5x")),
            ["`5x` is not a unit of time: use `ms`, `s`, `m` or `h`"]
        );
        assert_eq!(
            messages(quote!(provides = "a", timeout = "5s", timeout = "6s")),
            ["`timeout` is given twice"]
        );
        let found = messages(quote!(provides = "a", timeout));
        assert_eq!(
            found,
            [format!(
                "expected `timeout = ...`; {}",
                crate::duration::USAGE
            )]
        );
        assert_eq!(
            messages(quote!(provides = "a", deadline = "5s")),
            ["unknown argument `deadline`; did you mean `timeout`?"]
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let err = parse(quote!(provides = [], need = ["x", "x"]))
            .err()
            .unwrap();
        assert_eq!(err.into_iter().count(), 2);
        let err = parse(quote!(needs = ["x", "x"])).err().unwrap();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("listed twice"));
        assert!(messages[1].contains("missing `provides`"));
    }
}
