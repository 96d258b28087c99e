//! The `users` module: the directory of users, over a client of the accounts service of its
//! own (`users::http`, private), exported as `users::directory`; `GET /users/{id}`.

use std::collections::BTreeMap;
use std::sync::Arc;

use green_tea::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::client::HttpClient;

/// Where a user lives, and so which payment gateway charges their orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Region {
    Eu,
    Us,
}

impl Region {
    /// As the orders table stores it (the JSON name).
    pub(crate) fn code(self) -> &'static str {
        match self {
            Region::Eu => "eu",
            Region::Us => "us",
        }
    }

    /// From the orders table.
    pub(crate) fn from_code(code: &str) -> Option<Region> {
        match code {
            "eu" => Some(Region::Eu),
            "us" => Some(Region::Us),
            _ => None,
        }
    }
}

#[derive(Clone, Serialize)]
pub(crate) struct User {
    pub(crate) name: String,
    pub(crate) email: String,
    pub(crate) phone: Option<String>,
    pub(crate) region: Region,
}

/// The users, by id, as the accounts service has them (kept in memory here).
pub(crate) struct Directory {
    http: Arc<HttpClient>,
    users: BTreeMap<String, User>,
}

impl Directory {
    pub(crate) fn find(&self, id: &str) -> Option<&User> {
        self.users.get(id)
    }
}

#[provider(provides = "http")]
fn http() -> HttpClient {
    HttpClient::new("https://accounts.example")
}

#[provider(provides = "directory", needs = ["http"])]
fn directory(http: Arc<HttpClient>) -> Directory {
    let user = |name: &str, phone: Option<&str>, region| User {
        name: name.to_owned(),
        email: format!("{}@example.com", name.to_lowercase()),
        phone: phone.map(str::to_owned),
        region,
    };
    let users = BTreeMap::from([
        (
            "u1".to_owned(),
            user("Ada", Some("+44 20 7946 0001"), Region::Eu),
        ),
        ("u2".to_owned(), user("Grace", None, Region::Us)),
    ]);
    Directory { http, users }
}

pub(crate) struct UsersApi;

#[route("/")]
impl UsersApi {
    /// A user, and where the accounts service keeps them.
    #[get("/{id}")]
    async fn show(
        Path(id): Path<String>,
        #[needs("directory")] directory: &Directory,
    ) -> Result<Json<Value>, HttpError> {
        let user = directory
            .find(&id)
            .ok_or_else(|| HttpError::not_found(format!("no user {id}")))?;
        let source = directory.http.url(&format!("/accounts/{id}"));
        Ok(Json(json!({ "id": id, "user": user, "source": source })))
    }
}

/// The users module: `directory` exported, its client private; served under `/users`.
pub(crate) fn module() -> Module {
    Module::new("users")
        .discover_in(&[module_path!()])
        .prefix("/users")
        .export("directory")
}
