//! Build script: on Linux the cdylib gets `SONAME libketama.so.1`, the ABI
//! major of the original libketama, so programs linked against it load this
//! library. The headers are not built here: `make generate` writes them
//! (crates/ketama-gen), so a build never rewrites or depends on them.

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target_os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" && env::var_os("CARGO_CFG_CARGO_C").is_none() {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libketama.so.1");
    }
}
