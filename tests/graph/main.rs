//! The graph's check at `build()`, as a user's app meets it: modules with the macros, the
//! request scope, validation, the vocabulary (optional needs, collections, decorators) and what
//! each module sees. Modules by hand are core's own tests (`crates/core/tests/graph/`); the
//! request scope and validation stay here, with the recording providers of `tests/support`
//! that every area shares.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

#[path = "../support/mod.rs"]
mod support;

mod lock;
mod macros_modules;
mod request_scope;
mod switched_routes;
mod switches;
mod validation;
mod vocabulary;
mod vocabulary_visible;
