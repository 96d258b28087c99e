//! The tokens both forms emit: the descriptor, fetching needs, packing provided values, the
//! compile-time checks and the inventory registration. Every path is absolute, through
//! `::green_tea::__private`, so the user's imports never matter.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{LitStr, Type};

use super::signature::{Output, Pass, ValueParam};

/// What the descriptor says about a provider.
pub(super) struct Declared<'a> {
    /// The name users read: the fn or type name.
    pub(super) name: &'a str,
    /// Where `file!()`/`line!()` should point.
    pub(super) location: Span,
    /// Provided keys with their value types, in order.
    pub(super) provides: Vec<(&'a LitStr, &'a Type)>,
    /// Needed keys with their value types, in order.
    pub(super) needs: Vec<(&'a LitStr, &'a Type)>,
}

/// `fn descriptor(&self)` of the `Provider` impl.
pub(super) fn descriptor_fn(declared: &Declared<'_>) -> TokenStream {
    let name = declared.name;
    let provides = declared
        .provides
        .iter()
        .map(|(key, ty)| quote!(.provides::<#ty>(#key)));
    let needs = declared
        .needs
        .iter()
        .map(|(key, ty)| quote!(.needs::<#ty>(#key)));
    let location = quote_spanned! {declared.location=>
        ::green_tea::__private::Location::new(::std::file!(), ::std::line!(), ::std::column!())
    };
    quote! {
        fn descriptor(&self) -> ::green_tea::__private::ProviderDescriptor {
            ::green_tea::__private::ProviderDescriptor::new(#name)
                #(#provides)*
                #(#needs)*
                .at(#location)
        }
    }
}

/// `let` statements taking each need out of `__needs`, and the arguments that pass them on.
pub(super) fn fetch_needs(needed: &[ValueParam]) -> (TokenStream, Vec<TokenStream>) {
    let mut lets = TokenStream::new();
    let mut args = Vec::new();
    for (index, param) in needed.iter().enumerate() {
        let var = format_ident!("__need{}", index);
        let ty = &param.ty;
        let index = Literal::usize_unsuffixed(index);
        lets.extend(quote!(let #var = __needs.get::<#ty>(#index)?;));
        args.push(pass(&var, param.pass));
    }
    (lets, args)
}

/// `let` statements taking each provided value out of `__provided` (for `dispose`), and the
/// arguments that pass them on. A missing value is an error, not a panic.
pub(super) fn fetch_provided(
    name: &str,
    provided: &[(&LitStr, &Type, Pass)],
) -> (TokenStream, Vec<TokenStream>) {
    let mut lets = TokenStream::new();
    let mut args = Vec::new();
    for (index, (key, ty, how)) in provided.iter().enumerate() {
        let var = format_ident!("__provided{}", index);
        let missing = format!(
            "`{name}` cannot dispose `{}`: it is missing from what `provide` returned",
            key.value()
        );
        let index = Literal::usize_unsuffixed(index);
        lets.extend(quote! {
            let #var = __provided.get::<#ty>(#index).ok_or_else(|| {
                ::green_tea::__private::BoxError::from(#missing)
            })?;
        });
        args.push(pass(&var, *how));
    }
    (lets, args)
}

fn pass(var: &syn::Ident, how: Pass) -> TokenStream {
    match how {
        Pass::Arc => quote!(#var),
        Pass::Ref => quote!(&*#var),
    }
}

/// The end of `provide`: turns what `call` returns into `Ok(Provided)`, one value per key.
pub(super) fn pack_provided(output: &Output, call: TokenStream) -> TokenStream {
    let convert = if output.fallible {
        // Spanned at the return type: a bad error type is reported there.
        quote_spanned!(output.written.span()=> ::green_tea::__private::provide_result)
    } else {
        quote!(::green_tea::__private::provide_ok)
    };
    let vars: Vec<_> = (0..output.values.len())
        .map(|i| format_ident!("__value{}", i))
        .collect();
    let pattern = match &vars[..] {
        [single] => quote!(#single),
        many => quote!((#(#many),*)),
    };
    quote! {
        let #pattern = #convert(#call)?;
        ::std::result::Result::Ok(::green_tea::__private::Provided::new() #(.with(#vars))*)
    }
}

/// Compile-time checks, each spanned at the type it checks so the error points there.
pub(super) fn checks(state: Option<&Type>, values: &[Type]) -> TokenStream {
    let state = state.map(|ty| {
        quote_spanned!(ty.span()=> ::green_tea::__private::assert_provider_state::<#ty>();)
    });
    let values = values
        .iter()
        .map(|ty| quote_spanned!(ty.span()=> ::green_tea::__private::assert_value::<#ty>();));
    quote! {
        const _: () = {
            #[allow(dead_code)]
            fn __check() {
                #state
                #(#values)*
            }
        };
    }
}

/// The `inventory` registration that `ContainerBuilder::discover` collects.
pub(super) fn registration(name: &str, make: TokenStream) -> TokenStream {
    quote! {
        ::green_tea::__private::inventory::submit! {
            ::green_tea::__private::Registration {
                name: #name,
                module: ::std::module_path!(),
                make: || -> ::std::boxed::Box<dyn ::green_tea::__private::Provider> {
                    ::std::boxed::Box::new(#make)
                },
            }
        }
    }
}
