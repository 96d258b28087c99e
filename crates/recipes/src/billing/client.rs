//! `BillingClient`: `POST /charges` on the billing service, over a pooled HTTP/1 client.

use std::sync::{PoisonError, RwLock};
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Uri, header};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::{Deserialize, Serialize};

use super::error::BillingError;

type Pool = Client<HttpConnector, Full<Bytes>>;

/// What `charge` sends.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ChargeRequest {
    /// Who pays.
    pub user_id: String,
    /// How much, in the smallest currency unit.
    pub amount: u64,
}

/// What the billing service answers to a charge.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Charge {
    /// The charge's id at the billing service.
    pub id: String,
}

/// A client of the billing service at one base URL.
///
/// [`close`](Self::close) stops new calls and drops the pooled connections; calls already
/// under way finish.
pub struct BillingClient {
    base: Uri,
    charges: Uri,
    timeout: Duration,
    pool: RwLock<Option<Pool>>,
}

impl BillingClient {
    /// A client of `base_url` (`http://host:port`), each request bounded by `timeout`.
    pub fn new(base_url: &str, timeout: Duration) -> Result<Self, BillingError> {
        let (base, charges) = parse_base(base_url)?;
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(timeout));
        connector.set_nodelay(true);
        let pool = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(connector);
        Ok(BillingClient {
            base,
            charges,
            timeout,
            pool: RwLock::new(Some(pool)),
        })
    }

    /// The base URL.
    pub fn base_url(&self) -> &Uri {
        &self.base
    }

    /// Charges `amount` to `user_id`: `POST {base}/charges`.
    pub async fn charge(&self, user_id: &str, amount: u64) -> Result<Charge, BillingError> {
        let pool = self
            .pool
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or(BillingError::Closed)?;
        let body = serde_json::to_vec(&ChargeRequest {
            user_id: user_id.to_owned(),
            amount,
        })
        .map_err(|e| BillingError::Decode(e.to_string()))?;
        let request = Request::builder()
            .method(Method::POST)
            .uri(self.charges.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| BillingError::InvalidUrl {
                url: self.base.to_string(),
                reason: e.to_string(),
            })?;
        let exchange = async {
            let response = pool
                .request(request)
                .await
                .map_err(|e| BillingError::Connect(e.to_string()))?;
            let status = response.status();
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|e| BillingError::Connect(e.to_string()))?
                .to_bytes();
            Ok::<_, BillingError>((status, body))
        };
        let (status, body) = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| BillingError::Timeout(self.timeout))??;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&body[..body.len().min(512)]).into_owned();
            return Err(BillingError::Status {
                status: status.as_u16(),
                body: text,
            });
        }
        serde_json::from_slice(&body).map_err(|e| BillingError::Decode(e.to_string()))
    }

    /// Stops new calls and drops the pool's idle connections. Idempotent.
    pub fn close(&self) {
        let pool = self
            .pool
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if pool.is_some() {
            tracing::info!(base = %self.base, "billing client closed");
        }
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.pool
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
    }
}

impl std::fmt::Debug for BillingClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BillingClient")
            .field("base", &self.base)
            .field("timeout", &self.timeout)
            .field("closed", &self.is_closed())
            .finish()
    }
}

/// The base URL and its `/charges`, or why `base_url` is not a usable `http://` URL (also
/// what `BillingSettings` checks at `build()`).
pub(super) fn parse_base(base_url: &str) -> Result<(Uri, Uri), BillingError> {
    let invalid = |reason: &str| BillingError::InvalidUrl {
        url: base_url.to_owned(),
        reason: reason.to_owned(),
    };
    let base: Uri = base_url
        .trim_end_matches('/')
        .parse()
        .map_err(|_| invalid("not a URL"))?;
    if base.scheme_str() != Some("http") {
        return Err(invalid("only http:// is supported"));
    }
    if base.host().is_none() {
        return Err(invalid("no host"));
    }
    let charges: Uri = format!("{}/charges", base_url.trim_end_matches('/'))
        .parse()
        .map_err(|_| invalid("not a URL"))?;
    Ok((base, charges))
}
