//! Scratch directories for the unit tests that read real files.

use std::path::{Path, PathBuf};

/// A directory under the system's temporary directory, named after the test
/// and this process, removed when dropped: when the test passes and when it
/// fails (its assertion unwinds through the drop).
pub(crate) struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Creates (or empties) `ketama-{name}-{pid}` in the temporary directory.
    pub(crate) fn new(name: &str) -> ScratchDir {
        let path = std::env::temp_dir().join(format!("ketama-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        ScratchDir(path)
    }
}

impl std::ops::Deref for ScratchDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
