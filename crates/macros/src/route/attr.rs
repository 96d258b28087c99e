//! The arguments of `#[route("/prefix", steps = [...], layer = expr, when = ...)]` and of the
//! method attributes `#[get("/path", steps = [...], body_limit = n, layer = expr, when = ...)]`:
//! a path literal, then named arguments.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, LitStr, Token};

use crate::args::{self, Known, NameKind};
use crate::errors::Errors;

/// The validated arguments of `#[route]` or of a method attribute.
pub(super) struct Args {
    /// The path (or prefix), starting with `/`.
    pub(super) path: LitStr,
    /// The guard steps it names, in order.
    pub(super) steps: Vec<LitStr>,
    /// `body_limit = n`, as written (method attributes only).
    pub(super) body_limit: Option<Expr>,
    /// `layer = expr` or `layer = [a, b]`: the tower layers, in the order written.
    pub(super) layers: Vec<Expr>,
    /// `when = "cacheOn"` or `when = [...]`: the conditions it is on under, all of which must
    /// hold, in the order written.
    pub(super) when: Vec<LitStr>,
}

/// What `#[route(...)]` takes after its prefix.
pub(super) const ROUTE: Known = Known {
    names: &["steps", "layer", "when"],
    synonyms: &[
        ("guards", "steps"),
        ("guard", "steps"),
        ("middleware", "steps"),
        ("before", "steps"),
        ("layers", "layer"),
        ("route_layer", "layer"),
        ("tower_layer", "layer"),
        ("wrap", "layer"),
        ("condition", "when"),
        ("only_when", "when"),
        ("enabled_when", "when"),
        ("switch", "when"),
    ],
};

/// What `#[get(...)]` and the other method attributes take after their path.
pub(super) const METHOD: Known = Known {
    names: &["steps", "body_limit", "layer", "when"],
    synonyms: &[
        ("layers", "layer"),
        ("route_layer", "layer"),
        ("tower_layer", "layer"),
        ("wrap", "layer"),
        ("guards", "steps"),
        ("guard", "steps"),
        ("middleware", "steps"),
        ("before", "steps"),
        ("limit", "body_limit"),
        ("max_body", "body_limit"),
        ("body_size", "body_limit"),
        ("max_body_size", "body_limit"),
        ("body_max", "body_limit"),
        ("condition", "when"),
        ("only_when", "when"),
        ("enabled_when", "when"),
        ("switch", "when"),
    ],
};

/// Step names in `steps = [...]`.
const STEP_NAMES: NameKind = NameKind {
    noun: "step name",
    example: "\"require_admin\"",
    second: "\"auth\"",
    empty: "a step name cannot be empty",
};

/// Parses `tokens`, the inside of `#[name(...)]`. `attr` is what a missing path is reported
/// at; `example` is a path to show, like `"/orders"`.
pub(super) fn parse(
    tokens: TokenStream,
    name: &str,
    known: &Known,
    attr: Span,
    example: &str,
) -> syn::Result<Args> {
    let entries = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(tokens)?;
    let mut errors = Errors::default();
    let mut entries = entries.into_iter().peekable();
    let missing = format!(
        "missing the path: `#[{name}]` starts with it, as a string literal, like \
         `#[{name}(\"{example}\")]`"
    );
    let path = match entries.peek().map(args::unwrap_expr) {
        None | Some(Expr::Assign(_)) => {
            errors.push(syn::Error::new(attr, missing));
            None
        }
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(path),
            ..
        })) => {
            let path = path.clone();
            entries.next();
            if !path.value().starts_with('/') {
                errors.spanned(
                    &path,
                    format!(
                        "a path starts with `/`: write `\"/{}\"`",
                        path.value().trim_start_matches('/')
                    ),
                );
            }
            Some(path)
        }
        Some(other) => {
            errors.spanned(
                other,
                format!("expected the path as a string literal, like `#[{name}(\"{example}\")]`"),
            );
            entries.next();
            None
        }
    };

    let mut steps = Vec::new();
    let mut body_limit = None;
    let mut layers = Vec::new();
    let mut when = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for entry in entries {
        let Expr::Assign(assign) = args::unwrap_expr(&entry) else {
            errors.spanned(
                &entry,
                format!(
                    "expected `name = value` after the path, like `#[{name}(\"{example}\", \
                     steps = [\"require_admin\"])]`"
                ),
            );
            continue;
        };
        let arg = match args::unwrap_expr(&assign.left) {
            Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => &p.path,
            other => {
                errors.spanned(other, "expected an argument name, like `steps`");
                continue;
            }
        };
        let Some(arg_name) = known.find(arg) else {
            errors.spanned(arg, known.unknown(arg).0);
            continue;
        };
        if seen.contains(&arg_name) {
            let message = match arg_name {
                "layer" => "`layer` is given twice: for several layers, list them in one, \
                            `layer = [a, b]` (the last wraps the others)"
                    .to_owned(),
                _ => format!("`{arg_name}` is given twice"),
            };
            errors.spanned(arg, message);
            continue;
        }
        seen.push(arg_name);
        match arg_name {
            "steps" => {
                steps = errors
                    .take(args::names(&assign.right, "steps", &STEP_NAMES))
                    .unwrap_or_default();
            }
            "layer" => match args::unwrap_expr(&assign.right) {
                Expr::Array(array) if array.elems.is_empty() => errors.spanned(
                    array,
                    "`layer = []` adds no layer: give one, `layer = expr`, or several, \
                     `layer = [a, b]`, or leave `layer` out",
                ),
                Expr::Array(array) => layers.extend(array.elems.iter().cloned()),
                _ => layers.push((*assign.right).clone()),
            },
            "when" => when = crate::when::conditions(&assign.right, &mut errors),
            _ => body_limit = Some((*assign.right).clone()),
        }
    }
    errors.finish()?;
    let Some(path) = path else {
        unreachable!("a missing path recorded an error");
    };
    Ok(Args {
        path,
        steps,
        body_limit,
        layers,
        when,
    })
}

/// The tokens inside a method attribute `#[get(...)]` (none for `#[get]`), or an error for
/// `#[get = ...]`.
pub(super) fn inside(attr: &syn::Attribute, name: &str) -> syn::Result<TokenStream> {
    match &attr.meta {
        syn::Meta::Path(_) => Ok(TokenStream::new()),
        syn::Meta::List(list) => Ok(list.tokens.clone()),
        syn::Meta::NameValue(pair) => Err(syn::Error::new_spanned(
            attr.to_token_stream(),
            format!(
                "write the path in parentheses: `#[{name}({})]`",
                pair.value.to_token_stream()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse_method(tokens: TokenStream) -> syn::Result<Args> {
        parse(tokens, "get", &METHOD, Span::call_site(), "/orders")
    }

    #[test]
    fn path_then_named_arguments() {
        let args = parse_method(quote!("/{id}", steps = ["a", "b"], body_limit = 1024)).unwrap();
        assert_eq!(args.path.value(), "/{id}");
        assert_eq!(args.steps.len(), 2);
        assert!(args.body_limit.is_some());
        assert!(args.layers.is_empty());
        let args = parse_method(quote!("/", layer = Timeout::new(3))).unwrap();
        assert_eq!(args.layers.len(), 1);
        let args = parse_method(quote!("/", layer = [Timeout::new(3), Cors::new()])).unwrap();
        assert_eq!(args.layers.len(), 2);
        assert!(parse_method(quote!("/", layer = [])).is_err());
        assert!(args.when.is_empty());
    }

    fn messages(tokens: TokenStream) -> Vec<String> {
        let error = parse_method(tokens).err().unwrap();
        error.into_iter().map(|e| e.to_string()).collect()
    }

    fn conditions(args: &Args) -> Vec<String> {
        args.when.iter().map(LitStr::value).collect()
    }

    #[test]
    fn when_takes_a_condition_or_a_list_of_them() {
        let args = parse_method(quote!("/", when = "cacheOn")).unwrap();
        assert_eq!(conditions(&args), ["cacheOn"]);
        let args = parse_method(quote!(
            "/",
            steps = ["a"],
            when = ["!cacheOn", "gateway = stripe | paypal"]
        ))
        .unwrap();
        assert_eq!(conditions(&args), ["!cacheOn", "gateway = stripe | paypal"]);
        let tokens = quote!("/orders", when = ["cacheOn"]);
        let block = parse(tokens, "route", &ROUTE, Span::call_site(), "/orders").unwrap();
        assert_eq!(conditions(&block), ["cacheOn"]);
    }

    // Spanned at the literal: see tests/ui/route/fail/when_malformed.rs.
    #[test]
    fn a_condition_that_does_not_parse_is_an_error_in_build_s_words() {
        assert_eq!(
            messages(quote!("/", when = ["cacheOn", "= x"])),
            [green_tea_key::when("= x").unwrap_err().to_string()]
        );
        assert_eq!(
            messages(quote!("/", when = "a", when = "b")),
            ["`when` is given twice"]
        );
    }

    #[test]
    fn when_is_suggested_for_its_near_misses() {
        for known in [&ROUTE, &METHOD] {
            for written in ["condition", "only_when", "enabled_when", "switch", "wen"] {
                assert_eq!(known.suggestion(written), Some("when"), "{written}");
            }
        }
        assert_eq!(
            messages(quote!("/", enabled_when = "cacheOn")),
            ["unknown argument `enabled_when`; did you mean `when`?"]
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let found = messages(quote!(steps = ["a"], limit = 3));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("missing the path"));
        assert!(found[1].contains("did you mean `body_limit`"));
        let found = messages(quote!("orders", "/again"));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("starts with `/`"));
        assert!(found[1].contains("`name = value`"));
    }
}
