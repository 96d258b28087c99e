//! Tokens every macro emits: descriptors, type probes and the checks behind them, fetching
//! needs, packing provided values, and the struct that stands for a fn. Every path is
//! absolute, through the `__private` of the expansion's `Root` (the facade's, or core's for a
//! provider of a crate that depends on core alone), so the user's imports never matter.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitStr, Type, Visibility};

use crate::root::Root;
use crate::types::{NeedParam, Output, Pass, Receive};

/// What a provider's or step's descriptor says.
pub(crate) struct Declared<'a> {
    /// Whose `__private` the declaration's expansion names.
    pub(crate) root: Root,
    /// The name users read: the fn or type name.
    pub(crate) name: &'a str,
    /// Where `file!()`/`line!()` should point.
    pub(crate) location: Span,
    /// Provided keys with their value types, in order.
    pub(crate) provides: Vec<(&'a LitStr, &'a Type)>,
    /// Needed keys with their value types, in order.
    pub(crate) needs: Vec<(&'a LitStr, &'a Type)>,
    /// The declarations it comes after, by name (`after = [...]`).
    pub(crate) after: &'a [LitStr],
    /// The conditions it is on under, all of which must hold (`when = [...]`).
    pub(crate) when: &'a [LitStr],
}

impl<'a> Declared<'a> {
    /// The descriptor of `name`: the attribute's `provides` keys with the output's value types,
    /// its `needs` keys with the needed parameters' types.
    pub(crate) fn new(
        root: Root,
        name: &'a str,
        location: Span,
        (provides, output): (&'a [LitStr], &'a Output),
        (needs, needed): (&'a [LitStr], &'a [NeedParam]),
    ) -> Self {
        Declared {
            root,
            name,
            location,
            provides: provides.iter().zip(&output.values).collect(),
            needs: needs.iter().zip(needed.iter().map(|n| &n.ty)).collect(),
            after: &[],
            when: &[],
        }
    }

    /// Puts it after the declarations named in `after`.
    pub(crate) fn after(self, after: &'a [LitStr]) -> Self {
        Declared { after, ..self }
    }

    /// Puts it under the conditions in `when`.
    pub(crate) fn when(self, when: &'a [LitStr]) -> Self {
        Declared { when, ..self }
    }
}

/// The traits that give `TypeProbe` its methods; every fn body that uses a probe starts so.
/// Core's give it the graph's operations; the facade's add the HTTP layer's (steps' futures,
/// extractors, routes), which core's `__private` does not have.
pub(crate) fn probe_traits(root: Root) -> TokenStream {
    let http = match root {
        Root::Facade => quote! {
            AnyReply as _, BodyExtractor as _, Extractor as _, JsonBody as _, NotAJsonBody as _,
            NotAReply as _, NotARouteValue as _, NotAnExtractor as _, NotAnyExtractor as _,
            OwnReply as _, PartsExtractor as _, ReadBody as _, ReadHead as _, ReadNothing as _,
            RefusedExtractor as _, RouteValue as _, SharedRoute as _, SharedStepState as _,
            UnsharedRoute as _, UnsharedStepState as _,
        },
        Root::Core => TokenStream::new(),
    };
    quote! {
        #[allow(unused_imports)]
        use #root::{
            GraphValue as _, NotAGraphValue as _, SharedProviderState as _,
            UnsharedProviderState as _, ValueIsAny as _, ValueIsSendSync as _, ValueIsSync as _,
            #http
        };
    }
}

/// `TypeProbe::<ty>`, whose methods do `ty`'s graph operations without repeating an error
/// that `checks` reports (see core's `__private::probe`).
pub(crate) fn probe(root: Root, ty: &Type) -> TokenStream {
    quote!((&&#root::TypeProbe::<#ty>::new()))
}

/// `TypeProbe::<(Self, PhantomData<T>...)>` over everything a future holds, whose
/// `provider_future` and `step_future` report nothing when one of those is not
/// `Send + Sync`: `checks` (or a trait's `Send + Sync` bound) already reports it, once.
pub(crate) fn state_probe(declared: &Declared<'_>) -> TokenStream {
    let held = declared
        .provides
        .iter()
        .chain(&declared.needs)
        .map(|(_, ty)| quote!(::std::marker::PhantomData<#ty>));
    let root = declared.root;
    quote!((&&#root::TypeProbe::<(Self, #(#held,)*)>::new()))
}

/// `fn descriptor(&self)` of a `Provider` or `Step` impl.
pub(crate) fn descriptor_fn(declared: &Declared<'_>) -> TokenStream {
    let (root, name) = (declared.root, declared.name);
    let uses = probe_traits(root);
    let provides = declared.provides.iter().map(|(key, ty)| {
        let probe = probe(root, ty);
        quote!(let __descriptor = #probe.provides(__descriptor, #key);)
    });
    let needs = declared.needs.iter().map(|(key, ty)| {
        let probe = probe(root, ty);
        quote!(let __descriptor = #probe.needs(__descriptor, #key);)
    });
    let (after, when) = (declared.after, declared.when);
    let location = location(root, declared.location);
    quote! {
        fn descriptor(&self) -> #root::Descriptor {
            #uses
            let __descriptor = #root::Descriptor::new(#name);
            #(#provides)*
            #(#needs)*
            #(let __descriptor = __descriptor.after(#after);)*
            #(let __descriptor = __descriptor.when(#when);)*
            __descriptor.at(#location)
        }
    }
}

/// `Location::new(file!(), line!(), column!())` of the code at `span`.
pub(crate) fn location(root: Root, span: Span) -> TokenStream {
    let private = root.at(span);
    quote_spanned! {span=>
        #private::Location::new(::std::file!(), ::std::line!(), ::std::column!())
    }
}

/// `let` statements taking each need out of `__needs` (a `&T`, an `Option<&T>`, an `All` or a
/// `ByName` borrowed from it, an `Arc<T>` cloned), and the arguments that pass them on.
/// `on_error` turns a `NeedError` into the caller's error (nothing: `?` converts it).
pub(crate) fn fetch_needs(
    root: Root,
    needed: &[NeedParam],
    on_error: &TokenStream,
) -> (TokenStream, Vec<TokenStream>) {
    let mut lets = TokenStream::new();
    let mut args = Vec::new();
    for (index, param) in needed.iter().enumerate() {
        let var = format_ident!("__need{}", index);
        let ty = &param.ty;
        let index = Literal::usize_unsuffixed(index);
        let probe = probe(root, ty);
        let read = match param.receive {
            Receive::One(Pass::Arc) => quote!(need),
            Receive::One(Pass::Ref) => quote!(need_ref),
            Receive::Optional(Pass::Arc) => quote!(need_optional),
            Receive::Optional(Pass::Ref) => quote!(need_optional_ref),
            Receive::All => quote!(need_all),
            Receive::ByName => quote!(need_by_name),
        };
        lets.extend(quote!(let #var = #probe.#read(&__needs, #index) #on_error ?;));
        args.push(quote!(#var));
    }
    (lets, args)
}

/// The argument that passes `var` (an `Arc<T>`) as `how` says.
pub(crate) fn pass(var: &Ident, how: Pass) -> TokenStream {
    match how {
        Pass::Arc => quote!(#var),
        Pass::Ref => quote!(&*#var),
    }
}

/// How a returned value becomes `Result<T, Error>`: `ok` for a plain value, `result` for a
/// `Result<T, E>` (whose `E` bound is reported at `E`).
pub(crate) struct Convert {
    pub(crate) ok: TokenStream,
    pub(crate) result: TokenStream,
}

/// The end of `provide` or `run`: turns what `call` returns into `Ok(Provided)`, one value per
/// key (a guard's `()` into an empty `Provided`).
pub(crate) fn pack_provided(
    root: Root,
    output: &Output,
    call: TokenStream,
    convert: &Convert,
) -> TokenStream {
    // Both spanned at the error type, so a bad one is reported there (`located_at` keeps
    // the local variable's hygiene).
    let at_error = Span::call_site().located_at(output.error_span);
    let convert = if output.fallible {
        located_at(convert.result.clone(), at_error)
    } else {
        convert.ok.clone()
    };
    if output.values.is_empty() {
        return quote! {
            #convert(#call)?;
            ::std::result::Result::Ok(#root::Provided::new())
        };
    }
    let returned = quote_spanned!(at_error=> __returned);
    let vars: Vec<_> = (0..output.values.len())
        .map(|i| format_ident!("__value{}", i))
        .collect();
    let pattern = match &vars[..] {
        [single] => quote!(#single),
        many => quote!((#(#many),*)),
    };
    let with = vars.iter().zip(&output.values).map(|(var, ty)| {
        let probe = probe(root, ty);
        quote!(let __provided = #probe.with(__provided, #var);)
    });
    quote! {
        let #returned = #call;
        let #pattern = #convert(#returned)?;
        let __provided = #root::Provided::new();
        #(#with)*
        ::std::result::Result::Ok(__provided)
    }
}

/// `tokens` reported at `span`, keeping their hygiene.
pub(crate) fn located_at(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), located_at(group.stream(), span));
                inner.set_span(group.span().located_at(span));
                tree = inner.into();
            } else {
                tree.set_span(tree.span().located_at(span));
            }
            tree
        })
        .collect()
}

/// Compile-time checks that every graph value is `Send + Sync + 'static`, every extractor
/// an extractor of the request head (`extractors`) or of the head and body (`body_extractor`,
/// a handler's last), and none of axum's router extractors, each spanned at its type so the
/// one error it may raise points there.
pub(crate) fn checks(
    root: Root,
    values: &[Type],
    extractors: &[Type],
    body_extractor: Option<&Type>,
    json_bodies: &[Type],
) -> TokenStream {
    let uses = probe_traits(root);
    let checks = values.iter().map(|ty| {
        // The probe picks the `check` that can fail for this type, and the error points at
        // the type (at its first token: a span cannot be widened on stable).
        let private = root.at(ty.span());
        quote_spanned! {ty.span()=>
            (&&&#private::TypeProbe::<#ty>::new()).check();
        }
    });
    let extractors = extractors.iter().map(|ty| {
        let private = root.at(ty.span());
        quote_spanned! {ty.span()=>
            let _: #private::RouterCheck<'_> = (&&&&#private::TypeProbe::<#ty>::new()).check_extractor();
        }
    });
    let body_extractor = body_extractor.map(|ty| {
        let private = root.at(ty.span());
        quote_spanned! {ty.span()=>
            let _: #private::RouterCheck<'_> = (&&&&#private::TypeProbe::<#ty>::new()).check_last_extractor();
        }
    });
    let json_bodies = json_bodies.iter().map(|ty| {
        let private = root.at(ty.span());
        quote_spanned! {ty.span()=>
            #private::assert_json_body::<#ty>();
        }
    });
    quote! {
        const _: () = {
            #[allow(dead_code)]
            fn __check() {
                #uses
                #(#checks)*
                #(#extractors)*
                #body_extractor
                #(#json_bodies)*
            }
        };
    }
}

/// `(&&TypeProbe::<ty>::new()).extract(parts)`: the extractor's future, or a stand-in when
/// `checks` reports that `ty` is not one.
pub(crate) fn extract(ty: &Type, parts: TokenStream) -> TokenStream {
    let probe = probe(Root::Facade, ty);
    quote!(#probe.extract(#parts))
}

/// `(&&&TypeProbe::<ty>::new()).extract_last(request)`: a handler's last extractor, which
/// reads the head if it is a head extractor and the head and body if it is a body extractor.
pub(crate) fn extract_last(ty: &Type, request: TokenStream) -> TokenStream {
    let root = Root::Facade;
    quote!((&&&#root::TypeProbe::<#ty>::new()).extract_last(#request))
}

/// The `#[cfg]` attributes among `attrs`, to repeat on everything generated for the item.
pub(crate) fn cfgs(attrs: &[Attribute]) -> Vec<&Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("cfg")).collect()
}

/// What a `#[provider]`, `#[decorator]`, `#[step]` or `#[worker]` fn is declared as, and
/// registered with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum FnKind {
    Provider,
    Decorator,
    Step,
    Worker,
}

impl FnKind {
    /// `provider`: the companion's constructor, and the builder method that registers it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            FnKind::Provider => "provider",
            FnKind::Decorator => "decorator",
            FnKind::Step => "step",
            FnKind::Worker => "worker",
        }
    }
}

/// The companion of the fn `name`: a type of the same name in a hidden module, with
/// `name::provider()` (or `name::step()`) making it, glob-imported next to the fn. The fn keeps
/// its name in the value namespace; the type is in the type namespace, so bindings named like
/// the fn stay bindings; and a glob import gives way to any type or module of the same name
/// the user declares, so it never collides. Returns the items and the path of the type.
pub(crate) fn companion(
    vis: &Visibility,
    name: &Ident,
    cfgs: &[&Attribute],
    kind: FnKind,
) -> (TokenStream, TokenStream) {
    let module = format_ident!("__green_tea_{}", name.unraw());
    let inner_vis = inner_visibility(vis);
    let word = kind.word();
    let constructor = Ident::new(word, Span::call_site());
    let doc = format!(
        "The {word} declared by the fn `{name}`: register it with `.{word}({name}::{word}())`."
    );
    let make_doc =
        format!("The {word} declared by the fn `{name}`, to register with `.{word}(...)`.");
    let items = quote! {
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_snake_case)]
        #vis mod #module {
            #[doc = #doc]
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug, Default)]
            #inner_vis struct #name {}

            impl #name {
                #[doc = #make_doc]
                #[allow(dead_code)]
                #inner_vis const fn #constructor() -> Self {
                    #name {}
                }
            }
        }

        #(#cfgs)*
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #module::*;
    };
    (items, quote!(#module::#name))
}

/// The visibility, inside the companion's module, of what the fn's visibility `vis` reaches:
/// one module further in, so relative paths gain a `super`.
fn inner_visibility(vis: &Visibility) -> TokenStream {
    match vis {
        Visibility::Public(_) => quote!(#vis),
        Visibility::Inherited => quote!(pub(super)),
        Visibility::Restricted(restricted) => {
            let path = &restricted.path;
            let first = path.segments.first().map(|s| s.ident.to_string());
            match first.as_deref() {
                Some("crate") => quote!(#vis),
                Some("self") if path.segments.len() == 1 => quote!(pub(super)),
                Some("self") => {
                    let rest = path.segments.iter().skip(1);
                    quote!(pub(in super #(::#rest)*))
                }
                _ => quote!(pub(in super::#path)),
            }
        }
    }
}

/// One `DeclaredKey` per provided key, so that `build()` can say of a missing key that this
/// declaration provides it but was not registered (`register` says how to register it).
pub(crate) fn declared_keys(declared: &Declared<'_>, kind: FnKind, register: &str) -> TokenStream {
    let (root, name) = (declared.root, declared.name);
    let location = location(root, declared.location);
    let kind = match kind {
        FnKind::Provider => quote!(Provider),
        FnKind::Decorator => quote!(Decorator),
        FnKind::Step => quote!(Step),
        FnKind::Worker => quote!(Worker),
    };
    let when = declared.when;
    let submits = declared.provides.iter().map(|(key, _)| {
        quote! {
            #root::inventory::submit! {
                #root::DeclaredKey {
                    key: #key,
                    kind: #root::NodeKind::#kind,
                    name: #name,
                    location: #location,
                    register: #register,
                    when: &[#(#when),*],
                }
            }
        }
    });
    quote!(#(#submits)*)
}
