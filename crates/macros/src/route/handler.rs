//! One method of a `#[route]` block: its method attribute (`#[get("/path")]`...) and its
//! parameters (`#[needs("key")]`, `#[body]`, extractors), read and stripped from the block.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Ident, ImplItemFn, LitStr, ReturnType, Type};

use super::attr::{self, METHOD};
use crate::errors::Errors;
use crate::key;
use crate::types::{self, NeedParam, Receive};

/// The method attributes, with the HTTP method each one routes.
pub(super) const METHODS: [(&str, &str); 5] = [
    ("get", "GET"),
    ("post", "POST"),
    ("put", "PUT"),
    ("patch", "PATCH"),
    ("delete", "DELETE"),
];

/// A method that answers a route.
pub(super) struct Handler {
    /// `GET`, `POST`...
    pub(super) method: Ident,
    /// The attribute's arguments.
    pub(super) args: attr::Args,
    /// The method's name.
    pub(super) name: Ident,
    /// Whether it is `async`.
    pub(super) is_async: bool,
    /// Its parameters, in order.
    pub(super) params: Vec<Param>,
    /// Its return type (`None`: `()`).
    pub(super) output: Option<Type>,
    /// Its `#[cfg]` attributes, repeated on its route.
    pub(super) cfgs: Vec<Attribute>,
}

/// What one handler parameter receives.
pub(super) enum Param {
    /// `#[needs("key")] x: &T` or `Arc<T>` (`Option<..>`, `All<'_, T>`, `ByName<'_, T>` for
    /// keys spelled `key?`, `key[]`, `key{}`).
    Need {
        /// The key.
        key: LitStr,
        /// The value's type and how it is received.
        value: NeedParam,
    },
    /// `#[body] x: T`.
    Body {
        /// The type as written.
        ty: Type,
        /// How the body is read.
        read: BodyRead,
    },
    /// Any other parameter: an axum-core extractor.
    Extract(Type),
    /// `request: RequestContext`: the request itself, its body unread.
    Context,
}

/// How `#[body]` reads the body.
#[derive(Clone, Copy)]
pub(super) enum BodyRead {
    /// `request.json::<T>()`.
    Json,
    /// `request.text()`, for `String`.
    Text,
    /// `request.bytes()`, for `Bytes`.
    Bytes,
    /// `request.bytes()` into a vector, for `Vec<u8>` (a JSON array of numbers is never what
    /// a `Vec<u8>` body means).
    Vec,
}

/// The HTTP method of a method attribute, if `attr` is one.
pub(super) fn method_of(attr: &Attribute) -> Option<(&'static str, &'static str)> {
    let last = attr.path().segments.last()?;
    METHODS.iter().copied().find(|(name, _)| last.ident == name)
}

/// Reads `method` and strips the attributes green-tea reads from it and from its parameters.
/// `None` if it has no method attribute (it stays a plain method) or has errors (recorded).
pub(super) fn read(method: &mut ImplItemFn, errors: &mut Errors) -> Option<Handler> {
    let (routes, kept): (Vec<Attribute>, Vec<Attribute>) = method
        .attrs
        .drain(..)
        .partition(|attr| method_of(attr).is_some());
    method.attrs = kept;
    let markers = strip_markers(method);
    let name = method.sig.ident.clone();

    let Some(first) = routes.first() else {
        // Markers on a method that is not a handler would otherwise stay, unknown to rustc.
        if let Some(marker) = markers.iter().flatten().next() {
            errors.spanned(
                marker,
                format!(
                    "`#[needs]` and `#[body]` mark the parameters of a route handler, and `{name}` \
                     is not one: add a method attribute, like `#[get(\"/\")]`, to `{name}`"
                ),
            );
        }
        return None;
    };
    if markers.iter().flatten().any(|m| m.path().is_ident("needs")) {
        // `&String` is right here: the parameter's type is the key's type.
        method
            .attrs
            .push(syn::parse_quote!(#[allow(clippy::ptr_arg)]));
    }
    let (attr_name, http) = method_of(first).expect("partitioned by method_of");
    let mut ok = true;
    if let Some(second) = routes.get(1) {
        ok = false;
        let second_name = method_of(second).expect("partitioned by method_of").0;
        errors.spanned(
            second,
            format!(
                "`{name}` already answers `#[{attr_name}]`: one method answers one route, so \
                 write another method for `#[{second_name}]`"
            ),
        );
    }
    let args = attr::inside(first, attr_name)
        .and_then(|tokens| attr::parse(tokens, attr_name, &METHOD, first.span(), "/orders/{id}"));
    let args = errors.take(args);

    let sig = &method.sig;
    if errors.reject_generics(&sig.generics, GENERIC) {
        ok = false;
    }
    let mut params = Vec::new();
    // Where the body went, for a second `#[body]`: `` `order` ``, or a pattern's description.
    let mut body: Option<String> = None;
    // Where the request's context went: `` as `request` ``.
    let mut context: Option<String> = None;
    let mut context_name: Option<String> = None;
    // The needs that borrow from the request (lists and maps): index among the needs, type,
    // and the context's method that reads them.
    let mut borrowed: Vec<(usize, &Type, String)> = Vec::new();
    let mut need_count = 0;
    let names: Vec<Option<&Ident>> = sig.inputs.iter().map(param_name).collect();
    for ((input, markers), param_ident) in sig.inputs.iter().zip(&markers).zip(names) {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                ok = false;
                errors.spanned(
                    receiver,
                    "a route handler cannot take `self`: handlers are associated fns; put \
                     shared state in a provider and take it with `#[needs(\"key\")] state: &T`",
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let ty = &*typed.ty;
        if let Some(extra) = markers.get(1) {
            ok = false;
            errors.spanned(
                extra,
                "a parameter takes one of `#[needs(\"key\")]` and `#[body]`, once",
            );
            continue;
        }
        let param = match markers.first() {
            Some(marker) if marker.path().is_ident("needs") => needs_param(marker, ty),
            Some(marker) => body_param(marker, ty).and_then(|param| {
                if let Some(context) = &context {
                    return Err(syn::Error::new_spanned(
                        marker,
                        format!(
                            "`{name}` takes the request's context {context}, which carries \
                             the body: read it with `{context_name}.json()` (or `.bytes()`, \
                             `.text()`), or take `#[body]` without the context",
                            context_name = context_name.as_deref().unwrap_or("request"),
                        ),
                    ));
                }
                if let Some(earlier) = &body {
                    return Err(syn::Error::new_spanned(
                        marker,
                        format!(
                            "`{name}` already reads the body into {earlier}: a request has one \
                             body"
                        ),
                    ));
                }
                body = Some(param_ident.map_or_else(
                    || "an earlier parameter".to_owned(),
                    |ident| format!("`{ident}`"),
                ));
                Ok(param)
            }),
            None => plain_param(typed, ty).and_then(|param| {
                if !matches!(param, Param::Context) {
                    return Ok(param);
                }
                let this = param_ident.map_or_else(
                    || "in an earlier parameter".to_owned(),
                    |ident| format!("as `{ident}`"),
                );
                if let Some(context) = &context {
                    return Err(syn::Error::new_spanned(
                        ty,
                        format!("`{name}` already takes the request's context {context}"),
                    ));
                }
                if let Some(earlier) = &body {
                    return Err(syn::Error::new_spanned(
                        ty,
                        format!(
                            "`{name}` already reads the body into {earlier}, and the request's \
                             context carries the body: take one of them"
                        ),
                    ));
                }
                context = Some(this);
                context_name = param_ident.map(ToString::to_string);
                Ok(param)
            }),
        };
        match param {
            Ok(param) => {
                if let Param::Need { value, .. } = &param {
                    let read = match value.receive {
                        Receive::All => Some("need_all"),
                        Receive::ByName => Some("need_by_name"),
                        _ => None,
                    };
                    if let Some(read) = read {
                        let element = &value.ty;
                        let element = quote::quote!(#element).to_string().replace(' ', "");
                        borrowed.push((need_count, ty, format!("{read}::<{element}>")));
                    }
                    need_count += 1;
                }
                params.push(param);
            }
            Err(error) => {
                ok = false;
                errors.push(error);
            }
        }
    }
    // A context passed on by value cannot lend a list or a map to another parameter.
    if let Some(context) = &context {
        let context_name = context_name.as_deref().unwrap_or("request");
        for (index, ty, read) in borrowed {
            ok = false;
            errors.spanned(
                ty,
                format!(
                    "`{name}` takes the request's context {context}, and this need would borrow \
                     from it: read it from the context instead, \
                     `{context_name}.{read}({index})?`"
                ),
            );
        }
    }
    let output = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    let cfgs = method
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .cloned()
        .collect();
    let (true, Some(args)) = (ok, args) else {
        return None;
    };
    Some(Handler {
        method: Ident::new(http, Span::call_site()),
        args,
        name,
        is_async: sig.asyncness.is_some(),
        params,
        output,
        cfgs,
    })
}

const GENERIC: &str = "a route handler cannot be generic: the route calls one concrete fn";

/// Removes `#[needs]` and `#[body]` from every parameter; returns them per parameter.
fn strip_markers(method: &mut ImplItemFn) -> Vec<Vec<Attribute>> {
    method
        .sig
        .inputs
        .iter_mut()
        .map(|input| match input {
            FnArg::Typed(typed) => {
                let (markers, kept) = typed.attrs.drain(..).partition(is_marker);
                typed.attrs = kept;
                markers
            }
            FnArg::Receiver(receiver) => {
                let (markers, kept) = receiver.attrs.drain(..).partition(is_marker);
                receiver.attrs = kept;
                markers
            }
        })
        .collect()
}

/// `#[needs(...)]` or `#[body]`.
pub(super) fn is_marker(attr: &Attribute) -> bool {
    attr.path().is_ident("needs") || attr.path().is_ident("body")
}

fn param_name(input: &FnArg) -> Option<&Ident> {
    match input {
        FnArg::Typed(typed) => match &*typed.pat {
            syn::Pat::Ident(ident) => Some(&ident.ident),
            _ => None,
        },
        FnArg::Receiver(_) => None,
    }
}

fn needs_param(marker: &Attribute, ty: &Type) -> syn::Result<Param> {
    let key = match &marker.meta {
        syn::Meta::List(list) => list
            .parse_args::<LitStr>()
            .ok()
            .filter(|key| !key.value().is_empty()),
        _ => None,
    };
    let Some(key) = key else {
        return Err(syn::Error::new_spanned(
            marker,
            "`#[needs]` names the one key this parameter needs, as a string literal, like \
             `#[needs(\"billing\")]`",
        ));
    };
    if let Err(reason) = key::spelling(&key.value()) {
        return Err(syn::Error::new_spanned(&key, reason));
    }
    let value = types::need_param(ty, "a `#[needs]` parameter")?;
    if let Some(error) = types::shape_mismatch(&key, &value, ty) {
        return Err(error);
    }
    Ok(Param::Need { key, value })
}

fn body_param(marker: &Attribute, ty: &Type) -> syn::Result<Param> {
    if !matches!(marker.meta, syn::Meta::Path(_)) {
        return Err(syn::Error::new_spanned(
            marker,
            "`#[body]` takes no arguments: its parameter's type says how the body is read \
             (JSON into any `T: Deserialize`; the raw body for `String`, `Bytes` or `Vec<u8>`)",
        ));
    }
    let last = match types::unwrap_group(ty) {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .filter(|s| s.arguments.is_none())
            .map(|s| s.ident.to_string()),
        _ => None,
    };
    let is_byte_vec = match types::unwrap_group(ty) {
        Type::Path(path) => types::single_type_arg(path, "Vec").is_some_and(|item| {
            matches!(types::unwrap_group(item), Type::Path(item) if item.path.is_ident("u8"))
        }),
        _ => false,
    };
    let read = match last.as_deref() {
        Some("String") => BodyRead::Text,
        Some("Bytes") => BodyRead::Bytes,
        _ if is_byte_vec => BodyRead::Vec,
        _ => BodyRead::Json,
    };
    Ok(Param::Body {
        ty: ty.clone(),
        read,
    })
}

/// `RequestContext` (by its last segment: the macro sees no types).
fn is_context(ty: &Type) -> bool {
    match types::unwrap_group(ty) {
        Type::Path(path) => {
            types::last_ident_is(path, "RequestContext")
                && path
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.arguments.is_none())
        }
        _ => false,
    }
}

fn plain_param(typed: &syn::PatType, ty: &Type) -> syn::Result<Param> {
    if is_context(ty) {
        return Ok(Param::Context);
    }
    if let Type::Reference(reference) = types::unwrap_group(ty)
        && is_context(&reference.elem)
    {
        let pat = typed.pat.to_token_stream().to_string();
        return Err(syn::Error::new_spanned(
            ty,
            format!(
                "take the request's context by value, `{pat}: RequestContext`: the \
                     handler gets the request itself"
            ),
        ));
    }
    let (is_value, plain) = match types::unwrap_group(ty) {
        Type::Reference(_) => (true, true),
        Type::Path(path) => (
            types::is_need_path(path),
            types::single_type_arg(path, "Arc").is_some(),
        ),
        _ => (false, false),
    };
    if is_value {
        let pat = typed.pat.to_token_stream().to_string();
        let ty_text = ty
            .to_token_stream()
            .to_string()
            .replace(" <", "<")
            .replace("< ", "<");
        let ty_text = ty_text.replace(" >", ">").replace("& ", "&");
        let message = if plain {
            format!(
                "which key does `{pat}` need? A handler's `&T` and `Arc<T>` parameters are \
                 graph values: write `#[needs(\"key\")] {pat}: {ty_text}`"
            )
        } else {
            format!(
                "which key does `{pat}` need? A handler's `Option<&T>`, `All<'_, T>` and \
                 `ByName<'_, T>` parameters are graph values too: write \
                 `#[needs(\"key\")] {pat}: {}`",
                ty_text.replace(" ,", ",")
            )
        };
        return Err(syn::Error::new_spanned(ty, message));
    }
    Ok(Param::Extract(ty.clone()))
}
