//! HTTPS with `serve_tls` (feature `tls`): HTTP/2 or HTTP/1.1, as the client and ALPN agree.
//!
//! ```sh
//! cargo run --example tls                         # feature `tls`: on for the examples
//! curl -k https://127.0.0.1:3000/                  # -k: the certificate is self-signed
//! TLS_CERT=cert.pem TLS_KEY=key.pem cargo run --example tls
//! ```
//!
//! Reads `PORT` (3000), `TLS_CERT` and `TLS_KEY` (PEM files: the certificate chain and its
//! private key). Without them it makes a self-signed certificate for `localhost` and
//! `127.0.0.1` at start-up (with rcgen), and writes it, DER-encoded, to `TLS_CERT_OUT` if that is
//! set, for a client that checks certificates to trust.

use green_tea::prelude::*;
use green_tea::serve::rustls::ServerConfig;
use green_tea::serve::rustls::pki_types::pem::PemObject;
use green_tea::serve::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use http::Version;

struct Hello;

#[route("/")]
impl Hello {
    /// `Version` is an axum-core extractor of the request head: `HTTP/2.0` when ALPN chose h2.
    #[get("/")]
    async fn hello(version: Version) -> String {
        format!("hello over {version:?}")
    }
}

/// The certificate chain and key: from `TLS_CERT` and `TLS_KEY`, or made now.
fn certificate() -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), BoxError> {
    if let (Ok(cert), Ok(key)) = (std::env::var("TLS_CERT"), std::env::var("TLS_KEY")) {
        let chain = CertificateDer::pem_file_iter(cert)?.collect::<Result<Vec<_>, _>>()?;
        return Ok((chain, PrivateKeyDer::from_pem_file(key)?));
    }
    let names = vec!["localhost".to_owned(), "127.0.0.1".to_owned()];
    let made = rcgen::generate_simple_self_signed(names)?;
    if let Ok(out) = std::env::var("TLS_CERT_OUT") {
        std::fs::write(out, made.cert.der())?;
    }
    let key = PrivatePkcs8KeyDer::from(made.signing_key.serialize_der());
    Ok((vec![made.cert.der().clone()], key.into()))
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let (chain, key) = certificate()?;
    // No ALPN protocols set: green-tea offers h2 and http/1.1.
    let config = ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)?;

    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let addr = listener.local_addr()?;
    let app = App::builder().routes(Hello::routes()).build()?;
    // Ctrl-C and SIGTERM are caught from this call on: the address is printed after it.
    let served = app.serve_tls(listener, config);
    println!("listening on https://{addr}");
    served.await?; // Ctrl-C or SIGTERM: drain, then close
    Ok(())
}
