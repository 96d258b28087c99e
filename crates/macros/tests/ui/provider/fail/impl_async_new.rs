use green_tea::prelude::*;

struct BillingApi;

#[provider(provides = "billingApi")]
impl BillingApi {
    async fn new() -> Self {
        BillingApi
    }

    fn provide(&self) -> u32 {
        1
    }
}

fn main() {}
