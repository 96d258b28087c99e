//! `discover()` collects every `#[provider]`, `#[step]` and `#[route]` in the binary, so this
//! file holds one self-contained app and nothing else.

use green_tea::prelude::*;
use green_tea::test::TestClient;

#[provider(provides = "greeting")]
fn greeting() -> String {
    "hello".to_owned()
}

struct Caller(String);

#[step(provides = "caller")]
fn caller(parts: &Parts) -> Result<Caller, HttpError> {
    let name = parts
        .headers
        .get("x-name")
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| HttpError::unauthorized("who are you?"))?;
    Ok(Caller(name.to_owned()))
}

#[step]
fn no_robots(parts: &Parts) -> Result<(), HttpError> {
    match parts.headers.get("user-agent") {
        Some(agent) if agent == "robot" => Err(HttpError::forbidden("no robots")),
        _ => Ok(()),
    }
}

struct Greetings;

#[route("/greet", steps = ["no_robots"])]
impl Greetings {
    #[get("/")]
    async fn greet(
        #[needs("greeting")] greeting: &String,
        #[needs("caller")] caller: &Caller,
    ) -> String {
        format!("{greeting}, {}", caller.0)
    }

    #[get("/anyone")]
    fn anyone() -> &'static str {
        "hi"
    }
}

#[tokio::test]
async fn discover_finds_every_macro_provider_step_and_route() {
    let app = App::builder().discover().build().unwrap();
    let client = TestClient::new(app.clone());
    let greeted = client.get("/greet").header("x-name", "ada").send().await;
    assert_eq!(greeted.text(), "hello, ada");
    assert_eq!(client.get("/greet").send().await.status(), 401);
    let robot = client
        .get("/greet/anyone")
        .header("user-agent", "robot")
        .send()
        .await;
    assert_eq!(robot.status(), 403);
    assert_eq!(client.get("/greet/anyone").send().await.text(), "hi");
    let all = app.explain_all();
    let handlers: Vec<&str> = all
        .paths
        .iter()
        .flat_map(|p| &p.routes)
        .map(|r| r.handler.as_str())
        .collect();
    assert_eq!(handlers.len(), 2, "{handlers:?}");
    assert!(handlers.contains(&"Greetings::greet"));
    app.close().await.unwrap();
}
