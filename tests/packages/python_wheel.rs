//! The Python package as users get it from an index: `maturin build` makes
//! one abi3 wheel carrying the native module, and a fresh venv installs it
//! with no compiler, no Rust toolchain, no network and no libketama.so,
//! then answers like the CLI.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ketama_testkit as common;

use crate::debian::{run, stdout, version};

/// What the wheel must hold (and nothing of a separate C library).
const WHEEL_FILES: [&str; 6] = [
    "ketama/__init__.py",
    "ketama/_types.py",
    "ketama/pymemcache.py",
    "ketama/_ketama.pyi",
    "ketama/py.typed",
    "ketama/_ketama.abi3.so",
];

/// Builds the wheel with maturin, installed offline from the wheelhouse
/// into a venv of its own; returns the wheel's path.
fn build_wheel(dir: &Path) -> PathBuf {
    common::require_maturin_wheel();
    let build_venv = dir.join("build-venv");
    run(
        Command::new("/usr/bin/python3")
            .args(["-m", "venv"])
            .arg(&build_venv),
        Duration::from_secs(300),
    );
    run(
        Command::new(build_venv.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(["--no-index", "--find-links"])
            .arg(common::python_wheelhouse())
            .arg("maturin"),
        Duration::from_secs(300),
    );
    let out_dir = dir.join("wheels");
    run(
        Command::new(build_venv.join("bin/maturin"))
            .args(["build", "--release", "--quiet", "--manifest-path"])
            .arg(common::repo_root().join("bindings/python/Cargo.toml"))
            .arg("--out")
            .arg(&out_dir)
            .env("CARGO_NET_OFFLINE", "true"),
        Duration::from_secs(3600),
    );
    let wheels: Vec<PathBuf> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    assert_eq!(wheels.len(), 1, "maturin built {wheels:?}");
    wheels.into_iter().next().unwrap()
}

#[test]
fn python_wheel_installs_and_answers_without_a_compiler() {
    let dir = common::scratch_dir("python-wheel");
    let wheel = build_wheel(&dir);
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    // One wheel for every CPython from 3.8 (the stable ABI), Linux, this machine.
    let prefix = format!("ketama-{}-cp38-abi3-manylinux", version());
    assert!(
        name.starts_with(&prefix) && name.ends_with(&format!("_{}.whl", std::env::consts::ARCH)),
        "{name}"
    );
    let listing = stdout(&run(
        Command::new("/usr/bin/python3")
            .args([
                "-c",
                "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
            ])
            .arg(&wheel),
        Duration::from_secs(60),
    ));
    let files: Vec<&str> = listing.lines().collect();
    for file in WHEEL_FILES {
        assert!(
            files.contains(&file),
            "{file} missing from {name}: {files:?}"
        );
    }
    assert!(
        !files.iter().any(|f| f.contains("libketama")),
        "{name} carries a separate library: {files:?}"
    );

    // A fresh venv (no system site packages), then an environment with
    // nothing but the venv's own bin on PATH: no cc, gcc, cargo or rustc,
    // no ~/.cargo, no KETAMA_LIBRARY, no index.
    let venv = dir.join("venv");
    run(
        Command::new("/usr/bin/python3")
            .args(["-m", "venv"])
            .arg(&venv),
        Duration::from_secs(300),
    );
    let home = dir.join("empty-home");
    std::fs::create_dir_all(&home).unwrap();
    let bare = |program: &Path| {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", venv.join("bin"))
            .env("HOME", &home)
            .current_dir(&home);
        cmd
    };
    let python = venv.join("bin/python");
    run(
        bare(&python).args(["-c", TOOLS_ABSENT]),
        Duration::from_secs(60),
    );
    run(
        bare(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(["--no-cache-dir", "--no-index", "--no-deps"])
            .arg(&wheel),
        Duration::from_secs(300),
    );
    let servers: Vec<String> = (1..=7).map(|i| format!("10.0.0.{i}:11211")).collect();
    let keys: Vec<String> = (0..2000).map(|i| format!("user:{i}")).collect();
    let answers = stdout(&run(
        bare(&python)
            .args(["-c", LOOKUPS, &servers.join(","), version()])
            .env("KEYS", keys.join("\n")),
        Duration::from_secs(120),
    ));
    let cli = stdout(&run(
        Command::new(common::cli())
            .args([
                "find",
                "--flavor",
                "libmemcached",
                "--servers",
                &servers.join(","),
            ])
            .args(&keys),
        Duration::from_secs(120),
    ));
    let expected: Vec<&str> = cli
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap())
        .collect();
    let got: Vec<&str> = answers.lines().collect();
    assert_eq!(got.len(), keys.len(), "{answers}");
    let differing = got.iter().zip(&expected).filter(|(a, b)| a != b).count();
    assert_eq!(
        differing, 0,
        "the installed wheel places {differing} keys elsewhere than the CLI"
    );
    eprintln!(
        "python wheel {name}: installed with no compiler on PATH and no index; {} keys placed as the CLI does",
        keys.len()
    );
}

/// Fails unless the environment has no compiler or Rust toolchain.
const TOOLS_ABSENT: &str = "
import shutil, sys
found = [t for t in ('cc', 'gcc', 'clang', 'cargo', 'rustc', 'maturin') if shutil.which(t)]
sys.exit(f'found {found}' if found else 0)
";

/// Imports the installed package (never a checkout), checks what it
/// carries, and prints the server of each key in $KEYS on a libmemcached ring.
const LOOKUPS: &str = "
import os, sys
import ketama
assert 'KETAMA_LIBRARY' not in os.environ
assert ketama.__version__ == sys.argv[2], ketama.__version__
assert os.path.dirname(ketama.library_path()) == os.path.dirname(ketama.__file__)
assert '/venv/' in ketama.__file__, ketama.__file__
ring = ketama.Ring(sys.argv[1].split(','), 'libmemcached')
print('\\n'.join(ring.servers_for(os.environ['KEYS'].split('\\n'))))
";
