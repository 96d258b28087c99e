//! The graph lockfile: the app's shape as a deterministic text file (every declaration, route,
//! worker, settings variable and switch, over every shape the switches allow), read back and
//! compared as meaning rather than as lines ([`LockDiff`]).
//!
//! The file is a list of blocks, each a header (`provider billingApi`) and its attributes, one
//! a line, two spaces in (`  needs billingSettings`); a flag has no value (`  secret`). Blocks
//! come in a fixed order of kinds, each kind by id; an attribute that lists (`needs`, `builds`)
//! repeats its line, in an order that means something (declaration, wrapping) or, where
//! none does, sorted. Nothing in it depends on the environment, the run or the settings' values.

mod diff;
mod model;
mod text;

pub use diff::{Change, LockDiff};
pub use model::{GraphLock, LOCK_VERSION, LockItem};
pub use text::LockError;
