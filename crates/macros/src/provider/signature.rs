//! A provider's parameters: each receives one need, as `Arc<T>` or `&T`.

use syn::FnArg;

use crate::errors::Errors;
use crate::types::{self, ValueParam};

/// The needs a fn's parameters receive, in order; `None` after recording an error for each
/// parameter that is `self` or not `Arc<T>`/`&T`.
pub(super) fn typed_params<'a>(
    inputs: impl IntoIterator<Item = &'a FnArg>,
    role: &str,
    errors: &mut Errors,
) -> Option<Vec<ValueParam>> {
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
            FnArg::Typed(typed) => match types::value_param(&typed.ty, role) {
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
