//! `make install` lays out what a C user links against: the library with its
//! SONAME links, the header and a working pkg-config file.

use ketama_testkit as common;

use std::process::Command;
use std::time::Duration;

#[test]
fn make_install_gives_a_linkable_library_with_pkg_config() {
    common::require_tool("make", "make");
    common::require_tool("pkg-config", "pkg-config");
    let lib_dir = common::shared_library_dir();
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let static_lib = [
        deps.join("libketama.a"),
        deps.parent().unwrap().join("libketama.a"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("libketama.a built by cargo");
    let destdir = common::scratch_dir("install");
    let status = Command::new("make")
        .current_dir(common::repo_root())
        .arg("--no-print-directory")
        .arg("install-files")
        .arg(format!("DESTDIR={}", destdir.display()))
        .arg("PREFIX=/usr")
        .arg(format!(
            "SHARED_LIB={}",
            lib_dir.join("libketama.so").display()
        ))
        .arg(format!("STATIC_LIB={}", static_lib.display()))
        .arg(format!("CLI={}", common::cli().to_str().unwrap()))
        .status()
        .unwrap();
    assert!(status.success());
    let libdir = destdir.join("usr/lib");
    assert_eq!(
        std::fs::read_link(libdir.join("libketama.so.1"))
            .unwrap()
            .to_str(),
        Some("libketama.so.1.0.0")
    );
    assert_eq!(
        std::fs::read_link(libdir.join("libketama.so"))
            .unwrap()
            .to_str(),
        Some("libketama.so.1")
    );
    assert!(
        destdir.join("usr/include/ketama.h").exists() && destdir.join("usr/bin/ketama").exists()
    );

    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "ketama"])
        .env("PKG_CONFIG_PATH", libdir.join("pkgconfig"))
        .env("PKG_CONFIG_SYSROOT_DIR", &destdir)
        .output()
        .unwrap();
    assert!(
        flags.status.success(),
        "{}",
        String::from_utf8_lossy(&flags.stderr)
    );
    let flags = String::from_utf8(flags.stdout).unwrap();
    let source = destdir.join("client.c");
    std::fs::write(
        &source,
        "#include <ketama.h>\n#include <stdio.h>\nint main(void) { printf(\"%u\\n\", ketama_hashi(\"test\")); return 0; }\n",
    )
    .unwrap();
    let program = destdir.join("client");
    let compiled = Command::new("gcc")
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .args(flags.split_whitespace())
        .status()
        .unwrap();
    assert!(compiled.success());
    let out = common::run_with_timeout(
        Command::new(&program).env("LD_LIBRARY_PATH", &libdir),
        Duration::from_secs(10),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "3446378249\n");
    let needed = Command::new("readelf")
        .arg("-d")
        .arg(&program)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&needed.stdout).contains("Shared library: [libketama.so.1]"));
}
