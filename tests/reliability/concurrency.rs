//! Barrier-started stress of the hand-rolled synchronisation: a thousand first requests over
//! routes that share providers, the single-flight slot, a failing build shared by its waiters,
//! close-once, close racing first requests, and the breaker's half-open gate. Each scenario is
//! repeated: a race shows up as a wrong count in some round, and the round is named.

use crate::support;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use green_tea::error::FailureCause;
use green_tea::extract::RequestContext;
use green_tea::http::Request;
use green_tea::routing::Route;
use green_tea::steps::StepFn;
use green_tea::test::TestClient;
use green_tea::{App, HttpError};
use green_tea::{BoxError, Container, Descriptor, Needs, ProvideError, Provided, Provider};
use green_tea_recipes::circuit_breaker::{
    BreakerError, BreakerState, CircuitBreaker, Config, ManualClock,
};
use http_body_util::BodyExt;
use hyper::Method;
use support::http::{Gate, Server, http1_client, send, until, within};
use support::{Log, OnDispose, OnProvide, Probe, Service};
use tokio::sync::Barrier;
use tokio::task::JoinHandle;

/// Spawns `tasks` tasks that all start `work(i)` at once, and collects their results in order.
async fn barrier_started<T, F, Fut>(tasks: usize, work: F) -> Vec<T>
where
    T: Send + 'static,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = T> + Send + 'static,
{
    let barrier = Arc::new(Barrier::new(tasks));
    let handles: Vec<JoinHandle<T>> = (0..tasks)
        .map(|i| {
            let (barrier, job) = (Arc::clone(&barrier), work(i));
            tokio::spawn(async move {
                barrier.wait().await;
                job.await
            })
        })
        .collect();
    let mut results = Vec::with_capacity(tasks);
    for handle in handles {
        results.push(
            within("a barrier-started task", handle)
                .await
                .expect("the task panicked"),
        );
    }
    results
}

/// Polls `future` once, so that it has joined (or started) whatever it waits on, and says so
/// through `joined`; then finishes it.
async fn join_then_finish<F: Future>(future: F, joined: &AtomicUsize) -> F::Output {
    let mut future = std::pin::pin!(future);
    let first = std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await;
    joined.fetch_add(1, Ordering::SeqCst);
    match first {
        Poll::Ready(output) => output,
        Poll::Pending => future.await,
    }
}

// ---------------------------------------------------------------------------------------------
// A thousand first requests over ten routes sharing a diamond.

const ROUTES: usize = 10;
/// Each route's own provider: even ones need `top`, odd ones `left`; every fifth also `right`.
const OWN: [&str; ROUTES] = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9"];
/// Routes 0, 3, 6 and 9 run a step that needs a provider of its own, which needs `right`.
const STEP_KEYS: [&str; ROUTES] = ["u0", "", "", "u3", "", "", "u6", "", "", "u9"];
const VIA_STEP: [&str; ROUTES] = ["v0", "", "", "v3", "", "", "v6", "", "", "v9"];

struct Shared {
    app: App,
    log: Log,
    /// Every provider's build count, by name.
    builds: Vec<(&'static str, Arc<AtomicUsize>)>,
    /// Values a handler or step found already disposed.
    disposed_seen: Arc<AtomicUsize>,
}

impl Shared {
    fn builds_of(&self, name: &str) -> usize {
        let (_, count) = self
            .builds
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a provider");
        count.load(Ordering::SeqCst)
    }

    /// Every provider built exactly once, except `unused`, never built.
    fn assert_each_built_once(&self, round: usize) {
        for (name, count) in &self.builds {
            let want = usize::from(*name != "unused");
            assert_eq!(
                count.load(Ordering::SeqCst),
                want,
                "round {round}: builds of {name}"
            );
        }
    }
}

fn shared_graph() -> Shared {
    let log = Log::default();
    let disposed_seen = Arc::new(AtomicUsize::new(0));
    let mut probes = vec![
        // Slow enough that every first request piles up behind the one build.
        Probe::new("base", &[], &log).on_provide(OnProvide::Sleep(Duration::from_millis(2))),
        Probe::new("left", &["base"], &log),
        Probe::new("right", &["base"], &log),
        Probe::new("top", &["left", "right"], &log),
        Probe::new("unused", &["base"], &log),
    ];
    for (i, own) in OWN.iter().enumerate() {
        let mut needs = vec![if i % 2 == 0 { "top" } else { "left" }];
        if i % 5 == 0 {
            needs.push("right");
        }
        probes.push(Probe::new(own, &needs, &log));
        if !VIA_STEP[i].is_empty() {
            probes.push(Probe::new(VIA_STEP[i], &["right"], &log));
        }
    }
    let builds = probes.iter().map(|p| (p.name, p.counter())).collect();
    let mut builder = probes
        .into_iter()
        .fold(App::builder(), |b, p| b.provider(p));
    for i in 0..ROUTES {
        let seen = Arc::clone(&disposed_seen);
        let mut route = Route::get(format!("/r{i}"), move |request: RequestContext| {
            let seen = Arc::clone(&seen);
            async move {
                let own = request.need::<Service>(0)?;
                let user = match STEP_KEYS[i] {
                    "" => String::new(),
                    _ => format!(" as {}", request.need::<String>(1)?),
                };
                tokio::task::yield_now().await;
                if own.is_disposed() {
                    seen.fetch_add(1, Ordering::SeqCst);
                }
                Ok::<_, HttpError>(format!("{}{user}", own.name))
            }
        })
        .needs::<Service>(OWN[i]);
        if !STEP_KEYS[i].is_empty() {
            let seen = Arc::clone(&disposed_seen);
            builder = builder.step(
                StepFn::new(STEP_KEYS[i], move |_parts, needs| {
                    let via = needs.get::<Service>(0).map_err(|_| HttpError::internal())?;
                    if via.is_disposed() {
                        seen.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(via.name.clone())
                })
                .needs::<Service>(VIA_STEP[i]),
            );
            route = route.needs::<String>(STEP_KEYS[i]);
        }
        builder = builder.route(route);
    }
    Shared {
        app: builder.build().expect("a valid graph"),
        log,
        builds,
        disposed_seen,
    }
}

/// What route `i` answers.
fn expected_body(i: usize) -> String {
    match VIA_STEP[i] {
        "" => OWN[i].to_owned(),
        via => format!("{} as {via}", OWN[i]),
    }
}

/// After the app closed cleanly: what was built was disposed, each once, and no request saw a
/// disposed value.
fn assert_disposed_once(shared: &Shared, round: usize) {
    let mut built = shared.log.names("provide");
    let mut disposed = shared.log.names("dispose");
    built.sort();
    disposed.sort();
    assert_eq!(
        disposed, built,
        "round {round}: each built provider disposed once"
    );
    assert_eq!(
        shared.disposed_seen.load(Ordering::SeqCst),
        0,
        "round {round}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_concurrent_first_requests_build_each_provider_once_in_process() {
    const REQUESTS: usize = 1_000;
    const ROUNDS: usize = 5;
    for round in 0..ROUNDS {
        let shared = shared_graph();
        let client = TestClient::new(shared.app.clone());
        let app = shared.app.clone();
        // Half go through `App::handle`, half through `TestClient`.
        let answers = barrier_started(REQUESTS, |n| {
            let (app, client) = (app.clone(), client.clone());
            async move {
                let route = n % ROUTES;
                let path = format!("/r{route}");
                if n % 2 == 0 {
                    let request = Request::get(&path).body(Default::default()).unwrap();
                    let response = app.handle(request).await;
                    let status = response.status().as_u16();
                    let body = response.into_body().collect().await.unwrap().to_bytes();
                    (route, status, String::from_utf8_lossy(&body).into_owned())
                } else {
                    let response = client.get(&path).send().await;
                    (route, response.status().as_u16(), response.text())
                }
            }
        })
        .await;
        for (route, status, body) in answers {
            assert_eq!(
                (status, body),
                (200, expected_body(route)),
                "round {round}: GET /r{route}"
            );
        }
        shared.assert_each_built_once(round);
        within("close()", shared.app.close())
            .await
            .expect("a clean close");
        assert_disposed_once(&shared, round);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_first_requests_over_loopback_build_each_provider_once() {
    const REQUESTS: usize = 200;
    let shared = shared_graph();
    let server = Server::start(&shared.app).await;
    let http1 = http1_client();
    let http2 = support::http::clients().pop().expect("a client");
    let urls: Vec<String> = (0..ROUTES).map(|i| server.url(&format!("/r{i}"))).collect();
    // Three in four over HTTP/1 (a connection each), the rest multiplexed over HTTP/2 (where
    // it is served: HTTP/1 again without the feature `http2`).
    let answers = barrier_started(REQUESTS, |n| {
        let client = if n % 4 == 3 {
            http2.clone()
        } else {
            http1.clone()
        };
        let url = urls[n % ROUTES].clone();
        async move {
            let reply = send(&client, Method::GET, &url, None).await;
            (n % ROUTES, reply.map(|r| (r.status.as_u16(), r.text())))
        }
    })
    .await;
    for (route, reply) in answers {
        let reply = reply.unwrap_or_else(|e| panic!("GET /r{route}: {e}"));
        assert_eq!(reply, (200, expected_body(route)), "GET /r{route}");
    }
    shared.assert_each_built_once(0);
    server.stop().await.expect("a clean close");
    assert_disposed_once(&shared, 0);
}

// ---------------------------------------------------------------------------------------------
// The single-flight slot.

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn first_gets_of_one_key_build_it_once_and_share_one_value() {
    const TASKS: usize = 32;
    const ROUNDS: usize = 200;
    for round in 0..ROUNDS {
        let log = Log::default();
        let on_provide = |round: usize| match round % 2 {
            0 => OnProvide::Succeed,
            _ => OnProvide::Sleep(Duration::from_millis(1)),
        };
        let leaf = Probe::new("leaf", &[], &log).on_provide(on_provide(round));
        let mid = Probe::new("mid", &["leaf"], &log).on_provide(on_provide(round + 1));
        let (leaf_builds, mid_builds) = (leaf.counter(), mid.counter());
        let container = Container::builder()
            .provider(leaf)
            .provider(mid)
            .build()
            .unwrap();
        // Through `get` and through a resolver; some ask for the dependency directly.
        let values = barrier_started(TASKS, |i| {
            let container = container.clone();
            async move {
                let key = if i % 3 == 2 { "leaf" } else { "mid" };
                let value = match i % 3 {
                    1 => container.resolver::<Service>(key).unwrap().get().await,
                    _ => container.get::<Service>(key).await,
                };
                (key, value.expect("a successful build"))
            }
        })
        .await;
        assert_eq!(
            leaf_builds.load(Ordering::SeqCst),
            1,
            "round {round}: builds of leaf"
        );
        assert_eq!(
            mid_builds.load(Ordering::SeqCst),
            1,
            "round {round}: builds of mid"
        );
        for key in ["leaf", "mid"] {
            let same: Vec<&Arc<Service>> = values
                .iter()
                .filter(|(k, _)| *k == key)
                .map(|(_, v)| v)
                .collect();
            assert!(
                same.windows(2).all(|w| Arc::ptr_eq(w[0], w[1])),
                "round {round}: every caller of {key} got the same Arc"
            );
        }
        container.close().await.unwrap();
        assert_eq!(log.names("dispose"), ["mid", "leaf"], "round {round}");
    }
}

/// A provider of `db` whose builds wait at a gate; the first `failures` of them fail.
struct GatedFlaky {
    gate: Gate,
    failures: usize,
    builds: Arc<AtomicUsize>,
}

impl Provider for GatedFlaky {
    fn descriptor(&self) -> Descriptor {
        Descriptor::new("db").provides::<Service>("db")
    }

    async fn provide(&self, _needs: Needs<'_>) -> Result<Provided, BoxError> {
        let build = self.builds.fetch_add(1, Ordering::SeqCst);
        self.gate.pass().await;
        if build < self.failures {
            return Err("db is down".into());
        }
        Ok(Provided::one(Service {
            name: "db".to_owned(),
            disposed: Default::default(),
        }))
    }
}

fn gated_flaky() -> (GatedFlaky, Gate, Arc<AtomicUsize>) {
    let (gate, builds) = (Gate::new(), Arc::new(AtomicUsize::new(0)));
    let provider = GatedFlaky {
        gate: gate.clone(),
        failures: 1,
        builds: Arc::clone(&builds),
    };
    (provider, gate, builds)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_waiter_on_a_failing_build_gets_its_error_and_the_next_get_retries_once() {
    const TASKS: usize = 32;
    const ROUNDS: usize = 100;
    for round in 0..ROUNDS {
        let (provider, gate, builds) = gated_flaky();
        let container = Container::builder().provider(provider).build().unwrap();
        let joined = Arc::new(AtomicUsize::new(0));
        let waiters = {
            let (container, joined) = (container.clone(), Arc::clone(&joined));
            tokio::spawn(barrier_started(TASKS, move |_| {
                let (container, joined) = (container.clone(), Arc::clone(&joined));
                async move { join_then_finish(container.get::<Service>("db"), &joined).await }
            }))
        };
        // The gate holds the one build until every caller waits on it.
        until("every caller joined the build", || {
            joined.load(Ordering::SeqCst) == TASKS
        })
        .await;
        gate.open();
        for outcome in within("the waiters", waiters).await.unwrap() {
            match outcome {
                Err(ProvideError::Failed {
                    provider,
                    cause: FailureCause::Error(e),
                    ..
                }) if provider == "db" && e.to_string() == "db is down" => {}
                other => panic!("round {round}: a waiter got {other:?}"),
            }
        }
        assert_eq!(
            builds.load(Ordering::SeqCst),
            1,
            "round {round}: one build for all"
        );

        let first = container
            .get::<Service>("db")
            .await
            .expect("the next get retries");
        assert_eq!(
            builds.load(Ordering::SeqCst),
            2,
            "round {round}: exactly one retry"
        );
        let again = barrier_started(8, |_| {
            let container = container.clone();
            async move { container.get::<Service>("db").await.unwrap() }
        })
        .await;
        assert!(
            again.iter().all(|v| Arc::ptr_eq(v, &first)),
            "round {round}"
        );
        assert_eq!(
            builds.load(Ordering::SeqCst),
            2,
            "round {round}: built now, not rebuilt"
        );
        container.close().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_request_waiting_on_a_failing_build_gets_500_and_the_next_one_retries_once() {
    const TASKS: usize = 32;
    const ROUNDS: usize = 50;
    for round in 0..ROUNDS {
        let (provider, gate, builds) = gated_flaky();
        let app = App::builder()
            .provider(provider)
            .route(
                Route::get("/db", |request: RequestContext| async move {
                    Ok::<_, HttpError>(request.need::<Service>(0)?.name.clone())
                })
                .needs::<Service>("db"),
            )
            .build()
            .unwrap();
        let joined = Arc::new(AtomicUsize::new(0));
        let waiters = {
            let (app, joined) = (app.clone(), Arc::clone(&joined));
            tokio::spawn(barrier_started(TASKS, move |_| {
                let (app, joined) = (app.clone(), Arc::clone(&joined));
                async move {
                    let request = Request::get("/db").body(Default::default()).unwrap();
                    join_then_finish(app.handle(request), &joined)
                        .await
                        .status()
                }
            }))
        };
        until("every request joined the build", || {
            joined.load(Ordering::SeqCst) == TASKS
        })
        .await;
        gate.open();
        let statuses = within("the requests", waiters).await.unwrap();
        assert!(
            statuses.iter().all(|s| *s == 500),
            "round {round}: {statuses:?}"
        );
        assert_eq!(
            builds.load(Ordering::SeqCst),
            1,
            "round {round}: one build for all"
        );

        let client = TestClient::new(app.clone());
        let next = client.get("/db").send().await;
        assert_eq!(
            (next.status().as_u16(), next.text()),
            (200, "db".to_owned())
        );
        assert_eq!(
            builds.load(Ordering::SeqCst),
            2,
            "round {round}: exactly one retry"
        );
        app.close().await.unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// Close-once.

/// `a <- b <- c <- d` (d needs c ...): `b`'s dispose fails and `c`'s panics.
fn faulty_chain(log: &Log) -> [Probe; 4] {
    [
        Probe::new("a", &[], log),
        Probe::new("b", &["a"], log).on_dispose(OnDispose::Fail),
        Probe::new("c", &["b"], log).on_dispose(OnDispose::Panic),
        Probe::new("d", &["c"], log),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_closes_of_a_container_dispose_once_with_one_outcome() {
    const CLOSERS: usize = 16;
    const ROUNDS: usize = 100;
    support::quiet_expected_panics();
    for round in 0..ROUNDS {
        let log = Log::default();
        let container = faulty_chain(&log)
            .into_iter()
            .fold(Container::builder(), |b, p| b.provider(p))
            .build()
            .unwrap();
        container.get::<Service>("d").await.unwrap();
        let outcomes = barrier_started(CLOSERS, |_| {
            let container = container.clone();
            async move { container.close().await.map_err(|e| e.to_string()) }
        })
        .await;
        let first = outcomes[0].clone().expect_err("two disposes fail");
        assert!(
            first.starts_with("2 part(s) failed to close"),
            "round {round}: {first}"
        );
        assert!(
            outcomes.iter().all(|o| o.as_ref().err() == Some(&first)),
            "round {round}: {outcomes:?}"
        );
        assert_eq!(log.names("dispose"), ["d", "c", "b", "a"], "round {round}");
        assert!(matches!(
            container.get::<Service>("a").await,
            Err(ProvideError::Closed)
        ));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_closes_of_an_app_dispose_once_with_one_outcome() {
    const CLOSERS: usize = 16;
    const ROUNDS: usize = 50;
    support::quiet_expected_panics();
    for round in 0..ROUNDS {
        let log = Log::default();
        let app = faulty_chain(&log)
            .into_iter()
            .fold(App::builder(), |b, p| b.provider(p))
            .route(
                Route::get("/d", |request: RequestContext| async move {
                    Ok::<_, HttpError>(request.need::<Service>(0)?.name.clone())
                })
                .needs::<Service>("d"),
            )
            .build()
            .unwrap();
        let client = TestClient::new(app.clone());
        assert_eq!(client.get("/d").send().await.status(), 200);
        let outcomes = barrier_started(CLOSERS, |_| {
            let app = app.clone();
            async move { app.close().await.map_err(|e| e.to_string()) }
        })
        .await;
        let first = outcomes[0].clone().expect_err("two disposes fail");
        assert!(
            outcomes.iter().all(|o| o.as_ref().err() == Some(&first)),
            "round {round}: {outcomes:?}"
        );
        assert_eq!(log.names("dispose"), ["d", "c", "b", "a"], "round {round}");
        assert_eq!(client.get("/d").send().await.status(), 503);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn close_racing_first_requests_disposes_every_build_once_and_no_request_sees_it() {
    const REQUESTS: usize = 64;
    const CLOSERS: usize = 4;
    const ROUNDS: usize = 50;
    let mut statuses = [0_usize; 2];
    for round in 0..ROUNDS {
        let shared = shared_graph();
        let (app, client) = (shared.app.clone(), TestClient::new(shared.app.clone()));
        let outcomes = barrier_started(REQUESTS + CLOSERS, |n| {
            let (app, client) = (app.clone(), client.clone());
            async move {
                if n < CLOSERS {
                    app.close().await.map(|()| 0).map_err(|e| e.to_string())
                } else {
                    Ok(client
                        .get(&format!("/r{}", n % ROUTES))
                        .send()
                        .await
                        .status()
                        .as_u16())
                }
            }
        })
        .await;
        for outcome in &outcomes {
            match outcome {
                Ok(0) => {}
                Ok(200) => statuses[0] += 1,
                Ok(503) => statuses[1] += 1,
                other => panic!("round {round}: {other:?}"),
            }
        }
        for (name, _) in &shared.builds {
            assert!(
                shared.builds_of(name) <= 1,
                "round {round}: {name} built twice"
            );
        }
        assert_disposed_once(&shared, round);
    }
    println!(
        "close racing first requests: {} answered 200, {} answered 503",
        statuses[0], statuses[1]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn close_racing_first_gets_disposes_every_build_once() {
    const GETTERS: usize = 32;
    const ROUNDS: usize = 100;
    for round in 0..ROUNDS {
        let log = Log::default();
        let probes = [
            Probe::new("base", &[], &log),
            Probe::new("left", &["base"], &log),
            Probe::new("right", &["base"], &log),
            Probe::new("top", &["left", "right"], &log),
        ];
        let container = probes
            .into_iter()
            .fold(Container::builder(), |b, p| b.provider(p))
            .build()
            .unwrap();
        let outcomes = barrier_started(GETTERS + 1, |n| {
            let container = container.clone();
            async move {
                match n {
                    0 => container
                        .close()
                        .await
                        .map(|()| "closed")
                        .map_err(|e| e.to_string()),
                    _ => {
                        let key = ["top", "left", "right", "base"][n % 4];
                        match container.get::<Service>(key).await {
                            Ok(_) => Ok("value"),
                            Err(ProvideError::Closed) => Ok("refused"),
                            Err(other) => Err(other.to_string()),
                        }
                    }
                }
            }
        })
        .await;
        assert!(
            outcomes.iter().all(Result::is_ok),
            "round {round}: {outcomes:?}"
        );
        let mut built = log.names("provide");
        let mut disposed = log.names("dispose");
        built.sort();
        disposed.sort();
        assert_eq!(
            disposed, built,
            "round {round}: every build disposed, each once"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The breaker's half-open gate.

/// A breaker with `trials` half-open slots, opened by one failure and now past its window.
async fn half_open_breaker(trials: u32) -> CircuitBreaker {
    let clock = ManualClock::new();
    let breaker = CircuitBreaker::new(
        Config::new(1, Duration::from_secs(1))
            .half_open_trials(trials)
            .clock(clock.clone()),
    );
    breaker
        .call(|| async { Err::<(), _>("down") })
        .await
        .unwrap_err();
    clock.set(Duration::from_secs(1));
    breaker
}

/// Counts operations running through the breaker, and the most at once.
#[derive(Default)]
struct Running {
    now: AtomicUsize,
    most: AtomicUsize,
    /// Which callers' operations ran.
    admitted: Mutex<Vec<usize>>,
}

/// Leaves `Running` when the operation ends, however it ends (dropped mid-call included).
struct Leave(Arc<Running>);

impl Drop for Leave {
    fn drop(&mut self) {
        self.0.now.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One caller of the breaker: its number, and the task making its call.
type Caller = (usize, JoinHandle<Result<(), BreakerError<&'static str>>>);

/// Callers that each try one call whose operation waits at `release`.
fn spawn_callers(
    breaker: &CircuitBreaker,
    running: &Arc<Running>,
    release: &Gate,
    callers: std::ops::Range<usize>,
) -> Vec<Caller> {
    let barrier = Arc::new(Barrier::new(callers.len()));
    callers
        .map(|caller| {
            let (breaker, running, release, barrier) = (
                breaker.clone(),
                Arc::clone(running),
                release.clone(),
                Arc::clone(&barrier),
            );
            let task = tokio::spawn(async move {
                barrier.wait().await;
                breaker
                    .call(|| async move {
                        let now = running.now.fetch_add(1, Ordering::SeqCst) + 1;
                        running.most.fetch_max(now, Ordering::SeqCst);
                        running.admitted.lock().unwrap().push(caller);
                        let _leave = Leave(Arc::clone(&running));
                        release.pass().await;
                        Ok(())
                    })
                    .await
            });
            (caller, task)
        })
        .collect()
}

/// Waits until each of `callers` new callers was either refused or started its operation.
async fn until_decided(
    breaker: &CircuitBreaker,
    running: &Running,
    refused_before: u64,
    started_before: usize,
    callers: usize,
) {
    until("every caller was admitted or refused", || {
        let refused = breaker.counters().rejected - refused_before;
        let started = running.admitted.lock().unwrap().len() - started_before;
        refused as usize + started == callers
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn half_open_with_three_trials_admits_three_of_many_callers() {
    const CALLERS: usize = 64;
    const ROUNDS: usize = 50;
    for round in 0..ROUNDS {
        let breaker = half_open_breaker(3).await;
        let (running, release) = (Arc::new(Running::default()), Gate::new());
        let callers = spawn_callers(&breaker, &running, &release, 0..CALLERS);
        // The trials hold their slots until released, so every other caller is refused.
        until_decided(&breaker, &running, 0, 0, CALLERS).await;
        assert_eq!(
            running.admitted.lock().unwrap().len(),
            3,
            "round {round}: trials"
        );
        release.open();
        let mut trials = 0;
        for (caller, task) in callers {
            match within("a caller", task).await.unwrap() {
                Ok(()) => trials += 1,
                Err(BreakerError::Open { .. }) => {}
                Err(other) => panic!("round {round}: caller {caller}: {other:?}"),
            }
        }
        assert_eq!(trials, 3, "round {round}: trials");
        assert!(
            running.most.load(Ordering::SeqCst) <= 3,
            "round {round}: at most 3 at once"
        );
        assert_eq!(breaker.state(), BreakerState::Closed, "round {round}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dropped_half_open_trials_free_their_slots_and_never_exceed_the_limit() {
    const CALLERS: usize = 32;
    const ROUNDS: usize = 30;
    for round in 0..ROUNDS {
        let breaker = half_open_breaker(3).await;
        let (running, release) = (Arc::new(Running::default()), Gate::new());
        let mut in_flight = Vec::new();
        let mut free = 3;
        // Three waves of callers. After each of the first two, some trials in flight are
        // dropped (their callers gave up): exactly their slots are free for the next wave.
        for (wave, drops) in [(0, 3), (1, 1), (2, 0)] {
            let first = wave * CALLERS;
            let (refused_before, started_before) = (
                breaker.counters().rejected,
                running.admitted.lock().unwrap().len(),
            );
            let callers = spawn_callers(&breaker, &running, &release, first..first + CALLERS);
            until_decided(&breaker, &running, refused_before, started_before, CALLERS).await;
            let trials: Vec<usize> = running.admitted.lock().unwrap()[started_before..].to_vec();
            assert_eq!(
                trials.len(),
                free,
                "round {round}, wave {wave}: trials admitted"
            );
            for (caller, task) in callers {
                match trials.iter().position(|t| *t == caller) {
                    Some(at) if at < drops => {
                        task.abort();
                        let ended = within("an aborted trial", task).await;
                        assert!(ended.unwrap_err().is_cancelled(), "round {round}");
                    }
                    Some(_) => in_flight.push((caller, task)),
                    None => match within("a refused caller", task).await.unwrap() {
                        Err(BreakerError::Open { .. }) => {}
                        other => panic!("round {round}: caller {caller}: {other:?}"),
                    },
                }
            }
            assert_eq!(
                breaker.state(),
                BreakerState::HalfOpen,
                "round {round}, wave {wave}"
            );
            free = drops;
        }
        assert_eq!(in_flight.len(), 3, "round {round}: trials still in flight");
        assert!(
            running.most.load(Ordering::SeqCst) <= 3,
            "round {round}: at most 3 at once"
        );
        release.open();
        for (caller, task) in in_flight {
            let outcome = within("a trial", task).await.unwrap();
            assert!(
                outcome.is_ok(),
                "round {round}: caller {caller}: {outcome:?}"
            );
        }
        assert_eq!(breaker.state(), BreakerState::Closed, "round {round}");
        // One call opened it; then 3 + 3 + 1 trials were admitted, 4 of them dropped.
        assert_eq!(breaker.counters().admitted, 1 + 3 + 3 + 1, "round {round}");
    }
}
