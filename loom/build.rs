//! Compiles this crate, and the green-tea files it includes, with loom's atomics and locks.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(green_tea_loom)");
    println!("cargo::rustc-cfg=green_tea_loom");
}
