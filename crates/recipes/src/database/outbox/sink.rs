//! What the relay delivers, an [`OutboxEvent`], and where: the application's [`OutboxSink`], an
//! `async fn`, and [`SharedSink`], the one type the graph holds any sink as (the key
//! `outboxSink`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use green_tea_core::BoxError;

/// One event of the outbox, as the relay hands it on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxEvent {
    /// Its row's id: events are delivered in its order.
    pub id: i64,
    /// What it is about (`order.created`).
    pub topic: String,
    /// Its payload, as the request wrote it (JSON, usually).
    pub payload: String,
}

/// Where the relay delivers: a broker's producer, a webhook, a fake in tests. Written with an
/// `async fn`; the app provides it under the relay's sink key (`outboxSink`) as a
/// [`SharedSink`].
///
/// An error leaves the event undelivered: the relay's run fails and is restarted after its
/// backoff, and the event is delivered again then (at least once: a sink that must not see an
/// event twice keeps the ids it has seen).
///
/// ```
/// use std::sync::Mutex;
/// use green_tea_core::BoxError;
/// use green_tea_recipes::database::{OutboxEvent, OutboxSink, SharedSink};
///
/// #[derive(Default)]
/// struct Broker(Mutex<Vec<i64>>);
///
/// impl OutboxSink for Broker {
///     async fn deliver(&self, event: &OutboxEvent) -> Result<(), BoxError> {
///         self.0.lock().unwrap().push(event.id);
///         Ok(())
///     }
/// }
///
/// // What the app provides as `outboxSink`: `.value("outboxSink", sink)`.
/// let sink = SharedSink::new(Broker::default());
/// # let _ = sink;
/// ```
///
/// The future must be `Send` (the relay runs on the runtime's threads): a lock guard of
/// `std::sync::Mutex` must be dropped before an `.await`, as in any task.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an outbox sink",
    note = "implement `OutboxSink` for it: `async fn deliver(&self, event: &OutboxEvent) -> Result<(), BoxError>`"
)]
pub trait OutboxSink: Send + Sync + 'static {
    /// Delivers `event`: `async fn deliver(&self, event: &OutboxEvent) -> Result<(), BoxError>`.
    fn deliver(&self, event: &OutboxEvent) -> impl Future<Output = Result<(), BoxError>> + Send;
}

/// What the relay delivers through: an `async fn` is not callable through `dyn`, so the
/// recipe boxes each delivery's future here, once, for every sink (the blanket impl), and the
/// application never writes the box.
trait DynSink: Send + Sync + 'static {
    fn deliver_boxed<'a>(
        &'a self,
        event: &'a OutboxEvent,
    ) -> Pin<Box<dyn Future<Output = Result<(), BoxError>> + Send + 'a>>;
}

impl<S: OutboxSink> DynSink for S {
    fn deliver_boxed<'a>(
        &'a self,
        event: &'a OutboxEvent,
    ) -> Pin<Box<dyn Future<Output = Result<(), BoxError>> + Send + 'a>> {
        Box::pin(self.deliver(event))
    }
}

/// Any [`OutboxSink`], as the relay needs it under `outboxSink`: made with
/// [`new`](Self::new) of the sink, or [`from_arc`](Self::from_arc) of one the app also
/// shares under a key of its own (`Arc<Broker>`). Cheap to clone; it is itself an
/// `OutboxSink`.
///
/// ```
/// use std::sync::Arc;
/// use green_tea_core::BoxError;
/// use green_tea_recipes::database::{OutboxEvent, OutboxSink, SharedSink};
///
/// struct Webhook;
///
/// impl OutboxSink for Webhook {
///     async fn deliver(&self, _event: &OutboxEvent) -> Result<(), BoxError> {
///         Ok(())
///     }
/// }
///
/// let webhook = Arc::new(Webhook);
/// let sink = SharedSink::from_arc(Arc::clone(&webhook));
/// assert_eq!(format!("{sink:?}"), "SharedSink(Webhook)");
/// ```
#[derive(Clone)]
pub struct SharedSink {
    sink: Arc<dyn DynSink>,
    /// The sink's type, for `Debug` (and so for `explain`'s readers).
    type_name: &'static str,
}

impl SharedSink {
    /// `sink`, shared.
    pub fn new<S: OutboxSink>(sink: S) -> Self {
        SharedSink::from_arc(Arc::new(sink))
    }

    /// A sink already in an `Arc`, without another allocation.
    pub fn from_arc<S: OutboxSink>(sink: Arc<S>) -> Self {
        SharedSink {
            sink,
            type_name: green_tea_key::short_type_name_of::<S>(),
        }
    }
}

impl<S: OutboxSink> From<Arc<S>> for SharedSink {
    fn from(sink: Arc<S>) -> Self {
        SharedSink::from_arc(sink)
    }
}

impl OutboxSink for SharedSink {
    async fn deliver(&self, event: &OutboxEvent) -> Result<(), BoxError> {
        self.sink.deliver_boxed(event).await
    }
}

impl std::fmt::Debug for SharedSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SharedSink")
            .field(&format_args!("{}", self.type_name))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Failing;

    impl OutboxSink for Failing {
        async fn deliver(&self, event: &OutboxEvent) -> Result<(), BoxError> {
            Err(format!("refused {}", event.id).into())
        }
    }

    fn event(id: i64) -> OutboxEvent {
        OutboxEvent {
            id,
            topic: "t".to_owned(),
            payload: "{}".to_owned(),
        }
    }

    #[tokio::test]
    async fn a_shared_sink_delivers_through_the_sinks_async_fn_and_passes_its_error_on() {
        let sink = SharedSink::new(Failing);
        let error = sink.deliver(&event(7)).await.unwrap_err();
        assert_eq!(error.to_string(), "refused 7");
        // A shared sink shared again is one more box, and still the same sink.
        let again = SharedSink::new(sink.clone());
        assert_eq!(
            again.deliver(&event(8)).await.unwrap_err().to_string(),
            "refused 8"
        );
        assert_eq!(format!("{sink:?}"), "SharedSink(Failing)");
    }

    #[test]
    fn a_shared_sink_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync + 'static>() {}
        assert_send_sync::<SharedSink>();
    }
}
