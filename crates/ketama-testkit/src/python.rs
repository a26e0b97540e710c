//! The Python binding installed into a fresh venv, and scripts run with it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use super::{repo_root, run_with_timeout, scratch_dir};

/// The directory of Python wheels `scripts/deps.sh` downloads for offline
/// builds (maturin, the binding's build backend).
pub fn python_wheelhouse() -> PathBuf {
    repo_root().join("target/python-wheels")
}

/// Panics with "run make deps" unless the wheelhouse holds maturin.
pub fn require_maturin_wheel() {
    let wheelhouse = python_wheelhouse();
    let found = std::fs::read_dir(&wheelhouse)
        .map(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("maturin-") && name.ends_with(".whl")
            })
        })
        .unwrap_or(false);
    assert!(
        found,
        "no maturin wheel in {}: run `make deps` (scripts/deps.sh downloads it for offline builds)",
        wheelhouse.display()
    );
}

/// The interpreter of a fresh virtual environment of Debian's
/// `/usr/bin/python3` (with its system site packages: python3-pylibmc,
/// python3-pymemcache) into which `pip install ./bindings/python` installed
/// the Python binding: maturin (from the wheelhouse, offline) builds the
/// extension module with cargo. Created once per test process.
pub fn python_binding() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let system = Path::new("/usr/bin/python3");
        assert!(
            system.exists(),
            "/usr/bin/python3 is missing: run `make deps` (Debian package python3)"
        );
        let probe = run_with_timeout(
            Command::new(system).args(["-c", "import venv, ensurepip"]),
            Duration::from_secs(60),
        );
        assert!(
            probe.status.success(),
            "/usr/bin/python3 cannot create a venv: run `make deps` (Debian package python3-venv): {}",
            String::from_utf8_lossy(&probe.stderr)
        );
        require_maturin_wheel();
        let venv = scratch_dir("python-venv").join("venv");
        let _ = std::fs::remove_dir_all(&venv);
        let created = run_with_timeout(
            Command::new(system)
                .args(["-m", "venv", "--system-site-packages"])
                .arg(&venv),
            Duration::from_secs(300),
        );
        assert!(
            created.status.success(),
            "python3 -m venv: {}",
            String::from_utf8_lossy(&created.stderr)
        );
        // Built in place: maturin writes only to the workspace's target/.
        let python = venv.join("bin/python");
        let installed = run_with_timeout(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "--no-index",
                    "--find-links",
                ])
                .arg(python_wheelhouse())
                .arg(repo_root().join("bindings/python"))
                .env("CARGO_NET_OFFLINE", "true"),
            Duration::from_secs(1800),
        );
        assert!(
            installed.status.success(),
            "pip install ./bindings/python failed:\n{}{}",
            String::from_utf8_lossy(&installed.stdout),
            String::from_utf8_lossy(&installed.stderr)
        );
        python
    })
}

/// Copies a directory tree: directories, regular files, and symbolic links
/// as links.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_tree(&entry.path(), &target);
            }
        } else if kind.is_symlink() {
            let _ = std::fs::remove_file(&target);
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs `python SCRIPT ARGS...` from the binding's venv (no library to
/// point it at: the package carries its native code).
pub fn python_command(script: &Path) -> Command {
    let mut cmd = Command::new(python_binding());
    cmd.arg(script)
        .env_remove("KETAMA_LIBRARY")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    cmd
}
