//! The served connections: how long one may sit without a request, and how they all wind down.
//!
//! One registry per `serve_until` replaces three per-connection mechanisms that cost time on
//! every request: hyper's HTTP/1 head-read timer (a boxed sleep, a clock read and a timer-wheel
//! insert and removal per request), a first-request deadline (a second sleep polled on every
//! wake-up of the connection) and hyper-util's graceful-shutdown watcher (a watch channel
//! polled on every wake-up).
//!
//! Instead, a connection counts its requests in flight and, when the count drops to zero,
//! notes the time from a coarse clock that one sweeper ticks for the whole server. The sweeper
//! is a thread of its own, not a task with a timer: a timer in the runtime's wheel would make
//! every park of every worker compute the next deadline and read the clock, which on a busy
//! server is once per request. The sweeper wakes the connections that have been idle for
//! longer than the head read timeout; each one then checks, in its own task and after hyper
//! has had its turn to read, whether it is still idle. If so, it is asked to shut down
//! gracefully (an idle HTTP/1 connection ends at once; HTTP/2 sends GOAWAY), and if it is still
//! there a sweep later (an HTTP/1 head trickling in keeps hyper reading), it is dropped. Per
//! request this is two atomic counts and a store; no timer, no allocation.
//!
//! "Idle" covers what the three mechanisms covered: a new connection that starts no request
//! (whatever its protocol), an HTTP/1 client that does not finish its next head, and a
//! keep-alive connection left open. It also closes an HTTP/2 connection that carries no
//! stream for that long.
//!
//! The same sweep cuts a connection whose client stopped reading: its socket (see
//! [`Watched`](super::watched::Watched)) notes when a write began to wait, and a connection
//! whose writes have waited longer than the write timeout is dropped, response and all. A
//! busy connection is never idle, so without this a client that never reads would hold its
//! connection, and its request's place in flight, until the server closed.
//!
//! An HTTP/2 client can stop taking a response without filling the socket: it grants the
//! stream no flow-control window, so hyper holds the response and writes nothing. hyper has
//! no per-stream timeout or reset to reach for, so the connection counts the responses whose
//! body hyper holds with a frame taken and has not asked for the next one yet (see
//! [`flow`](super::flow)), and notes when it last asked any of them. A connection where some
//! response waits and none has moved for the write timeout is cut the same way, its requests
//! leaving flight with it. (A response that keeps moving on the same connection postpones
//! the cut, but it holds `close()` for as long itself.)

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

/// The connections of one server.
pub(crate) struct Connections {
    shared: Arc<Shared>,
}

struct Shared {
    /// Milliseconds since `start`, advanced by each sweep.
    clock: AtomicU64,
    start: Instant,
    /// A connection idle for this many milliseconds (by the coarse clock) has been idle for
    /// at least the head read timeout in real time, whatever the clock's lag.
    expire_after: u64,
    /// Likewise for a write that waits on the client (the write timeout).
    stall_after: u64,
    tick: Duration,
    draining: AtomicBool,
    live: Mutex<Vec<Arc<Connection>>>,
}

/// One connection's state, shared by its task, its requests and the sweeper.
pub(crate) struct Connection {
    shared: Arc<Shared>,
    in_flight: AtomicUsize,
    /// The coarse clock when `in_flight` last fell to zero (or when the connection opened).
    idle_since: AtomicU64,
    /// One more than the coarse clock when a write began to wait on the client; 0 while
    /// writes go through.
    blocked_since: AtomicU64,
    /// Responses (HTTP/2) whose body has handed hyper a frame, or is new, and has not been
    /// asked for the next one: each waits for the client's flow-control window (or a socket
    /// that takes the frames before it).
    held_responses: AtomicUsize,
    /// The coarse clock when a response body of this connection was last polled (or began to
    /// wait).
    responses_moved_at: AtomicU64,
    /// The connection task's waker, kept (not taken) by a wake-up: a task's waker does not
    /// change between polls, so the task stores it once instead of on every poll.
    waker: Mutex<Option<Waker>>,
}

/// Stops the sweeper thread when dropped.
pub(crate) struct Sweeper {
    _stop: mpsc::Sender<()>,
}

/// One request in flight on a connection; dropping it (when the response body is done or
/// dropped) may leave the connection idle.
pub(crate) struct Busy(Arc<Connection>);

/// How a connection's task ended.
pub(crate) enum Ended<T> {
    /// hyper finished serving it (also after a graceful shutdown for idleness).
    Served(T),
    /// It sat without a request for longer than the head read timeout and did not end when
    /// asked to: dropped.
    Idle,
    /// Its client took none of the response for longer than the write timeout: dropped.
    Stalled,
}

impl Connections {
    /// `idle_timeout`: how long a connection may go without a request in flight;
    /// `write_timeout`: how long a write may wait on a client that does not read. The sweeper
    /// ticks at an eighth of the shorter (between 1 ms and 1 s), so a connection is closed
    /// between the timeout and about the timeout plus three ticks after it fell idle (or its
    /// writes began to wait).
    pub(crate) fn new(idle_timeout: Duration, write_timeout: Duration) -> Self {
        let tick = (idle_timeout.min(write_timeout) / 8)
            .clamp(Duration::from_millis(1), Duration::from_secs(1));
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Connections {
            shared: Arc::new(Shared {
                clock: AtomicU64::new(0),
                start: Instant::now(),
                expire_after: millis(idle_timeout).saturating_add(millis(tick)),
                stall_after: millis(write_timeout).saturating_add(millis(tick)),
                tick,
                draining: AtomicBool::new(false),
                live: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Registers a new connection, idle from now.
    pub(crate) fn open(&self) -> Arc<Connection> {
        let connection = Arc::new(Connection {
            shared: Arc::clone(&self.shared),
            in_flight: AtomicUsize::new(0),
            idle_since: AtomicU64::new(self.shared.now()),
            blocked_since: AtomicU64::new(0),
            held_responses: AtomicUsize::new(0),
            responses_moved_at: AtomicU64::new(0),
            waker: Mutex::new(None),
        });
        self.shared.live().push(Arc::clone(&connection));
        connection
    }

    /// Advances the clock to `elapsed` since the registry was made, forgets connections that
    /// ended and wakes those idle for too long. (The sweeper thread does this; tests make time
    /// pass with it.)
    #[cfg(test)]
    fn sweep_at(&self, elapsed: Duration) {
        self.shared.sweep_at(elapsed);
    }

    /// Sweeps every tick on a thread of its own, until the returned guard is dropped.
    pub(crate) fn start_sweeper(&self) -> std::io::Result<Sweeper> {
        let (stop, stopped) = mpsc::channel::<()>();
        let shared = Arc::clone(&self.shared);
        std::thread::Builder::new()
            .name("green-tea-sweeper".into())
            .spawn(move || {
                // Ticks until the guard drops its sender.
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(shared.tick) {
                    shared.sweep_at(shared.start.elapsed());
                }
            })?;
        Ok(Sweeper { _stop: stop })
    }

    /// Asks every connection to finish its requests in flight and then end (HTTP/1: no more
    /// keep-alive; HTTP/2: GOAWAY).
    pub(crate) fn drain(&self) {
        self.shared.draining.store(true, Ordering::SeqCst);
        for connection in self.shared.live().iter() {
            connection.wake();
        }
    }

    /// How many connections have not ended yet.
    #[cfg(test)]
    fn live_count(&self) -> usize {
        self.shared.live().len()
    }
}

impl Drop for Connections {
    /// Connections refer to the registry and the registry to them: let go of them when the
    /// server does. (A connection still running keeps its own state, not the list.)
    fn drop(&mut self) {
        self.shared.live().clear();
    }
}

impl Shared {
    fn sweep_at(&self, elapsed: Duration) {
        let millis = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        self.clock.store(millis, Ordering::Release);
        let mut live = self.live();
        // The registry's reference is the last one once the connection's task has ended.
        live.retain(|connection| Arc::strong_count(connection) > 1);
        for connection in live.iter().filter(|c| c.is_expired() || c.is_stalled()) {
            connection.wake();
        }
    }

    #[inline]
    fn now(&self) -> u64 {
        self.clock.load(Ordering::Acquire)
    }

    fn live(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Connection>>> {
        // The registry holds no invariant a panic could break half-way.
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Connection {
    /// A request has started on this connection.
    pub(crate) fn begin(self: &Arc<Self>) -> Busy {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(self))
    }

    /// A write is waiting for the client to read. Only the first of a run of waits stores.
    pub(crate) fn writes_blocked(&self) {
        if self.blocked_since.load(Ordering::Relaxed) == 0 {
            let now = self.shared.now().saturating_add(1);
            self.blocked_since.store(now, Ordering::Relaxed);
        }
    }

    /// A write went through: whatever waited is over. (Relaxed, as `writes_blocked`: the
    /// sweeper reads a coarse time and a race shifts the cut by a tick at most.)
    pub(crate) fn writes_moved(&self) {
        if self.blocked_since.load(Ordering::Relaxed) != 0 {
            self.blocked_since.store(0, Ordering::Relaxed);
        }
    }

    /// A response body was handed to hyper, or handed it a frame: it waits until hyper asks
    /// for the next one, which HTTP/2 does only once the client grants window for it.
    #[cfg(feature = "http2")]
    pub(crate) fn response_held(&self) {
        // The time first, then the count: a sweep that sees the count sees this time.
        self.responses_moved_at
            .store(self.shared.now(), Ordering::Relaxed);
        self.held_responses.fetch_add(1, Ordering::Release);
    }

    /// hyper asked a response body for a frame; `was_held`: since it last gave one (or since
    /// it was handed over), so it no longer waits.
    #[cfg(feature = "http2")]
    pub(crate) fn response_polled(&self, was_held: bool) {
        self.responses_moved_at
            .store(self.shared.now(), Ordering::Relaxed);
        if was_held {
            self.held_responses.fetch_sub(1, Ordering::Release);
        }
    }

    /// A held response body went away without being asked again (its stream was reset, or
    /// the connection dropped).
    #[cfg(feature = "http2")]
    pub(crate) fn response_released(&self) {
        self.held_responses.fetch_sub(1, Ordering::Release);
    }

    /// Whether the client has taken none of a response for longer than the write timeout.
    /// (Only HTTP/2 holds responses for want of a window: without the feature, no count to
    /// read.)
    #[inline]
    fn is_stalled(&self) -> bool {
        self.writes_stalled() || (cfg!(feature = "http2") && self.responses_stalled())
    }

    /// Whether a write has waited on the client for longer than the write timeout.
    #[inline]
    fn writes_stalled(&self) -> bool {
        match self.blocked_since.load(Ordering::Relaxed) {
            0 => false,
            since => self.shared.now().saturating_sub(since - 1) >= self.shared.stall_after,
        }
    }

    /// Whether some response has waited for its flow-control window for longer than the
    /// write timeout, with none of this connection's responses moving meanwhile.
    #[inline]
    fn responses_stalled(&self) -> bool {
        self.held_responses.load(Ordering::Acquire) > 0
            && self
                .shared
                .now()
                .saturating_sub(self.responses_moved_at.load(Ordering::Relaxed))
                >= self.shared.stall_after
    }

    #[inline]
    fn is_expired(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) == 0
            && self
                .shared
                .now()
                .saturating_sub(self.idle_since.load(Ordering::Acquire))
                >= self.shared.expire_after
    }

    /// Drives `connection` until it ends, asking it to shut down gracefully once the server
    /// drains or once it has been idle for too long, and dropping it if it is still idle a
    /// sweep after that.
    pub(crate) async fn serve<C, T>(
        &self,
        connection: Pin<&mut C>,
        mut graceful_shutdown: impl FnMut(Pin<&mut C>),
    ) -> Ended<T>
    where
        C: Future<Output = T>,
    {
        let mut connection = connection;
        // The clock when the connection was asked to shut down gracefully, if it was.
        let mut asked_at: Option<u64> = None;
        // The waker registered last; a task's waker normally never changes.
        let mut registered: Option<Waker> = None;
        poll_fn(|cx| {
            loop {
                if let Poll::Ready(output) = connection.as_mut().poll(cx) {
                    return Poll::Ready(Ended::Served(output));
                }
                // Register before reading the flags: a sweep or drain that sets them after
                // this point wakes the waker registered here.
                if !registered.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    self.register(cx.waker());
                    registered = Some(cx.waker().clone());
                }
                // A client that takes none of the response: cut off, requests and all.
                if self.is_stalled() {
                    // Only a stream's window is shut, not the socket (HTTP/2): a GOAWAY can
                    // still reach the client, so it is asked for and given one poll to be
                    // written. A full socket takes nothing graceful.
                    if asked_at.is_none() && !self.writes_stalled() {
                        graceful_shutdown(connection.as_mut());
                        let _ = connection.as_mut().poll(cx);
                    }
                    return Poll::Ready(Ended::Stalled);
                }
                let now = self.shared.now();
                if asked_at.is_none() && self.shared.draining.load(Ordering::SeqCst) {
                    asked_at = Some(now);
                    graceful_shutdown(connection.as_mut());
                    continue; // an idle connection ends at once: poll it again
                }
                if self.is_expired() {
                    match asked_at {
                        // First gracefully: an idle HTTP/1 connection ends at once, an HTTP/2
                        // one sends GOAWAY so its client opens a new one instead of racing the
                        // close.
                        None => {
                            asked_at = Some(now);
                            graceful_shutdown(connection.as_mut());
                            continue;
                        }
                        // Still there a sweep later (a head trickling in keeps an HTTP/1
                        // connection reading): cut off.
                        Some(asked) if now > asked => return Poll::Ready(Ended::Idle),
                        Some(_) => {}
                    }
                }
                return Poll::Pending;
            }
        })
        .await
    }

    fn register(&self, waker: &Waker) {
        *self.waker.lock().unwrap_or_else(PoisonError::into_inner) = Some(waker.clone());
    }

    fn wake(&self) {
        if let Some(waker) = &*self.waker.lock().unwrap_or_else(PoisonError::into_inner) {
            waker.wake_by_ref();
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let connection = &self.0;
        // The time first, then the count: whoever sees the count at zero also sees this time,
        // not the one from before the request (which would end the connection at once).
        // Storing it while other requests are still in flight is harmless: the count guards it.
        connection
            .idle_since
            .store(connection.shared.now(), Ordering::Release);
        connection.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use std::pin::pin;
    use std::sync::atomic::AtomicUsize;
    use std::task::{Context, Waker};

    use super::*;

    const TIMEOUT: Duration = Duration::from_millis(800);
    /// Longer than `TIMEOUT`, so the sweeper ticks at `TIMEOUT / 8` either way.
    const WRITE_TIMEOUT: Duration = Duration::from_millis(1600);

    /// A connection that stays open until asked to shut down (or for good, if `stubborn`, as
    /// an HTTP/1 connection with a head trickling in does), counting the requests to.
    struct Open {
        shutdowns: Arc<AtomicUsize>,
        stubborn: bool,
    }

    impl Open {
        /// A fake connection, and the count of its shutdown requests.
        fn new(stubborn: bool) -> (Open, Arc<AtomicUsize>) {
            let shutdowns = Arc::new(AtomicUsize::new(0));
            let open = Open {
                shutdowns: Arc::clone(&shutdowns),
                stubborn,
            };
            (open, shutdowns)
        }
    }

    impl Future for Open {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _: &mut std::task::Context<'_>) -> Poll<()> {
            if !self.stubborn && self.shutdowns.load(Ordering::SeqCst) > 0 {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }
    }

    fn shut_down(open: Pin<&mut Open>) {
        open.shutdowns.fetch_add(1, Ordering::SeqCst);
    }

    /// Polls `serve` once: `Some` if it ended, with how.
    fn poll_once<F: Future<Output = Ended<()>>>(serve: Pin<&mut F>) -> Option<&'static str> {
        match serve.poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(Ended::Idle) => Some("idle"),
            Poll::Ready(Ended::Stalled) => Some("stalled"),
            Poll::Ready(Ended::Served(())) => Some("served"),
            Poll::Pending => None,
        }
    }

    /// A registry and the time the tests make pass for it.
    struct Clock {
        connections: Connections,
        elapsed: Duration,
    }

    impl Clock {
        fn new() -> Self {
            Clock {
                connections: Connections::new(TIMEOUT, WRITE_TIMEOUT),
                elapsed: Duration::ZERO,
            }
        }

        /// Lets `by` pass and sweeps.
        fn pass(&mut self, by: Duration) {
            self.elapsed += by;
            self.connections.sweep_at(self.elapsed);
        }
    }

    #[test]
    fn a_connection_that_starts_no_request_is_closed_after_the_timeout_not_before() {
        let mut clock = Clock::new();
        let connection = clock.connections.open();
        let (open, shutdowns) = Open::new(false);
        let mut open = pin!(open);
        let mut serve = pin!(connection.serve(open.as_mut(), shut_down));
        assert_eq!(poll_once(serve.as_mut()), None);
        // The clock may lag by a tick (an eighth of the timeout): never closed before the
        // timeout plus that tick.
        clock.pass(TIMEOUT + TIMEOUT / 8 - Duration::from_millis(1));
        assert_eq!(poll_once(serve.as_mut()), None, "closed before the timeout");
        clock.pass(Duration::from_millis(1));
        // Asked to shut down gracefully, which an idle connection does at once.
        assert_eq!(poll_once(serve.as_mut()), Some("served"));
        assert_eq!(shutdowns.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn an_idle_connection_that_does_not_shut_down_when_asked_is_dropped_a_sweep_later() {
        let mut clock = Clock::new();
        let connection = clock.connections.open();
        let (open, shutdowns) = Open::new(true);
        let mut open = pin!(open);
        let mut serve = pin!(connection.serve(open.as_mut(), shut_down));
        clock.pass(TIMEOUT * 2);
        assert_eq!(poll_once(serve.as_mut()), None, "first asked gracefully");
        assert_eq!(
            poll_once(serve.as_mut()),
            None,
            "not dropped before the next sweep"
        );
        assert_eq!(shutdowns.load(Ordering::SeqCst), 1, "asked once");
        clock.pass(TIMEOUT / 8);
        assert_eq!(poll_once(serve.as_mut()), Some("idle"), "dropped");
        assert_eq!(shutdowns.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_busy_connection_is_never_idle_and_its_idle_time_starts_when_the_request_ends() {
        let mut clock = Clock::new();
        let connection = clock.connections.open();
        let (open, shutdowns) = Open::new(false);
        let mut open = pin!(open);
        let mut serve = pin!(connection.serve(open.as_mut(), shut_down));
        let (first, second) = (connection.begin(), connection.begin());
        clock.pass(TIMEOUT * 10);
        assert_eq!(
            poll_once(serve.as_mut()),
            None,
            "closed with requests in flight"
        );
        drop(first);
        clock.pass(TIMEOUT * 10);
        assert_eq!(
            poll_once(serve.as_mut()),
            None,
            "closed with one request in flight"
        );
        drop(second);
        clock.pass(TIMEOUT / 2);
        assert_eq!(
            poll_once(serve.as_mut()),
            None,
            "idle time counted from before the request"
        );
        assert_eq!(shutdowns.load(Ordering::SeqCst), 0, "not asked while busy");
        clock.pass(TIMEOUT);
        assert_eq!(
            poll_once(serve.as_mut()),
            Some("served"),
            "asked, and ended"
        );
        assert_eq!(shutdowns.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_busy_connection_whose_writes_wait_past_the_write_timeout_is_dropped() {
        let mut clock = Clock::new();
        let connection = clock.connections.open();
        let (open, shutdowns) = Open::new(false);
        let mut open = pin!(open);
        let mut serve = pin!(connection.serve(open.as_mut(), shut_down));
        let busy = connection.begin();
        connection.writes_blocked();
        clock.pass(WRITE_TIMEOUT + TIMEOUT / 8 - Duration::from_millis(1));
        connection.writes_blocked(); // still waiting: the wait began at the first
        assert_eq!(
            poll_once(serve.as_mut()),
            None,
            "cut before the write timeout"
        );
        clock.pass(Duration::from_millis(1));
        // No graceful shutdown: it could not reach a client that does not read.
        assert_eq!(poll_once(serve.as_mut()), Some("stalled"));
        assert_eq!(shutdowns.load(Ordering::SeqCst), 0);
        drop(busy);
    }

    #[test]
    fn a_write_that_goes_through_starts_the_wait_over() {
        let mut clock = Clock::new();
        let connection = clock.connections.open();
        let (open, _) = Open::new(false);
        let mut open = pin!(open);
        let mut serve = pin!(connection.serve(open.as_mut(), shut_down));
        let busy = connection.begin();
        for _ in 0..4 {
            // A slow reader: each wait shorter than the timeout, together far longer.
            connection.writes_blocked();
            clock.pass(WRITE_TIMEOUT - TIMEOUT / 8);
            assert_eq!(
                poll_once(serve.as_mut()),
                None,
                "a reader that reads was cut"
            );
            connection.writes_moved();
        }
        connection.writes_moved(); // a write that never waited changes nothing
        clock.pass(WRITE_TIMEOUT * 4);
        assert_eq!(poll_once(serve.as_mut()), None, "cut while no write waits");
        drop(busy);
    }

    #[cfg(feature = "http2")]
    #[test]
    fn a_response_held_past_the_write_timeout_is_cut_after_a_goaway() {
        let mut clock = Clock::new();
        let connection = clock.connections.open();
        let (open, shutdowns) = Open::new(true);
        let mut open = pin!(open);
        let mut serve = pin!(connection.serve(open.as_mut(), shut_down));
        let busy = connection.begin();
        // An HTTP/2 response whose stream gets no window: hyper holds it, the socket is free.
        connection.response_held();
        clock.pass(WRITE_TIMEOUT + TIMEOUT / 8 - Duration::from_millis(1));
        assert_eq!(
            poll_once(serve.as_mut()),
            None,
            "cut before the write timeout"
        );
        clock.pass(Duration::from_millis(1));
        assert_eq!(poll_once(serve.as_mut()), Some("stalled"));
        // The socket takes writes: the client is told with a GOAWAY before the cut.
        assert_eq!(shutdowns.load(Ordering::SeqCst), 1);
        drop(busy);
    }

    #[cfg(feature = "http2")]
    #[test]
    fn held_responses_that_move_or_go_away_are_not_cut() {
        let mut clock = Clock::new();
        let connection = clock.connections.open();
        let (open, _) = Open::new(true);
        let mut open = pin!(open);
        let mut serve = pin!(connection.serve(open.as_mut(), shut_down));
        let busy = connection.begin();
        for _ in 0..4 {
            // Each frame taken waits a while for the window, together far longer.
            connection.response_held();
            clock.pass(WRITE_TIMEOUT - TIMEOUT / 8);
            assert_eq!(poll_once(serve.as_mut()), None, "a moving response was cut");
            connection.response_polled(true);
        }
        // A body that waits on itself (polled, pending) holds nothing.
        clock.pass(WRITE_TIMEOUT * 4);
        assert_eq!(poll_once(serve.as_mut()), None, "a quiet response was cut");
        // One held while another moves: the connection is moving.
        connection.response_held();
        clock.pass(WRITE_TIMEOUT - TIMEOUT / 8);
        connection.response_polled(false);
        clock.pass(WRITE_TIMEOUT - TIMEOUT / 8);
        assert_eq!(
            poll_once(serve.as_mut()),
            None,
            "cut while another response moved"
        );
        // A held response whose stream went away.
        connection.response_released();
        clock.pass(WRITE_TIMEOUT * 4);
        assert_eq!(
            poll_once(serve.as_mut()),
            None,
            "cut for a response that is gone"
        );
        drop(busy);
    }

    #[test]
    fn draining_asks_each_connection_once_to_shut_down_gracefully() {
        let clock = Clock::new();
        let connection = clock.connections.open();
        let (open, shutdowns) = Open::new(false);
        let mut open = pin!(open);
        let mut serve = pin!(connection.serve(open.as_mut(), shut_down));
        let busy = connection.begin();
        assert_eq!(poll_once(serve.as_mut()), None);
        clock.connections.drain();
        // The fake ends once asked; hyper's connections end once their requests are done.
        assert_eq!(poll_once(serve.as_mut()), Some("served"));
        assert_eq!(shutdowns.load(Ordering::SeqCst), 1);
        drop(busy);
    }

    #[tokio::test]
    async fn the_sweeper_thread_wakes_an_idle_connection_and_stops_with_its_guard() {
        let connections = Connections::new(Duration::from_millis(8), Duration::from_secs(60));
        let connection = connections.open();
        let task = tokio::spawn(async move {
            let (open, _) = Open::new(true);
            let open = pin!(open);
            matches!(connection.serve(open, shut_down).await, Ended::Idle)
        });
        let sweeper = connections.start_sweeper().expect("a thread");
        // Nothing polls the task again but the sweeper's wake-up.
        assert!(task.await.unwrap(), "ended idle");
        drop(sweeper);
        // The thread holds the registry until it stops; the ended connection until a sweep.
        connections.sweep_at(Duration::ZERO);
        while Arc::strong_count(&connections.shared) > 1 {
            tokio::task::yield_now().await;
        }
    }

    #[test]
    fn dropping_the_registry_lets_go_of_its_connections() {
        let connections = Connections::new(TIMEOUT, WRITE_TIMEOUT);
        let running = connections.open();
        drop(connections);
        assert_eq!(
            Arc::strong_count(&running),
            1,
            "no cycle through the registry"
        );
        assert!(Arc::strong_count(&running.shared) == 1);
    }

    #[test]
    fn the_sweeper_forgets_connections_that_ended() {
        let connections = Connections::new(TIMEOUT, WRITE_TIMEOUT);
        let (kept, ended) = (connections.open(), connections.open());
        assert_eq!(connections.live_count(), 2);
        drop(ended);
        connections.sweep_at(Duration::ZERO);
        assert_eq!(connections.live_count(), 1);
        drop(kept);
    }
}
