//! A tower service mounted under a prefix (`AppBuilder::mount_service`): what the builder
//! keeps of it, and the routes it answers, which `build()` checks and compiles with the rest.

use green_tea_core::Location;

use crate::layer::Layered;
use crate::route::{Mounted, Route};

/// A tower service mounted under a prefix (without its trailing `/`).
pub(super) struct Mount {
    pub(super) prefix: String,
    pub(super) location: Location,
    pub(super) name: String,
    pub(super) service: Layered,
}

impl Mount {
    /// The routes it answers: for every method, the prefix itself, the prefix with a trailing
    /// `/` (what a browser asks for a directory; matchit's `{*rest}` needs at least one
    /// character after it) and everything under it. Both of the first two reach the service
    /// as `/`, as under axum's `nest_service`.
    pub(super) fn routes(&self) -> impl Iterator<Item = Route> + '_ {
        let at = |path: String| {
            Route::any(
                path,
                Mounted {
                    prefix: self.prefix.clone(),
                    service: self.service.clone(),
                },
            )
            .named(self.name.clone())
            .at(self.location)
        };
        [
            self.prefix.clone(),
            format!("{}/", self.prefix),
            format!("{}/{{*rest}}", self.prefix),
        ]
        .into_iter()
        .filter(|path| !path.is_empty()) // a mount at `/` is an error of its own
        .map(at)
    }
}
