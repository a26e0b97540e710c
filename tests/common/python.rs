//! The Python binding installed into a fresh venv, and scripts run with it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use super::{repo_root, run_with_timeout, scratch_dir, shared_library_dir};

/// The interpreter of a fresh virtual environment of Debian's
/// `/usr/bin/python3` (with its system site packages: python3-pylibmc,
/// python3-pymemcache) into which `pip install ./bindings/python` installed
/// the Python binding, offline (`--no-index --no-build-isolation`: the
/// interpreter's own setuptools builds it). Created once per test process.
pub fn python_binding() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let system = Path::new("/usr/bin/python3");
        assert!(
            system.exists(),
            "/usr/bin/python3 is missing: run `make deps` (Debian package python3)"
        );
        let probe = run_with_timeout(
            Command::new(system).args(["-c", "import venv, ensurepip, setuptools"]),
            Duration::from_secs(60),
        );
        assert!(
            probe.status.success(),
            "/usr/bin/python3 cannot create a venv or build the package: run `make deps` \
             (Debian packages python3-venv, python3-setuptools): {}",
            String::from_utf8_lossy(&probe.stderr)
        );
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
        // Build from a copy: an in-tree build would leave build/ and
        // *.egg-info in the repository.
        let source = scratch_dir("python-venv").join("src");
        let _ = std::fs::remove_dir_all(&source);
        copy_tree(&repo_root().join("bindings/python"), &source);
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
                    "--no-build-isolation",
                ])
                .arg(&source),
            Duration::from_secs(300),
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

/// Copies a directory tree (regular files and directories only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_tree(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs `python SCRIPT ARGS...` from the binding's venv with KETAMA_LIBRARY
/// set to this build's library.
pub fn python_command(script: &Path) -> Command {
    let mut cmd = Command::new(python_binding());
    cmd.arg(script)
        .env("KETAMA_LIBRARY", shared_library_dir().join("libketama.so"))
        .env("PYTHONDONTWRITEBYTECODE", "1");
    cmd
}
