//! A Rust type's name as a reader wants it: without the module paths `std::any::type_name`
//! writes (these are Rust paths, not keys).

/// Drops every `path::` prefix inside a type name, keeping generics and punctuation.
///
/// ```
/// use green_tea_key::shorten_type_name;
/// assert_eq!(shorten_type_name("alloc::sync::Arc<app::billing::BillingClient>"), "Arc<BillingClient>");
/// assert_eq!(shorten_type_name("(u32, alloc::string::String)"), "(u32, String)");
/// assert_eq!(shorten_type_name("dyn app::Billing + core::marker::Send"), "dyn Billing + Send");
/// ```
pub fn shorten_type_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut segment_start = 0;
    for (i, c) in name.char_indices() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            continue;
        }
        out.push_str(last_segment(&name[segment_start..i]));
        out.push(c);
        segment_start = i + c.len_utf8();
    }
    out.push_str(last_segment(&name[segment_start..]));
    out
}

/// The last segment of a plain type path (`BillingSettings` for
/// `app::billing::BillingSettings`), borrowed from it; a generic type's name whole, since its
/// parameters have paths of their own ([`shorten_type_name`] drops those too, into a `String`).
///
/// ```
/// use green_tea_key::short_type_name;
/// assert_eq!(short_type_name("core::time::Duration"), "Duration");
/// assert_eq!(short_type_name("alloc::vec::Vec<u8>"), "alloc::vec::Vec<u8>");
/// ```
pub fn short_type_name(name: &str) -> &str {
    if name.contains('<') {
        return name;
    }
    last_segment(name)
}

/// [`short_type_name`] of `T`'s `std::any::type_name`, which is `'static`.
///
/// ```
/// assert_eq!(green_tea_key::short_type_name_of::<std::time::Duration>(), "Duration");
/// ```
pub fn short_type_name_of<T: ?Sized>() -> &'static str {
    short_type_name(std::any::type_name::<T>())
}

fn last_segment(path: &str) -> &str {
    path.rsplit(crate::SEP).next().unwrap_or(path)
}
