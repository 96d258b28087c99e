use green_tea::prelude::*;

#[derive(Default)]
struct BillingApi;

#[provider(provides = "billingApi")]
impl BillingApi {
    fn build(&self) -> u32 {
        1
    }
}

fn main() {}
