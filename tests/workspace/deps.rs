//! `scripts/deps.sh --check` names what a fresh machine lacks, each probe on
//! its own: with `php` hidden from PATH it names the PHP extension packages
//! too (not only `php8.2-cli`), and with almost nothing on PATH it names the
//! package of every command and runtime module the tests use; without the
//! nightly toolchain it names that too, besides the Debian packages.

use ketama_testkit as common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A directory of links to every program on PATH except those `hide` rejects.
fn path_without(name: &str, hide: impl Fn(&str) -> bool) -> PathBuf {
    let farm = common::scratch_dir(name);
    let path = std::env::var_os("PATH").expect("PATH");
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let program = file_name.to_string_lossy();
            let link = farm.join(&file_name);
            if hide(&program) || link.symlink_metadata().is_ok() {
                continue;
            }
            std::os::unix::fs::symlink(entry.path(), &link).unwrap();
        }
    }
    farm
}

/// A directory with only the programs the script itself runs.
fn bare_path() -> PathBuf {
    let farm = common::scratch_dir("bare-path");
    for program in ["bash", "sort", "sed", "grep", "id", "cat", "dirname"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {program}")])
            .output()
            .unwrap();
        let target = String::from_utf8(found.stdout).unwrap();
        let link = farm.join(program);
        if link.symlink_metadata().is_err() {
            std::os::unix::fs::symlink(Path::new(target.trim()), &link).unwrap();
        }
    }
    farm
}

/// The packages `deps.sh --check` names as missing with `path` as PATH.
fn missing_with(path: &Path) -> BTreeSet<String> {
    let out = common::run_with_timeout(
        Command::new(common::repo_root().join("scripts/deps.sh"))
            .arg("--check")
            .env("PATH", path),
        Duration::from_secs(120),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "deps.sh --check passed with {path:?}: {stderr}"
    );
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("missing: "))
        .flat_map(|l| l.split(' ').map(str::to_string))
        .filter(|p| !p.starts_with("the") && !p.starts_with('('))
        .collect()
}

#[test]
fn without_php_every_php_package_is_named() {
    let farm = path_without("no-php", |program| program.starts_with("php"));
    let missing = missing_with(&farm);
    let php: BTreeSet<String> = [
        "php8.2-cli",
        "php8.2-memcache",
        "php8.2-memcached",
        "php8.2-redis",
        "php-predis",
    ]
    .map(String::from)
    .into();
    assert!(php.is_subset(&missing), "named: {missing:?}");
    let others: Vec<&String> = missing.difference(&php).collect();
    assert!(
        others.is_empty(),
        "only PHP was hidden, yet deps.sh names {others:?}"
    );
}

#[test]
fn on_a_bare_path_every_command_and_module_package_is_named() {
    let missing = missing_with(&bare_path());
    for package in [
        "binutils",
        "g++",
        "gcc",
        "groff-base",
        "libcache-memcached-perl",
        "make",
        "memcached",
        "nutcracker",
        "openjdk-17-jdk-headless",
        "php8.2-cli",
        "php8.2-memcache",
        "php8.2-memcached",
        "pkg-config",
        "python3",
        "python3-dev",
        "python3-venv",
        "util-linux",
        "valgrind",
        "libasan8",
        "libubsan1",
        "dpkg-dev",
        "lintian",
        "composer",
        "libfcgi-bin",
        "php8.2-redis",
        "php-predis",
        "ruby-redis",
        "golang-go",
    ] {
        assert!(
            missing.contains(package),
            "{package} not named: {missing:?}"
        );
    }
}

#[test]
fn without_the_nightly_toolchain_it_is_named_with_its_install_command() {
    // A rustup home that holds only the active (stable) toolchain.
    let home = common::scratch_dir("rustup-stable-only");
    let real = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".rustup"));
    let active = Command::new("rustup")
        .args(["show", "active-toolchain"])
        .output()
        .expect("rustup");
    let active = String::from_utf8(active.stdout).unwrap();
    let active = active
        .split_whitespace()
        .next()
        .expect("an active toolchain");
    std::fs::create_dir_all(home.join("toolchains")).unwrap();
    std::os::unix::fs::symlink(
        real.join("toolchains").join(active),
        home.join("toolchains").join(active),
    )
    .unwrap();
    std::fs::write(
        home.join("settings.toml"),
        format!("version = \"12\"\ndefault_toolchain = \"{active}\"\n"),
    )
    .unwrap();
    let out = common::run_with_timeout(
        Command::new(common::repo_root().join("scripts/deps.sh"))
            .arg("--check")
            .env("RUSTUP_HOME", &home)
            .env("RUSTUP_TOOLCHAIN", active),
        Duration::from_secs(120),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "missing (not from Debian): the nightly Rust toolchain with miri and rust-src: \
             rustup toolchain install nightly --profile minimal --component miri,rust-src"
        ),
        "{stderr}"
    );
}
