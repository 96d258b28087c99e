//! Arbitrary graphs, checked against independent models: the plain graph's check and build order, the vocabulary's values, and what a need inside a module may see.
//!
//! One binary for the area, so that it links once; each module is one topic.

mod graph;
mod visibility;
mod vocabulary;
