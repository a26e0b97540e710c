//! Scratch directories a service's unprivileged user can read. Started as
//! root, PHP-FPM's workers, opcache preloading and varnishd's compiler and
//! worker drop to their own users (www-data, varnish, vcache), which cannot
//! enter a checkout in /root or in a home of mode 0700, as on a fresh
//! Debian 12 machine.

use std::path::{Path, PathBuf};

use super::{copy_tree, scratch_dir};

/// Whether the tests run as root (services then drop to their own users).
pub fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A directory for what a service reads after it drops to its own user
/// (configuration it compiles, scripts, data files). Run as root, it is a
/// fresh directory under the system's temporary directory, opened to all,
/// and removed when dropped; run as anyone else (whose services keep the
/// user), a scratch directory of the checkout.
pub struct ServiceDir {
    path: PathBuf,
    temporary: bool,
}

impl ServiceDir {
    pub fn new(name: &str) -> ServiceDir {
        if !running_as_root() {
            return ServiceDir {
                path: scratch_dir(name),
                temporary: false,
            };
        }
        let path = std::env::temp_dir().join(format!("ketama-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("create {}: {e}", path.display()));
        let dir = ServiceDir {
            path,
            temporary: true,
        };
        dir.open_to_all();
        dir
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory `from` as the service's user may read it: `from`
    /// itself, or (run as root) a copy inside this directory, opened to all.
    pub fn stage(&self, from: &Path) -> PathBuf {
        if !self.temporary {
            return from.to_path_buf();
        }
        let to = self.path.join(from.file_name().expect("a directory name"));
        copy_tree(from, &to);
        self.open_to_all();
        to
    }

    /// Makes everything inside readable by all and every directory
    /// enterable (nothing to do outside the temporary directory).
    pub fn open_to_all(&self) {
        if self.temporary {
            open_tree(&self.path);
        }
    }
}

impl Drop for ServiceDir {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

fn open_tree(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(path).unwrap();
    if meta.file_type().is_symlink() {
        return;
    }
    let extra = if meta.is_dir() { 0o755 } else { 0o644 };
    let mut permissions = meta.permissions();
    permissions.set_mode(permissions.mode() | extra);
    std::fs::set_permissions(path, permissions).unwrap();
    if meta.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            open_tree(&entry.unwrap().path());
        }
    }
}
