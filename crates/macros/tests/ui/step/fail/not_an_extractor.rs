use green_tea::prelude::*;

struct Token(String);

#[step(provides = "user")]
fn auth(token: Token) -> String {
    token.0
}

fn main() {}
