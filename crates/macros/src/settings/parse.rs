//! Reading `#[settings(...)]` attributes, the struct's and the fields' alike: each argument
//! named (with "did you mean" for a misspelled one, and where it goes for one put on the wrong
//! item), none twice, and the shapes of their values.

use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta, Token};

use crate::args::{Known, unwrap_expr};
use crate::errors::Errors;

/// One argument of a `#[settings(...)]`, by its known name.
pub(super) struct Attr {
    pub(super) name: &'static str,
    pub(super) meta: Meta,
}

/// The arguments of one item's `#[settings(...)]` attributes.
pub(super) struct Attrs {
    /// Each argument `known` takes, in order.
    pub(super) found: Vec<Attr>,
    /// Every known name written, its value right or not, or meant by a misspelled one: a
    /// check that an argument is missing skips these, which were reported already.
    pub(super) written: Vec<&'static str>,
}

/// Every argument of the `#[settings(...)]` attributes among `attrs` that `known` takes; an
/// unknown one, one that goes on `elsewhere` (what takes `other`), one given twice and an
/// attribute that is not a list are recorded in `errors`.
pub(super) fn attrs(
    attrs: &[Attribute],
    known: &Known,
    other: &Known,
    elsewhere: &str,
    errors: &mut Errors,
) -> Attrs {
    let mut found: Vec<Attr> = Vec::new();
    let mut written: Vec<&'static str> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("settings")) {
        let Meta::List(_) = &attr.meta else {
            errors.spanned(
                attr,
                "expected `#[settings(...)]`, with the arguments in parentheses",
            );
            continue;
        };
        let Some(metas) =
            errors.take(attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated))
        else {
            continue;
        };
        for meta in metas {
            let Some(name) = known.find(meta.path()) else {
                let message = match other.find(meta.path()) {
                    Some(name) => format!("`{name}` goes on {elsewhere}"),
                    None => {
                        let (message, meant) = known.unknown(meta.path());
                        written.extend(meant);
                        message
                    }
                };
                errors.spanned(meta.path(), message);
                continue;
            };
            written.push(name);
            if found.iter().any(|a| a.name == name) {
                errors.spanned(meta.path(), format!("`{name}` is given twice"));
                continue;
            }
            found.push(Attr { name, meta });
        }
    }
    Attrs { found, written }
}

/// The value of `name = value`, or `None` with an error if `meta` is not that form.
pub(super) fn value<'m>(
    meta: &'m Meta,
    name: &str,
    usage: &str,
    errors: &mut Errors,
) -> Option<&'m Expr> {
    match meta {
        Meta::NameValue(pair) => Some(unwrap_expr(&pair.value)),
        other => {
            errors.spanned(other, format!("expected `{name} = ...`; {usage}"));
            None
        }
    }
}

/// The string literal of `name = "..."`, or `None` with an error (`example` is a good value,
/// quoted).
pub(super) fn string(
    meta: &Meta,
    name: &str,
    example: &str,
    errors: &mut Errors,
) -> Option<LitStr> {
    let usage = format!("write `{name} = {example}`");
    match value(meta, name, &usage, errors)? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Some(text.clone()),
        other => {
            errors.spanned(other, format!("expected a string literal; {usage}"));
            None
        }
    }
}

/// Whether `meta` is the bare flag `name`; an error if it has a value.
pub(super) fn flag(meta: &Meta, name: &str, errors: &mut Errors) -> bool {
    match meta {
        Meta::Path(_) => true,
        other => {
            errors.spanned(
                other,
                format!("`{name}` takes no value: write `#[settings({name})]`"),
            );
            false
        }
    }
}
