//! HTTP/2's limits, as a raw HTTP/2 client (the `h2` crate) sees them over loopback: what the
//! server announces in its SETTINGS, and a header list past the limit refused while the
//! connection goes on serving.

use crate::support;

use green_tea::App;
use green_tea::extract::RequestContext;
use green_tea::routing::Route;
use green_tea::serve::Limits;
use h2::client::{Connection, SendRequest};
use hyper::Request;
use hyper::body::Bytes;
use tokio::net::TcpStream;

use support::http::{Server, within};
use support::raw::connect;

/// `GET /hello` answers `hello`.
fn app(limits: Limits) -> App {
    App::builder()
        .limits(limits)
        .route(Route::get("/hello", |_: RequestContext| async { "hello" }))
        .build()
        .expect("a valid graph")
}

/// An HTTP/2 connection (prior knowledge) to `server`.
async fn h2(server: &Server) -> (SendRequest<Bytes>, Connection<TcpStream, Bytes>) {
    within(
        "the HTTP/2 handshake",
        h2::client::handshake(connect(server.addr).await),
    )
    .await
    .expect("an HTTP/2 handshake")
}

/// `GET /hello` with `header` set to `value`: the status, or the stream's error (a reset),
/// while driving the connection.
async fn get(
    client: &mut SendRequest<Bytes>,
    connection: &mut Connection<TcpStream, Bytes>,
    header: &str,
    value: &str,
) -> Result<u16, h2::Error> {
    let request = Request::get("http://localhost/hello")
        .header(header, value)
        .body(())
        .unwrap();
    *client = within("the client to be ready", client.clone().ready())
        .await
        .expect("the connection takes requests");
    let (response, _) = client
        .send_request(request, true)
        .expect("the request is sent");
    let response = within("the response", async {
        tokio::select! {
            response = response => response,
            ended = &mut *connection => panic!("the connection ended first: {ended:?}"),
        }
    })
    .await;
    response.map(|response| response.status().as_u16())
}

#[tokio::test]
async fn the_server_announces_its_max_concurrent_streams() {
    for (configured, announced) in [(None, 100), (Some(7), 7)] {
        let mut limits = Limits::default();
        if let Some(streams) = configured {
            limits.http2_max_concurrent_streams = streams;
        }
        let app = app(limits);
        let server = Server::start(&app).await;
        let (mut client, mut connection) = h2(&server).await;
        // A response means the server's SETTINGS, its first frame, have been read.
        assert_eq!(
            get(&mut client, &mut connection, "x-a", "b").await.unwrap(),
            200
        );
        assert_eq!(
            connection.max_concurrent_send_streams(),
            announced,
            "configured {configured:?}"
        );
        drop((client, connection));
        server.stop().await.expect("a clean close");
    }
}

#[tokio::test]
async fn a_header_list_past_max_header_bytes_is_refused_and_the_connection_serves_on() {
    let mut limits = Limits::default();
    // No 8 KiB floor for HTTP/2, unlike HTTP/1's read buffer.
    limits.max_header_bytes = 4096;
    let app = app(limits);
    let server = Server::start(&app).await;
    let (mut client, mut connection) = h2(&server).await;

    let within_limit = "a".repeat(2048);
    assert_eq!(
        get(&mut client, &mut connection, "x-within", &within_limit)
            .await
            .unwrap(),
        200
    );
    // 32 bytes of overhead per header (RFC 9113), and the pseudo-headers: 8000 bytes of value
    // are well past 4096 either way.
    let past_limit = "a".repeat(8000);
    match get(&mut client, &mut connection, "x-past", &past_limit).await {
        Ok(status) => assert_eq!(status, 431, "a header list past the limit was served"),
        Err(error) => assert_eq!(
            error.reason(),
            Some(h2::Reason::REFUSED_STREAM),
            "refused otherwise than documented: {error}"
        ),
    }
    assert_eq!(
        get(&mut client, &mut connection, "x-after", "b")
            .await
            .unwrap(),
        200,
        "the connection stopped serving after a refused stream"
    );
    drop((client, connection));
    server.stop().await.expect("a clean close");
}
