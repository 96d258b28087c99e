//! Switches across the layers: what the layer above registers inside an app's `when` goes
//! under its condition as the core's own declarations do, and what it cannot put under one
//! (a mounted service, an app layer) is refused, not ignored.

use std::borrow::Cow;

use crate::container::ContainerBuilder;
use crate::key::Location;

/// How much was registered before a `when`: what the `when` puts under its condition is what
/// comes after.
#[derive(Clone, Copy, Debug)]
pub struct Marks((usize, usize, usize));

/// The builder's marks now.
pub fn marks(builder: &ContainerBuilder) -> Marks {
    Marks(builder.marks())
}

/// Puts what `builder` registered at the app's root since `marks` under `condition`.
pub fn put_under(builder: &mut ContainerBuilder, condition: Cow<'static, str>, marks: Marks) {
    builder.put_under(condition, marks.0);
}

/// GT0023 for `what` (``a mounted service``), registered under `condition` at `location`,
/// which this version cannot switch.
pub fn refuse(builder: &mut ContainerBuilder, condition: &str, location: Location, what: &str) {
    builder
        .module_problems
        .push(crate::switch::refusal(condition, location, what));
}
