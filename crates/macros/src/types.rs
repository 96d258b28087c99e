//! Reading signatures: graph values passed as `Arc<T>` or `&T` (and needs as `Option<&T>`,
//! `All<'_, T>` or `ByName<'_, T>`, as their keys' spellings ask), and return types as the
//! values a provider or step provides (`T`, `Result<T, E>`, tuples for several keys).

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, LitStr, PathArguments, ReturnType, Signature, Type, TypePath};

use crate::errors::Errors;
use crate::key::{self, Form};

/// How a value reaches a parameter.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    /// `Arc<T>`: the shared `Arc` itself.
    Arc,
    /// `&T`: a borrow of it.
    Ref,
}

/// A parameter that receives one graph value.
#[derive(Clone)]
pub(crate) struct ValueParam {
    /// The value's type `T`.
    pub(crate) ty: Type,
    /// How it is passed.
    pub(crate) pass: Pass,
}

/// How a parameter receives a need, by its type: the shape its key's spelling must have.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Receive {
    /// `Arc<T>` or `&T`: one value (`cache`, or the entry `stores{eu}`).
    One(Pass),
    /// `Option<Arc<T>>` or `Option<&T>`: an optional need (`cache?`).
    Optional(Pass),
    /// `All<'_, T>`: a list (`notifiers[]`).
    All,
    /// `ByName<'_, T>`: a map by name (`stores{}`).
    ByName,
}

/// A parameter that receives one need.
#[derive(Clone)]
pub(crate) struct NeedParam {
    /// The key's type `T`: the value's, or each contribution's for a list or a map.
    pub(crate) ty: Type,
    /// How it is received.
    pub(crate) receive: Receive,
}

/// Reads `Arc<T>` or `&T`; `role` names the parameter in the error ("a provider parameter").
pub(crate) fn value_param(ty: &Type, role: &str) -> syn::Result<ValueParam> {
    match unwrap_group(ty) {
        Type::Reference(reference) if reference.mutability.is_some() => {
            Err(syn::Error::new_spanned(
                ty,
                format!("{role} cannot be `&mut`: graph values are shared; take `&T` or `Arc<T>`"),
            ))
        }
        Type::Reference(reference) => sized(ValueParam {
            ty: (*reference.elem).clone(),
            pass: Pass::Ref,
        }),
        Type::Path(path) => match single_type_arg(path, "Arc") {
            Some(inner) => sized(ValueParam {
                ty: inner.clone(),
                pass: Pass::Arc,
            }),
            None => Err(wrong_param(ty, role)),
        },
        _ => Err(wrong_param(ty, role)),
    }
}

/// Reads a need's parameter: `Arc<T>` or `&T`, `Option<Arc<T>>` or `Option<&T>`,
/// `All<'_, T>` or `ByName<'_, T>` (each by its last path segment); `role` names the parameter
/// in the error.
pub(crate) fn need_param(ty: &Type, role: &str) -> syn::Result<NeedParam> {
    let Type::Path(path) = unwrap_group(ty) else {
        return value_param(ty, role).map(NeedParam::one);
    };
    if let Some(inner) = single_type_arg(path, "Option") {
        let optional = match unwrap_group(inner) {
            Type::Reference(r) if r.mutability.is_none() => value_param(inner, role).ok(),
            Type::Path(p) if single_type_arg(p, "Arc").is_some() => value_param(inner, role).ok(),
            _ => None,
        };
        return match optional {
            Some(value) => Ok(NeedParam {
                ty: value.ty,
                receive: Receive::Optional(value.pass),
            }),
            None => Err(syn::Error::new_spanned(
                ty,
                format!(
                    "{role} that is an `Option` must be `Option<&T>` or `Option<Arc<T>>`, \
                     where `T` is the type of the graph value"
                ),
            )),
        };
    }
    for (name, receive, what) in [
        ("All", Receive::All, "contribution to the list"),
        ("ByName", Receive::ByName, "entry of the map"),
    ] {
        if !last_ident_is(path, name) {
            continue;
        }
        let mut types = type_args(path);
        return match (types.next(), types.next()) {
            (Some(element), None) => sized(ValueParam {
                ty: element.clone(),
                pass: Pass::Ref,
            })
            .map(|value| NeedParam {
                ty: value.ty,
                receive,
            }),
            _ => Err(syn::Error::new_spanned(
                ty,
                format!("write `{name}<'_, T>`, where `T` is the type of each {what}"),
            )),
        };
    }
    value_param(ty, role).map(NeedParam::one)
}

/// Whether `path` names a need's type rather than an extractor's: `Arc<T>`, `Option<&T>`,
/// `Option<Arc<T>>`, `All<..>` or `ByName<..>` (by last path segment; any other `Option` is an
/// extractor's).
pub(crate) fn is_need_path(path: &TypePath) -> bool {
    if single_type_arg(path, "Arc").is_some() || last_ident_is(path, "All") {
        return true;
    }
    if last_ident_is(path, "ByName") {
        return true;
    }
    single_type_arg(path, "Option").is_some_and(|inner| match unwrap_group(inner) {
        Type::Reference(_) => true,
        Type::Path(inner) => single_type_arg(inner, "Arc").is_some(),
        _ => false,
    })
}

impl NeedParam {
    fn one(value: ValueParam) -> Self {
        NeedParam {
            ty: value.ty,
            receive: Receive::One(value.pass),
        }
    }
}

/// The error for a parameter `param` (of type `ty`) that does not receive what `key` spells,
/// naming the type it should take; `None` if it fits (or the key is not one, which its
/// literal reports).
pub(crate) fn shape_mismatch(key: &LitStr, param: &NeedParam, ty: &Type) -> Option<syn::Error> {
    let text = key.value();
    let (spelling, name) = key::spelled(&text).ok()?;
    let value = &param.ty;
    let value = quote!(#value).to_string().replace(' ', "");
    let message = match (spelling, param.receive) {
        (Form::One | Form::Entry, Receive::One(_))
        | (Form::Optional, Receive::Optional(_))
        | (Form::List, Receive::All)
        | (Form::Map, Receive::ByName) => return None,
        (Form::Optional, Receive::One(pass)) => {
            let taken = match pass {
                Pass::Ref => format!("Option<&{value}>"),
                Pass::Arc => format!("Option<Arc<{value}>>"),
            };
            format!(
                "`{text}` is an optional need, so its parameter is an `Option`, `None` when \
                 nothing provides `{name}`: take `{taken}`"
            )
        }
        (Form::Optional, _) => format!(
            "`{text}` is an optional need, so its parameter is `Option<&T>` or \
             `Option<Arc<T>>`, `None` when nothing provides `{name}`"
        ),
        (Form::List, _) => format!(
            "`{text}` is a list, so its parameter is `All<'_, T>`, every contribution in \
             registration order, where `T` is the type of each"
        ),
        (Form::Map, _) => format!(
            "`{text}` is a whole map, so its parameter is `ByName<'_, T>`, every entry by name, \
             where `T` is the type of each; for one entry, need `{name}{{eu}}` (its name in the \
             braces) as `&T` or `Arc<T>`"
        ),
        (Form::One, Receive::Optional(_)) => format!(
            "this parameter is an `Option`, but `{text}` is not an optional need: need \
             `\"{text}?\"`, `None` when nothing provides it, or take `&T` or `Arc<T>`"
        ),
        (Form::One, Receive::All) => format!(
            "`All<'_, T>` takes a list, and `{text}` is not one: need `\"{text}[]\"`, every \
             contribution to the list `{text}`, or take `&T` or `Arc<T>`"
        ),
        (Form::One, Receive::ByName) => format!(
            "`ByName<'_, T>` takes a whole map, and `{text}` is not one: need \
             `\"{text}{{}}\"`, every entry of the map `{text}`, or take `&T` or `Arc<T>`"
        ),
        (Form::Entry, Receive::Optional(_)) => format!(
            "this parameter is an `Option`, but `{text}` is not an optional need: take `&T` \
             or `Arc<T>`"
        ),
        (Form::Entry, _) => format!(
            "`{text}` is one entry of the map `{name}`: take it as `&T` or `Arc<T>`, or need \
             the whole map, `\"{name}{{}}\"`, as `ByName<'_, T>`"
        ),
    };
    Some(syn::Error::new_spanned(ty, message))
}

/// Records an error for each parameter of `params` that does not receive what its key in
/// `needs` spells (`needed`: what each receives, one per key, as `check_need_count` checked).
pub(crate) fn check_need_shapes(
    params: &[&FnArg],
    needed: &[NeedParam],
    needs: &[LitStr],
    errors: &mut Errors,
) {
    for ((param, need), key) in params.iter().zip(needed).zip(needs) {
        let ty = match param {
            FnArg::Typed(typed) => &*typed.ty,
            FnArg::Receiver(receiver) => &*receiver.ty,
        };
        if let Some(error) = shape_mismatch(key, need, ty) {
            errors.push(error);
        }
    }
}

/// `param`, unless its value type is one of the common unsized types, which no key can have.
fn sized(param: ValueParam) -> syn::Result<ValueParam> {
    let owned = match unwrap_group(&param.ty) {
        Type::Path(path) if path.qself.is_none() => {
            match path
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .as_deref()
            {
                Some("str") => "String",
                Some("Path") => "PathBuf",
                Some("OsStr") => "OsString",
                Some("CStr") => "CString",
                _ => return Ok(param),
            }
        }
        Type::Slice(_) => "Vec<T>",
        Type::TraitObject(_) => "Box<dyn Trait + Send + Sync>",
        _ => return Ok(param),
    };
    let ty = &param.ty;
    Err(syn::Error::new_spanned(
        ty,
        format!(
            "a key's type must be sized, and `{}` is not: provide a `{owned}` and take \
             `&{owned}` or `Arc<{owned}>`",
            quote!(#ty).to_string().replace(' ', "")
        ),
    ))
}

fn wrong_param(ty: &Type, role: &str) -> syn::Error {
    syn::Error::new_spanned(
        ty,
        format!("{role} must be `Arc<T>` or `&T`, where `T` is the type of the graph value"),
    )
}

/// Whose return type is read: it decides what returning nothing means.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Returns {
    /// A provider, which must provide something.
    Provider,
    /// A decorator, which returns the value in place of the one it decorates.
    Decorator,
    /// A step, which provides nothing when it is a guard.
    Step,
}

/// What a return type says is provided.
pub(crate) struct Output {
    /// Whether it returns a `Result`.
    pub(crate) fallible: bool,
    /// Where a bad error type is reported: the `E` of `Result<T, E>`, else the return type.
    pub(crate) error_span: proc_macro2::Span,
    /// One type per provided key, in order (none for a guard step).
    pub(crate) values: Vec<Type>,
}

/// Reads the return type of `sig`, which provides `key_count` keys (`None`: unknown, because
/// the attribute had errors).
pub(crate) fn output(
    sig: &Signature,
    key_count: Option<usize>,
    returns: Returns,
) -> syn::Result<Output> {
    let ident = &sig.ident;
    let guard = returns == Returns::Step && key_count == Some(0);
    let ReturnType::Type(_, written) = &sig.output else {
        // With an unknown key count (the attribute had errors), a step may be a guard.
        if guard || (returns == Returns::Step && key_count.is_none()) {
            return Ok(Output {
                fallible: false,
                error_span: ident.span(),
                values: Vec::new(),
            });
        }
        let message = match returns {
            Returns::Provider => format!(
                "`{ident}` returns nothing, but a provider must provide something: \
                 add a return type, `-> T` or `-> Result<T, E>`"
            ),
            Returns::Decorator => format!(
                "`{ident}` returns nothing, but a decorator returns the value that consumers get \
                 in place of the one it decorates: add a return type, `-> T` or `-> Result<T, E>`"
            ),
            Returns::Step => format!(
                "`{ident}` returns nothing, but `provides` lists {}: return {}, \
                 `-> T` or `-> Result<T, E>` (a guard, which provides nothing, has no \
                 `provides`)",
                plural(key_count.unwrap_or(1), "key"),
                if key_count == Some(1) {
                    "the value"
                } else {
                    "a tuple of the values"
                },
            ),
        };
        return Err(syn::Error::new_spanned(sig, message));
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
        _ if guard => match unwrap_group(&ok) {
            Type::Tuple(unit) if unit.elems.is_empty() => Vec::new(),
            _ => {
                return Err(syn::Error::new_spanned(
                    &ok,
                    format!(
                        "`{ident}` has no `provides`, so it is a guard, which returns `()` or \
                         `Result<(), E>`; to provide this value, name its key: \
                         `#[step(provides = \"key\")]`"
                    ),
                ));
            }
        },
        Some(count) if count > 1 => match unwrap_group(&ok) {
            Type::Tuple(tuple) if tuple.elems.len() == count => {
                tuple.elems.iter().cloned().collect()
            }
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
    let error_span = match &written {
        Type::Path(path) if fallible => type_args(path).nth(1).unwrap_or(&written).span(),
        _ => written.span(),
    };
    Ok(Output {
        fallible,
        error_span,
        values,
    })
}

/// `Self` replaced by `self_ty` everywhere in `tokens` (for code outside the impl).
pub(crate) fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenStream {
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
                let mut inner =
                    Group::new(group.delimiter(), replace_self(group.stream(), self_ty));
                inner.set_span(group.span());
                TokenStream::from(TokenTree::Group(inner))
            }
            other => TokenStream::from(other),
        })
        .collect()
}

pub(crate) fn unwrap_group(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => unwrap_group(&group.elem),
        Type::Paren(paren) => unwrap_group(&paren.elem),
        other => other,
    }
}

pub(crate) fn last_ident_is(path: &TypePath, name: &str) -> bool {
    path.qself.is_none() && path.path.segments.last().is_some_and(|s| s.ident == name)
}

fn first_type_arg(path: &TypePath) -> Option<&Type> {
    type_args(path).next()
}

pub(crate) fn type_args(path: &TypePath) -> impl Iterator<Item = &Type> {
    let args = match path.path.segments.last().map(|s| &s.arguments) {
        Some(PathArguments::AngleBracketed(args)) => Some(args.args.iter()),
        _ => None,
    };
    args.into_iter().flatten().filter_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

pub(crate) fn single_type_arg<'a>(path: &'a TypePath, name: &str) -> Option<&'a Type> {
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

/// Records an error unless `params` (the parameters that receive the needs) match `needs`
/// one for one, and says whether they do. `noun` is what such a parameter is called
/// (`parameter` for a provider); `after` says which are counted (` after the decorated value`
/// for a decorator, else nothing).
pub(crate) fn check_need_count(
    fn_name: &syn::Ident,
    params: &[&FnArg],
    needs: &[syn::LitStr],
    (noun, after): (&str, &str),
    errors: &mut Errors,
) -> bool {
    let (got, want) = (params.len(), needs.len());
    let counts = format!(
        "`{fn_name}` takes {}{after}, but `needs` lists {}",
        plural(got, noun),
        plural(want, "key")
    );
    if got > want {
        let extra = &params[want..];
        errors.spanned(
            quote!(#(#extra),*),
            format!(
                "{counts}: each {noun} receives one need, in order; add the key of each extra \
                 {noun} to `needs`"
            ),
        );
    } else if got < want {
        let extra = &needs[got..];
        errors.spanned(
            quote!(#(#extra),*),
            format!("{counts}: add a parameter (`Arc<T>` or `&T`) for each need, in order"),
        );
    }
    got == want
}

/// `1 key`, `2 keys`.
pub(crate) fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
