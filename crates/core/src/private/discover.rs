//! What `discover()` needs of a `#[provider]` impl block: a way to make the struct itself.

/// How `discover()` makes a `#[provider]` struct whose block has no `fn new()`: with
/// `Default`. A struct with neither is reported here, at the block, with both ways out.
#[diagnostic::on_unimplemented(
    message = "`discover()` cannot make `{Self}`: its `#[provider]` block has no `fn new()` \
               and `{Self}` does not implement `Default`",
    label = "`discover()` makes this provider with its `fn new()` or `Default`",
    note = "to register a `{Self}` you make yourself, as in `.provider({Self} {{ .. }})`, write \
            `discover = false` in its `#[provider(...)]`: `discover()` then leaves it out",
    note = "for `discover()` to make it, add `fn new() -> Self` (no parameters) to the block, or \
            implement `Default`"
)]
pub trait MadeByDiscovery: Sized {
    /// The provider, as `discover()` registers it.
    fn made() -> Self;
}

impl<T: Default> MadeByDiscovery for T {
    fn made() -> Self {
        T::default()
    }
}
