//! The app's in-flight count against `close()`'s drain.

use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use loom::thread;

use crate::in_flight_count::Count;
use crate::model;

/// The app as the protocol sees it: its count, and the providers a request uses. The model's
/// own flags are `Relaxed`, so they add no synchronisation the protocol does not provide.
#[derive(Default)]
struct App {
    count: Count,
    /// Requests that used a provider.
    uses: AtomicUsize,
    disposed: AtomicBool,
}

/// One request as `App::dispatch` runs it: enter; if let in, use a provider (which must not be
/// disposed yet); leave, as the request's `Entered` does when it is dropped. Returns whether it
/// was let in, and whether its leaving had to wake the drain.
fn request(app: &App) -> (bool, bool) {
    let admitted = app.count.enter();
    if admitted {
        assert!(
            !app.disposed.load(Relaxed),
            "a request got past the drain: its provider is disposed"
        );
        app.uses.fetch_add(1, Relaxed);
    }
    (admitted, app.count.leave())
}

/// `close()`: begin closing, wait until nothing is in flight, dispose. `drained()` waits on a
/// tokio `Notify` and re-reads the count each time it is woken; here the wait is a loop on the
/// same read (loom cannot run tokio's `Notify`). Returns the first count it read and the uses
/// it saw once drained.
fn close(app: &App) -> (usize, usize) {
    app.count.begin_closing();
    let first = app.count.in_flight();
    while app.count.in_flight() != 0 {
        thread::yield_now();
    }
    let uses = app.uses.load(Relaxed);
    app.disposed.store(true, Relaxed);
    (first, uses)
}

/// Two requests arrive while `close()` runs. Either a request sees closing and backs out, or
/// the drain sees it and waits: no request uses a disposed provider, the drain sees every use,
/// the count never underflows and returns to 0, and if the drain had to wait, the last request
/// out was told to wake it.
#[test]
fn no_request_slips_past_the_drain() {
    const REQUESTS: usize = 2;
    // Exhaustive, this is 511,564 interleavings (35 s here, most of them the drain's waiting
    // loop); three preemptions find every mutation tried on `Count` in 740.
    model::bounded(3, || {
        let app = Arc::new(App::default());
        let requests: Vec<_> = (0..REQUESTS)
            .map(|_| {
                let app = Arc::clone(&app);
                thread::spawn(move || request(&app))
            })
            .collect();
        let (first, uses) = close(&app);
        let outcomes: Vec<_> = requests.into_iter().map(|r| r.join().unwrap()).collect();

        let admitted = outcomes.iter().filter(|(admitted, _)| *admitted).count();
        assert!(first <= REQUESTS, "the count underflowed: {first}");
        assert_eq!(uses, admitted, "the drain finished before a request's work");
        assert_eq!(app.count.in_flight(), 0);
        let wakes = outcomes.iter().filter(|(_, wake)| *wake).count();
        assert!(
            first == 0 || wakes > 0,
            "the drain waited for {first} but no request woke it"
        );
    });
}

/// A request that keeps working after its response (`RequestContext::keep_in_flight`) joins the
/// count while it is still in flight, even once closing has begun, and `close()` waits for that
/// work too.
#[test]
fn work_kept_in_flight_holds_the_drain() {
    model::exhaustive(|| {
        let app = Arc::new(App::default());
        let worker = {
            let app = Arc::clone(&app);
            thread::spawn(move || {
                let admitted = app.count.enter();
                let mut wakes = 0;
                if admitted {
                    app.count.join(); // the guard, made in the handler
                    wakes += usize::from(app.count.leave()); // the response is done
                    assert!(
                        !app.disposed.load(Relaxed),
                        "the kept work found its provider disposed"
                    );
                    app.uses.fetch_add(1, Relaxed);
                }
                wakes += usize::from(app.count.leave()); // the guard is dropped, or the request backs out
                (admitted, wakes)
            })
        };
        let (first, uses) = close(&app);
        let (admitted, wakes) = worker.join().unwrap();

        assert!(first <= 2, "the count underflowed: {first}");
        assert_eq!(
            uses,
            usize::from(admitted),
            "the drain finished before the kept work"
        );
        assert_eq!(app.count.in_flight(), 0);
        assert!(
            first == 0 || wakes > 0,
            "the drain waited but nothing woke it"
        );
    });
}
