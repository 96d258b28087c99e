//! A reload as the app drives it: the settings read again and the next generation built
//! beside the serving one ([`next_generation`]); the app checks its health, then swaps it in
//! and [commits](Pending::commit) it, or [abandons](Pending::abandon) it.

pub use crate::container::Pending;
use crate::{Container, Reload, ReloadError};

/// Logs and counts how an app's reload ended, as a container's is (`serving`: the
/// generation that serves after it).
pub fn said_how_it_ended(outcome: Result<Option<&Reload>, &ReloadError>, serving: u64) {
    crate::container::said_how_it_ended(outcome, Some(serving));
}

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

/// The variable of every field marked `reload` (a nested one's too) of the settings types on
/// today, in registration order: what the explain page says a change of would build anew.
pub fn reloadable(container: &Container) -> Vec<String> {
    let inner = &container.inner;
    (inner.settings_fields())
        .filter(|(id, _)| inner.is_on(*id))
        .flat_map(|(_, fields)| fields)
        .filter(|field| field.spec.reload)
        .map(|field| field.name)
        .collect()
}
