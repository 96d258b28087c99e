//! The notes service of `from_axum_axum`, written in green-tea: the "after" of
//! docs/coming-from-axum.md. Same routes, same statuses, same JSON bodies.
//!
//! ```sh
//! cargo run --example from_axum_green_tea
//! curl -i -H 'authorization: Bearer tea-for-ada' -H 'content-type: application/json' \
//!      -d '{"text":"buy sencha"}' http://127.0.0.1:3000/notes
//! curl -i -H 'authorization: Bearer tea-for-ada' http://127.0.0.1:3000/notes/1
//! ```
//!
//! What moved where: axum's `State` became two providers (`notes`, `tokens`); the `bearer`
//! middleware and its `Extension<User>` became a step that provides `user`; the router became a
//! `#[route]` block; the JSON 404 for unknown paths is green-tea's own; and the signal handling
//! is `serve`'s.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use green_tea::prelude::*;
use http::HeaderMap;
use serde::{Deserialize, Serialize};

#[derive(Clone, Serialize)]
struct Note {
    id: u64,
    text: String,
    author: String,
}

/// The body of `POST /notes`.
#[derive(Deserialize)]
struct NewNote {
    text: String,
}

/// Who is calling: the `bearer` step's value, for every handler that needs `user`.
struct User(String);

/// The notes, by id.
#[derive(Default)]
struct Notes {
    last_id: u64,
    by_id: BTreeMap<u64, Note>,
}

/// Who a token belongs to.
struct Tokens(HashMap<&'static str, &'static str>);

/// Providers: built once, on first need, shared by every request (axum's `State`, in parts).
#[provider(provides = "notes")]
fn notes() -> Mutex<Notes> {
    Mutex::default()
}

#[provider(provides = "tokens")]
fn tokens() -> Tokens {
    Tokens(HashMap::from([
        ("tea-for-ada", "ada"),
        ("tea-for-bob", "bob"),
    ]))
}

/// A step (axum's middleware + `Extension`): runs before every handler that needs `user`, and
/// only those; its error is the response.
#[step(provides = "user", needs = ["tokens"])]
fn bearer(tokens: &Tokens, headers: &HeaderMap) -> Result<User, HttpError> {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| HttpError::unauthorized("a bearer token is required"))?;
    let name = tokens
        .0
        .get(token)
        .ok_or_else(|| HttpError::unauthorized("unknown token"))?;
    Ok(User((*name).to_owned()))
}

struct NotesApi;

#[route("/notes")]
impl NotesApi {
    /// `GET /notes`: the caller's notes.
    #[get("/")]
    async fn list(
        #[needs("user")] user: &User,
        #[needs("notes")] notes: &Mutex<Notes>,
    ) -> Json<Vec<Note>> {
        let notes = notes.lock().unwrap();
        let mine = notes.by_id.values().filter(|n| n.author == user.0);
        Json(mine.cloned().collect())
    }

    /// `POST /notes`: a new note by the caller, 201. `#[body]` is the JSON body (a bad one is
    /// a JSON 400 or 415 before this runs).
    #[post("/")]
    async fn create(
        #[body] new: NewNote,
        #[needs("user")] user: &User,
        #[needs("notes")] notes: &Mutex<Notes>,
    ) -> (StatusCode, Json<Note>) {
        let mut notes = notes.lock().unwrap();
        notes.last_id += 1;
        let note = Note {
            id: notes.last_id,
            text: new.text,
            author: user.0.clone(),
        };
        notes.by_id.insert(note.id, note.clone());
        (StatusCode::CREATED, Json(note))
    }

    /// `GET /notes/{id}`: one of the caller's notes, or 404. `Path` is green-tea's.
    #[get("/{id}")]
    async fn show(
        Path(id): Path<u64>,
        #[needs("user")] user: &User,
        #[needs("notes")] notes: &Mutex<Notes>,
    ) -> Result<Json<Note>, HttpError> {
        let notes = notes.lock().unwrap();
        match notes.by_id.get(&id) {
            Some(note) if note.author == user.0 => Ok(Json(note.clone())),
            _ => Err(HttpError::not_found(format!("no note {id}"))),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let app = App::builder()
        .provider(notes::provider())
        .provider(tokens::provider())
        .step(bearer::step())
        .routes(NotesApi::routes())
        .build()?; // the whole graph checked here: a missing provider is an error now
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_listener(listener);
    println!("listening on http://{addr}");
    served.await?; // Ctrl-C or SIGTERM: drain, then close
    Ok(())
}
