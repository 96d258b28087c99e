//! What `discover()` needs of a `#[provider]` impl block: a way to make the struct itself.

/// How `discover()` makes a `#[provider]` struct whose block has no `fn new()`: with
/// `Default`. Implemented for every `Default` type, so there is nothing to implement; a struct
/// with neither is reported at its block, naming both ways out. Public (and re-exported at the
/// crate's root) so that rustc's notes about it name a path users can read.
///
/// ```
/// fn discoverable<T: green_tea::Discoverable>() {}
///
/// #[derive(Default)]
/// struct Cache;
///
/// discoverable::<Cache>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`discover()` cannot make `{Self}`: its `#[provider]` block has no `fn new()` \
               and `{Self}` does not implement `Default`",
    label = "`discover()` makes this provider with its `fn new()` or `Default`",
    note = "to register a `{Self}` you make yourself, as in `.provider({Self} {{ .. }})`, write \
            `discover = false` in its `#[provider(...)]`: `discover()` then leaves it out",
    note = "for `discover()` to make it, add `fn new() -> Self` (no parameters) to the block, or \
            implement `Default`"
)]
pub trait Discoverable: Sized {
    /// The provider, as `discover()` registers it.
    #[doc(hidden)]
    fn made() -> Self;
}

impl<T: Default> Discoverable for T {
    fn made() -> Self {
        T::default()
    }
}
