//! Providers written by a `macro_rules!` macro: hygiene and `$key:literal` in the attribute.
#![deny(warnings)]

use green_tea::prelude::*;

macro_rules! counter_provider {
    ($name:ident, $key:literal) => {
        #[derive(Default)]
        struct $name {
            start: u32,
        }

        #[provider(provides = $key)]
        impl $name {
            fn provide(&self) -> u32 {
                self.start
            }

            async fn dispose(&self, value: &u32) {
                let _ = (self.start, value);
            }
        }
    };
}

macro_rules! doubled_provider {
    ($name:ident, $key:literal, $need:literal) => {
        #[provider(provides = $key, needs = [$need], dispose = forget)]
        fn $name(value: &u32) -> u64 {
            u64::from(*value) * 2
        }
    };
}

async fn forget(value: &u64) {
    let _ = value;
}

counter_provider!(Counter, "counter");
doubled_provider!(doubled, "doubled", "counter");

#[test]
fn compiles_and_runs() {
    let _ = Container::builder()
        .provider(Counter::default())
        .provider(doubled::provider());
}
