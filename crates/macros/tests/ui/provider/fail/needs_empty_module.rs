use green_tea::prelude::*;

#[provider(provides = "checkout", needs = "::client")]
fn checkout(client: &String) -> String {
    client.clone()
}

fn main() {}
