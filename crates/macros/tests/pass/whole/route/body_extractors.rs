//! Every place a body reader may go: the last extractor (needs may follow), `#[body]` with
//! head extractors, the context with head extractors and needs.
use axum::Json;
use axum::body::Bytes;
use green_tea::prelude::*;

struct Orders;

#[route("/orders")]
impl Orders {
    #[post("/{id}")]
    async fn json(Path(id): Path<u64>, Json(n): Json<u64>, #[needs("k")] k: &String) -> String {
        format!("{id} {n} {k}")
    }

    #[post("/raw")]
    async fn raw(body: Bytes) -> String {
        body.len().to_string()
    }

    #[post("/vec")]
    async fn vec(#[body] body: Vec<u8>, headers: HeaderMap) -> String {
        format!("{} {}", body.len(), headers.len())
    }

    #[post("/context/{id}")]
    async fn context(
        #[needs("k")] k: &String,
        mut request: RequestContext,
        Path(id): Path<u64>,
    ) -> Result<String, HttpError> {
        let text = request.text().await?;
        Ok(format!("{k} {id} {text}"))
    }
}

use green_tea::http::HeaderMap;

#[test]
fn compiles_and_runs() {
    assert_eq!(Orders::routes().len(), 4);
}
