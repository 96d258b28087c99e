//! Which database a URL names: what the pool, the migrations and the settings each branch on,
//! below all three.

use std::fmt;

/// Which database a URL names; SQL that differs between them branches on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// `sqlite:`: a file, in process.
    Sqlite,
    /// `postgres:` or `postgresql:`.
    Postgres,
}

impl Backend {
    /// The database `url` names, or why it names none.
    ///
    /// ```
    /// use green_tea_recipes::database::Backend;
    /// assert_eq!(Backend::of_url("sqlite://data/app.db"), Ok(Backend::Sqlite));
    /// assert_eq!(Backend::of_url("postgres://db.internal/shop"), Ok(Backend::Postgres));
    /// assert!(Backend::of_url("mysql://db.internal/shop").is_err());
    /// ```
    pub fn of_url(url: &str) -> Result<Backend, String> {
        let scheme = url.split_once(':').map(|(scheme, _)| scheme);
        match scheme {
            Some("sqlite") => Ok(Backend::Sqlite),
            Some("postgres" | "postgresql") => Ok(Backend::Postgres),
            // The URL itself may hold a password: only its scheme is repeated.
            Some(other) => Err(format!(
                "the database URL's scheme is `{other}:`; expected `sqlite:` or `postgres:`"
            )),
            None => Err(
                "the database URL has no scheme; expected `sqlite://…` or `postgres://…`"
                    .to_owned(),
            ),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        })
    }
}
