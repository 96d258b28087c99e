//! Test providers that record what happens to them.

#![allow(dead_code, unreachable_pub)]

#[cfg(unix)]
pub mod examples;
pub mod http;
pub mod logs;
pub mod raw;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use green_tea::{BoxError, Descriptor, Needs, Provided, Provider};
use tokio::sync::Notify;

/// This file as `Location`s of the providers declared here read: an area's binary includes it
/// by a relative path (`tests/graph/../support/mod.rs`).
pub const FILE: &str = file!();

/// A shared, ordered record of events such as `"provide base"` and `"dispose top"`.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    pub fn push(&self, event: impl Into<String>) {
        self.0.lock().unwrap().push(event.into());
    }

    pub fn events(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// The names in events that start with `prefix ` (`"dispose"` -> the disposed names).
    pub fn names(&self, prefix: &str) -> Vec<String> {
        self.events()
            .iter()
            .filter_map(|e| e.strip_prefix(prefix).map(|n| n.trim().to_owned()))
            .collect()
    }
}

/// The value every probe provides.
#[derive(Debug)]
pub struct Service {
    pub name: String,
    pub disposed: AtomicBool,
}

impl Service {
    pub fn is_disposed(&self) -> bool {
        self.disposed.load(Ordering::SeqCst)
    }
}

pub enum OnProvide {
    Succeed,
    /// Fails this many times, then succeeds.
    FailTimes(AtomicUsize),
    Panic,
    /// Waits for the gate, then succeeds or fails.
    WaitThen(Arc<Notify>, bool),
    /// Takes a while, so concurrent callers overlap.
    Sleep(Duration),
}

pub enum OnDispose {
    Succeed,
    Fail,
    Panic,
    Hang,
    Sleep(Duration),
}

/// A provider of key `name` (a [`Service`]) needing the services `needs`, which counts its
/// builds and logs its provides and disposes.
pub struct Probe {
    pub name: &'static str,
    pub needs: Vec<&'static str>,
    pub log: Log,
    pub provides: Arc<AtomicUsize>,
    pub on_provide: OnProvide,
    pub on_dispose: OnDispose,
}

impl Probe {
    pub fn new(name: &'static str, needs: &[&'static str], log: &Log) -> Self {
        Probe {
            name,
            needs: needs.to_vec(),
            log: log.clone(),
            provides: Arc::default(),
            on_provide: OnProvide::Succeed,
            on_dispose: OnDispose::Succeed,
        }
    }

    pub fn on_provide(mut self, behaviour: OnProvide) -> Self {
        self.on_provide = behaviour;
        self
    }

    pub fn on_dispose(mut self, behaviour: OnDispose) -> Self {
        self.on_dispose = behaviour;
        self
    }

    /// A handle on the provide count, to read after the probe moved into a builder.
    pub fn counter(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.provides)
    }
}

impl Provider for Probe {
    fn descriptor(&self) -> Descriptor {
        self.needs.iter().fold(
            Descriptor::new(self.name).provides::<Service>(self.name),
            |d, n| d.needs::<Service>(*n),
        )
    }

    async fn provide(&self, needs: Needs<'_>) -> Result<Provided, BoxError> {
        self.provides.fetch_add(1, Ordering::SeqCst);
        for i in 0..needs.len() {
            let dependency = needs.get::<Service>(i)?;
            assert!(
                !dependency.is_disposed(),
                "{} got a disposed {}",
                self.name,
                dependency.name
            );
        }
        self.log.push(format!("provide {}", self.name));
        match &self.on_provide {
            OnProvide::Succeed => {}
            OnProvide::FailTimes(left) => {
                if left.load(Ordering::SeqCst) > 0 {
                    left.fetch_sub(1, Ordering::SeqCst);
                    return Err(format!("{} is down", self.name).into());
                }
            }
            OnProvide::Panic => panic!("{} panicked in provide", self.name),
            OnProvide::WaitThen(gate, succeed) => {
                gate.notified().await;
                if !succeed {
                    return Err(format!("{} is down", self.name).into());
                }
            }
            OnProvide::Sleep(d) => tokio::time::sleep(*d).await,
        }
        Ok(Provided::one(Service {
            name: self.name.to_owned(),
            disposed: AtomicBool::new(false),
        }))
    }

    async fn dispose(&self, provided: &Provided) -> Result<(), BoxError> {
        let service = provided
            .get::<Service>(0)
            .expect("a probe provides a Service");
        self.log.push(format!("dispose {}", self.name));
        match self.on_dispose {
            OnDispose::Succeed => {}
            OnDispose::Fail => return Err(format!("{} failed to dispose", self.name).into()),
            OnDispose::Panic => panic!("{} panicked in dispose", self.name),
            OnDispose::Hang => std::future::pending::<()>().await,
            OnDispose::Sleep(d) => tokio::time::sleep(d).await,
        }
        service.disposed.store(true, Ordering::SeqCst);
        Ok(())
    }
}

/// Panics that a test provokes on purpose (their messages contain "panicked in", as the probes'
/// do) are expected; printing each of them would bury a real failure. Every other panic still
/// prints.
pub fn quiet_expected_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| info.payload().downcast_ref::<&str>().copied())
                .unwrap_or("");
            if !message.contains("panicked in") {
                default(info);
            }
        }));
    });
}

/// A current-thread runtime built without tokio's time driver.
pub fn runtime_without_timers() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime without the time driver")
}

/// What `close()` on [`runtime_without_timers`] must report: one failure, quoting tokio's own
/// message (not a task's wrapper around it).
pub fn assert_timers_disabled(error: &green_tea::CloseError) {
    let [failure] = &error.failures[..] else {
        panic!("one failure expected: {error}");
    };
    assert!(
        matches!(&failure.cause, green_tea::error::FailureCause::Panicked(message)
            if message.starts_with("A Tokio 1.x context was found, but timers are disabled")),
        "{failure:?}"
    );
}
