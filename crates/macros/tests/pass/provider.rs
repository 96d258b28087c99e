//! `#[provider]` expansions, used through the facade as an application would.

use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::prelude::*;
use std::sync::Arc;

// --- fn form -------------------------------------------------------------------------------

/// The billing service's address.
#[provider(provides = "billingUrl")]
fn billing_url() -> String {
    "http://127.0.0.1:3001".to_owned()
}
const BILLING_URL_LINE: u32 = line!() - 3; // the `fn billing_url` line

struct BillingClient {
    url: String,
}

#[provider(provides = "billingClient", needs = "billingUrl")]
async fn billing_client(url: &String) -> BillingClient {
    tokio::task::yield_now().await;
    BillingClient { url: url.clone() }
}

struct Billing {
    client: Arc<BillingClient>,
    url_len: usize,
}

#[provider(provides = "billing", needs = ["billingClient", "billingUrl"])]
fn billing(client: Arc<BillingClient>, url: &String) -> Billing {
    Billing {
        client,
        url_len: url.len(),
    }
}

#[tokio::test]
async fn sync_and_async_fns_with_arc_and_ref_params() {
    let container = Container::builder()
        .provider(billing_url::provider())
        .provider(billing_client::provider())
        .provider(billing::provider())
        .build()
        .unwrap();
    let built = container.get::<Billing>("billing").await.unwrap();
    assert_eq!(built.url_len, 21);
    assert_eq!(built.client.url, "http://127.0.0.1:3001");
    let client = container
        .get::<BillingClient>("billingClient")
        .await
        .unwrap();
    assert!(
        Arc::ptr_eq(&client, &built.client),
        "an Arc<T> param is the shared value"
    );
    container.close().await.unwrap();
}

#[derive(Debug)]
struct MyError(&'static str);

impl fmt::Display for MyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for MyError {}

#[provider(provides = "port", needs = "portText")]
async fn port(text: &String) -> Result<u16, MyError> {
    text.parse().map_err(|_| MyError("not a port"))
}

#[tokio::test]
async fn result_returning_fn_ok() {
    let container = Container::builder()
        .value("portText", "3001".to_owned())
        .provider(port::provider())
        .build()
        .unwrap();
    assert_eq!(*container.get::<u16>("port").await.unwrap(), 3001);
    container.close().await.unwrap();
}

#[tokio::test]
async fn result_returning_fn_err_is_a_failed_provide() {
    let container = Container::builder()
        .value("portText", "three thousand".to_owned())
        .provider(port::provider())
        .build()
        .unwrap();
    let error = container.get::<u16>("port").await.unwrap_err();
    assert!(matches!(error, ProvideError::Failed { .. }), "{error:?}");
    assert!(error.to_string().contains("not a port"), "{error}");
    container.close().await.unwrap();
}

#[provider(provides = ["host", "hostPort"])]
fn address() -> (String, u16) {
    ("localhost".to_owned(), 8080)
}

#[tokio::test]
async fn a_tuple_provides_several_keys() {
    let container = Container::builder()
        .provider(address::provider())
        .build()
        .unwrap();
    assert_eq!(*container.get::<String>("host").await.unwrap(), "localhost");
    assert_eq!(*container.get::<u16>("hostPort").await.unwrap(), 8080);
    let descriptor = address::provider().descriptor();
    let keys: Vec<&str> = descriptor.provides.iter().map(|k| k.key.as_str()).collect();
    assert_eq!(keys, ["host", "hostPort"]);
    container.close().await.unwrap();
}

static POOLS_CLOSED: AtomicUsize = AtomicUsize::new(0);
static POOL_SIZE_SEEN: AtomicUsize = AtomicUsize::new(0);

struct Pool {
    size: usize,
}

async fn close_pool(closing: &Pool, label: &&'static str) -> Result<(), MyError> {
    POOL_SIZE_SEEN.store(closing.size + label.len(), Ordering::SeqCst);
    POOLS_CLOSED.fetch_add(1, Ordering::SeqCst);
    Ok(())
}

#[provider(provides = ["pool", "poolLabel"], dispose = close_pool)]
fn pool() -> (Pool, &'static str) {
    (Pool { size: 4 }, "main")
}

#[tokio::test]
async fn dispose_path_runs_on_close_with_every_provided_value() {
    let container = Container::builder()
        .provider(pool::provider())
        .build()
        .unwrap();
    container.get::<Pool>("pool").await.unwrap();
    assert_eq!(POOLS_CLOSED.load(Ordering::SeqCst), 0);
    container.close().await.unwrap();
    assert_eq!(POOLS_CLOSED.load(Ordering::SeqCst), 1);
    assert_eq!(POOL_SIZE_SEEN.load(Ordering::SeqCst), 4 + 4);
}

#[tokio::test]
async fn the_fn_stays_callable() {
    assert_eq!(billing_url(), "http://127.0.0.1:3001");
    let client = billing_client(&"http://x".to_owned()).await;
    assert_eq!(client.url, "http://x");
    assert!(port(&"80".to_owned()).await.is_ok());
}

// Bindings named like a provider fn are bindings: the struct lives in the type namespace.
#[provider(provides = "guardedBilling", needs = "billingClient")]
fn guarded_billing(billing_client: Arc<BillingClient>) -> usize {
    billing_client.url.len()
}

#[tokio::test]
async fn bindings_may_share_a_provider_fn_name() {
    let billing_url = billing_url();
    let billing_client = Arc::new(billing_client(&billing_url).await);
    assert_eq!(guarded_billing(Arc::clone(&billing_client)), 21);
    let container = Container::builder()
        .provider(billing_url::provider())
        .provider(billing_client::provider())
        .provider(guarded_billing::provider())
        .build()
        .unwrap();
    assert_eq!(*container.get::<usize>("guardedBilling").await.unwrap(), 21);
    container.close().await.unwrap();
}

#[test]
fn the_descriptor_points_at_the_declaration() {
    let descriptor = billing_url::provider().descriptor();
    assert_eq!(descriptor.name, "billing_url");
    assert!(
        descriptor.location.file().ends_with("pass/provider.rs"),
        "{}",
        descriptor.location
    );
    assert_eq!(descriptor.location.line(), BILLING_URL_LINE);
    let descriptor = billing::provider().descriptor();
    let needs: Vec<&str> = descriptor.needs.iter().map(|k| k.key.as_str()).collect();
    assert_eq!(needs, ["billingClient", "billingUrl"]);
}

// --- impl form -----------------------------------------------------------------------------

struct Counter {
    start: u64,
}

#[provider(provides = "counter")]
impl Counter {
    fn new() -> Self {
        Counter { start: 40 }
    }

    fn provide(&self) -> u64 {
        self.start + 2
    }
}

#[derive(Default)]
struct Greeter {
    greeted: AtomicUsize,
}

#[provider(provides = "greeting", needs = ["name"])]
impl Greeter {
    async fn provide(&self, name: Arc<String>) -> Result<String, MyError> {
        self.greeted.fetch_add(1, Ordering::SeqCst);
        Ok(format!("hello, {name}"))
    }
}

#[derive(Default)]
struct Connections {
    disposed: Mutex<Option<Arc<Connection>>>,
}

struct Connection {
    open: bool,
}

static CONNECTION_DISPOSALS: AtomicUsize = AtomicUsize::new(0);

#[provider(provides = "connection", needs = "counter")]
impl Connections {
    async fn provide(&self, counter: &u64) -> Connection {
        Connection {
            open: *counter == 42,
        }
    }

    async fn dispose(&self, connection: Arc<Connection>) -> Result<(), MyError> {
        CONNECTION_DISPOSALS.fetch_add(1, Ordering::SeqCst);
        *self.disposed.lock().unwrap() = Some(connection);
        Ok(())
    }
}

#[tokio::test]
async fn impl_form_made_with_new() {
    let container = Container::builder().provider(Counter::new()).build();
    let container = container.unwrap();
    assert_eq!(*container.get::<u64>("counter").await.unwrap(), 42);
    assert_eq!(Counter::new().descriptor().name, "Counter");
    container.close().await.unwrap();
}

#[tokio::test]
async fn impl_form_made_with_default() {
    let container = Container::builder()
        .value("name", "tea".to_owned())
        .provider(Greeter::default())
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("greeting").await.unwrap(),
        "hello, tea"
    );
    container.close().await.unwrap();
}

/// Carries what the app hands it: no `Default`, no `new()`, so it is registered as made.
struct Database {
    url: String,
    log: Arc<Mutex<Vec<String>>>,
}

#[provider(provides = "database", discover = false)]
impl Database {
    async fn provide(&self) -> String {
        self.log.lock().unwrap().push("connected".to_owned());
        format!("connected to {}", self.url)
    }

    async fn dispose(&self, connected: &String) {
        self.log
            .lock()
            .unwrap()
            .push(format!("closed: {connected}"));
    }
}

#[tokio::test]
async fn impl_form_registers_an_instance_without_default_or_new() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let database = Database {
        url: "postgres://db".to_owned(),
        log: Arc::clone(&log),
    };
    let container = Container::builder().provider(database).build().unwrap();
    assert_eq!(
        *container.get::<String>("database").await.unwrap(),
        "connected to postgres://db"
    );
    container.close().await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        ["connected", "closed: connected to postgres://db"]
    );
}

#[tokio::test]
async fn impl_form_dispose_receives_the_very_same_arc() {
    let connections = Arc::new(Connections::default());
    let container = Container::builder()
        .provider(Counter::new())
        .provider(SharedConnections(Arc::clone(&connections)))
        .build()
        .unwrap();
    let connection = container.get::<Connection>("connection").await.unwrap();
    assert!(connection.open);
    container.close().await.unwrap();
    assert_eq!(CONNECTION_DISPOSALS.load(Ordering::SeqCst), 1);
    let disposed = connections
        .disposed
        .lock()
        .unwrap()
        .take()
        .expect("dispose ran");
    assert!(Arc::ptr_eq(&disposed, &connection));
}

/// Hands the container a provider whose state the test keeps, by delegating to the
/// macro-written impl.
struct SharedConnections(Arc<Connections>);

impl Provider for SharedConnections {
    fn descriptor(&self) -> Descriptor {
        self.0.descriptor()
    }

    async fn provide(&self, needs: Needs<'_>) -> Result<Provided, BoxError> {
        Provider::provide(&*self.0, needs).await
    }

    async fn dispose(&self, provided: &Provided) -> Result<(), BoxError> {
        Provider::dispose(&*self.0, provided).await
    }
}

#[test]
fn impl_methods_stay_inherent() {
    assert_eq!(Counter::new().provide(), 42);
    let location = Counter::new().descriptor().location;
    assert!(location.file().ends_with("pass/provider.rs"), "{location}");
}
