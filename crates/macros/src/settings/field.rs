//! A field's `#[settings(...)]` (`default = "text"`, `secret`, `nested`, `rename = "name"`)
//! and its type's shape (`Option<T>`, `Secret<T>` or any other), validated together: what
//! the field reads and how.

use syn::ext::IdentExt;
use syn::{Expr, ExprLit, Field, Lit, LitStr, Path, Type};

use super::known;
use super::names;
use super::parse::{self, Attr};
use crate::errors::Errors;
use crate::types::{single_type_arg, unwrap_group};

/// How a field is read.
pub(super) enum Read<'a> {
    /// `T`: a required value, or its default.
    Value(&'a Type),
    /// `Secret<T>` (`T` here): a value never shown.
    Secret(&'a Type),
    /// `T` marked `secret`: a value never shown, unwrapped from its `Secret`.
    SecretUnwrapped(&'a Type),
    /// `Option<T>` (`T` here): `None` when no source sets it.
    Optional(&'a Type),
    /// `#[settings(nested)]`: a settings type of its own, read under this field's name.
    Nested(&'a Type),
}

/// One field, validated.
pub(super) struct SettingsField<'a> {
    /// The field as written.
    pub(super) field: &'a Field,
    /// The name it is read as: the field's, or its `rename`.
    pub(super) name: String,
    /// `default = "text"`.
    pub(super) default: Option<LitStr>,
    /// Whether its value is never shown (by its type, `Secret<T>`, or `#[settings(secret)]`).
    pub(super) secret: bool,
    /// Whether a change of it may be applied without a restart (`#[settings(reload)]`).
    pub(super) reload: bool,
    /// How it is read.
    pub(super) read: Read<'a>,
}

impl SettingsField<'_> {
    /// The type of the value the field reads, as messages name it.
    pub(super) fn value_type(&self) -> &Type {
        match self.read {
            Read::Value(ty)
            | Read::Secret(ty)
            | Read::SecretUnwrapped(ty)
            | Read::Optional(ty)
            | Read::Nested(ty) => ty,
        }
    }
}

/// Reads and validates `field`'s attributes against its type, recording each problem in
/// `errors`; `None` if it had one.
pub(super) fn parse<'a>(field: &'a Field, errors: &mut Errors) -> Option<SettingsField<'a>> {
    let before = errors.count();
    let ident = field.ident.as_ref()?;
    let mut default: Option<LitStr> = None;
    let mut secret: Option<Path> = None;
    let mut nested: Option<Path> = None;
    let mut rename: Option<LitStr> = None;
    let mut reload = false;
    let attrs = parse::attrs(
        &field.attrs,
        &known::FIELD,
        &known::CONTAINER,
        "the struct, beside `#[derive(Settings)]`",
        errors,
    );
    for Attr { name, meta } in attrs.found {
        match name {
            "default" => default = default_text(&meta, errors),
            "secret" => {
                if parse::flag(&meta, name, errors) {
                    secret = Some(meta.path().clone());
                }
            }
            "nested" => {
                if parse::flag(&meta, name, errors) {
                    nested = Some(meta.path().clone());
                }
            }
            "reload" => reload = parse::flag(&meta, name, errors),
            _ => {
                if let Some(text) = parse::string(&meta, name, "\"retry_count\"", errors) {
                    if let Err(reason) = names::check_field(&text.value(), true) {
                        errors.spanned(&text, reason);
                    }
                    rename = Some(text);
                }
            }
        }
    }

    let name = match &rename {
        Some(text) => text.value(),
        None => {
            let name = ident.unraw().to_string();
            if let Err(reason) = names::check_field(&name, false) {
                errors.spanned(ident, reason);
            }
            name
        }
    };
    let shape = Shape::of(&field.ty);
    if let (Some(secret), Some(_)) = (&secret, &nested) {
        errors.spanned(
            secret,
            "a field is `secret` or `nested`, not both: a nested type's fields say for \
             themselves which are secret (`#[settings(secret)]`, or a `Secret<T>` type)",
        );
    }
    if let (Some(nested), Shape::Secret(_)) = (&nested, &shape) {
        errors.spanned(
            nested,
            "a `Secret<T>` field is a secret value, not `nested`: a nested type's fields say \
             for themselves which are secret",
        );
    }
    if let (Some(nested), Shape::Optional(_)) = (&nested, &shape) {
        errors.spanned(
            nested,
            "a `nested` field cannot be an `Option`: a nested type is read whole; make the \
             field the type itself, and its fields `Option`s or defaulted where they may be \
             missing",
        );
    }
    if let Some(default) = &default {
        if nested.is_some() {
            errors.spanned(
                default,
                "`default` on a `nested` field: a nested type's fields have defaults of their \
                 own (`#[settings(default = \"...\")]` on them)",
            );
        } else if let Shape::Optional(_) = shape {
            errors.spanned(
                default,
                "`default` on an `Option` field: an optional setting is `None` when no source \
                 sets it; drop the `default`, or make the field `T` to default it",
            );
        }
    }
    if errors.count() > before {
        return None;
    }
    let read = match (shape, &secret, &nested) {
        (Shape::Plain(ty), _, Some(_)) => Read::Nested(ty),
        (Shape::Plain(ty), Some(_), None) => Read::SecretUnwrapped(ty),
        (Shape::Plain(ty), None, None) => Read::Value(ty),
        (Shape::Secret(ty), ..) => Read::Secret(ty),
        (Shape::Optional(ty), ..) => Read::Optional(ty),
    };
    let secret = secret.is_some() || shape.is_secret();
    Some(SettingsField {
        field,
        name,
        default,
        secret,
        reload,
        read,
    })
}

/// The text of `default = "text"`: a string, read as a variable's value would be, and not
/// blank (which no value may be).
fn default_text(meta: &syn::Meta, errors: &mut Errors) -> Option<LitStr> {
    let usage = "write `default = \"text\"`: a default is text, read as a variable's value is \
                 (`\"2s\"`, `\"3\"`, `\"true\"`)";
    match parse::value(meta, "default", usage, errors)? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => {
            if text.value().trim().is_empty() {
                errors.spanned(
                    text,
                    "a default cannot be blank, as no setting's value may be: make the field an \
                     `Option` for a setting that may be missing",
                );
                return None;
            }
            Some(text.clone())
        }
        Expr::Lit(ExprLit { lit, .. }) if !matches!(lit, Lit::Str(_)) => {
            let text = match lit {
                Lit::Int(int) => int.base10_digits().to_owned(),
                Lit::Float(float) => float.base10_digits().to_owned(),
                Lit::Bool(flag) => flag.value.to_string(),
                Lit::Char(c) => c.value().to_string(),
                _ => "...".to_owned(),
            };
            errors.spanned(
                lit,
                format!(
                    "a default is text, read as a variable's value is: write `default = \
                     \"{text}\"`"
                ),
            );
            None
        }
        other => {
            errors.spanned(other, format!("expected a string literal; {usage}"));
            None
        }
    }
}

/// A field's type, as far as reading it goes.
#[derive(Clone, Copy)]
enum Shape<'a> {
    /// `Option<T>`, with `T`.
    Optional(&'a Type),
    /// `Secret<T>`, with `T`.
    Secret(&'a Type),
    /// Any other type.
    Plain(&'a Type),
}

impl<'a> Shape<'a> {
    /// Recognises `Option` and `Secret` by their last path segment, as the other macros
    /// recognise `Option` and `Arc`.
    fn of(ty: &'a Type) -> Self {
        let Type::Path(path) = unwrap_group(ty) else {
            return Shape::Plain(ty);
        };
        if let Some(inner) = single_type_arg(path, "Option") {
            Shape::Optional(inner)
        } else if let Some(inner) = single_type_arg(path, "Secret") {
            Shape::Secret(inner)
        } else {
            Shape::Plain(ty)
        }
    }

    /// Whether it holds a secret: `Secret<T>`, or `Option<Secret<T>>`.
    fn is_secret(self) -> bool {
        match self {
            Shape::Secret(_) => true,
            Shape::Optional(inner) => matches!(Shape::of(inner), Shape::Secret(_)),
            Shape::Plain(_) => false,
        }
    }
}
