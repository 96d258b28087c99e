//! `Path<T>` over a real app: each shape it reads, and what a bad parameter answers. A value
//! the client got wrong is a 400 naming the parameter, the decoded value and the type; a type
//! the route's template cannot fill is the route's mistake: a generic 500, details in the log.

use crate::support;

use green_tea::prelude::*;
use green_tea::response::Response;
use green_tea::test::TestClient;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use support::logs::Logs;

#[derive(Deserialize, Serialize)]
struct UserTodo {
    user: String,
    id: u64,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Done,
}

/// One route per shape; the last two are built wrong on purpose.
fn client() -> TestClient {
    let app = App::builder()
        .route(Route::get(
            "/todos/{id}",
            |mut request: RequestContext| async move {
                let Path(id) = request.extract::<Path<u64>>().await?;
                Ok::<_, Response>(Json(json!({ "id": id })))
            },
        ))
        .route(Route::get(
            "/users/{user}/todos/{id}",
            |mut request: RequestContext| async move {
                let Path(todo) = request.extract::<Path<UserTodo>>().await?;
                Ok::<_, Response>(Json(todo))
            },
        ))
        .route(Route::get(
            "/pairs/{name}/{count}",
            |mut request: RequestContext| async move {
                let Path((name, count)) = request.extract::<Path<(String, u32)>>().await?;
                Ok::<_, Response>(Json(json!([name, count])))
            },
        ))
        .route(Route::get(
            "/filter/{status}",
            |mut request: RequestContext| async move {
                let Path(status) = request.extract::<Path<Status>>().await?;
                Ok::<_, Response>(Json(json!({ "status": status })))
            },
        ))
        .route(Route::get(
            "/maybe/{n}",
            |mut request: RequestContext| async move {
                let Path(n) = request.extract::<Path<Option<u32>>>().await?;
                Ok::<_, Response>(Json(json!({ "n": n })))
            },
        ))
        .route(Route::get(
            "/files/{name}",
            |mut request: RequestContext| async move {
                let Path(name) = request.extract::<Path<String>>().await?;
                Ok::<_, Response>(name)
            },
        ))
        .route(Route::get(
            "/levels/{level}",
            |mut request: RequestContext| async move {
                let Path(level) = request.extract::<Path<u8>>().await?;
                Ok::<_, Response>(Json(json!({ "level": level })))
            },
        ))
        // Built wrong: the struct wants `user`, which this template does not have.
        .route(Route::get(
            "/orders/{id}",
            |mut request: RequestContext| async move {
                let Path(todo) = request.extract::<Path<UserTodo>>().await?;
                Ok::<_, Response>(Json(todo))
            },
        ))
        // Built wrong: a pair from a template with one parameter.
        .route(Route::get(
            "/points/{x}",
            |mut request: RequestContext| async move {
                let Path((x, y)) = request.extract::<Path<(u32, u32)>>().await?;
                Ok::<_, Response>(Json(json!([x, y])))
            },
        ))
        .build()
        .expect("a valid graph");
    TestClient::new(app)
}

/// Status and JSON body of `GET path`.
async fn get_json(client: &TestClient, path: &str) -> (u16, Value) {
    let response = client.get(path).send().await;
    (response.status().as_u16(), response.json())
}

/// `(400, {"error": message})`.
fn bad_request(message: &str) -> (u16, Value) {
    (400, json!({ "error": message }))
}

#[tokio::test]
async fn a_number_that_is_not_one_names_the_parameter_the_value_and_the_type() {
    let client = client();
    assert_eq!(
        get_json(&client, "/todos/42").await,
        (200, json!({ "id": 42 }))
    );
    assert_eq!(
        get_json(&client, "/todos/abc").await,
        bad_request(r#"invalid path parameter `id`: "abc" is not a valid u64"#)
    );
    assert_eq!(
        get_json(&client, "/todos/-1").await,
        bad_request(r#"invalid path parameter `id`: "-1" is not a valid u64"#)
    );
}

#[tokio::test]
async fn two_parameters_into_a_struct_by_name() {
    let client = client();
    assert_eq!(
        get_json(&client, "/users/ada/todos/7").await,
        (200, json!({ "user": "ada", "id": 7 }))
    );
    assert_eq!(
        get_json(&client, "/users/ada/todos/seven").await,
        bad_request(r#"invalid path parameter `id`: "seven" is not a valid u64"#)
    );
}

#[tokio::test]
async fn two_parameters_into_a_tuple_in_template_order() {
    let client = client();
    assert_eq!(
        get_json(&client, "/pairs/sencha/3").await,
        (200, json!(["sencha", 3]))
    );
    assert_eq!(
        get_json(&client, "/pairs/sencha/three").await,
        bad_request(r#"invalid path parameter `count`: "three" is not a valid u32"#),
        "a tuple's element is named after its parameter in the template"
    );
}

#[tokio::test]
async fn a_unit_enum_by_its_name() {
    let client = client();
    assert_eq!(
        get_json(&client, "/filter/done").await,
        (200, json!({ "status": "done" }))
    );
    assert_eq!(
        get_json(&client, "/filter/closed").await,
        bad_request(
            r#"invalid path parameter `status`: "closed" is not a valid Status (expected one of `open`, `done`)"#
        )
    );
}

#[tokio::test]
async fn an_option_is_some_value_and_still_checked() {
    let client = client();
    assert_eq!(
        get_json(&client, "/maybe/5").await,
        (200, json!({ "n": 5 }))
    );
    assert_eq!(
        get_json(&client, "/maybe/five").await,
        bad_request(r#"invalid path parameter `n`: "five" is not a valid u32"#)
    );
}

#[tokio::test]
async fn a_percent_encoded_value_is_decoded_before_it_is_read_and_reported() {
    let client = client();
    let file = client.get("/files/green%20tea%2Fsencha").send().await;
    assert_eq!(
        (file.status().as_u16(), file.text()),
        (200, "green tea/sencha".to_owned())
    );
    assert_eq!(
        get_json(&client, "/users/caf%C3%A9/todos/%37").await,
        (200, json!({ "user": "café", "id": 7 }))
    );
    assert_eq!(
        get_json(&client, "/todos/4%202").await,
        bad_request(r#"invalid path parameter `id`: "4 2" is not a valid u64"#),
        "the error shows the value decoded"
    );
}

#[tokio::test]
async fn a_value_that_is_not_utf8_once_decoded_names_the_parameter() {
    let client = client();
    assert_eq!(
        get_json(&client, "/files/tea%FF").await,
        bad_request("invalid path parameter `name`: not valid UTF-8 once percent-decoded")
    );
    assert_eq!(
        get_json(&client, "/users/%FF/todos/1").await,
        bad_request("invalid path parameter `user`: not valid UTF-8 once percent-decoded")
    );
}

#[tokio::test]
async fn a_number_too_big_for_its_type_is_a_400_not_a_wrapped_value() {
    let client = client();
    assert_eq!(
        get_json(&client, "/levels/255").await,
        (200, json!({ "level": 255 }))
    );
    assert_eq!(
        get_json(&client, "/levels/300").await,
        bad_request(r#"invalid path parameter `level`: "300" is not a valid u8"#)
    );
    assert_eq!(
        get_json(&client, "/levels/99999999999999999999999").await,
        bad_request(
            r#"invalid path parameter `level`: "99999999999999999999999" is not a valid u8"#
        )
    );
}

#[tokio::test]
async fn a_tuple_of_the_wrong_size_is_the_routes_mistake_a_500_with_the_counts_in_the_log() {
    let (logs, _guard) = Logs::start();
    let client = client();
    assert_eq!(
        get_json(&client, "/points/3").await,
        (500, json!({ "error": "internal server error" })),
        "nothing the client could fix, so nothing about it in the response"
    );
    let logs = logs.text();
    assert!(logs.contains("ERROR"), "{logs}");
    assert!(
        logs.contains("the type expects 2, the route's template has 1"),
        "{logs}"
    );
    assert!(logs.contains("Path<(u32, u32)>"), "{logs}");
}

#[tokio::test]
async fn a_struct_field_the_template_lacks_is_the_routes_mistake_named_in_the_log() {
    let (logs, _guard) = Logs::start();
    let client = client();
    assert_eq!(
        get_json(&client, "/orders/7").await,
        (500, json!({ "error": "internal server error" }))
    );
    let logs = logs.text();
    assert!(logs.contains("ERROR"), "{logs}");
    assert!(logs.contains("no parameter named `user`"), "{logs}");
    assert!(logs.contains("UserTodo"), "{logs}");
}

#[tokio::test]
async fn a_clients_mistake_is_not_logged_as_an_error() {
    let (logs, _guard) = Logs::start();
    let client = client();
    assert_eq!(get_json(&client, "/todos/abc").await.0, 400);
    let logs = logs.text();
    assert!(!logs.contains("ERROR"), "{logs}");
}
