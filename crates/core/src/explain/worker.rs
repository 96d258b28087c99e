//! `explain_worker(name)` and `explain_workers()`: a worker as data: where it was declared, its
//! module, how it restarts, whether it is critical, its state now, what it needs and which
//! provider gives each, and the slice of providers those needs build; as text and JSON (its
//! drawings are `picture.rs`'s).

use std::fmt;

use serde::Serialize;

use super::{Explain, in_module};
use crate::container::Container;
use crate::graph::closest;
use crate::key::Spelling;
use crate::worker::{Restart, WorkerNode, WorkerState};

/// One worker: see [`Container::explain_worker`]. `Display` is the text form; it is also
/// `serde::Serialize` (JSON) and renders to [DOT](Self::to_dot), [Mermaid](Self::to_mermaid)
/// and [SVG](Self::to_svg).
///
/// ```
/// use green_tea::{Container, Module};
/// use green_tea::workers::{Restart, WorkerFn};
/// let container = Container::builder()
///     .module(
///         Module::new("orders")
///             .value("outbox", String::from("the outbox"))
///             .worker(
///                 WorkerFn::new("relay", |_, shutdown| async move {
///                     shutdown.requested().await;
///                     Ok(())
///                 })
///                 .needs::<String>("outbox")
///                 .restart(Restart::on_failure())
///                 .critical(),
///             ),
///     )
///     .build()
///     .unwrap();
/// let relay = container.explain_worker("orders::relay").unwrap();
/// assert_eq!(relay.module.as_deref(), Some("orders"));
/// assert_eq!(relay.restart, "on failure, 100ms doubling to 30s");
/// assert_eq!(relay.needs[0].resolved.as_deref(), Some("orders::outbox"));
/// assert_eq!(relay.providers.nodes[relay.needs[0].from.unwrap()].name, "value `outbox`");
/// assert!(relay.to_string().starts_with("worker orders::relay ("));
/// let unknown = container.explain_worker("orders::rely").unwrap_err();
/// assert_eq!(unknown.suggestion.as_deref(), Some("orders::relay"));
/// ```
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainWorker {
    /// Its name, qualified by its module's path (`orders::relay`), as health, logs and
    /// `close()`'s error say it.
    pub name: String,
    /// Where it was declared, `file:line`.
    pub location: String,
    /// The path of the module it was registered in, or `None` for a worker of the app itself.
    pub module: Option<String>,
    /// What it needs, in the order it receives them, each with the provider that gives it.
    pub needs: Vec<ExplainWorkerNeed>,
    /// Its restart policy: `never`, or `on failure, 100ms doubling to 30s`.
    pub restart: String,
    /// Whether the app is not ready while it is not running.
    pub critical: bool,
    /// Whether it is a test's replacement (`override_worker`) of the worker registered under
    /// its name; its location is the replacement's.
    pub overridden: bool,
    /// Where it is in its life now, as health says.
    pub state: WorkerState,
    /// Its last failure, if a run failed (restarted or not), as health says.
    pub last_error: Option<String>,
    /// The providers its needs build, in build order, with their state now; `roots` are the
    /// positions of the values it reads.
    pub providers: Explain,
}

/// One need of an [`ExplainWorker`].
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ExplainWorkerNeed {
    /// The key, as the worker wrote it (`outbox`, `cache?`).
    pub key: String,
    /// Its Rust type, without module paths.
    #[serde(rename = "type")]
    pub type_name: String,
    /// Whether it is an optional need (`cache?`), read as `None` when nothing provides it.
    pub optional: bool,
    /// The key of the value it reads, qualified (`orders::outbox` for a module's private
    /// key); `None` for an optional need that nothing provides (absent).
    pub resolved: Option<String>,
    /// For an absent optional need whose key is provided under some outcomes of the switches,
    /// where it is on (``when `cacheOn` = true``): absent because it is off in this shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub off: Option<String>,
    /// The position in the worker's [`providers`](ExplainWorker::providers)' nodes of what
    /// provides it; `None` when absent.
    pub from: Option<usize>,
}

/// GT0104: `explain_worker` was asked about a name no registered worker has.
#[derive(Clone, thiserror::Error)]
#[error("{}", unknown_worker_text(.name, .suggestion, .workers))]
#[non_exhaustive]
pub struct UnknownWorker {
    /// The name asked about.
    pub name: String,
    /// The closest registered worker's name, if one is close.
    pub suggestion: Option<String>,
    /// Every registered worker's name, in registration order.
    pub workers: Vec<String>,
}

/// As `Display`, so that `?` in a `main` that returns a `Result` prints the message.
impl fmt::Debug for UnknownWorker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl UnknownWorker {
    /// The error code, `"GT0104"`, with a page `docs/errors/GT0104.md`.
    pub fn code(&self) -> &'static str {
        "GT0104"
    }
}

fn unknown_worker_text(name: &str, suggestion: &Option<String>, workers: &[String]) -> String {
    if workers.is_empty() {
        return format!(
            "error[GT0104]: no worker `{name}`: nothing registers a worker (`.worker(..)`)"
        );
    }
    let mut text = format!("error[GT0104]: no worker `{name}`");
    match suggestion {
        Some(near) => text.push_str(&format!("; did you mean `{near}`? ")),
        None => text.push_str("; "),
    }
    text.push_str(&format!("workers: {}", workers.join(", ")));
    text
}

/// `never`, or `on failure, 100ms doubling to 30s`.
fn restart_text(restart: &Restart) -> String {
    match restart {
        Restart::Never => "never".to_owned(),
        Restart::OnFailure(backoff) => format!(
            "on failure, {:?} doubling to {:?}",
            backoff.initial, backoff.max
        ),
    }
}

impl Container {
    /// Every worker, in registration order, as [`explain_worker`](Self::explain_worker)
    /// explains it. Builds nothing.
    pub fn explain_workers(&self) -> Vec<ExplainWorker> {
        let workers = &self.inner.workers.nodes;
        workers
            .iter()
            .map(|node| self.explain_worker_node(node))
            .collect()
    }

    /// The worker named `name` (qualified by its module's path: `orders::relay`): where it was
    /// declared, its module, its restart policy, whether it is critical, its state now, what
    /// it needs and which provider gives each, and the providers those needs build, in build
    /// order, with what is built now. Builds nothing. A name no worker has is an error naming
    /// the closest one.
    pub fn explain_worker(&self, name: &str) -> Result<ExplainWorker, UnknownWorker> {
        let workers = &self.inner.workers.nodes;
        if let Some(node) = workers.iter().find(|w| w.name() == name) {
            return Ok(self.explain_worker_node(node));
        }
        let names: Vec<String> = workers.iter().map(WorkerNode::name).collect();
        // A module's worker asked for by its own name (`relay` for `orders::relay`).
        let unqualified = || {
            let mut same = names
                .iter()
                .filter(|n| green_tea_key::split_last(n).1 == name);
            match (same.next(), same.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        };
        let suggestion = closest(name, names.iter(), |n| n.as_str()).or_else(unqualified);
        Err(UnknownWorker {
            name: name.to_owned(),
            suggestion: suggestion.cloned(),
            workers: names,
        })
    }

    fn explain_worker_node(&self, node: &WorkerNode) -> ExplainWorker {
        let inner = &self.inner;
        let name = node.name();
        let roots: Vec<_> = node.needs.iter().flatten().copied().collect();
        let providers = self.explain_values(name.clone(), &roots);
        let mut root = providers.roots.iter().copied();
        let needs =
            node.registered
                .descriptor
                .needs
                .iter()
                .zip(node.needs.iter())
                .map(|(spec, at)| ExplainWorkerNeed {
                    key: spec.key.to_string(),
                    type_name: spec.ty.short_name(),
                    optional: matches!(spec.key.spelling(), Ok(Spelling::Optional(_))),
                    resolved: at.map(|at| inner.spec(at).key.to_string()),
                    off: match at {
                        None => inner.shape.as_ref().and_then(|shape| {
                            shape.off_reason(&inner.modules, node.module, &spec.key)
                        }),
                        Some(_) => None,
                    },
                    from: at.and_then(|_| root.next()),
                })
                .collect();
        let module = node
            .module
            .map(|m| inner.modules[m as usize].path.to_string());
        let health = node.health(module.clone());
        ExplainWorker {
            name,
            location: node.registered.descriptor.location.to_string(),
            module,
            needs,
            restart: restart_text(&node.registered.options.restart),
            critical: node.registered.options.critical,
            overridden: node.registered.overridden,
            state: health.state,
            last_error: health.last_error,
            providers,
        }
    }
}

impl ExplainWorkerNeed {
    /// `outbox: String`.
    fn heading(&self) -> String {
        format!("{}: {}", self.key, self.type_name)
    }
}

impl ExplainWorker {
    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the explain model is plain data")
    }

    /// `` worker `orders::relay` ``.
    pub fn who(&self) -> String {
        format!("worker `{}`", self.name)
    }

    /// The lines of its box in a picture (DOT, Mermaid, SVG): what it is, how it restarts,
    /// `critical` for a critical worker and `override` for a test's replacement.
    pub fn label_lines(&self) -> Vec<String> {
        let mut lines = vec![self.who(), format!("restart: {}", self.restart)];
        if self.critical {
            lines.push("critical".to_owned());
        }
        if self.overridden {
            lines.push("override".to_owned());
        }
        lines
    }

    /// `running`, or `failed; last failure: the feed is gone`.
    pub(super) fn state_text(&self) -> String {
        match &self.last_error {
            Some(error) => format!("{}; last failure: {error}", self.state),
            None => self.state.to_string(),
        }
    }
}

impl fmt::Display for ExplainWorker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "worker {} ({}){}",
            self.name,
            self.location,
            in_module(self.module.as_deref())
        )?;
        if self.overridden {
            f.write_str(" (override)")?;
        }
        write!(f, "\n  restart: {}", self.restart)?;
        if self.critical {
            f.write_str("\n  critical: the app is not ready while it is not running")?;
        }
        write!(f, "\n  state: {}", self.state_text())?;
        if self.needs.is_empty() {
            f.write_str("\n  needs: nothing")?;
        } else {
            f.write_str("\n  needs:")?;
            for need in &self.needs {
                write!(f, "\n    {}", need.heading())?;
                match need.from.and_then(|at| self.providers.nodes.get(at)) {
                    Some(node) => {
                        write!(f, " <- {}{}", node.who(), in_module(node.module.as_deref()))?
                    }
                    None => match &need.off {
                        Some(on) => write!(f, " (absent: off, on {on})")?,
                        None => write!(
                            f,
                            " (absent: nothing provides `{}`)",
                            crate::key::Key::from(need.key.clone()).name()
                        )?,
                    },
                }
            }
        }
        if self.providers.nodes.is_empty() {
            return f.write_str("\n  providers: none");
        }
        f.write_str("\n  providers, in build order (app scope, built once):")?;
        let text = self.providers.to_string();
        // The core's text, minus its heading, indented under this worker, as a route's is.
        for line in text.lines().skip(1) {
            write!(f, "\n  {line}")?;
        }
        Ok(())
    }
}
