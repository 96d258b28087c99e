//! The macros' expansions that compile and run: providers, routes, steps, settings and the vocabulary (`after` included, through `discover_in`, which sees only its own module).
//!
//! One binary for the area, so that it links once; each module is one topic.

mod provider;
mod route;
mod settings;
mod step;
mod vocabulary;
mod vocabulary_after;
