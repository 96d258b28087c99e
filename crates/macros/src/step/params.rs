//! A step's parameters, read by type: the request head (`&Parts`, `&mut Parts`, `&HeaderMap`,
//! `&Method`, `&Uri`), needs (`&T` or `Arc<T>`; `Option<&T>`, `Option<Arc<T>>`, `All<'_, T>`
//! and `ByName<'_, T>` for needs spelled `key?`, `key[]` and `key{}`; in `needs` order) and
//! extractors (any other owned type, through axum-core's `FromRequestParts`).

use syn::{FnArg, Ident, Type};

use crate::errors::Errors;
use crate::types::{self, NeedParam};

/// What one parameter receives.
pub(super) enum Param {
    /// A borrow of the request head, or of one of its fields.
    Head(Head),
    /// The next need.
    Need(NeedParam),
    /// An extractor run on the request head; the type as written.
    Extract(Type),
}

impl Param {
    /// The need it receives, if it receives one.
    pub(super) fn need(&self) -> Option<&NeedParam> {
        match self {
            Param::Need(need) => Some(need),
            _ => None,
        }
    }
}

/// Which part of the request head a parameter borrows.
pub(super) enum Head {
    /// `&Parts`.
    Parts,
    /// `&mut Parts`.
    PartsMut,
    /// `&HeaderMap`, `&Method` or `&Uri`: the field of `Parts`.
    Field(Ident),
}

/// The head types a `&` parameter may name, with the field of `Parts` each one is.
const FIELDS: [(&str, &str); 3] = [
    ("HeaderMap", "headers"),
    ("Method", "method"),
    ("Uri", "uri"),
];

/// Reads every parameter, recording an error for each one that cannot be a step parameter;
/// `None` if there was one. The `&T`/`Arc<T>` parameters are returned too, to count them.
pub(super) fn read<'a>(
    inputs: impl IntoIterator<Item = &'a FnArg>,
    errors: &mut Errors,
) -> Option<(Vec<Param>, Vec<&'a FnArg>)> {
    let mut params = Vec::new();
    let mut need_args = Vec::new();
    let mut ok = true;
    // The first parameter that borrows the head, and whether it borrows it mutably.
    let mut head_borrow: Option<bool> = None;
    for input in inputs {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                ok = false;
                errors.spanned(
                    receiver,
                    "a step fn cannot take `self`: its parameters are the request head \
                     (`&Parts`, `&HeaderMap`, ...), its needs (`&T` or `Arc<T>`) and extractors",
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let ty = &*typed.ty;
        let param = match classify(ty) {
            Ok(param) => param,
            Err(error) => {
                ok = false;
                errors.push(error);
                continue;
            }
        };
        if let Param::Head(head) = &param {
            let mutable = matches!(head, Head::PartsMut);
            match head_borrow {
                Some(earlier_mutable) if mutable || earlier_mutable => {
                    ok = false;
                    errors.spanned(
                        ty,
                        "`&mut Parts` is the whole request head, so a step that takes it \
                         cannot also borrow the head elsewhere: read `parts.headers`, \
                         `parts.method` and `parts.uri` from it instead",
                    );
                    continue;
                }
                _ => head_borrow = Some(head_borrow.unwrap_or(false) || mutable),
            }
        }
        if let Param::Need(_) = &param {
            need_args.push(input);
        }
        params.push(param);
    }
    ok.then_some((params, need_args))
}

fn classify(ty: &Type) -> syn::Result<Param> {
    match types::unwrap_group(ty) {
        Type::Reference(reference) => {
            let head = head_type(&reference.elem);
            match (reference.mutability.is_some(), head) {
                (true, Some(None)) => Ok(Param::Head(Head::PartsMut)),
                (true, _) => Err(syn::Error::new_spanned(
                    ty,
                    "a step cannot take `&mut` of anything but the request head: take \
                     `&mut Parts` to change it (its `headers`, `extensions`, ...); needs are \
                     shared, so take them as `&T` or `Arc<T>`",
                )),
                (false, Some(None)) => Ok(Param::Head(Head::Parts)),
                (false, Some(Some(field))) => Ok(Param::Head(Head::Field(field))),
                (false, None) => types::need_param(ty, "a step's need").map(Param::Need),
            }
        }
        Type::Path(path) if types::is_need_path(path) => {
            types::need_param(ty, "a step's need").map(Param::Need)
        }
        Type::Path(_) | Type::Tuple(_) | Type::Array(_) => Ok(Param::Extract(ty.clone())),
        _ => Err(syn::Error::new_spanned(
            ty,
            "a step parameter is the request head (`&Parts`, `&mut Parts`, `&HeaderMap`, \
             `&Method`, `&Uri`), a need (`&T` or `Arc<T>`), or an extractor (a type that \
             implements axum-core's `FromRequestParts`, like `Query<T>`); this is none of them",
        )),
    }
}

/// `Some(None)` for `Parts`, `Some(Some(field))` for a head field's type, `None` otherwise;
/// recognised by the last path segment.
fn head_type(ty: &Type) -> Option<Option<Ident>> {
    let Type::Path(path) = types::unwrap_group(ty) else {
        return None;
    };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if !last.arguments.is_none() {
        return None;
    }
    if last.ident == "Parts" {
        return Some(None);
    }
    FIELDS
        .iter()
        .find(|(name, _)| last.ident == name)
        .map(|(_, field)| Some(Ident::new(field, last.ident.span())))
}
