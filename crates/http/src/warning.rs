//! What `build()` finds suspicious but not wrong: each is logged and kept on the app.

use std::fmt;

use green_tea_core::settings::UnknownSetting;

/// Something about an app that is allowed but is rarely meant; see
/// [`App::warnings`](crate::App::warnings).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// `discover()` (or `discover_in`) found nothing to register: no `#[provider]`,
    /// `#[decorator]`, `#[worker]`, `#[step]`, `#[route]` or `#[derive(Settings)]`.
    DiscoveredNothing {
        /// The modules `discover_in` was limited to (`None` for `discover()`).
        modules: Option<Vec<String>>,
    },
    /// The app has no routes: every request is answered 404.
    NoRoutes,
    /// GT0019: a variable under a settings prefix (`BILLING_URLL`), or a key in a settings
    /// table, that no field reads; an error instead with `Sources::strict()`.
    UnknownSetting(UnknownSetting),
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::DiscoveredNothing { modules } => {
                f.write_str(
                    "discover() found no #[provider], #[decorator], #[worker], #[step], \
                     #[route] or #[derive(Settings)]",
                )?;
                if let Some(modules) = modules {
                    write!(f, " in {}", modules.join(", "))?;
                }
                f.write_str(
                    ": if they are declared in a library crate, name that crate in this binary \
                     (`use my_lib as _;`, or call one of its functions), because Rust does not \
                     link a crate the binary never names; or register them explicitly (see \
                     the guide's project layout)",
                )
            }
            Warning::UnknownSetting(unknown) => write!(
                f,
                "warning[GT0019]: {unknown}\n  note: a warning, as platforms set variables \
                 under service names; `Sources::strict()` makes it an error"
            ),
            Warning::NoRoutes => f.write_str(
                "the app has no routes, so every request is answered 404: register routes with \
                 `.routes(Type::routes())` or `.route(...)`",
            ),
        }
    }
}
