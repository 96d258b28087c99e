use green_tea::prelude::*;

#[worker(needs = "outbox", when = "gateway = stripe || paypal")]
async fn relay(outbox: &String) -> Result<(), BoxError> {
    let _ = outbox;
    Ok(())
}

fn main() {}
