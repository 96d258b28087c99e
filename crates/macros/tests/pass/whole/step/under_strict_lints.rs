//! Documented, public steps in a module, under strict lints: a guard, `&mut Parts` next to an
//! extractor, a step written by `macro_rules!`, and bindings named like a step.
#![forbid(unsafe_code)]
#![deny(missing_docs, warnings)]

use green_tea::steps::Step;

/// Authentication.
pub mod auth {
    use green_tea::http::Method;
    use green_tea::prelude::*;
    use std::sync::Arc;

    /// Who is calling.
    pub struct User(pub String);

    /// Reads the caller.
    #[step(provides = "user")]
    pub async fn auth(parts: &Parts) -> Result<User, HttpError> {
        let name = parts
            .headers
            .get("x-user")
            .ok_or(HttpError::unauthorized("who?"))?;
        Ok(User(name.to_str().unwrap_or_default().to_owned()))
    }

    /// A guard that rewrites the head.
    #[step(needs = ["user"])]
    pub fn tag(method: Method, parts: &mut Parts, user: Arc<User>) {
        let _ = (method, user);
        parts.extensions.insert(7u8);
    }

    /// A guard reading a need by reference, fallibly, with a parameter named like a step.
    #[step(needs = "user")]
    pub fn named(auth: &User) -> Result<(), HttpError> {
        let tag = auth.0.len();
        if tag > 0 {
            Ok(())
        } else {
            Err(HttpError::forbidden("empty"))
        }
    }
}

macro_rules! constant_step {
    ($name:ident, $key:literal, $value:expr) => {
        #[green_tea::step(provides = $key)]
        fn $name() -> u32 {
            $value
        }
    };
}

constant_step!(answer, "answer", 42);

#[test]
fn compiles_and_runs() {
    let auth = auth::auth::step();
    let steps: Vec<Box<dyn Step>> = vec![
        Box::new(auth),
        Box::new(auth::tag::step()),
        Box::new(auth::named::step()),
        Box::new(answer::step()),
    ];
    assert_eq!(steps[0].descriptor().name, "auth");
    assert_eq!(answer(), 42);
}
