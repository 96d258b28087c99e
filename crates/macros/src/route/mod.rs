//! `#[route("/prefix")]` on an inherent impl block: every method marked `#[get("/path")]`,
//! `#[post]`, `#[put]`, `#[patch]` or `#[delete]` becomes a `Route` (with its `steps`,
//! `body_limit`, `layer`s and `when` conditions). The block stays as written minus those
//! attributes; `Type::routes()` lists the routes, and one `inventory` registration per route
//! lets `discover()` find them.

mod attr;
mod handler;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, Item, ItemImpl, Type};

use crate::emit;
use crate::errors::{self, Errors};
use crate::root::Root;
use crate::types::{self, Pass, Receive};
use handler::{BodyRead, Handler, Param};

/// Expands `#[route(attr)] item`. On error the block is emitted without the attributes this
/// macro reads, so one mistake is reported once instead of cascading through them.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let Ok(parsed) = syn::parse2::<Item>(item.clone()) else {
        return item;
    };
    let args = attr::parse(attr, "route", &attr::ROUTE, Span::call_site(), "/orders");
    match parsed {
        Item::Impl(block) => expand_impl(args, block),
        other => {
            let error = errors::wrong_item(
                &other,
                "#[route] goes on an inherent impl block whose methods are the handlers, like \
                 `#[route(\"/orders\")] impl Orders { #[get(\"/{id}\")] async fn show(...) }`",
                args,
            );
            errors::or_item(Err(error), item)
        }
    }
}

/// `#[get]` and the other method attributes on their own: they only mean something inside a
/// `#[route]` block, which strips them before they expand.
pub(crate) fn stray(name: &str, item: TokenStream) -> TokenStream {
    let message = format!(
        "`#[{name}]` marks a method of an impl block with `#[route(\"/prefix\")]`; put \
         `#[route(\"/\")]` (or the routes' common prefix) on the impl block, and make this fn \
         one of its methods"
    );
    let error = syn::Error::new(Span::call_site(), message).to_compile_error();
    // Without the parameter markers, which would otherwise be unknown attributes too.
    let item = match syn::parse2::<syn::ItemFn>(item.clone()) {
        Ok(mut function) => {
            for input in &mut function.sig.inputs {
                if let FnArg::Typed(typed) = input {
                    typed.attrs.retain(|a| !handler::is_marker(a));
                }
            }
            quote!(#function)
        }
        Err(_) => item,
    };
    quote!(#item #error)
}

fn expand_impl(args: syn::Result<attr::Args>, mut block: ItemImpl) -> TokenStream {
    let mut errors = Errors::default();
    let args = errors.take(args);
    let mut handlers = Vec::new();
    for entry in &mut block.items {
        if let ImplItem::Fn(method) = entry {
            handlers.extend(handler::read(method, &mut errors));
        }
    }
    if let Some((_, trait_path, _)) = &block.trait_ {
        errors.spanned(
            trait_path,
            "#[route] goes on an inherent impl block, like `impl Orders { ... }`, not on a \
             trait impl: its methods are the handlers",
        );
    }
    if !block.generics.params.is_empty() {
        errors.spanned(&block.generics, GENERIC_IMPL);
    } else if let Some(where_clause) = &block.generics.where_clause {
        errors.spanned(where_clause, GENERIC_IMPL);
    }
    let self_ty = &*block.self_ty;
    let type_name = match self_ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last().map(|s| &s.ident),
        _ => None,
    };
    if type_name.is_none() {
        errors.spanned(self_ty, "#[route] goes on the impl block of a named type");
    }
    for entry in &block.items {
        if let ImplItem::Fn(method) = entry
            && method.sig.ident == "routes"
        {
            errors.spanned(
                &method.sig.ident,
                format!(
                    "#[route] generates `{}::routes()`, which lists this block's routes; \
                         rename this `routes`",
                    quote!(#self_ty).to_string().replace(' ', "")
                ),
            );
        }
    }
    let result = errors.finish();
    let (Ok(()), Some(args), Some(type_name)) = (result.as_ref(), args, type_name) else {
        let error = result.err().map(|e| e.to_compile_error());
        return quote!(#block #error);
    };

    let type_text = type_name.to_string();
    let routes: Vec<TokenStream> = handlers
        .iter()
        .map(|handler| expand_route(handler, &args, self_ty, &type_text))
        .collect();
    let pushes = handlers.iter().map(|handler| {
        let cfgs = &handler.cfgs;
        let make = make_fn(handler);
        quote!(#(#cfgs)* __routes.push(#make());)
    });
    let count = handlers.len();
    let cfgs = emit::cfgs(&block.attrs);
    let routes_doc = "The routes of this `#[route]` block: pass them to `AppBuilder::routes` \
                      (or let `discover()` find them).";
    quote! {
        #block

        #(#cfgs)*
        const _: () = {
            #(#routes)*

            impl #self_ty {
                #[doc = #routes_doc]
                #[allow(unreachable_pub)]
                pub fn routes() -> ::std::vec::Vec<::green_tea::__private::Route> {
                    let mut __routes = ::std::vec::Vec::with_capacity(#count);
                    #(#pushes)*
                    __routes
                }
            }
        };
    }
}

const GENERIC_IMPL: &str =
    "a #[route] impl cannot be generic: each route calls one concrete handler";

fn make_fn(handler: &Handler) -> syn::Ident {
    format_ident!("__route_{}", handler.name)
}

/// The handler fn, the fn that makes the route, and its registration, for one method.
fn expand_route(
    handler: &Handler,
    block: &attr::Args,
    self_ty: &Type,
    type_name: &str,
) -> TokenStream {
    let method_name = &handler.name;
    let at_method = Span::call_site().located_at(method_name.span());
    let outside = |ty: &Type| -> Type {
        syn::parse2(types::replace_self(quote!(#ty), self_ty)).unwrap_or_else(|_| ty.clone())
    };

    // Reading the request: extractors in order (they need the head mutably), then the body
    // (the request mutably), then the needs, borrowed from the request for the call.
    let mut extract_reads = TokenStream::new();
    let mut body_read = TokenStream::new();
    let mut need_reads = TokenStream::new();
    let mut args = Vec::new();
    let mut needs = Vec::new();
    let mut checked = Vec::new();
    let mut extractors = Vec::new();
    let mut json_bodies = Vec::new();
    let into_reply = quote!(::green_tea::__private::IntoReply::into_reply);
    // The one parameter that may read the body, when no `#[body]` and no context does: the
    // last extractor. Every other extractor reads the head only.
    let takes_context = handler.params.iter().any(|p| matches!(p, Param::Context));
    let reads_body = takes_context
        || handler
            .params
            .iter()
            .any(|p| matches!(p, Param::Body { .. }));
    let body_extractor = handler
        .params
        .iter()
        .rposition(|p| matches!(p, Param::Extract(_)))
        .filter(|_| !reads_body);
    let mut last_extractor = None;
    for (index, param) in handler.params.iter().enumerate() {
        let var = format_ident!("__arg{}", index);
        match param {
            Param::Need { key, value } => {
                let ty = outside(&value.ty);
                let probe = emit::probe(Root::Facade, &ty);
                let need_index = proc_macro2::Literal::usize_unsuffixed(needs.len());
                // With the context passed on, a need cannot borrow from it: it is read as
                // its `Arc`, and a `&T` parameter borrows from that.
                let (read, arg) = match value.receive {
                    Receive::One(Pass::Arc) => (quote!(request_need), quote!(#var)),
                    Receive::One(Pass::Ref) if takes_context => {
                        (quote!(request_need), quote!(&*#var))
                    }
                    Receive::One(Pass::Ref) => (quote!(request_need_ref), quote!(#var)),
                    Receive::Optional(Pass::Arc) => (quote!(request_need_optional), quote!(#var)),
                    Receive::Optional(Pass::Ref) if takes_context => {
                        (quote!(request_need_optional), quote!(#var.as_deref()))
                    }
                    Receive::Optional(Pass::Ref) => {
                        (quote!(request_need_optional_ref), quote!(#var))
                    }
                    // Never with the context (`handler::read` refuses it): they borrow from it.
                    Receive::All => (quote!(request_need_all), quote!(#var)),
                    Receive::ByName => (quote!(request_need_by_name), quote!(#var)),
                };
                need_reads.extend(quote! {
                    let #var = match #probe.#read(&__request, #need_index) {
                        ::std::result::Result::Ok(value) => value,
                        ::std::result::Result::Err(rejection) => return #into_reply(rejection),
                    };
                });
                needs.push(quote!(let __route = #probe.route_needs(__route, #key);));
                checked.push(ty);
                args.push(arg);
            }
            Param::Context => args.push(quote!(__request)),
            Param::Extract(ty) if body_extractor == Some(index) => {
                let ty = outside(ty);
                let extract = emit::extract_last(&ty, quote!(&mut __request));
                extract_reads.extend(quote! {
                    let #var = match #extract.await {
                        ::std::result::Result::Ok(value) => value,
                        ::std::result::Result::Err(rejection) => {
                            return ::green_tea::__private::reply_of(rejection);
                        }
                    };
                });
                last_extractor = Some(ty);
                args.push(quote!(#var));
            }
            Param::Extract(ty) => {
                let ty = outside(ty);
                let extract = emit::extract(&ty, quote!(__request.parts_mut()));
                extract_reads.extend(quote! {
                    let #var = match #extract.await {
                        ::std::result::Result::Ok(value) => value,
                        ::std::result::Result::Err(rejection) => {
                            return ::green_tea::__private::reply_of(rejection);
                        }
                    };
                });
                extractors.push(ty);
                args.push(quote!(#var));
            }
            Param::Body { ty, read } => {
                let ty = outside(ty);
                let at = Span::call_site().located_at(ty.span());
                let call = match read {
                    // Through a probe: a type that is not `Deserialize` is reported once,
                    // by `checks`, and not again at the call and at its future.
                    BodyRead::Json => {
                        let probe = emit::probe(Root::Facade, &ty);
                        json_bodies.push(ty.clone());
                        quote_spanned!(at=> #probe.json_body(&mut __request))
                    }
                    BodyRead::Text => quote_spanned!(at=> __request.text()),
                    BodyRead::Bytes | BodyRead::Vec => quote_spanned!(at=> __request.bytes()),
                };
                let value = match read {
                    BodyRead::Vec => quote!(::std::vec::Vec::<u8>::from(value)),
                    _ => quote!(value),
                };
                body_read.extend(quote! {
                    let #var = match #call.await {
                        ::std::result::Result::Ok(value) => #value,
                        ::std::result::Result::Err(rejection) => return #into_reply(rejection),
                    };
                });
                args.push(quote!(#var));
            }
        }
    }
    let await_call = handler.is_async.then(|| quote!(.await));
    let call = emit::located_at(
        quote!(<#self_ty>::#method_name(#(#args),*) #await_call),
        at_method,
    );
    // The answer must be a response: reported once, at the return type. Then it becomes a
    // reply through a probe, so that green-tea's own answers (`Json`, `HttpError`, text) skip
    // the box `IntoResponse` puts around every body.
    // Reported at the method, as a call of it would be.
    let answer_ref = emit::located_at(quote!(&__answer), at_method);
    let assert_response = match &handler.output {
        Some(ty) => {
            let at = Span::call_site().located_at(ty.span());
            quote_spanned!(at=> ::green_tea::__private::assert_response)
        }
        None => quote!(::green_tea::__private::assert_response),
    };

    let http = &handler.method;
    let method = quote!(::green_tea::__private::Method::#http);
    let prefix = &block.path;
    let path = &handler.args.path;
    let steps = block.steps.iter().chain(&handler.args.steps);
    // The block's conditions, then the method's own (one the block has already is not
    // repeated): each a `Route::when` call, in the order written.
    let when = block.when.iter().chain(
        handler
            .args
            .when
            .iter()
            .filter(|own| block.when.iter().all(|b| b.value() != own.value())),
    );
    let body_limit = handler
        .args
        .body_limit
        .as_ref()
        .map(|limit| quote!(let __route = __route.body_limit(#limit);));
    // Each a `Route::layer` call, in the order written, the method's then the block's: each
    // wraps those before it. A layer that is not one is reported at it, call and all; outside
    // the impl block, `Self` is the type.
    let layers = handler
        .args
        .layers
        .iter()
        .chain(&block.layers)
        .map(|layer| {
            let at = layer.span();
            let call = emit::located_at(quote!(__route.layer), at);
            let mut arg = proc_macro2::Group::new(
                proc_macro2::Delimiter::Parenthesis,
                types::replace_self(quote!(#layer), self_ty),
            );
            arg.set_span(Span::call_site().located_at(at));
            quote!(let __route = #call #arg;)
        });
    let route_name = format!("{type_name}::{method_name}");
    let location = emit::location(Root::Facade, method_name.span());
    // Named like the method (inside the const block, it shadows nothing), so that "the future
    // returned by `count` is not `Send`" names the method.
    let mut handle_fn = method_name.clone();
    handle_fn.set_span(Span::call_site());
    let make = make_fn(handler);
    // Routed through a probe over the needs, so that a need that is not `Send + Sync` is
    // reported once, by `checks`, and not again as a future that is not `Send`.
    let held = checked
        .iter()
        .map(|ty| quote!(::std::marker::PhantomData<#ty>));
    let state = quote!((&&::green_tea::__private::TypeProbe::<(#(#held,)*)>::new()));
    let route_new = quote_spanned!(at_method=> route);
    let uses = emit::probe_traits(Root::Facade);
    let checks = emit::checks(
        Root::Facade,
        &checked,
        &extractors,
        last_extractor.as_ref(),
        &json_bodies,
    );
    let cfgs = &handler.cfgs;
    quote! {
        #(#cfgs)*
        // Not an `async fn`: its future would hold the request twice (the argument and its
        // rebinding); the block holds it once.
        #[allow(unused_mut)]
        fn #handle_fn(
            mut __request: ::green_tea::__private::RequestContext,
        ) -> impl ::std::future::Future<Output = ::green_tea::__private::Reply> {
            async move {
                #uses
                #extract_reads
                #body_read
                #need_reads
                let __answer = #call;
                #assert_response(#answer_ref);
                (&&&::green_tea::__private::probe_of(&__answer)).reply(__answer)
            }
        }

        #(#cfgs)*
        fn #make() -> ::green_tea::__private::Route {
            #uses
            let __route = #state.#route_new(
                #method,
                ::green_tea::__private::join_paths(#prefix, #path),
                #handle_fn,
            );
            #(#needs)*
            #(let __route = __route.step(#steps);)*
            #(let __route = __route.when(#when);)*
            #body_limit
            #(#layers)*
            __route.named(#route_name).at(#location)
        }

        #(#cfgs)*
        #checks

        #(#cfgs)*
        ::green_tea::__private::inventory::submit! {
            ::green_tea::__private::RouteRegistration {
                name: #route_name,
                module: ::std::module_path!(),
                make: #make,
            }
        }
    }
}
