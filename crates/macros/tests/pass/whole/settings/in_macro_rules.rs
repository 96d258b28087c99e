//! A settings type made by a `macro_rules!`, its fragments arriving grouped.

use green_tea::prelude::*;

macro_rules! settings_type {
    ($name:ident, $key:literal, $prefix:literal, $field:ident: $ty:ty = $default:literal) => {
        #[derive(Settings)]
        #[settings(provides = $key, prefix = $prefix)]
        struct $name {
            #[settings(default = $default)]
            $field: $ty,
        }
    };
}

settings_type!(Cache, "cache", "CACHE", size: u64 = "64");

#[test]
fn compiles_and_runs() {
    assert_eq!(Cache::fields()[0].default, Some("64"));
    assert_eq!(Cache::KEY, "cache");
    // The struct is the one the `macro_rules!` wrote, its field as named there.
    assert_eq!(Cache { size: 64 }.size, 64);
}
