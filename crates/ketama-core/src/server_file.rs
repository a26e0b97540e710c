//! Reading server files: bounded, parsed while they are read, and accepted
//! only when the file did not change during the read.
//!
//! * Regular files are read, at most [`MAX_FILE_BYTES`]: a larger file is
//!   refused before it is read, and one that grows past the limit stops
//!   there. A character device is read like an empty or short file, at most
//!   [`MAX_DEVICE_BYTES`] (so `/dev/null` reads as the original reads it, as
//!   an empty list, and `/dev/zero` stops at once), without blocking. A
//!   directory, FIFO, socket or block device is refused at once with an
//!   error naming what it is, before a byte is read.
//! * The bytes go straight into the parser, which keeps at most one line
//!   ([`ParseMode::line_limit`]) and stops at the first bad line: a 200 MB
//!   file whose first line is bad costs one read of 64 KiB.
//! * A file modified less than [`SETTLE_TIME`] ago may still be being
//!   written (an editor's or deploy script's in-place rewrite): the read waits
//!   until it is that old (unless it is, by inode, size and mtime, the file
//!   as last read). A read is accepted only when the file's inode,
//!   size, mtime and ctime are the same before and after it (a file renamed
//!   over it meanwhile does not matter: what was read was complete);
//!   otherwise it is retried (at most
//!   [`MAX_READ_ATTEMPTS`] times, with a short back-off) and then refused.
//!   A writer that pauses for longer than [`SETTLE_TIME`] in the middle of a
//!   rewrite can still be read between two of its writes: replace files by
//!   renaming a complete file into place to rule that out. Such a file (the
//!   path names another inode than at the last read, [`load_since`]) is read
//!   without waiting.

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use md5::{Digest, Md5};

use crate::parser::{ParseMode, ServerListParser};
use crate::{Error, ServerSpec};

/// The largest server file read: 64 MiB.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// The most bytes read from a character device: 64 KiB.
pub const MAX_DEVICE_BYTES: u64 = 64 << 10;
/// Opening never blocks (a FIFO is refused after the open) nor makes a
/// terminal ours. Miri, which checks the FFI tests' pointers, cannot emulate
/// these flags; its tests read regular files only.
#[cfg(not(miri))]
const OPEN_FLAGS: i32 = libc::O_NONBLOCK | libc::O_NOCTTY;
#[cfg(miri)]
const OPEN_FLAGS: i32 = 0;
/// How long a file must have been left alone before it is read.
pub const SETTLE_TIME: Duration = Duration::from_millis(100);
/// How many times a read that saw the file change is tried.
pub const MAX_READ_ATTEMPTS: u32 = 5;
/// Bytes read per `read` call.
const READ_CHUNK_BYTES: usize = 64 << 10;

/// One state of a server file: where it lives, its size and mtime, and the
/// MD5 of its bytes (so an edit that keeps size and mtime is noticed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    /// Device and inode numbers.
    pub inode: (u64, u64),
    /// Creation time, where the file system records one: an inode number
    /// reused for a new file does not make it the same file.
    pub born: Option<SystemTime>,
    /// Size in bytes.
    pub size: u64,
    /// Modification time (seconds, nanoseconds).
    pub mtime: (i64, i64),
    /// MD5 of the content.
    pub digest: [u8; 16],
}

/// A server file read and parsed.
#[derive(Debug, Clone)]
pub struct ServerFile {
    /// The servers, in file order.
    pub servers: Vec<ServerSpec>,
    /// The state of the file they were read from.
    pub stamp: FileStamp,
}

/// Reads and parses the server file at `path` (see the module docs for the
/// bounds and the stability rule).
pub fn load(path: &Path, mode: ParseMode) -> Result<ServerFile, Error> {
    load_since(path, mode, None)
}

/// [`load`] for a file read before in state `last`: when the path now names
/// another inode (a complete file renamed into place), it is read without
/// waiting for it to settle; an in-place change waits as in [`load`].
pub fn load_since(
    path: &Path,
    mode: ParseMode,
    last: Option<&FileStamp>,
) -> Result<ServerFile, Error> {
    let shown = path.display().to_string();
    let (servers, stamp) = read_stable(path, last, |reader| {
        let mut parser = ServerListParser::new(mode, &shown);
        while let Some(chunk) = reader.next_chunk()? {
            parser.feed(chunk)?;
        }
        parser.finish()
    })?;
    Ok(ServerFile { servers, stamp })
}

/// Reads the bytes of a server file under the same bounds and stability
/// rule as [`load`] (for callers that need the text itself).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, Error> {
    let (bytes, _) = read_stable(path, None, |reader| {
        let mut bytes = Vec::new();
        while let Some(chunk) = reader.next_chunk()? {
            bytes.extend_from_slice(chunk);
        }
        Ok(bytes)
    })?;
    Ok(bytes)
}

/// Reads a file through `consume` until the read was not disturbed by a
/// writer, returning what `consume` made of it and the file's stamp. The
/// file must have settled first unless it is another inode than `last`.
fn read_stable<T>(
    path: &Path,
    last: Option<&FileStamp>,
    mut consume: impl FnMut(&mut BoundedReader) -> Result<T, Error>,
) -> Result<(T, FileStamp), Error> {
    let io_error = |message: String| Error::Io {
        path: path.display().to_string(),
        message,
    };
    // The inode of the last look at the path: another one now means a file
    // was renamed into place, complete.
    let mut seen = last.map(|last| (last.inode, last.born));
    for attempt in 0..MAX_READ_ATTEMPTS {
        if attempt > 0 {
            std::thread::sleep(Duration::from_millis(5 << attempt));
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(OPEN_FLAGS)
            .open(path)
            .map_err(|e| io_error(e.to_string()))?;
        let before = file.metadata().map_err(|e| io_error(e.to_string()))?;
        let limit = check_readable(&before).map_err(io_error)?;
        let identity = ((before.dev(), before.ino()), before.created().ok());
        let replaced = seen.is_some_and(|seen| seen != identity);
        seen = Some(identity);
        // The last good state, untouched since (its content is still compared).
        let as_last_read = last.is_some_and(|last| {
            ((last.inode, last.born), last.size, last.mtime)
                == (
                    identity,
                    before.size(),
                    (before.mtime(), before.mtime_nsec()),
                )
        });
        if let Some(wait) = settle_wait(&before).filter(|_| !replaced && !as_last_read) {
            std::thread::sleep(wait);
            let now = file.metadata().map_err(|e| io_error(e.to_string()))?;
            if !unchanged(&before, &now) {
                continue;
            }
        }
        let mut reader = BoundedReader::new(&file, path, limit);
        let result = consume(&mut reader);
        let after = file.metadata().map_err(|e| io_error(e.to_string()))?;
        if unchanged(&before, &after) {
            let stamp = FileStamp {
                inode: identity.0,
                born: identity.1,
                size: before.size(),
                mtime: (before.mtime(), before.mtime_nsec()),
                digest: reader.digest(),
            };
            return result.map(|value| (value, stamp));
        }
    }
    Err(io_error(format!(
        "changed while being read, {MAX_READ_ATTEMPTS} times in a row (a writer is still at work; \
         replace server files by renaming a complete file into place)"
    )))
}

/// The most bytes to read from what `metadata` describes, or why it is not
/// read at all: a regular file of at most [`MAX_FILE_BYTES`], or a
/// character device.
fn check_readable(metadata: &Metadata) -> Result<u64, String> {
    let kind = metadata.file_type();
    let refused = if kind.is_dir() {
        return Err("is a directory, not a server file".into());
    } else if kind.is_char_device() {
        return Ok(MAX_DEVICE_BYTES);
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if !kind.is_file() {
        "not a regular file"
    } else if metadata.size() > MAX_FILE_BYTES {
        return Err(format!(
            "is {} bytes, larger than the {} MiB limit for server files",
            metadata.size(),
            MAX_FILE_BYTES >> 20
        ));
    } else {
        return Ok(MAX_FILE_BYTES);
    };
    Err(format!(
        "is {refused}, not a regular file (server lists are read from regular files)"
    ))
}

/// How long to wait before a file modified less than [`SETTLE_TIME`] ago
/// (or in the future, by a skewed clock) has been left alone for that long.
fn settle_wait(metadata: &Metadata) -> Option<Duration> {
    let mtime = UNIX_EPOCH
        + Duration::from_secs(metadata.mtime().max(0) as u64)
        + Duration::from_nanos(metadata.mtime_nsec().max(0) as u64);
    match SystemTime::now().duration_since(mtime) {
        Ok(age) if age >= SETTLE_TIME => None,
        Ok(age) => Some(SETTLE_TIME - age),
        Err(_) => Some(SETTLE_TIME),
    }
}

/// True when nothing a writer changes differs between two looks at a file.
fn unchanged(before: &Metadata, after: &Metadata) -> bool {
    (before.dev(), before.ino(), before.size()) == (after.dev(), after.ino(), after.size())
        && (before.mtime(), before.mtime_nsec()) == (after.mtime(), after.mtime_nsec())
        && (before.ctime(), before.ctime_nsec()) == (after.ctime(), after.ctime_nsec())
}

/// Hands out a file's bytes in chunks, hashing them and stopping past
/// `limit` bytes.
struct BoundedReader<'f> {
    file: &'f File,
    path: &'f Path,
    limit: u64,
    buffer: Vec<u8>,
    read: u64,
    md5: Md5,
}

impl<'f> BoundedReader<'f> {
    fn new(file: &'f File, path: &'f Path, limit: u64) -> Self {
        BoundedReader {
            file,
            path,
            limit,
            buffer: vec![0; READ_CHUNK_BYTES],
            read: 0,
            md5: Md5::new(),
        }
    }

    /// The next bytes, or `None` at the end of the file.
    fn next_chunk(&mut self) -> Result<Option<&[u8]>, Error> {
        let n = loop {
            match self.file.read(&mut self.buffer) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Error::Io {
                        path: self.path.display().to_string(),
                        message: format!("{e} (at byte offset {})", self.read),
                    });
                }
            }
        };
        if n == 0 {
            return Ok(None);
        }
        self.read += n as u64;
        if self.read > self.limit {
            let message = if self.limit == MAX_FILE_BYTES {
                format!(
                    "grew past the {} MiB limit for server files while being read",
                    MAX_FILE_BYTES >> 20
                )
            } else {
                format!(
                    "gave more than {} KiB, the most read from a character device",
                    self.limit >> 10
                )
            };
            return Err(Error::Io {
                path: self.path.display().to_string(),
                message,
            });
        }
        self.md5.update(&self.buffer[..n]);
        Ok(Some(&self.buffer[..n]))
    }

    /// MD5 of the bytes handed out so far.
    fn digest(&self) -> [u8; 16] {
        self.md5.clone().finalize().into()
    }
}
