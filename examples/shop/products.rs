//! The products: the app's own keys (`catalog`, and `priceCache`, on with `SHOP_CACHE=1`), which
//! the modules' needs reach by resolving outward; `GET /products/{id}`.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use green_tea::prelude::*;
use serde_json::{Value, json};

/// The products and their prices in cents, by id: the slow lookup a cache saves.
pub(crate) struct Catalog(BTreeMap<String, u64>);

impl Catalog {
    fn price(&self, product: &str) -> Option<u64> {
        self.0.get(product).copied()
    }
}

#[provider(provides = "catalog")]
pub(crate) fn catalog() -> Catalog {
    Catalog(BTreeMap::from([
        ("sencha".to_owned(), 1_200),
        ("matcha".to_owned(), 2_900),
    ]))
}

/// Prices looked up before, kept. Optional: the shop runs without it.
#[derive(Default)]
pub(crate) struct PriceCache {
    prices: Mutex<BTreeMap<String, u64>>,
    hits: AtomicUsize,
}

impl PriceCache {
    fn get_or(&self, product: &str, look_up: impl FnOnce() -> Option<u64>) -> Option<u64> {
        let mut prices = self.prices.lock().unwrap();
        if let Some(&price) = prices.get(product) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Some(price);
        }
        let price = look_up()?;
        prices.insert(product.to_owned(), price);
        Some(price)
    }
}

/// On only where the switch `cacheOn` is (`SHOP_CACHE=1`).
#[provider(provides = "priceCache", when = "cacheOn")]
pub(crate) fn price_cache() -> PriceCache {
    PriceCache::default()
}

/// The price of `product`, through the cache when the shop has one.
pub(crate) fn price_of(
    catalog: &Catalog,
    cache: Option<&PriceCache>,
    product: &str,
) -> Option<u64> {
    match cache {
        Some(cache) => cache.get_or(product, || catalog.price(product)),
        None => catalog.price(product),
    }
}

pub(crate) struct Products;

#[route("/products")]
impl Products {
    #[get("/{id}")]
    async fn show(
        Path(id): Path<String>,
        #[needs("catalog")] catalog: &Catalog,
        #[needs("priceCache?")] cache: Option<&PriceCache>,
    ) -> Result<Json<Value>, HttpError> {
        let cents = price_of(catalog, cache, &id)
            .ok_or_else(|| HttpError::not_found(format!("no product {id}")))?;
        let cache_hits = cache.map(|c| c.hits.load(Ordering::Relaxed));
        Ok(Json(
            json!({ "id": id, "cents": cents, "cacheHits": cache_hits }),
        ))
    }
}
