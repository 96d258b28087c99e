//! `BillingClient` against the fake billing service over loopback.

use std::time::Duration;

use green_tea_recipes::billing::fake::{FakeBilling, Mode};
use green_tea_recipes::billing::{BillingClient, BillingError};

async fn fake(mode: Mode) -> FakeBilling {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    FakeBilling::start(listener, mode).await.unwrap()
}

#[tokio::test]
async fn a_charge_posts_to_charges() {
    let fake = fake(Mode::Up).await;
    let client = BillingClient::new(fake.url(), Duration::from_secs(5)).unwrap();
    let charge = client.charge("u1", 5).await.unwrap();
    assert_eq!(charge.id, "ch_1");
    assert_eq!(fake.hits(), 1);
    fake.close().await;
}

#[tokio::test]
async fn errors_are_classified_for_the_breaker() {
    let fake = fake(Mode::Down).await;
    let client = BillingClient::new(fake.url(), Duration::from_secs(5)).unwrap();
    let down = client.charge("u1", 5).await.unwrap_err();
    assert!(
        matches!(down, BillingError::Status { status: 500, .. }),
        "{down}"
    );
    assert!(down.is_upstream_failure());

    let unknown = client.charge("unknown", 5).await.unwrap_err();
    assert!(
        matches!(unknown, BillingError::Status { status: 404, .. }),
        "{unknown}"
    );
    assert!(
        !unknown.is_upstream_failure(),
        "a 404 says nothing about billing's health"
    );
    fake.close().await;

    for (status, failure) in [
        (408, true),
        (429, true),
        (503, true),
        (400, false),
        (409, false),
    ] {
        let error = BillingError::Status {
            status,
            body: String::new(),
        };
        assert_eq!(error.is_upstream_failure(), failure, "{status}");
    }
}

#[tokio::test]
async fn a_hung_upstream_times_out() {
    let fake = fake(Mode::Slow).await;
    let client = BillingClient::new(fake.url(), Duration::from_millis(100)).unwrap();
    let error = client.charge("u1", 5).await.unwrap_err();
    assert!(matches!(error, BillingError::Timeout(_)), "{error}");
    assert!(error.is_upstream_failure());
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }; // closed again: nothing listens there now
    let client =
        BillingClient::new(&format!("http://127.0.0.1:{port}"), Duration::from_secs(5)).unwrap();
    let error = client.charge("u1", 5).await.unwrap_err();
    assert!(matches!(error, BillingError::Connect(_)), "{error}");
    assert!(error.is_upstream_failure());
}

#[tokio::test]
async fn a_closed_client_refuses_new_calls() {
    let fake = fake(Mode::Up).await;
    let client = BillingClient::new(fake.url(), Duration::from_secs(5)).unwrap();
    client.close();
    client.close(); // idempotent
    assert!(client.is_closed());
    assert!(matches!(
        client.charge("u1", 5).await,
        Err(BillingError::Closed)
    ));
    assert_eq!(fake.hits(), 0);
    fake.close().await;
}

#[test]
fn bad_urls_are_rejected_up_front() {
    for url in ["not a url", "https://127.0.0.1:1", "ftp://x", "/charges"] {
        let error = BillingClient::new(url, Duration::from_secs(1)).unwrap_err();
        assert!(
            matches!(error, BillingError::InvalidUrl { .. }),
            "{url}: {error}"
        );
    }
}
