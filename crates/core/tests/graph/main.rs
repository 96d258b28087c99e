//! The graph's check at `build()`, the core's own behaviour: arbitrary graphs against
//! independent models (the plain graph's check and build order, the vocabulary's values, what
//! a need inside a module may see), and modules by example.
//!
//! One binary for the area, so that it links once; each module is one topic.

mod arbitrary;
mod modules;
mod reload;
mod switches;
mod visibility;
mod vocabulary;
