use green_tea::prelude::*;

#[decorator(decorates = "billing::client")]
fn logged(client: &String) -> String {
    client.clone()
}

fn main() {}
