//! A fake billing service: `POST /charges` on `PORT` (default 3001).
//!
//! ```sh
//! cargo run --example billing_upstream -- --mode up     # 201 {"id": "ch_1"}
//! cargo run --example billing_upstream -- --mode down   # 500 on every charge
//! cargo run --example billing_upstream -- --mode slow   # never answers in time
//! ```
//!
//! The mode can also be switched while it runs: `curl -X PUT localhost:3001/mode -H
//! 'content-type: application/json' -d '{"mode":"down"}'`. A `userId` of `"unknown"` always
//! gets 404.

use green_tea_recipes::billing::fake::{FakeBilling, Mode};
use std::io::IsTerminal;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_ansi(colour())
        .with_target(false)
        .init();
    let mode = parse_mode(std::env::args().skip(1))?;
    let port: u16 = std::env::var("PORT")
        .ok()
        .map(|p| p.parse())
        .transpose()?
        .unwrap_or(3001);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let fake = FakeBilling::start(listener, mode).await?;
    // Caught before the address is printed: a SIGTERM sent the moment it is out stops the
    // service cleanly rather than killing it (the smoke test's flake).
    let stopped = stopped()?;
    println!("fake billing ({mode:?})");
    println!("listening on {}", fake.url());
    println!("Ctrl-C to stop");
    stopped.await;
    fake.close().await;
    println!("served {} charge(s)", fake.hits());
    Ok(())
}

/// Ctrl-C, or SIGTERM on Unix (as a process manager stops it): both caught from this call on,
/// not from the future's first poll.
fn stopped() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

fn parse_mode(mut args: impl Iterator<Item = String>) -> Result<Mode, String> {
    match (args.next().as_deref(), args.next()) {
        (None, _) => Ok(Mode::Up),
        (Some("--mode"), Some(mode)) => mode.parse(),
        (Some(other), _) => Err(format!(
            "unexpected argument `{other}`; usage: billing_upstream [--mode up|down|slow]"
        )),
    }
}

/// Colour only for a person at a terminal, and never with `NO_COLOR` set
/// (<https://no-color.org>): a file, a pipe or a log collector gets text without escape codes.
fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
