//! The macros' expansions that compile and run: providers, routes, steps, settings, switches (`when`), build timeouts (`timeout`) and the vocabulary (`after` included, through `discover_in`, which sees only its own module).
//!
//! One binary for the area, so that it links once; each module is one topic.

mod provider;
mod route;
mod settings;
mod step;
mod switches;
mod timeouts;
mod vocabulary;
mod vocabulary_after;
// As a user's crate has them: rustc's lint levels, not this workspace's (which warn of these
// three), and each file's own attributes on top.
#[allow(missing_docs, missing_debug_implementations, unreachable_pub)]
pub mod whole;
