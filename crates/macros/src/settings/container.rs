//! The struct's `#[settings(...)]`: `provides = "key"` and `prefix = "BILLING"` (`provides`
//! for a type that provides a key, with a prefix unless only modules register it, whose names
//! give it one; neither for one only nested in another), `validate = path`, `when = ...` (the
//! conditions its provider is on under) and `discover = false`.

use syn::{Attribute, Expr, LitStr, Path};

use super::known;
use super::names;
use super::parse::{self, Attr};
use crate::args::unwrap_expr;
use crate::errors::Errors;
use crate::key;
use green_tea_key::Declarer;

/// What the struct's attributes say, validated.
pub(super) struct Container {
    /// `provides` (and `prefix`), for a type that provides a key; `None` for a nested-only one.
    pub(super) provided: Option<Provided>,
    /// `validate = path`.
    pub(super) validate: Option<Path>,
    /// The conditions its provider is on under, all of which must hold (`when = ...`).
    pub(super) when: Vec<LitStr>,
    /// Whether `discover()` finds it (`discover = false` says no; default yes).
    pub(super) discover: bool,
    /// Whether a change of any of its fields may be applied without a restart
    /// (`#[settings(reload)]` on the struct).
    pub(super) reload: bool,
}

/// The key a settings type provides and the prefix of its variables: `None` for a type only
/// modules register (`build()` refuses it at the root, GT0022).
pub(super) struct Provided {
    pub(super) key: LitStr,
    pub(super) prefix: Option<LitStr>,
}

/// Reads every `#[settings(...)]` of the struct, recording each problem in `errors`.
pub(super) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Container {
    let mut provides: Option<(Path, LitStr)> = None;
    let mut prefix: Option<(Path, LitStr)> = None;
    let mut validate = None;
    let mut when: Option<(Path, Vec<LitStr>)> = None;
    let mut discover: Option<(Path, bool)> = None;
    let mut reload = false;
    let attrs = parse::attrs(attrs, &known::CONTAINER, &known::FIELD, "a field", errors);
    for Attr { name, meta } in attrs.found {
        match name {
            "provides" => {
                if let Some(key) = parse::string(&meta, name, "\"billingSettings\"", errors) {
                    key::check_provided(std::slice::from_ref(&key), Declarer::Settings, errors);
                    provides = Some((meta.path().clone(), key));
                }
            }
            "prefix" => {
                if let Some(text) = parse::string(&meta, name, "\"BILLING\"", errors) {
                    if let Err(reason) = names::check_prefix(&text.value()) {
                        errors.spanned(&text, reason);
                    }
                    prefix = Some((meta.path().clone(), text));
                }
            }
            "validate" => match parse::value(&meta, name, USE_VALIDATE, errors) {
                Some(Expr::Path(path)) if path.qself.is_none() => {
                    validate = Some(path.path.clone())
                }
                Some(other) => {
                    errors.spanned(other, format!("expected the path of a fn; {USE_VALIDATE}"))
                }
                None => {}
            },
            "reload" => reload = parse::flag(&meta, name, errors),
            "when" => {
                if let Some(value) = parse::value(&meta, name, crate::when::USAGE, errors) {
                    let conditions = crate::when::conditions(value, errors);
                    when = Some((meta.path().clone(), conditions));
                }
            }
            _ => match parse::value(&meta, name, USE_DISCOVER, errors) {
                Some(Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(flag),
                    ..
                })) => discover = Some((meta.path().clone(), flag.value)),
                Some(other) => errors.spanned(
                    unwrap_expr(other),
                    format!("expected `true` or `false`; {USE_DISCOVER}"),
                ),
                None => {}
            },
        }
    }

    // One of the pair written wrong (or misspelled) was reported already: not missing too.
    let written = |name| attrs.written.contains(&name);
    let provided = match (provides, prefix) {
        (Some((_, key)), Some((_, prefix))) => Some(Provided {
            key,
            prefix: Some(prefix),
        }),
        (Some(_), None) | (None, Some(_)) if written("provides") && written("prefix") => None,
        // No prefix: a module's path gives it one; `build()` refuses it at the root.
        (Some((_, key)), None) => Some(Provided { key, prefix: None }),
        (None, Some((path, _))) => {
            errors.spanned(
                path,
                "`prefix` without `provides`: a settings type with a prefix of its own is a \
                 provider; name the key it provides, like `provides = \"billingSettings\"` (a \
                 type only nested in another reads under its field's name: drop `prefix`)",
            );
            None
        }
        (None, None) => {
            if !written("provides") && !written("prefix") {
                if let Some((path, _)) = &discover {
                    errors.spanned(
                        path,
                        "`discover` is for a settings type that provides a key (`provides`): \
                         one only nested in another is read with it, and never discovered on \
                         its own",
                    );
                }
                if let Some((path, _)) = &when {
                    errors.spanned(
                        path,
                        "`when` is for a settings type that provides a key (`provides`): one \
                         only nested in another is read with it, under the conditions of the \
                         type it is nested in",
                    );
                }
            }
            None
        }
    };
    Container {
        provided,
        validate,
        when: when.map(|(_, conditions)| conditions).unwrap_or_default(),
        discover: discover.is_none_or(|(_, flag)| flag),
        reload,
    }
}

/// How to write `validate`.
const USE_VALIDATE: &str = "write `validate = path::to::fn`, a `fn(&Self) -> Result<(), String>` \
     that checks the values together";

/// How to write `discover`.
const USE_DISCOVER: &str = "write `discover = false` for a settings type you register \
     yourself, which `discover()` then leaves out (`discover = true` is the default)";
