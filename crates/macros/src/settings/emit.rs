//! The tokens `#[derive(Settings)]` emits: the `Settings` impl (its key and prefix, its
//! fields' specs, `read` and `validate`), the registration `discover()` collects, the declared
//! key `build()` names when it is not registered, and the stand-in impl after an error.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Path, Type};

use super::container::Container;
use super::field::{Read, SettingsField};
use crate::emit;
use crate::root::Root;
use crate::types::unwrap_group;

/// Everything the derive emits for a valid settings type.
pub(super) fn expand(
    root: Root,
    ident: &Ident,
    container: &Container,
    fields: &[SettingsField<'_>],
) -> TokenStream {
    let settings = quote!(#root::settings);
    let (key, prefix) = match &container.provided {
        Some(provided) => (
            provided.key.value(),
            provided
                .prefix
                .as_ref()
                .map(LitStr::value)
                .unwrap_or_default(),
        ),
        None => (String::new(), String::new()),
    };
    let specs = fields
        .iter()
        .map(|field| spec(root, &settings, field, container.reload));
    let vars: Vec<Ident> = (0..fields.len())
        .map(|i| quote::format_ident!("__field{}", i))
        .collect();
    let reads = fields.iter().map(|field| read(root, &settings, field));
    let members = fields.iter().map(|field| &field.field.ident);
    let validate = container.validate.as_ref().map(validate);
    let discovery = container
        .provided
        .as_ref()
        .map(|_| discovery(root, ident, (&key, &container.when), container.discover));
    // A provider is located at its declaration, as a `#[provider]` fn is: the struct.
    let provider = container.provided.as_ref().map(|_| {
        let location = emit::location(root, ident.span());
        let when = &container.when;
        quote! {
            fn provider() -> #settings::SettingsProvider<Self> {
                #settings::SettingsProvider::new().at(#location) #(.when(#when))*
            }
        }
    });
    let uses = quote! {
        #[allow(unused_imports)]
        use #root::{Nested as _, NotNested as _};
    };
    let checks = nested_checks(root, fields);
    quote! {
        #[automatically_derived]
        impl #settings::Settings for #ident {
            const KEY: &'static str = #key;
            const PREFIX: &'static str = #prefix;

            fn fields() -> ::std::vec::Vec<#settings::FieldSpec> {
                #uses
                ::std::vec![#(#specs),*]
            }

            fn read(
                __reader: &mut #settings::Reader<'_>,
            ) -> ::std::option::Option<Self> {
                #uses
                // Every field is read before any is unwrapped, so that each problem is
                // recorded, not only the first.
                #(let #vars = #reads;)*
                ::std::option::Option::Some(Self { #(#members: #vars?,)* })
            }

            #validate

            #provider
        }

        #discovery

        #checks
    }
}

/// `FieldSpec::new(name, type).secret().reload().default(text)...` of one field (`reload`
/// when it is marked, or its struct is: `all_reload`).
fn spec(
    root: Root,
    settings: &TokenStream,
    field: &SettingsField<'_>,
    all_reload: bool,
) -> TokenStream {
    let name = &field.name;
    let type_name = type_text(field.value_type());
    let mut spec = quote!(#settings::FieldSpec::new(#name, #type_name));
    if field.secret {
        spec.extend(quote!(.secret()));
    }
    if field.reload || all_reload {
        spec.extend(quote!(.reload()));
    }
    if let Some(default) = &field.default {
        spec.extend(quote!(.default(#default)));
    }
    match field.read {
        Read::Optional(_) => spec.extend(quote!(.optional())),
        Read::Nested(ty) => {
            let probe = nested_probe(root, ty);
            spec.extend(quote!(.nested(#probe.fields())));
        }
        Read::Value(_) | Read::Secret(_) | Read::SecretUnwrapped(_) => {}
    }
    spec
}

/// The `Reader` call that reads one field, reported at the field's type (a type that does not
/// deserialize, or a nested one that is not `Settings`).
fn read(root: Root, settings: &TokenStream, field: &SettingsField<'_>) -> TokenStream {
    let name = &field.name;
    let default = match &field.default {
        Some(text) => quote!(::std::option::Option::Some(#text)),
        None => quote!(::std::option::Option::None),
    };
    let ty = field.value_type();
    let call = match field.read {
        Read::Value(ty) => quote!(value::<#ty>(#name, #default)),
        Read::Secret(ty) => quote!(secret::<#ty>(#name, #default)),
        Read::SecretUnwrapped(ty) => quote!(secret::<#ty>(#name, #default)),
        Read::Optional(ty) => quote!(optional::<#ty>(#name)),
        Read::Nested(ty) => {
            let probe = nested_probe(root, ty);
            return quote!(#probe.read(__reader, #name));
        }
    };
    let call = emit::located_at(call, ty.span());
    let unwrap = matches!(field.read, Read::SecretUnwrapped(_))
        .then(|| quote!(.map(#settings::Secret::into_inner)));
    quote!(__reader.#call #unwrap)
}

/// `(&&NestedProbe::<ty>::new())`, whose `fields` and `read` are the nested type's, or stand-ins
/// that report nothing when it is not a settings type: `nested_checks` reports that, once.
fn nested_probe(root: Root, ty: &Type) -> TokenStream {
    quote!((&&#root::NestedProbe::<#ty>::new()))
}

/// The check that each nested field's type is a settings type, reported at the type.
fn nested_checks(root: Root, fields: &[SettingsField<'_>]) -> TokenStream {
    let checks: Vec<_> = fields
        .iter()
        .filter_map(|field| match field.read {
            Read::Nested(ty) => Some(ty),
            _ => None,
        })
        .map(|ty| {
            let private = root.at(ty.span());
            quote_spanned!(ty.span()=> #private::assert_nested::<#ty>();)
        })
        .collect();
    if checks.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const _: () = {
            #[allow(dead_code)]
            fn __check() {
                #(#checks)*
            }
        };
    }
}

/// `fn validate(&self)`, calling `path` through a `fn(&Self) -> Result<(), String>`, so that a
/// fn of another signature is reported at the path.
fn validate(path: &Path) -> TokenStream {
    let at = Span::call_site().located_at(path.span());
    let check = quote_spanned! {at=>
        let __validate: fn(&Self) -> ::std::result::Result<(), ::std::string::String> = #path;
    };
    quote! {
        fn validate(&self) -> ::std::result::Result<(), ::std::string::String> {
            #check
            __validate(self)
        }
    }
}

/// The registration `discover()` collects (unless `discover = false`), and the declared key
/// `build()` names when nothing registered it. Neither names the type's `Settings` impl
/// directly (`<T as Settings>::provider()` would add the trait's `Send + Sync` bounds), so
/// that a field that is not `Send + Sync` is reported once, at the impl.
fn discovery(
    root: Root,
    ident: &Ident,
    (key, when): (&str, &[syn::LitStr]),
    discover: bool,
) -> TokenStream {
    let settings = quote!(#root::settings);
    let name = ident.to_string();
    let registration = discover.then(|| {
        quote! {
            fn __discovered<T: #settings::Settings>() -> #root::Discovered {
                #root::Discovered::new(T::provider())
            }

            #root::inventory::submit! {
                #root::Registration {
                    name: #name,
                    module: ::std::module_path!(),
                    make: __discovered::<#ident>,
                }
            }
        }
    });
    let location = emit::location(root, ident.span());
    let register = format!(".provider({name}::provider())");
    quote! {
        const _: () = {
            #registration

            #root::inventory::submit! {
                #root::DeclaredKey {
                    key: #key,
                    kind: #root::NodeKind::Settings,
                    name: #name,
                    location: #location,
                    register: #register,
                    when: &[#(#when),*],
                }
            }
        };
    }
}

/// After an error, an impl that stands in for the real one, so that the type's uses
/// (`BillingSettings::provider()`) do not each fail again. `None` for a generic type, which
/// one impl cannot stand in for.
pub(super) fn fallback(root: Root, ident: &Ident, generic: bool) -> Option<TokenStream> {
    if generic {
        return None;
    }
    let settings = quote!(#root::settings);
    Some(quote! {
        #[automatically_derived]
        impl #settings::Settings for #ident {
            const KEY: &'static str = "";
            const PREFIX: &'static str = "";

            fn fields() -> ::std::vec::Vec<#settings::FieldSpec> {
                ::std::unreachable!("`#[derive(Settings)]` reported an error")
            }

            fn read(
                _: &mut #settings::Reader<'_>,
            ) -> ::std::option::Option<Self> {
                ::std::unreachable!("`#[derive(Settings)]` reported an error")
            }
        }
    })
}

/// `ty` as messages name it: paths by their last segments (`Duration`, `Vec<String>`), a
/// `Secret<T>` as `T`, the rest as written.
pub(super) fn type_text(ty: &Type) -> String {
    match unwrap_group(ty) {
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return String::new();
            };
            let args: Vec<String> = match &last.arguments {
                syn::PathArguments::AngleBracketed(args) => args
                    .args
                    .iter()
                    .map(|arg| match arg {
                        syn::GenericArgument::Type(ty) => type_text(ty),
                        other => tokens_text(other),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            match (last.ident.to_string().as_str(), &args[..]) {
                ("Secret", [inner]) => inner.clone(),
                (name, []) => name.to_owned(),
                (name, args) => format!("{name}<{}>", args.join(", ")),
            }
        }
        Type::Reference(reference) => {
            let mutability = if reference.mutability.is_some() {
                "mut "
            } else {
                ""
            };
            format!("&{mutability}{}", type_text(&reference.elem))
        }
        Type::Slice(slice) => format!("[{}]", type_text(&slice.elem)),
        Type::Array(array) => {
            format!("[{}; {}]", type_text(&array.elem), tokens_text(&array.len))
        }
        Type::Tuple(tuple) => {
            let elems: Vec<String> = tuple.elems.iter().map(type_text).collect();
            match &elems[..] {
                [one] => format!("({one},)"),
                _ => format!("({})", elems.join(", ")),
            }
        }
        other => tokens_text(other),
    }
}

/// `tokens` as one compact string (`quote` spaces every token).
fn tokens_text(tokens: &impl quote::ToTokens) -> String {
    let text = tokens.to_token_stream().to_string();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let next = chars.peek().copied();
            let last = out.chars().last();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if word(last) && word(next) {
                out.push(' ');
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_named_by_their_last_segments() {
        let cases: [(Type, &str); 7] = [
            (syn::parse_quote!(std::time::Duration), "Duration"),
            (syn::parse_quote!(u32), "u32"),
            (syn::parse_quote!(Vec<std::string::String>), "Vec<String>"),
            (
                syn::parse_quote!(green_tea::settings::Secret<String>),
                "String",
            ),
            (
                syn::parse_quote!(HashMap<String, u8>),
                "HashMap<String, u8>",
            ),
            (syn::parse_quote!([u8; 4]), "[u8; 4]"),
            (syn::parse_quote!(<T as Trait>::Out), "<T as Trait>::Out"),
        ];
        for (ty, text) in cases {
            assert_eq!(type_text(&ty), text);
        }
    }
}
