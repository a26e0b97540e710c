//! The directory the images live in, and the files in it: a directory is
//! used only when it is the user's own and nobody else may write in it
//! ([`usable`]); an image is opened only when it is a regular file of the
//! user's that nobody may write ([`open_image`]); an image is published
//! whole or not at all ([`publish`]: a new file, mode 0400, renamed into
//! place), and old images are removed so that the directory stays bounded
//! ([`sweep`]).

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::key::IMAGE_PREFIX;

/// Images not attached for this long are removed when another is published.
pub(super) const MAX_IDLE: Duration = Duration::from_secs(24 * 3600);
/// At most this many images are kept (the least recently used removed first).
pub(super) const MAX_IMAGES: usize = 64;
/// At most this many bytes of images are kept (the least recently used removed first).
pub(super) const MAX_BYTES: u64 = 4 << 30;
/// An attach marks its image used (its mtime) when it was last marked longer ago than this.
const TOUCH_EVERY: Duration = Duration::from_secs(60);
/// A temporary file older than this is a writer's that died: removed.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// The effective user id.
pub(super) fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// `dir`, created (mode 0700) if missing, when it is a directory (not a
/// link to one) owned by the effective user that neither group nor others
/// may write in; else why not.
pub(super) fn usable(dir: &Path) -> Result<(), String> {
    let shown = dir.display();
    match DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("{shown} cannot be created: {e}")),
    }
    let meta = fs::symlink_metadata(dir).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.file_type().is_dir() {
        return Err(format!("{shown} is not a directory"));
    }
    if meta.uid() != euid() {
        return Err(format!(
            "{shown} belongs to uid {}, not to this user ({})",
            meta.uid(),
            euid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!(
            "{shown} is writable by group or others (mode {:o})",
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

/// The image at `path` opened for reading with its size, when it is a
/// regular file (not a link) of the effective user's that nobody may write;
/// `Ok(None)` when there is none; else why it is not used.
pub(super) fn open_image(path: &Path) -> Result<Option<(File, u64)>, String> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.file_type().is_file() || meta.uid() != euid() || meta.mode() & 0o222 != 0 {
        return Err(format!(
            "{} is not a read-only file of this user's (mode {:o}, uid {})",
            path.display(),
            meta.mode() & 0o7777,
            meta.uid()
        ));
    }
    Ok(Some((file, meta.len())))
}

/// Marks the image `file` used now (its mtime), unless it was marked less
/// than a minute ago: [`sweep`] removes the least recently used first.
pub(super) fn touch(file: &File) {
    let recent = file
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|m| m.elapsed().ok())
        .is_some_and(|age| age < TOUCH_EVERY);
    if !recent {
        // A mark that fails (a read-only mount) only makes the image look older.
        let _ = file.set_modified(SystemTime::now());
    }
}

/// Writes `image` to `dir/name` atomically: a new temporary file (mode
/// 0400, created exclusively), then a rename over whatever is there. A
/// reader sees the old image or the new one, never part of one.
pub(super) fn publish(dir: &Path, name: &str, image: &[u8]) -> io::Result<PathBuf> {
    let path = dir.join(name);
    let temp = dir.join(format!(".{name}.{}.{}.tmp", std::process::id(), unique()));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o400)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&temp)?;
        file.write_all(image)?;
        // The mode asked for may have been narrowed by the umask; never widened.
        file.set_permissions(fs::Permissions::from_mode(0o400))?;
        fs::rename(&temp, &path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written.map(|()| path)
}

/// A number that differs between the temporary files of one process.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Removes from `dir` the images not used for [`MAX_IDLE`], then the least
/// recently used ones until at most `max_images` images and `max_bytes`
/// bytes remain (`keep` stays), and temporary files left by writers that
/// died. Errors are ignored: the images are a cache. Unlinking an image
/// that a process maps is harmless (its pages stay until unmapped).
pub(super) fn sweep(dir: &Path, keep: &Path, max_images: usize, max_bytes: u64) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    let age = |meta: &fs::Metadata| {
        meta.modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .unwrap_or_default()
    };
    let mut images = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(meta) = entry.metadata() else { continue };
        let path = entry.path();
        if name.starts_with('.') && name.ends_with(".tmp") {
            if age(&meta) > STALE_TEMP {
                let _ = fs::remove_file(&path);
            }
        } else if name.starts_with(IMAGE_PREFIX) && meta.file_type().is_file() && path != keep {
            if age(&meta) > MAX_IDLE {
                let _ = fs::remove_file(&path);
            } else {
                images.push((age(&meta), meta.len(), path));
            }
        }
    }
    // The kept image counts against the bounds too.
    let kept = fs::metadata(keep).map_or(0, |m| m.len());
    let mut count = images.len() + 1;
    let mut bytes = kept + images.iter().map(|(_, len, _)| len).sum::<u64>();
    images.sort_by_key(|image| std::cmp::Reverse(image.0));
    for (_, len, path) in images {
        if count <= max_images && bytes <= max_bytes {
            break;
        }
        if fs::remove_file(&path).is_ok() {
            count -= 1;
            bytes -= len;
        }
    }
}
