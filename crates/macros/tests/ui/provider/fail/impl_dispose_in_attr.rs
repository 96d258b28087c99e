use green_tea::prelude::*;

#[derive(Default)]
struct BillingApi;

async fn close(_: &u32) {}

#[provider(provides = "billingApi", dispose = close)]
impl BillingApi {
    fn provide(&self) -> u32 {
        1
    }
}

fn main() {}
