//! A fake billing service for demos and tests: `POST /charges` on loopback, whose behaviour can
//! be switched while it runs (`up`, `down`, `slow`) and which counts the charges it receives.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use green_tea_http::{App, HttpError, Json, RequestContext, Route};
use http::StatusCode;
use tokio::net::TcpListener;

use super::client::{Charge, ChargeRequest};

/// How the fake answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// 201 with a charge id.
    Up,
    /// 500 on every charge.
    Down,
    /// Never answers (until the server closes): a hung upstream.
    Slow,
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "up" => Ok(Mode::Up),
            "down" => Ok(Mode::Down),
            "slow" => Ok(Mode::Slow),
            other => Err(format!(
                "unknown mode `{other}` (expected up, down or slow)"
            )),
        }
    }
}

#[derive(Default)]
struct State {
    mode: AtomicU8,
    hits: AtomicU64,
}

/// A running fake billing service. `POST /charges` answers by [`Mode`]; a `userId` of
/// `"unknown"` always gets 404 (a client error that must not trip a breaker). `PUT /mode` with
/// `{"mode": "down"}` switches the mode over HTTP (for soak scripts).
#[derive(Clone)]
pub struct FakeBilling {
    app: App,
    url: String,
    state: Arc<State>,
    /// The task that serves it, until `close()` has waited for it (and so for its listener
    /// to be closed).
    server: Arc<std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>>,
}

impl std::fmt::Debug for FakeBilling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeBilling")
            .field("url", &self.url)
            .field("mode", &mode_of(&self.state))
            .field("hits", &self.hits())
            .finish_non_exhaustive()
    }
}

impl FakeBilling {
    /// Serves on `listener` in a background task.
    pub async fn start(listener: TcpListener, mode: Mode) -> std::io::Result<FakeBilling> {
        let url = format!("http://{}", listener.local_addr()?);
        let state = Arc::new(State::default());
        state.mode.store(mode as u8, Ordering::SeqCst);
        let app = App::builder()
            .value("fakeBilling", Arc::clone(&state))
            .route(
                Route::post("/charges", charge)
                    .needs::<Arc<State>>("fakeBilling")
                    .named("FakeBilling::charge"),
            )
            .route(
                Route::put("/mode", set_mode)
                    .needs::<Arc<State>>("fakeBilling")
                    .named("FakeBilling::set_mode"),
            )
            .drain_timeout(Duration::from_millis(100))
            .build()
            .map_err(std::io::Error::other)?;
        let serving = app.clone();
        let server = tokio::spawn(async move {
            if let Err(error) = serving.serve_until(listener, std::future::pending()).await {
                tracing::warn!(%error, "the fake billing service closed with an error");
            }
        });
        Ok(FakeBilling {
            app,
            url,
            state,
            server: Arc::new(std::sync::Mutex::new(Some(server))),
        })
    }

    /// Its base URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How many charges reached it (in any mode).
    pub fn hits(&self) -> u64 {
        self.state.hits.load(Ordering::SeqCst)
    }

    /// Switches how it answers.
    pub fn set_mode(&self, mode: Mode) {
        self.state.mode.store(mode as u8, Ordering::SeqCst);
    }

    /// Stops it: once this returns, its port no longer answers (the task that served it
    /// has ended, and closed its listener). Any clone closes it; the first waits for that
    /// task, and a clone closing it again returns at once.
    pub async fn close(&self) {
        let _ = self.app.close().await;
        let server = (self.server.lock())
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(server) = server {
            let _ = server.await;
        }
    }
}

fn mode_of(state: &State) -> Mode {
    match state.mode.load(Ordering::SeqCst) {
        0 => Mode::Up,
        1 => Mode::Down,
        _ => Mode::Slow,
    }
}

async fn charge(mut request: RequestContext) -> Result<(StatusCode, Json<Charge>), HttpError> {
    let state = request.need::<Arc<State>>(0)?;
    let order: ChargeRequest = request.json().await?;
    let n = state.hits.fetch_add(1, Ordering::SeqCst) + 1;
    if order.user_id == "unknown" {
        return Err(HttpError::not_found("no such user"));
    }
    match mode_of(&state) {
        Mode::Up => Ok((
            StatusCode::CREATED,
            Json(Charge {
                id: format!("ch_{n}"),
            }),
        )),
        Mode::Down => Err(HttpError::new(500, "billing is down")),
        Mode::Slow => std::future::pending().await,
    }
}

async fn set_mode(mut request: RequestContext) -> Result<Json<serde_json::Value>, HttpError> {
    let state = request.need::<Arc<State>>(0)?;
    #[derive(serde::Deserialize)]
    struct Body {
        mode: String,
    }
    let body: Body = request.json().await?;
    let mode: Mode = body.mode.parse().map_err(HttpError::bad_request)?;
    state.mode.store(mode as u8, Ordering::SeqCst);
    tracing::info!(?mode, "fake billing mode switched");
    Ok(Json(serde_json::json!({ "mode": body.mode })))
}
