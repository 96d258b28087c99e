//! A reload as the app drives it: the settings read again and the next generation built
//! beside the serving one ([`next_generation`]); the app checks its health, then swaps it in
//! and [commits](Pending::commit) it, or [abandons](Pending::abandon) it.

pub use crate::container::Pending;
use crate::{Container, ReloadError};

/// Reads `container`'s settings again and builds the next generation when reloadable fields
/// changed (`None`: nothing changed; an error: nothing changed, and why).
pub async fn next_generation(container: &Container) -> Result<Option<Pending>, ReloadError> {
    container.next_generation().await
}

/// The settings file `container` reads, if it reads one from a path: what a reload on a change
/// of the file watches.
pub fn settings_file(container: &Container) -> Option<std::path::PathBuf> {
    match &container.inner.sources {
        Some(sources) => sources.file_path(),
        None => None,
    }
}
