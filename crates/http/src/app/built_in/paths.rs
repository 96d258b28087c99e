//! Where the built-in routes are served, as the builder was told: what the metrics label and
//! the build checks. Answering them is the folder's `mod.rs`, which measures through the
//! metrics; this file is below both.

use green_tea_core::Location;

/// The paths of the built-in routes, each where the builder was told it.
#[derive(Default)]
pub(crate) struct BuiltIn {
    pub(crate) health: Option<HealthPaths>,
    pub(crate) explain_page: Option<(String, Location)>,
}

pub(crate) struct HealthPaths {
    pub(crate) live: String,
    pub(crate) ready: String,
    pub(crate) location: Location,
}

impl BuiltIn {
    pub(crate) fn is_empty(&self) -> bool {
        self.health.is_none() && self.explain_page.is_none()
    }

    /// Every path with the setting that asked for it, for the build's checks.
    pub(crate) fn paths(&self) -> Vec<(&str, String, Location)> {
        let mut paths = Vec::new();
        if let Some(h) = &self.health {
            paths.push((
                h.live.as_str(),
                format!("GET {} (liveness)", h.live),
                h.location,
            ));
            paths.push((
                h.ready.as_str(),
                format!("GET {} (readiness)", h.ready),
                h.location,
            ));
        }
        if let Some((path, location)) = &self.explain_page {
            paths.push((
                path.as_str(),
                format!("GET {path} (explain page)"),
                *location,
            ));
        }
        paths
    }

    /// Whether the app should keep accepting connections while it drains, to answer them.
    pub(crate) fn answers_during_drain(&self) -> bool {
        self.health.is_some()
    }
}

/// One of the built-in routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BuiltInRoute {
    Live,
    Ready,
    ExplainPage,
}

impl BuiltInRoute {
    /// Every one, in a fixed order (the metrics keep their handles in it).
    pub(crate) const ALL: [BuiltInRoute; 3] = [
        BuiltInRoute::Live,
        BuiltInRoute::Ready,
        BuiltInRoute::ExplainPage,
    ];
}

impl BuiltIn {
    /// The built-in route at `path`, if one is.
    #[inline]
    pub(crate) fn at(&self, path: &str) -> Option<BuiltInRoute> {
        BuiltInRoute::ALL
            .into_iter()
            .find(|&route| self.path(route) == Some(path))
    }

    /// Where `route` is served, if it is.
    pub(crate) fn path(&self, route: BuiltInRoute) -> Option<&str> {
        match route {
            BuiltInRoute::Live => self.health.as_ref().map(|h| h.live.as_str()),
            BuiltInRoute::Ready => self.health.as_ref().map(|h| h.ready.as_str()),
            BuiltInRoute::ExplainPage => self.explain_page.as_ref().map(|(p, _)| p.as_str()),
        }
    }
}
