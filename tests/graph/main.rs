//! The graph's check at `build()`, as a user's app meets it: modules, the request scope, validation, the vocabulary (optional needs, collections, decorators) and what each module sees.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

#[path = "../support/mod.rs"]
mod support;

mod macros_modules;
mod modules;
mod request_scope;
mod validation;
mod vocabulary;
mod vocabulary_visible;
