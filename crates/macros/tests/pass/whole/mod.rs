//! Whole files as a user writes them: each module here is what one source file of a user's
//! crate holds, with its own lint attributes (strict ones included: `missing_docs` and
//! `unreachable_pub` see through the `pub mod` chain from the binary's root, as they see a
//! crate's root), macros written by `macro_rules!`, and one test that runs what it declares.
//! They were trybuild pass cases, each its own crate, built and linked alone: here they link
//! once, with the area's other tests.

/// `#[decorator]`.
pub mod decorator {
    pub mod under_strict_lints;
}

/// `#[provider]`.
pub mod provider {
    pub mod after_under_strict_lints;
    pub mod binding_names;
    pub mod build_timeout_under_strict_lints;
    pub mod fn_in_module;
    pub mod impl_not_discovered;
    pub mod impl_with_self;
    pub mod in_macro_rules;
    pub mod needs_module_keys;
}

/// `#[route]`.
pub mod route {
    pub mod body_extractors;
    pub mod under_strict_lints;
}

/// `#[derive(Settings)]`.
pub mod settings {
    pub mod core_only;
    pub mod every_form;
    pub mod in_macro_rules;
    pub mod provides_without_prefix;
    pub mod spec_types;
    pub mod under_strict_lints;
}

/// `#[step]`.
pub mod step {
    pub mod under_strict_lints;
}

/// `#[worker]`.
pub mod worker {
    pub mod under_strict_lints;
}
