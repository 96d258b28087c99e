//! What a pull request changes in the app's shape, from two lockfiles alone: the base's and the
//! head's `green-tea.lock`, as Markdown for a comment (sentences by section, and a Mermaid
//! picture of what changed). Nothing is built: a CI job runs it on the two files.
//!
//! ```sh
//! git show origin/main:green-tea.lock > base.lock
//! cargo run --example lock_diff -- base.lock green-tea.lock > graph-changes.md
//! ```
//!
//! `--text` writes the sentences as a failing test prints them instead. A file that cannot be
//! read, or is not a lockfile, is said on stderr, with exit status 2.

use std::process::ExitCode;

use green_tea::lock::GraphLock;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = args.iter().any(|a| a == "--text");
    let files: Vec<&String> = args.iter().filter(|a| *a != "--text").collect();
    let [base, head] = files.as_slice() else {
        eprintln!("usage: lock_diff [--text] BASE.lock HEAD.lock");
        return ExitCode::from(2);
    };
    let read = |path: &str| -> Result<GraphLock, String> {
        let written = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        GraphLock::parse(&written).map_err(|e| format!("{path}: {e}"))
    };
    let (base, head) = match (read(base), read(head)) {
        (Ok(base), Ok(head)) => (base, head),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let diff = base.diff(&head);
    match text {
        true => println!("{diff}"),
        false => print!("{}", diff.to_markdown()),
    }
    ExitCode::SUCCESS
}
