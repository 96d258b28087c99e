//! `#[step]`: a fn of the request head, its needs and extractors becomes a `Step`. The fn stays
//! as written; a companion of the same name implements `Step` by calling it, and an
//! `inventory` registration lets `discover()` find it.

mod attr;
mod params;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Item, ItemFn};

use crate::emit::{self, Convert, Declared, FnKind};
use crate::errors::{self, Errors};
use crate::root::Root;
use crate::types::{self, Returns};
use params::{Head, Param};

/// Expands `#[step(attr)] item`. On error the item is emitted unchanged next to the errors.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let Ok(parsed) = syn::parse2::<Item>(item.clone()) else {
        // Not valid Rust: the compiler reports that itself, once, on the item as written.
        return item;
    };
    let args = attr::parse(attr);
    let expanded = match parsed {
        Item::Fn(item) => expand_fn(args, item),
        other => Err(errors::wrong_item(
            other,
            "#[step] goes on a `fn` or an `async fn`",
            args,
        )),
    };
    errors::or_item(expanded, item)
}

fn expand_fn(args: syn::Result<attr::Args>, item: ItemFn) -> syn::Result<TokenStream> {
    // Validate.
    let mut errors = Errors::default();
    let args = errors.take(args);
    let sig = &item.sig;
    errors.reject_generics(&sig.generics, GENERIC);
    if let Some(unsafety) = &sig.unsafety {
        errors.spanned(unsafety, "a step fn cannot be `unsafe`");
    }
    let params = params::read(&sig.inputs, &mut errors);
    if let (Some(args), Some((params, need_args))) = (&args, &params)
        && types::check_need_count(
            &sig.ident,
            need_args,
            &args.needs,
            ("`&T`/`Arc<T>` parameter", ""),
            &mut errors,
        )
    {
        let needed: Vec<_> = params.iter().filter_map(Param::need).cloned().collect();
        types::check_need_shapes(need_args, &needed, &args.needs, &mut errors);
    }
    let output = errors.take(types::output(
        sig,
        args.as_ref().map(|a| a.provides.len()),
        Returns::Step,
    ));
    errors.finish()?;
    let (Some(args), Some((params, _)), Some(output)) = (args, params, output) else {
        unreachable!("each missing part recorded an error");
    };

    // Expand. A step is the HTTP layer's, so it goes through the facade (whose `__private`
    // re-exports core's graph half: the descriptor, the needs, the probe, `DeclaredKey`).
    let root = Root::Facade;
    let name = &sig.ident;
    let name_text = name.to_string();
    let needed: Vec<_> = params.iter().filter_map(Param::need).cloned().collect();
    let declared = Declared::new(
        root,
        &name_text,
        name.span(),
        (&args.provides, &output),
        (&args.needs, &needed),
    )
    .when(&args.when);

    // Extractors run first, in order, while nothing borrows the head.
    let mut extract = TokenStream::new();
    let mut extracted = Vec::new();
    for (index, param) in params.iter().enumerate() {
        if let Param::Extract(ty) = param {
            let var = format_ident!("__extract{}", index);
            let run = emit::extract(ty, quote!(__parts));
            extract.extend(quote!(let #var = #run.await?;));
            extracted.push(var);
        }
    }
    let on_error = quote!(.map_err(::green_tea::__private::need_rejection));
    let (fetch, mut need_args) = emit::fetch_needs(root, &needed, &on_error);
    need_args.reverse();
    extracted.reverse();
    let args_passed = params.iter().map(|param| match param {
        Param::Head(Head::Parts) => quote!(&*__parts),
        Param::Head(Head::PartsMut) => quote!(&mut *__parts),
        Param::Head(Head::Field(field)) => quote!(&__parts.#field),
        Param::Need(_) => need_args.pop().expect("one argument per need"),
        Param::Extract(_) => {
            let var = extracted.pop().expect("one variable per extractor");
            quote!(#var)
        }
    });
    let await_call = sig.asyncness.map(|_| quote!(.await));
    // `located_at`: the call keeps this expansion's hygiene but is reported at the fn name.
    let call = emit::located_at(
        quote!(#name(#(#args_passed),*) #await_call),
        Span::call_site().located_at(name.span()),
    );
    let convert = Convert {
        ok: quote!(::green_tea::__private::step_ok),
        result: quote!(::green_tea::__private::step_result),
    };
    let pack = emit::pack_provided(root, &output, call, &convert);

    let descriptor = emit::descriptor_fn(&declared);
    // `finish`: each provided value finishes, through its type's `Finish` impl (a type that
    // has none is a compile error at its `value::<T>`, spanned at the fn's name).
    let finishing = args.finish.then(|| {
        let values = output.values.iter().enumerate().map(|(index, ty)| {
            emit::located_at(
                quote!(.value::<#ty>(#index)),
                Span::call_site().located_at(name.span()),
            )
        });
        quote! {
            fn finishing(&self) -> ::green_tea::__private::Finishing {
                ::green_tea::__private::Finishing::none() #(#values)*
            }
        }
    });
    let uses = emit::probe_traits(root);
    let state = emit::state_probe(&declared);
    let checked: Vec<_> = output
        .values
        .iter()
        .chain(needed.iter().map(|n| &n.ty))
        .cloned()
        .collect();
    let extractors: Vec<_> = params
        .iter()
        .filter_map(|p| match p {
            Param::Extract(ty) => Some(ty.clone()),
            _ => None,
        })
        .collect();
    // A synchronous step without extractors never waits: it answers at once, and costs no
    // allocation per request. Anything else is one boxed future.
    let run_body = if sig.asyncness.is_none() && extractors.is_empty() {
        quote! {
            // The error is a response: large, and returned once per request at most.
            #[allow(clippy::result_large_err)]
            let __run = || -> ::green_tea::__private::StepResult {
                let _ = (&__parts, &__needs);
                #fetch
                #pack
            };
            ::green_tea::__private::StepFuture::ready(__run())
        }
    } else {
        quote! {
            #state.step_future(async move {
                let _ = (&__parts, &__needs);
                #extract
                #fetch
                #pack
            })
        }
    };
    let checks = emit::checks(root, &checked, &extractors, None, &[]);
    let cfgs = emit::cfgs(&item.attrs);
    let (companion, self_ty) = emit::companion(&item.vis, name, &cfgs, FnKind::Step);
    let register = format!(".step({name_text}::step())");
    let declared_keys = emit::declared_keys(&declared, FnKind::Step, &register);

    Ok(quote! {
        // `&String` is right here: the parameter's type is the key's type.
        #[allow(clippy::ptr_arg)]
        #item

        #companion

        #(#cfgs)*
        impl ::green_tea::__private::Step for #self_ty {
            #descriptor

            #finishing

            fn run<'a>(
                &'a self,
                __parts: &'a mut ::green_tea::__private::Parts,
                __needs: ::green_tea::__private::Needs<'a>,
            ) -> ::green_tea::__private::StepFuture<'a> {
                #uses
                #run_body
            }
        }

        #(#cfgs)*
        #checks

        #(#cfgs)*
        ::green_tea::__private::inventory::submit! {
            ::green_tea::__private::StepRegistration {
                name: #name_text,
                module: ::std::module_path!(),
                make: || -> ::std::boxed::Box<dyn ::green_tea::__private::Step> {
                    ::std::boxed::Box::new(#self_ty::step())
                },
            }
        }

        #(#cfgs)*
        const _: () = {
            #declared_keys
        };
    })
}

const GENERIC: &str = "a step fn cannot be generic: the graph needs one concrete type per key, and the app one \
     step per name";
