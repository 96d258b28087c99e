use std::rc::Rc;

use green_tea_core::provider;

#[derive(Default)]
struct BillingApi {
    calls: Rc<u32>,
}

#[provider(provides = "billingApi")]
impl BillingApi {
    fn provide(&self) -> u32 {
        *self.calls
    }
}

fn main() {}
