//! green-tea's attribute macros. Use them through the `green-tea` facade.

use proc_macro::TokenStream;

/// See `green_tea::provider`.
#[proc_macro_attribute]
pub fn provider(attr: TokenStream, item: TokenStream) -> TokenStream {
    let _ = attr;
    item
}
