//! A worker fn's signature: its parameters, each a need (`&T`, `Arc<T>` and the forms of
//! optional needs, lists and maps, as a provider's) or its one `Shutdown`, and its return
//! type, `Result<(), E>`.

use proc_macro2::Span;
use quote::quote;
use syn::spanned::Spanned;
use syn::{FnArg, ReturnType, Signature, Type};

use crate::errors::Errors;
use crate::types::{self, NeedParam};

/// What one parameter receives.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Param {
    /// The next need, in `needs` order.
    Need,
    /// The worker's shutdown signal.
    Shutdown,
}

/// The parameters of a worker fn, read.
pub(super) struct Params<'a> {
    /// What each parameter receives, in order.
    pub(super) order: Vec<Param>,
    /// What each need parameter receives, in order.
    pub(super) needed: Vec<NeedParam>,
    /// The need parameters as written, to count them against `needs`.
    pub(super) need_args: Vec<&'a FnArg>,
    /// Whether one parameter is the `Shutdown`.
    pub(super) shutdown: bool,
}

/// Reads every parameter, recording an error for each one that cannot be a worker's; `None` if
/// there was one.
pub(super) fn params<'a>(
    inputs: impl IntoIterator<Item = &'a FnArg>,
    fn_name: &syn::Ident,
    errors: &mut Errors,
) -> Option<Params<'a>> {
    let mut read = Params {
        order: Vec::new(),
        needed: Vec::new(),
        need_args: Vec::new(),
        shutdown: false,
    };
    let mut ok = true;
    for input in inputs {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                ok = false;
                errors.spanned(
                    receiver,
                    "a worker fn cannot take `self`: its parameters are its needs, each `&T` or \
                     `Arc<T>`, and its `Shutdown` (for a worker's state, put it in a provider \
                     and need it)",
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let ty = &*typed.ty;
        if is_shutdown(ty) {
            if read.shutdown {
                ok = false;
                errors.spanned(
                    ty,
                    format!(
                        "`{fn_name}` takes a second `Shutdown`: a worker has one shutdown \
                         signal, which one parameter receives (clone it where two are needed)"
                    ),
                );
            }
            read.shutdown = true;
            read.order.push(Param::Shutdown);
            continue;
        }
        if let Type::Reference(reference) = types::unwrap_group(ty)
            && is_shutdown(&reference.elem)
        {
            ok = false;
            errors.spanned(
                ty,
                "take the `Shutdown` by value, `shutdown: Shutdown`: it is the worker's own \
                 signal (cheap to clone), not a value of the graph",
            );
            continue;
        }
        match types::need_param(ty, "a worker parameter") {
            Ok(need) => {
                read.order.push(Param::Need);
                read.needed.push(need);
                read.need_args.push(input);
            }
            Err(error) => {
                ok = false;
                errors.push(error);
            }
        }
    }
    ok.then_some(read)
}

/// Whether `ty` is the shutdown signal: a path whose last segment is `Shutdown`.
fn is_shutdown(ty: &Type) -> bool {
    matches!(types::unwrap_group(ty), Type::Path(path) if types::last_ident_is(path, "Shutdown"))
}

/// Checks that `sig` returns `Result<(), E>` (by last path segment, so `io::Result<()>` and
/// the like are too); returns where a bad `E` is reported.
pub(super) fn output(sig: &Signature) -> syn::Result<Span> {
    let name = &sig.ident;
    let ReturnType::Type(_, written) = &sig.output else {
        return Err(syn::Error::new_spanned(
            sig,
            format!(
                "`{name}` returns nothing, but a worker returns `Result<(), E>`: `Ok(())` once \
                 its shutdown is requested (or its work is done), an error when its work \
                 failed; add `-> Result<(), BoxError>`"
            ),
        ));
    };
    let written = types::unwrap_group(written);
    let Type::Path(path) = written else {
        return Err(not_a_result(written));
    };
    if !types::last_ident_is(path, "Result") {
        return Err(not_a_result(written));
    }
    let mut args = types::type_args(path);
    match args.next() {
        Some(Type::Tuple(unit)) if unit.elems.is_empty() => {}
        Some(value) => {
            return Err(syn::Error::new_spanned(
                value,
                "a worker's run has no value to return, only whether it failed: write \
                 `Result<(), E>` (to hand a value to others, declare a `#[provider]` of it)",
            ));
        }
        None => {
            return Err(syn::Error::new_spanned(
                written,
                "cannot see the value type of this `Result`: write `Result<(), E>`",
            ));
        }
    }
    Ok(args.next().map_or_else(|| written.span(), Spanned::span))
}

fn not_a_result(ty: &Type) -> syn::Error {
    let found = quote!(#ty).to_string().replace(' ', "");
    syn::Error::new_spanned(
        ty,
        format!(
            "a worker returns `Result<(), E>`, where `E: Into<BoxError>`: `Ok(())` once its \
             shutdown is requested (or its work is done), an error when its work failed; found \
             `{found}`"
        ),
    )
}
