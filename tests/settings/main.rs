//! Settings as users declare and read them: sources, the derive, and the report.
//!
//! One binary for the area, so that it links once and compiles `tests/support` once; each
//! module is one topic.

mod macro_form;
mod report;
mod sources;
