//! Tells dependents (the C test) where the public C header lives.
fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:include={manifest}/include");
}
