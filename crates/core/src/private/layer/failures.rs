//! What a task that failed says: a caught panic's message, a join error's.

pub use crate::error::{join_message, panic_message};
