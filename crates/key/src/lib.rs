//! green-tea's key language, in one place: how a key is spelled (`cache`, `cache?`,
//! `notifiers[]`, `stores{}`, `stores{eu}`), how a module's path qualifies it
//! (`notifications::http`), what each kind of declaration may provide, and which existing
//! key a missing one probably meant.
//!
//! `green-tea-core` checks a graph with it at `build()`, and the macros check a key literal
//! with it at compile time, so the two verdicts are one code's. It depends on no green-tea
//! crate and on no proc-macro crate; users meet it through `green_tea::Spelling` and the
//! error messages, never by name.
//!
//! ```
//! use green_tea_key::{Declarer, Spelling, qualify, relative_to, spelling};
//!
//! assert_eq!(spelling("stores{eu}"), Ok(Spelling::Entry { map: "stores", name: "eu" }));
//! assert_eq!(qualify(Some("notifications"), "http"), "notifications::http");
//! assert_eq!(relative_to("notifications::http", "notifications"), Some("http"));
//! assert!(green_tea_key::check_provided("cache?", Declarer::Provider).is_err());
//! ```

mod declare;
mod path;
mod spelling;
mod suggest;
mod type_name;
mod when;

pub use declare::{Declarer, cannot_provide, check_provided, register_decorator_in};
pub use path::{
    SEP, is_within, join, join_into, qualify, qualify_into, relative_to, segments, split_last,
};
pub use spelling::{Form, RESERVED, Spelling, is_plain, may_be_collection, spelling};
pub use suggest::{closest, one_edit_away};
pub use type_name::{short_type_name, short_type_name_of, shorten_type_name};
pub use when::{When, WhenError, check_switch_name, is_outcome, when};

/// Every string of up to six characters from `a`, `:` and `é` (a multi-byte character), the
/// empty one first: what the byte-by-byte walks over names are held to against std's `str`
/// functions.
#[cfg(test)]
pub(crate) fn every_short_name() -> Vec<String> {
    let mut names = vec![String::new()];
    for _ in 0..6 {
        let longer: Vec<String> = names
            .iter()
            .flat_map(|n| ["a", ":", "é"].map(|c| format!("{n}{c}")))
            .collect();
        names.extend(longer);
    }
    names
}
