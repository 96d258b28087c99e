//! `#[derive(Settings)]`: reads the struct's and its fields' `#[settings(...)]`, validates them
//! against the fields' types, and expands to a `Settings` impl plus, for a type that provides
//! a key, an `inventory` registration. Reading the sources stays in `core`.

mod container;
mod emit;
mod field;
mod known;
mod names;
mod parse;

use std::collections::HashMap;

use proc_macro2::TokenStream;
use syn::{Data, DeriveInput, Fields};

use crate::errors::Errors;
use crate::root::Root;

/// Expands `#[derive(Settings)]` on `input` through `root`'s `__private`. On error, the errors
/// and an impl that stands in for the real one, so that one mistake is reported once instead
/// of again at every use of the type.
pub(crate) fn derive(root: Root, input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut errors = Errors::default();
    let generic = errors.reject_generics(
        &input.generics,
        "a settings type cannot be generic: it is read into one concrete type, and provides \
         one key of that type",
    );
    let container = container::parse(&input.attrs, &mut errors);
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(&named.named),
            Fields::Unnamed(_) | Fields::Unit => {
                errors.spanned(&input.ident, NAMED_FIELDS);
                None
            }
        },
        Data::Enum(data) => {
            errors.spanned(data.enum_token, NAMED_FIELDS);
            None
        }
        Data::Union(data) => {
            errors.spanned(data.union_token, NAMED_FIELDS);
            None
        }
    };
    let fields: Vec<_> = fields
        .into_iter()
        .flatten()
        .filter_map(|field| field::parse(field, &mut errors))
        .collect();
    let mut seen: HashMap<&str, &syn::Field> = HashMap::new();
    for field in &fields {
        if let Some(first) = seen.insert(&field.name, field.field) {
            let first = first.ident.as_ref().map(ToString::to_string);
            errors.spanned(
                &field.field.ident,
                format!(
                    "two fields read the setting `{}` (this one and `{}`): give one a \
                     `rename = \"...\"`",
                    field.name,
                    first.unwrap_or_default()
                ),
            );
        }
    }
    match errors.finish() {
        Ok(()) => emit::expand(root, &input.ident, &container, &fields),
        Err(error) => {
            let fallback = emit::fallback(root, &input.ident, generic);
            let error = error.to_compile_error();
            quote::quote!(#error #fallback)
        }
    }
}

/// A settings type's shape.
const NAMED_FIELDS: &str = "`#[derive(Settings)]` goes on a struct with named fields: each field \
     is one setting, read under its name";
