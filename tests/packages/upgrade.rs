//! Upgrading the original: the packages of `make deb` installed with
//! `dpkg --root` over the original libketama's packages (version 1.0-1,
//! laid out as its debian/ directory lays them out) replace them in place,
//! and purge leaves nothing behind.

use ketama_testkit as common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::debian::{arch, deb, libdir, run, stdout, version};
use ketama_testkit::oracle_lists::oracle_python;

/// `dpkg --root=ROOT ARGS` with ROOT's own package database; maintainer
/// scripts (there are none) would run without chroot.
fn dpkg_in(root: &Path, args: &[&str], packages: &[&Path]) -> String {
    let out = run(
        Command::new("dpkg")
            .arg(format!("--root={}", root.display()))
            .args(["--force-script-chrootless", "--force-not-root"])
            .args(args)
            .args(packages),
        Duration::from_secs(120),
    );
    stdout(&out)
}

/// A package laid out as the original libketama's debian/ directory lays
/// out its namesake (version 1.0-1, files in /usr/lib, no multiarch).
fn original_package(
    dir: &Path,
    control: &str,
    files: &[(&str, Option<&Path>, Option<&str>)],
) -> PathBuf {
    let tree = dir.join("tree");
    let _ = std::fs::remove_dir_all(&tree);
    std::fs::create_dir_all(tree.join("DEBIAN")).unwrap();
    std::fs::write(tree.join("DEBIAN/control"), control).unwrap();
    for (path, source, link) in files {
        let target = tree.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        match (source, link) {
            (Some(source), _) => {
                std::fs::copy(source, &target).unwrap();
            }
            (None, Some(link)) => std::os::unix::fs::symlink(link, &target).unwrap(),
            _ => unreachable!(),
        }
    }
    let deb = dir.with_extension("deb");
    run(
        Command::new("dpkg-deb")
            .args(["--root-owner-group", "--build"])
            .arg(&tree)
            .arg(&deb),
        Duration::from_secs(60),
    );
    deb
}

#[test]
fn installing_over_the_original_packages_upgrades_them_in_place() {
    // The original's library: its own C code, as pip compiled it for the oracle.
    let module = run(
        Command::new(oracle_python()).args(["-c", "import ketama; print(ketama.__file__)"]),
        Duration::from_secs(60),
    );
    let original_library = PathBuf::from(stdout(&module).trim());
    let work = common::scratch_dir("original-packages");
    let original_header = work.join("ketama.h");
    std::fs::write(
        &original_header,
        "/* the original libketama's ketama.h */\n",
    )
    .unwrap();
    let control = |package: &str, section: &str, depends: &str| {
        format!(
            "Package: {package}\nSource: libketama\nVersion: 1.0-1\nArchitecture: {}\n\
             Maintainer: libketama <libketama@example.org>\nSection: {section}\n{depends}\
             Description: a consistent hashing library\n libketama is a library for consistently hashing data across nodes.\n",
            arch()
        )
    };
    let original_lib = original_package(
        &work.join("libketama1"),
        &control("libketama1", "libs", ""),
        &[("usr/lib/libketama.so.1", Some(&original_library), None)],
    );
    let original_dev = original_package(
        &work.join("libketama-dev"),
        &control(
            "libketama-dev",
            "libdevel",
            "Depends: libketama1 (= 1.0-1)\n",
        ),
        &[
            ("usr/include/ketama.h", Some(&original_header), None),
            ("usr/lib/libketama.so", None, Some("libketama.so.1")),
        ],
    );

    let root = common::scratch_dir("dpkg-root");
    let admin = root.join("var/lib/dpkg");
    for dir in ["info", "updates", "triggers"] {
        std::fs::create_dir_all(admin.join(dir)).unwrap();
    }
    std::fs::write(admin.join("status"), "").unwrap();
    std::fs::write(admin.join("available"), "").unwrap();
    dpkg_in(&root, &["--install"], &[&original_lib, &original_dev]);
    assert!(root.join("usr/lib/libketama.so.1").exists());

    // Ours over them, in one command (libc6 and libgcc-s1 are not in this
    // root's database, hence --force-depends).
    let ours = [deb("libketama1"), deb("libketama-dev")];
    let log = dpkg_in(
        &root,
        &["--force-depends", "--install"],
        &[&ours[0], &ours[1]],
    );
    for package in ["libketama1", "libketama-dev"] {
        assert!(
            log.contains(&format!(
                "Unpacking {package}:{} ({}) over (1.0-1)",
                arch(),
                version()
            )),
            "{log}"
        );
        let status = dpkg_in(&root, &["--status"], &[Path::new(package)]);
        assert!(status.contains("Status: install ok installed"), "{status}");
        assert!(
            status.contains(&format!("Version: {}\n", version())),
            "{status}"
        );
    }
    // The original's files are gone, the header is ours.
    assert!(!root.join("usr/lib/libketama.so.1").exists());
    assert!(
        root.join("usr/lib/libketama.so")
            .symlink_metadata()
            .is_err()
    );
    assert_eq!(
        std::fs::read(root.join("usr/include/ketama.h")).unwrap(),
        std::fs::read(common::repo_root().join("include/ketama.h")).unwrap()
    );
    assert!(libdir(&root).join("libketama.so.1").exists());

    // And removing ours leaves nothing behind.
    dpkg_in(&root, &["--purge", "libketama-dev", "libketama1"], &[]);
    let left: Vec<PathBuf> = ["usr/lib", "usr/include", "usr/share/doc"]
        .iter()
        .map(|d| root.join(d))
        .filter(|d| d.exists())
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .collect();
    assert!(left.is_empty(), "left after purge: {left:?}");
}
