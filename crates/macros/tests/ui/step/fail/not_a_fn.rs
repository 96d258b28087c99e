use green_tea::prelude::*;

#[step(provides = "user")]
struct Auth;

fn main() {}
