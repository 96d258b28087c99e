//! Reading a provider's signature: parameters as needs (`Arc<T>` or `&T`), the return type as
//! the provided values (`T`, `Result<T, E>`, tuples for several keys).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{FnArg, GenericArgument, PathArguments, ReturnType, Signature, Type, TypePath};

/// How a value reaches a parameter.
#[derive(Clone, Copy)]
pub(super) enum Pass {
    /// `Arc<T>`: the shared `Arc` itself.
    Arc,
    /// `&T`: a borrow of it.
    Ref,
}

/// A parameter that receives one graph value.
pub(super) struct ValueParam {
    /// The value's type `T`.
    pub(super) ty: Type,
    /// How it is passed.
    pub(super) pass: Pass,
}

/// Reads `Arc<T>` or `&T`; `role` names the parameter in the error ("a provider parameter").
pub(super) fn value_param(ty: &Type, role: &str) -> syn::Result<ValueParam> {
    match unwrap_group(ty) {
        Type::Reference(reference) if reference.mutability.is_some() => Err(syn::Error::new_spanned(
            ty,
            format!("{role} cannot be `&mut`: graph values are shared; take `&T` or `Arc<T>`"),
        )),
        Type::Reference(reference) => Ok(ValueParam {
            ty: (*reference.elem).clone(),
            pass: Pass::Ref,
        }),
        Type::Path(path) => match single_type_arg(path, "Arc") {
            Some(inner) => Ok(ValueParam {
                ty: inner.clone(),
                pass: Pass::Arc,
            }),
            None => Err(wrong_param(ty, role)),
        },
        _ => Err(wrong_param(ty, role)),
    }
}

fn wrong_param(ty: &Type, role: &str) -> syn::Error {
    syn::Error::new_spanned(
        ty,
        format!("{role} must be `Arc<T>` or `&T`, where `T` is the type of the graph value"),
    )
}

/// The needs a fn's parameters receive, in order; `None` after recording an error for each
/// parameter that is `self` or not `Arc<T>`/`&T`.
pub(super) fn typed_params<'a>(
    inputs: impl IntoIterator<Item = &'a FnArg>,
    role: &str,
    errors: &mut super::errors::Errors,
) -> Option<Vec<ValueParam>> {
    let mut params = Vec::new();
    let mut ok = true;
    for input in inputs {
        match input {
            FnArg::Receiver(receiver) => {
                ok = false;
                errors.spanned(
                    receiver,
                    "a provider fn cannot take `self`: its parameters are its needs, each \
                     `Arc<T>` or `&T` (for provider state, put `#[provider]` on an impl block)",
                );
            }
            FnArg::Typed(typed) => match value_param(&typed.ty, role) {
                Ok(param) => params.push(param),
                Err(error) => {
                    ok = false;
                    errors.push(error);
                }
            },
        }
    }
    ok.then_some(params)
}

/// What a provider's return type says it provides.
pub(super) struct Output {
    /// Whether it returns a `Result`.
    pub(super) fallible: bool,
    /// The return type as written, for spans.
    pub(super) written: Type,
    /// One type per provided key, in order.
    pub(super) values: Vec<Type>,
}

/// Reads the return type of `sig`, which provides `key_count` keys (`None`: unknown, because
/// the attribute had errors).
pub(super) fn output(sig: &Signature, key_count: Option<usize>) -> syn::Result<Output> {
    let ReturnType::Type(_, written) = &sig.output else {
        let ident = &sig.ident;
        return Err(syn::Error::new_spanned(
            sig,
            format!(
                "`{ident}` returns nothing, but a provider must provide something: \
                 add a return type, `-> T` or `-> Result<T, E>`"
            ),
        ));
    };
    let written = (**written).clone();
    let (fallible, ok) = match &written {
        Type::Path(path) if last_ident_is(path, "Result") => match first_type_arg(path) {
            Some(ok) => (true, ok.clone()),
            None => {
                return Err(syn::Error::new_spanned(
                    &written,
                    "cannot see the value type of this `Result`: write `Result<T, E>`",
                ));
            }
        },
        other => (false, other.clone()),
    };
    let values = match key_count {
        Some(count) if count > 1 => match unwrap_group(&ok) {
            Type::Tuple(tuple) if tuple.elems.len() == count => tuple.elems.iter().cloned().collect(),
            other => {
                let found = match other {
                    Type::Tuple(tuple) => format!("a tuple of {}", tuple.elems.len()),
                    _ => "`".to_owned() + &quote!(#other).to_string() + "`",
                };
                return Err(syn::Error::new_spanned(
                    &ok,
                    format!(
                        "`provides` lists {count} keys, so this must be a tuple of {count} \
                         values, one per key in order; found {found}"
                    ),
                ));
            }
        },
        _ => vec![ok],
    };
    for value in &values {
        if let Type::ImplTrait(_) = unwrap_group(value) {
            return Err(syn::Error::new_spanned(
                value,
                "a provided value needs a type the graph can name; `impl Trait` has none \
                 (box it, like `Box<dyn Trait + Send + Sync>`, or name the concrete type)",
            ));
        }
    }
    Ok(Output {
        fallible,
        written,
        values,
    })
}

/// `Self` replaced by `self_ty` everywhere in `tokens` (for code outside the impl).
pub(super) fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) if ident == "Self" => {
                let span = ident.span();
                let replaced: TokenStream = quote!(#self_ty)
                    .into_iter()
                    .map(|mut tree| {
                        tree.set_span(span);
                        tree
                    })
                    .collect();
                TokenStream::from(TokenTree::Group(Group::new(
                    proc_macro2::Delimiter::None,
                    replaced,
                )))
            }
            TokenTree::Group(group) => {
                let mut inner = Group::new(
                    group.delimiter(),
                    replace_self(group.stream(), self_ty),
                );
                inner.set_span(group.span());
                TokenStream::from(TokenTree::Group(inner))
            }
            other => TokenStream::from(other),
        })
        .collect()
}

fn unwrap_group(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => unwrap_group(&group.elem),
        Type::Paren(paren) => unwrap_group(&paren.elem),
        other => other,
    }
}

fn last_ident_is(path: &TypePath, name: &str) -> bool {
    path.qself.is_none() && path.path.segments.last().is_some_and(|s| s.ident == name)
}

fn first_type_arg(path: &TypePath) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = &path.path.segments.last()?.arguments else {
        return None;
    };
    args.args.iter().find_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

fn single_type_arg<'a>(path: &'a TypePath, name: &str) -> Option<&'a Type> {
    if !last_ident_is(path, name) {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &path.path.segments.last()?.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>()[..] {
        [GenericArgument::Type(ty)] => Some(ty),
        _ => None,
    }
}
