//! The graph's vocabulary through the macros: optional needs (`name?`), lists (`notifiers[]`)
//! and maps (`stores{}`, `stores{eu}`) in providers, steps and routes, and `#[decorator]`s
//! registered, chained and discovered.

use std::sync::Arc;

use green_tea::prelude::*;
use green_tea::test::TestClient;

trait Notifier: Send + Sync {
    fn channel(&self) -> &'static str;
}

struct Email;

impl Notifier for Email {
    fn channel(&self) -> &'static str {
        "email"
    }
}

struct Sms;

impl Notifier for Sms {
    fn channel(&self) -> &'static str {
        "sms"
    }
}

#[provider(provides = "greeting", needs = "name?")]
fn greeting(name: Option<&String>) -> String {
    match name {
        Some(name) => format!("hello, {name}"),
        None => "hello".to_owned(),
    }
}

#[provider(provides = "farewell", needs = "name?")]
async fn farewell(name: Option<Arc<String>>) -> String {
    name.map_or_else(|| "bye".to_owned(), |name| format!("bye, {name}"))
}

#[provider(provides = "notifiers[]")]
fn email() -> Arc<dyn Notifier> {
    Arc::new(Email)
}

#[provider(provides = "notifiers[]")]
fn sms() -> Arc<dyn Notifier> {
    Arc::new(Sms)
}

#[provider(provides = "channels", needs = "notifiers[]")]
fn channels(notifiers: All<'_, Arc<dyn Notifier>>) -> String {
    let channels: Vec<_> = notifiers.iter().map(|n| n.channel()).collect();
    channels.join(",")
}

#[provider(provides = "stores{eu}")]
fn eu_store() -> String {
    "eu.example".to_owned()
}

/// An entry beside an ordinary key.
#[provider(provides = ["stores{us}", "region"])]
fn us_store() -> (String, String) {
    ("us.example".to_owned(), "us".to_owned())
}

#[provider(provides = "stores", needs = ["stores{}", "stores{eu}"])]
fn stores(stores: ByName<'_, String>, eu: &String) -> String {
    let all: Vec<_> = stores
        .iter()
        .map(|(name, url)| format!("{name}={url}"))
        .collect();
    format!("{} (eu: {eu})", all.join(","))
}

/// An impl block's `provide` takes the vocabulary too.
struct Counter;

#[provider(provides = "count", needs = ["start?", "notifiers[]"], discover = false)]
impl Counter {
    fn provide(&self, start: Option<&u32>, notifiers: All<'_, Arc<dyn Notifier>>) -> u32 {
        start.copied().unwrap_or(0) + notifiers.len() as u32
    }
}

fn container() -> green_tea::ContainerBuilder {
    Container::builder()
        .provider(greeting::provider())
        .provider(farewell::provider())
        .provider(email::provider())
        .provider(sms::provider())
        .provider(channels::provider())
        .provider(eu_store::provider())
        .provider(us_store::provider())
        .provider(stores::provider())
        .provider(Counter)
}

#[tokio::test]
async fn an_optional_need_is_none_when_nothing_provides_it() {
    let container = container().build().unwrap();
    assert_eq!(*container.get::<String>("greeting").await.unwrap(), "hello");
    assert_eq!(*container.get::<String>("farewell").await.unwrap(), "bye");
    assert_eq!(*container.get::<u32>("count").await.unwrap(), 2);
    container.close().await.unwrap();
}

#[tokio::test]
async fn an_optional_need_is_the_value_when_something_provides_it() {
    let container = container()
        .value("name", "ada".to_owned())
        .value("start", 40_u32)
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("greeting").await.unwrap(),
        "hello, ada"
    );
    assert_eq!(
        *container.get::<String>("farewell").await.unwrap(),
        "bye, ada"
    );
    assert_eq!(*container.get::<u32>("count").await.unwrap(), 42);
    container.close().await.unwrap();
}

#[tokio::test]
async fn a_list_is_in_registration_order() {
    let container = container().build().unwrap();
    assert_eq!(
        *container.get::<String>("channels").await.unwrap(),
        "email,sms"
    );
    container.close().await.unwrap();
    let reversed = Container::builder()
        .provider(sms::provider())
        .provider(channels::provider())
        .provider(email::provider())
        .build()
        .unwrap();
    assert_eq!(
        *reversed.get::<String>("channels").await.unwrap(),
        "sms,email"
    );
    reversed.close().await.unwrap();
}

#[tokio::test]
async fn a_map_is_by_name_and_an_entry_is_one_value() {
    let container = container().build().unwrap();
    assert_eq!(
        *container.get::<String>("stores").await.unwrap(),
        "eu=eu.example,us=us.example (eu: eu.example)"
    );
    assert_eq!(*container.get::<String>("region").await.unwrap(), "us");
    container.close().await.unwrap();
}

struct User(String);

#[step(provides = "user", needs = "defaultUser?")]
fn user(parts: &Parts, default: Option<&String>) -> Result<User, HttpError> {
    let named = parts.headers.get("x-user").and_then(|v| v.to_str().ok());
    match named.map(str::to_owned).or_else(|| default.cloned()) {
        Some(name) => Ok(User(name)),
        None => Err(HttpError::unauthorized("who are you?")),
    }
}

struct Api;

#[route("/")]
impl Api {
    #[get("/hello")]
    async fn hello(
        #[needs("user")] user: &User,
        #[needs("name?")] name: Option<&String>,
        #[needs("notifiers[]")] notifiers: All<'_, Arc<dyn Notifier>>,
        #[needs("stores{}")] stores: ByName<'_, String>,
    ) -> String {
        let channels: Vec<_> = notifiers.iter().map(|n| n.channel()).collect();
        let stores: Vec<_> = stores.names().collect();
        format!(
            "{} as {}; via {}; stores {}",
            user.0,
            name.map_or("nobody", String::as_str),
            channels.join(","),
            stores.join(",")
        )
    }

    /// With the context passed on, an optional need is read as its `Arc`.
    #[get("/context")]
    fn context(request: RequestContext, #[needs("name?")] name: Option<&String>) -> String {
        format!(
            "{} {}",
            request.parts().uri.path(),
            name.map_or("-", String::as_str)
        )
    }
}

fn api_app() -> green_tea::AppBuilder {
    App::builder()
        .provider(email::provider())
        .provider(sms::provider())
        .provider(eu_store::provider())
        .provider(us_store::provider())
        .step(user::step())
        .routes(Api::routes())
}

#[tokio::test]
async fn a_route_and_a_step_read_the_vocabulary() {
    let app = api_app().build().unwrap();
    let client = TestClient::new(app.clone());
    assert_eq!(client.get("/hello").send().await.status(), 401);
    let hello = client.get("/hello").header("x-user", "ada").send().await;
    assert_eq!(hello.text(), "ada as nobody; via email,sms; stores eu,us");
    assert_eq!(client.get("/context").send().await.text(), "/context -");
    app.close().await.unwrap();

    let app = api_app()
        .value("name", "tea".to_owned())
        .value("defaultUser", "guest".to_owned())
        .build()
        .unwrap();
    let client = TestClient::new(app.clone());
    let hello = client.get("/hello").send().await;
    assert_eq!(hello.text(), "guest as tea; via email,sms; stores eu,us");
    assert_eq!(client.get("/context").send().await.text(), "/context tea");
    app.close().await.unwrap();
}

#[provider(provides = "billing")]
fn billing() -> String {
    "billing".to_owned()
}

#[decorator(decorates = "billing")]
fn logged(billing: &String) -> String {
    format!("logged({billing})")
}

#[decorator(decorates = "billing", needs = ["suffix", "notifiers[]"])]
async fn retried(
    billing: Arc<String>,
    suffix: &String,
    notifiers: All<'_, Arc<dyn Notifier>>,
) -> Result<String, BoxError> {
    Ok(format!("retried({billing}){suffix}{}", notifiers.len()))
}

#[tokio::test]
async fn decorators_chain_in_registration_order() {
    let base = || {
        Container::builder()
            .value("suffix", "!".to_owned())
            .provider(email::provider())
            .provider(billing::provider())
    };
    let container = base()
        .decorator(logged::decorator())
        .decorator(retried::decorator())
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("billing").await.unwrap(),
        "retried(logged(billing))!1"
    );
    container.close().await.unwrap();
    let container = base()
        .decorator(retried::decorator())
        .decorator(logged::decorator())
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("billing").await.unwrap(),
        "logged(retried(billing)!1)"
    );
    container.close().await.unwrap();
    // Still the fns.
    assert_eq!(logged(&billing()), "logged(billing)");
}

#[tokio::test]
async fn an_app_registers_decorators_too() {
    let app = App::builder()
        .provider(billing::provider())
        .decorator(logged::decorator())
        .build()
        .unwrap();
    let container = app.container();
    assert_eq!(
        *container.get::<String>("billing").await.unwrap(),
        "logged(billing)"
    );
    app.close().await.unwrap();
}

/// What `discover_in` finds here, and nothing else.
mod discovered {
    use green_tea::prelude::*;

    pub(super) const MODULE: &str = module_path!();

    #[provider(provides = "tea")]
    fn tea() -> String {
        "tea".to_owned()
    }

    #[decorator(decorates = "tea")]
    async fn hot(tea: &String) -> String {
        format!("hot {tea}")
    }

    #[decorator(decorates = "tea", discover = false)]
    pub(super) fn sweet(tea: &String) -> String {
        format!("sweet {tea}")
    }
}

#[tokio::test]
async fn discovery_finds_decorators_and_leaves_out_discover_false() {
    let container = Container::builder()
        .discover_in(&[discovered::MODULE])
        .build()
        .unwrap();
    assert_eq!(*container.get::<String>("tea").await.unwrap(), "hot tea");
    container.close().await.unwrap();
    let container = Container::builder()
        .discover_in(&[discovered::MODULE])
        .decorator(discovered::sweet::decorator())
        .build()
        .unwrap();
    assert_eq!(
        *container.get::<String>("tea").await.unwrap(),
        "sweet hot tea"
    );
    container.close().await.unwrap();
}
