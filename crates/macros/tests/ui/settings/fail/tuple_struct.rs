use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "port", prefix = "PORT")]
struct Port(u16);

fn main() {}
