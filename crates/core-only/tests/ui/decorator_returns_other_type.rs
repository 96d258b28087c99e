use green_tea_core::decorator;

#[decorator(decorates = "billing")]
fn logged(billing: &String) -> usize {
    billing.len()
}

fn main() {}
