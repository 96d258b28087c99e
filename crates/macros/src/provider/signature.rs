//! A provider's parameters: each receives one need, as `Arc<T>` or `&T` (or `Option<..>`,
//! `All<'_, T>`, `ByName<'_, T>` for the needs spelled so); `dispose`'s, a provided value.

use syn::FnArg;

use crate::errors::Errors;
use crate::types::{self, NeedParam, ValueParam};

/// The needs a fn's parameters receive, in order; `None` after recording an error for each
/// parameter that is `self` or not a need's type.
pub(crate) fn need_params<'a>(
    inputs: impl IntoIterator<Item = &'a FnArg>,
    role: &str,
    errors: &mut Errors,
) -> Option<Vec<NeedParam>> {
    read(inputs, errors, |ty| types::need_param(ty, role))
}

/// The values a fn's parameters receive (`Arc<T>` or `&T`), in order; `None` after recording
/// an error for each parameter that is `self` or not one of those.
pub(super) fn typed_params<'a>(
    inputs: impl IntoIterator<Item = &'a FnArg>,
    role: &str,
    errors: &mut Errors,
) -> Option<Vec<ValueParam>> {
    read(inputs, errors, |ty| types::value_param(ty, role))
}

fn read<'a, P>(
    inputs: impl IntoIterator<Item = &'a FnArg>,
    errors: &mut Errors,
    param: impl Fn(&syn::Type) -> syn::Result<P>,
) -> Option<Vec<P>> {
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
            FnArg::Typed(typed) => match param(&typed.ty) {
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
