//! Arbitrary graphs, checked against independent models: the plain graph's check and build order, and the vocabulary's values.
//!
//! One binary for the area, so that it links once; each module is one topic.

mod graph;
mod vocabulary;
