//! The attribute's arguments: `provides = ..., needs = ..., dispose = path`.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, LitStr, Meta, Path, Token};

use super::errors::Errors;

/// The validated arguments of `#[provider(...)]`.
pub(super) struct Args {
    /// The keys provided, in order; never empty.
    pub(super) provides: Vec<LitStr>,
    /// The keys needed, in order.
    pub(super) needs: Vec<LitStr>,
    /// `dispose = path`, with the `dispose` key for spans.
    pub(super) dispose: Option<Dispose>,
}

/// `dispose = path` as written.
pub(super) struct Dispose {
    /// The `dispose` key, to point at it.
    pub(super) key: Path,
    /// The async fn to call.
    pub(super) path: Path,
}

const KNOWN: [&str; 3] = ["provides", "needs", "dispose"];

/// Words people reach for instead of ours.
const SYNONYMS: [(&str, &str); 11] = [
    ("provide", "provides"),
    ("produces", "provides"),
    ("keys", "provides"),
    ("key", "provides"),
    ("requires", "needs"),
    ("deps", "needs"),
    ("depends_on", "needs"),
    ("inject", "needs"),
    ("drop", "dispose"),
    ("close", "dispose"),
    ("teardown", "dispose"),
];

/// Parses and validates the attribute, reporting every problem at once.
pub(super) fn parse(attr: TokenStream) -> syn::Result<Args> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    let mut errors = Errors::default();
    let mut provides: Option<Vec<LitStr>> = None;
    let mut needs: Option<Vec<LitStr>> = None;
    let mut dispose: Option<Dispose> = None;
    let mut seen: Vec<String> = Vec::new();

    for meta in metas {
        let name = meta.path().get_ident().map(ToString::to_string);
        let Some(name) = name.filter(|n| KNOWN.contains(&n.as_str())) else {
            errors.spanned(meta.path(), unknown_key_message(meta.path()));
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
                if let Some(keys) = errors.take(keys(&pair.value, "provides")) {
                    if keys.is_empty() {
                        errors.spanned(&pair.value, "`provides` needs at least one key");
                    }
                    provides = Some(keys);
                }
            }
            "needs" => needs = errors.take(keys(&pair.value, "needs")),
            _ => match unwrap_group(&pair.value) {
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

    if provides.is_none() && !seen.iter().any(|n| n == "provides") {
        errors.push(syn::Error::new(
            Span::call_site(),
            "missing `provides`: name the key(s) this provider provides, \
             like `#[provider(provides = \"billing\")]`",
        ));
    }
    errors.finish()?;
    Ok(Args {
        provides: provides.unwrap_or_default(),
        needs: needs.unwrap_or_default(),
        dispose,
    })
}

/// `"key"` or `["a", "b"]`: every key a non-empty string literal, none twice.
fn keys(value: &Expr, what: &str) -> syn::Result<Vec<LitStr>> {
    let elements: Vec<&Expr> = match unwrap_group(value) {
        Expr::Array(array) => array.elems.iter().collect(),
        single @ Expr::Lit(ExprLit {
            lit: Lit::Str(_), ..
        }) => vec![single],
        other => {
            return Err(syn::Error::new_spanned(
                other,
                format!(
                    "expected a key as a string literal, like `{what} = \"billing\"`, \
                     or a list of them, like `{what} = [\"billing\", \"billingApi\"]`"
                ),
            ));
        }
    };
    let mut errors = Errors::default();
    let mut found = Vec::new();
    let mut unique = HashSet::new();
    for element in elements {
        match unwrap_group(element) {
            Expr::Lit(ExprLit {
                lit: Lit::Str(key), ..
            }) => {
                let text = key.value();
                if text.is_empty() {
                    errors.spanned(key, "a key cannot be empty");
                } else if !unique.insert(text.clone()) {
                    errors.spanned(key, format!("`{text}` is listed twice in `{what}`"));
                } else {
                    found.push(key.clone());
                }
            }
            other => errors.spanned(
                other,
                format!("expected a key as a string literal, like `\"billing\"`, in `{what}`"),
            ),
        }
    }
    errors.finish()?;
    Ok(found)
}

fn unwrap_group(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(group) => unwrap_group(&group.expr),
        Expr::Paren(paren) => unwrap_group(&paren.expr),
        other => other,
    }
}

fn usage(name: &str) -> &'static str {
    match name {
        "provides" => "write `provides = \"key\"` or `provides = [\"a\", \"b\"]`",
        "needs" => "write `needs = \"key\"` or `needs = [\"a\", \"b\"]`",
        _ => "write `dispose = path::to::async_fn`",
    }
}

fn unknown_key_message(path: &Path) -> String {
    let written = path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| quote::quote!(#path).to_string().replace(' ', ""));
    match suggestion(&written) {
        Some(known) => format!("unknown argument `{written}`; did you mean `{known}`?"),
        None => format!(
            "unknown argument `{written}`; expected `provides`, `needs` or `dispose`"
        ),
    }
}

/// The known key `written` most likely meant, if any.
fn suggestion(written: &str) -> Option<&'static str> {
    let lower = written.to_ascii_lowercase();
    if let Some((_, known)) = SYNONYMS.iter().find(|(alias, _)| *alias == lower) {
        return Some(known);
    }
    KNOWN
        .iter()
        .map(|known| (edit_distance(&lower, known), *known))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, known)| known)
}

/// Levenshtein distance; the keys are tiny, so the plain table is fine.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != *cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn near_misses_are_suggested() {
        assert_eq!(suggestion("provide"), Some("provides"));
        assert_eq!(suggestion("need"), Some("needs"));
        assert_eq!(suggestion("Needs"), Some("needs"));
        assert_eq!(suggestion("requires"), Some("needs"));
        assert_eq!(suggestion("disposes"), Some("dispose"));
        assert_eq!(suggestion("scope"), None);
    }

    #[test]
    fn single_key_and_list_are_both_accepted() {
        let args = parse(quote!(provides = "a", needs = "b")).unwrap();
        assert_eq!(args.provides[0].value(), "a");
        assert_eq!(args.needs[0].value(), "b");
        let args = parse(quote!(provides = ["a", "b"], needs = [])).unwrap();
        assert_eq!(args.provides.len(), 2);
        assert!(args.needs.is_empty());
    }

    #[test]
    fn every_problem_is_reported() {
        let err = parse(quote!(provides = [], need = ["x", "x"])).err().unwrap();
        assert_eq!(err.into_iter().count(), 2);
        let err = parse(quote!(needs = ["x", "x"])).err().unwrap();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("listed twice"));
        assert!(messages[1].contains("missing `provides`"));
    }
}
