//! An impl block whose `provide` returns `Self` and has sync `dispose` taking nothing.
#![deny(warnings)]

use green_tea::prelude::*;

#[derive(Clone, Default)]
struct Settings {
    verbose: bool,
}

#[provider(provides = "settings", needs = "verbose")]
impl Settings {
    fn provide(&self, verbose: &bool) -> Self {
        Settings {
            verbose: *verbose || self.verbose,
        }
    }

    fn dispose(&self) -> Result<(), std::io::Error> {
        Ok(())
    }
}

#[test]
fn compiles_and_runs() {
    let _ = Container::builder().provider(Settings::default());
}
