//! Values as they travel through the graph: what a declaration provides ([`Provided`], type-erased
//! as [`AnyValue`]); where the container keeps a provider's values once built, and its one build
//! in flight (`slot.rs`); a list's or a map's contributions as a consumer reads them ([`All`],
//! [`ByName`]); and the view of what a declaration needs ([`Needs`]). This file only declares
//! them: the arrows run from `needs.rs` down to the others, and from `slot.rs` and `members.rs`
//! to `provided.rs`.

mod members;
mod needs;
mod provided;
mod slot;

pub(crate) use members::Members;
pub use members::{All, ByName};
pub(crate) use needs::source_value;
pub use needs::{NeedError, Needs};
pub use provided::{AnyValue, Provided};
pub(crate) use slot::{Outcome, PendingBuild, Slot, Slots};
