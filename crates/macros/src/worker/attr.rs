//! The attribute's arguments: `needs = ..., restart = "never" | "on_failure", critical,
//! when = ..., discover = false`.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, LitStr, Meta, Token};

use crate::args::{self, KEYS, Known};
use crate::errors::Errors;
use crate::key;

/// The validated arguments of `#[worker(...)]`.
pub(super) struct Args {
    /// The keys needed, in order.
    pub(super) needs: Vec<LitStr>,
    /// What happens when a run fails.
    pub(super) restart: Restart,
    /// Whether the app is not ready while the worker is not running.
    pub(super) critical: bool,
    /// The conditions it is on under, all of which must hold.
    pub(super) when: Vec<LitStr>,
    /// Whether `discover()` finds it (`discover = false` says no; default yes).
    pub(super) discover: bool,
}

/// `restart = "..."`: core's `Restart`, with its default backoff (another backoff is built by
/// hand, with `WorkerFn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Restart {
    /// `"never"`, the default.
    Never,
    /// `"on_failure"`: `Restart::on_failure()`.
    OnFailure,
}

/// The arguments `#[worker]` takes.
const KNOWN: Known = Known {
    names: &["needs", "restart", "critical", "when", "discover"],
    synonyms: &[
        ("requires", "needs"),
        ("deps", "needs"),
        ("depends_on", "needs"),
        ("inject", "needs"),
        ("retry", "restart"),
        ("retries", "restart"),
        ("restarts", "restart"),
        ("on_failure", "restart"),
        ("supervise", "restart"),
        ("backoff", "restart"),
        ("required", "critical"),
        ("essential", "critical"),
        ("readiness", "critical"),
        ("ready", "critical"),
        ("condition", "when"),
        ("only_when", "when"),
        ("enabled_when", "when"),
        ("switch", "when"),
        ("discoverable", "discover"),
        ("discovery", "discover"),
        ("inventory", "discover"),
        ("register", "discover"),
    ],
};

/// The values `restart` takes, and the words people reach for instead.
const POLICIES: Known = Known {
    names: &["never", "on_failure"],
    synonyms: &[
        ("no", "never"),
        ("none", "never"),
        ("off", "never"),
        ("false", "never"),
        ("on_error", "on_failure"),
        ("on_err", "on_failure"),
        ("on-failure", "on_failure"),
        ("onfailure", "on_failure"),
        ("failure", "on_failure"),
        ("retry", "on_failure"),
        ("backoff", "on_failure"),
        ("yes", "on_failure"),
        ("true", "on_failure"),
    ],
};

/// Why a worker takes no `provides`, which would otherwise be one more unknown argument.
const PROVIDES: &str = "a worker provides nothing: it is a task the app runs, which only needs \
                        (its parameters); to make a value for others, declare a `#[provider]` \
                        of it, which the worker may need too";

/// Parses and validates the attribute, reporting every problem at once.
pub(super) fn parse(attr: TokenStream) -> syn::Result<Args> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    let mut errors = Errors::default();
    let mut needs = Vec::new();
    let mut restart = Restart::Never;
    let mut critical = false;
    let mut when = Vec::new();
    let mut discover = true;
    let mut seen: Vec<&str> = Vec::new();

    for meta in metas {
        if meta.path().is_ident("provides") {
            errors.spanned(&meta, PROVIDES);
            continue;
        }
        let Some(name) = KNOWN.find(meta.path()) else {
            errors.spanned(meta.path(), KNOWN.unknown(meta.path()).0);
            continue;
        };
        if seen.contains(&name) {
            errors.spanned(meta.path(), format!("`{name}` is given twice"));
            continue;
        }
        seen.push(name);
        if name == "critical" {
            match meta {
                Meta::Path(_) => critical = true,
                other => errors.spanned(&other, usage("critical")),
            }
            continue;
        }
        let Meta::NameValue(pair) = meta else {
            errors.spanned(&meta, format!("expected `{name} = ...`; {}", usage(name)));
            continue;
        };
        match name {
            "needs" => {
                needs = errors
                    .take(args::names(&pair.value, "needs", &KEYS))
                    .unwrap_or_default();
                key::check_needed(&needs, &mut errors);
            }
            "restart" => match args::unwrap_expr(&pair.value) {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(policy),
                    ..
                }) => {
                    if let Some(policy) = errors.take(read_policy(policy)) {
                        restart = policy;
                    }
                }
                other => errors.spanned(other, format!("expected a string; {}", usage(name))),
            },
            "when" => when = crate::when::conditions(&pair.value, &mut errors),
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
    errors.finish()?;
    Ok(Args {
        needs,
        restart,
        critical,
        when,
        discover,
    })
}

/// `"never"` or `"on_failure"`; anything else is an error at the literal that lists both.
fn read_policy(policy: &LitStr) -> syn::Result<Restart> {
    let written = policy.value();
    match written.as_str() {
        "never" => return Ok(Restart::Never),
        "on_failure" => return Ok(Restart::OnFailure),
        _ => {}
    }
    let expected = "expected `\"never\"` (the default: a failed run stays failed) or \
                    `\"on_failure\"` (it runs again after a delay that grows with each failure \
                    in a row)";
    let message = match POLICIES.suggestion(&written) {
        _ if written == "always" => format!(
            "unknown restart policy `\"always\"`; {expected}. A run that returns `Ok` has done \
             its work and is not restarted: `\"on_failure\"` is the one that restarts"
        ),
        Some(meant) => format!(
            "unknown restart policy `\"{written}\"`; did you mean `\"{meant}\"`? ({expected})"
        ),
        None => format!(
            "unknown restart policy `\"{written}\"`; {expected}. For another backoff than the \
             default, build the worker with `WorkerFn` and \
             `.restart(Restart::OnFailure(Backoff::new(..)))`"
        ),
    };
    Err(syn::Error::new_spanned(policy, message))
}

fn usage(name: &str) -> &'static str {
    match name {
        "needs" => "write `needs = \"key\"` or `needs = [\"a\", \"b\"]`",
        "restart" => {
            "write `restart = \"on_failure\"` to run it again after a failed run (with the \
             default backoff), or `restart = \"never\"`, the default"
        }
        "critical" => {
            "`critical` takes no value: write `critical` alone for a worker the app is not \
             ready without (a worker is not critical unless it says so)"
        }
        "when" => crate::when::USAGE,
        _ => {
            "write `discover = false` for a worker you register yourself, which `discover()` \
             then leaves out (`discover = true` is the default)"
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
    fn every_argument_is_read() {
        let args = parse(quote!()).unwrap();
        assert!(args.needs.is_empty() && !args.critical && args.discover);
        assert_eq!(args.restart, Restart::Never);
        let args = parse(quote!(
            needs = [
                "sweeps",
                "clock?",
                "notifiers[]",
                "stores{}",
                "billing::client"
            ],
            restart = "on_failure",
            critical,
            discover = false
        ))
        .unwrap();
        assert_eq!(args.needs.len(), 5);
        assert_eq!(args.restart, Restart::OnFailure);
        assert!(args.critical && !args.discover);
        let args = parse(quote!(needs = "sweeps", restart = "never")).unwrap();
        assert_eq!(args.needs[0].value(), "sweeps");
        assert_eq!(args.restart, Restart::Never);
    }

    #[test]
    fn provides_is_refused() {
        let found = messages(quote!(provides = "sweeps", needs = "clock"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("a worker provides nothing"),
            "{found:?}"
        );
    }

    #[test]
    fn near_misses_are_suggested() {
        assert_eq!(KNOWN.suggestion("restrat"), Some("restart"));
        assert_eq!(KNOWN.suggestion("need"), Some("needs"));
        assert_eq!(KNOWN.suggestion("retry"), Some("restart"));
        assert_eq!(KNOWN.suggestion("critcal"), Some("critical"));
        assert_eq!(KNOWN.suggestion("essential"), Some("critical"));
        let found = messages(quote!(restrat = "on_failure"));
        assert_eq!(
            found,
            ["unknown argument `restrat`; did you mean `restart`?"]
        );
        let found = messages(quote!(scope = "app"));
        assert_eq!(
            found,
            [
                "unknown argument `scope`; expected `needs`, `restart`, `critical`, `when` or \
                 `discover`"
            ]
        );
    }

    #[test]
    fn restart_takes_one_of_two_policies() {
        let found = messages(quote!(restart = "always"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("unknown restart policy `\"always\"`; expected `\"never\"`"),
            "{found:?}"
        );
        assert!(found[0].contains("`\"on_failure\"`"), "{found:?}");
        let found = messages(quote!(restart = "on-failure"));
        assert!(
            found[0].contains("did you mean `\"on_failure\"`?"),
            "{found:?}"
        );
        let found = messages(quote!(restart = "sometimes"));
        assert!(found[0].contains("WorkerFn"), "{found:?}");
        let found = messages(quote!(restart = on_failure));
        assert!(found[0].starts_with("expected a string"), "{found:?}");
    }

    #[test]
    fn when_puts_it_under_conditions() {
        let args = parse(quote!(needs = "outbox", when = "gateway = stripe | paypal")).unwrap();
        assert_eq!(args.when[0].value(), "gateway = stripe | paypal");
        let args = parse(quote!(when = ["cacheOn", "!mailOn"])).unwrap();
        assert_eq!(args.when.len(), 2);
        assert!(parse(quote!()).unwrap().when.is_empty());
        let found = messages(quote!(when = "gateway = stripe | stripe"));
        assert_eq!(
            found,
            [green_tea_key::when("gateway = stripe | stripe")
                .unwrap_err()
                .to_string()]
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let found = messages(quote!(
            needs = ["a", "a"],
            critical = true,
            restart = "always",
            discover = "no"
        ));
        assert_eq!(found.len(), 4, "{found:?}");
        assert_eq!(found[0], "`a` is listed twice in `needs`");
        assert!(found[1].starts_with("`critical` takes no value"));
        assert!(found[2].starts_with("unknown restart policy"));
        assert!(found[3].starts_with("expected `true` or `false`"));
        let found = messages(quote!(needs = "a", needs = "b"));
        assert_eq!(found, ["`needs` is given twice"]);
        let found = messages(quote!(needs("a")));
        assert!(found[0].starts_with("expected `needs = ...`"), "{found:?}");
        let found = messages(quote!(needs = "a]"));
        assert!(
            found[0].starts_with("a key's name `a]` holds `]`"),
            "{found:?}"
        );
    }
}
