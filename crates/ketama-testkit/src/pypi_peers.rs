//! The PyPI clients that Debian does not package (`hashring`, `emcache`),
//! installed by `scripts/deps.sh` into a virtual environment of their own,
//! `target/pypi-peers`, pinned.

use std::path::PathBuf;

/// The Python interpreter of `target/pypi-peers`, which imports `module`;
/// fails naming `scripts/deps.sh` when it is not installed.
pub fn pypi_python(module: &str) -> PathBuf {
    let python = crate::repo_root().join("target/pypi-peers/bin/python");
    let imports = python.exists()
        && std::process::Command::new(&python)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|out| out.status.success());
    assert!(
        imports,
        "{python:?} cannot import {module}: run `make deps` (scripts/deps.sh installs \
         the PyPI peers into target/pypi-peers)"
    );
    python
}
