//! Nothing: this crate's dependencies turn every feature of green-tea and green-tea-recipes on
//! in the workspace's own builds (see its manifest).
