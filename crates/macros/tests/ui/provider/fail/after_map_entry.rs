use green_tea::prelude::*;

#[provider(provides = "stores{eu}", after = ["us_store"])]
fn eu_store() -> String {
    "eu.example".to_owned()
}

fn main() {}
