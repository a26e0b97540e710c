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
//!   written (an editor's or deploy script's in-place rewrite), and a read is
//!   accepted only when the file's inode, size, mtime and ctime are the same
//!   before and after it (a file renamed over it meanwhile does not matter:
//!   what was read was complete). A file whose path names another inode than
//!   at the last read (a complete file renamed into place), or that is, by
//!   inode, size and mtime, the file as last read, has nothing to wait for.
//! * A first read ([`load`], [`read_bytes`]) has nothing else to answer
//!   with: it waits until the file is that old, and retries a read the file
//!   changed during (at most [`MAX_READ_ATTEMPTS`] times, with a short
//!   back-off), but never sleeps past [`MAX_FIRST_READ_WAIT`] from its start:
//!   it refuses the file instead.
//! * A look at a file read before ([`look`]) never waits: a file that has
//!   not settled, or that changed while it was read, is reported
//!   [`Look::Unsettled`] at once and not taken; the caller answers with what
//!   it read before and looks again later.
//!
//! A writer that pauses for longer than [`SETTLE_TIME`] in the middle of a
//! rewrite can still be read between two of its writes: replace files by
//! renaming a complete file into place to rule that out.

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
/// How long a first read may sleep in all, waiting for a file to settle and
/// backing off after a disturbed read, before it refuses the file.
pub const MAX_FIRST_READ_WAIT: Duration = Duration::from_millis(300);
/// Bytes read per `read` call.
const READ_CHUNK_BYTES: usize = 64 << 10;

pub use crate::file_stamp::{FileStamp, untouched};

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
    let shown = path.display().to_string();
    let (servers, stamp) = read_waiting(path, Patience::first_read(), |reader| {
        parse(reader, mode, &shown)
    })?;
    Ok(ServerFile { servers, stamp })
}

/// Feeds a file's bytes to the parser.
fn parse(
    reader: &mut BoundedReader,
    mode: ParseMode,
    shown: &str,
) -> Result<Vec<ServerSpec>, Error> {
    let mut parser = ServerListParser::new(mode, shown);
    while let Some(chunk) = reader.next_chunk()? {
        parser.feed(chunk)?;
    }
    parser.finish()
}

/// What [`look`] found.
#[derive(Debug, Clone)]
pub enum Look {
    /// The file was read and parsed (it may be as it was at the last read).
    Read(ServerFile),
    /// The file is being written in place: it changed less than
    /// [`SETTLE_TIME`] before the time given, or while it was read. It was
    /// not taken.
    Unsettled,
}

/// Looks at the server file at `path`, read before in state `last`, without
/// ever waiting: reads and parses it unless it has not settled at `now` (the
/// caller's clock) or changed during the read, which is
/// [`Look::Unsettled`]. A file renamed into place (another inode than
/// `last`) or untouched since `last` (same inode, size and mtime; its
/// content is still read and compared by the caller) is read at once.
pub fn look(
    path: &Path,
    mode: ParseMode,
    last: &FileStamp,
    now: SystemTime,
) -> Result<Look, Error> {
    let shown = path.display().to_string();
    let read = read_stable(path, Some(last), Patience::Never { now }, |reader| {
        parse(reader, mode, &shown)
    })?;
    Ok(match read {
        Some((servers, stamp)) => Look::Read(ServerFile { servers, stamp }),
        None => Look::Unsettled,
    })
}

/// Reads the bytes of a server file under the same bounds and stability
/// rule as [`load`] (for callers that need the text itself).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, Error> {
    let (bytes, _) = read_waiting(path, Patience::first_read(), |reader| {
        let mut bytes = Vec::new();
        while let Some(chunk) = reader.next_chunk()? {
            bytes.extend_from_slice(chunk);
        }
        Ok(bytes)
    })?;
    Ok(bytes)
}

/// How a read treats a file that has not settled or that changed while it
/// was read.
#[derive(Debug, Clone, Copy)]
enum Patience {
    /// Wait for it to settle, and retry a disturbed read with back-off, as
    /// long as no sleep ends after `until`.
    Wait {
        /// When the waiting must be over.
        until: Instant,
    },
    /// Give up at once; judge settling at `now`.
    Never {
        /// The time to judge settling by.
        now: SystemTime,
    },
}

impl Patience {
    /// A first read's patience, starting now: [`MAX_FIRST_READ_WAIT`].
    fn first_read() -> Patience {
        Patience::Wait {
            until: Instant::now() + MAX_FIRST_READ_WAIT,
        }
    }

    /// Sleeps for `wanted` when that is allowed: never under
    /// [`Patience::Never`], and under [`Patience::Wait`] only when the sleep
    /// ends by its deadline. `false` (without sleeping) when it is not.
    fn sleep(self, wanted: Duration) -> bool {
        match self {
            Patience::Wait { until } if Instant::now() + wanted <= until => {
                std::thread::sleep(wanted);
                true
            }
            Patience::Wait { .. } | Patience::Never { .. } => false,
        }
    }
}

/// A first read: through `consume` once the file has settled and a read was
/// not disturbed by a writer, or an error after [`MAX_READ_ATTEMPTS`] or
/// [`MAX_FIRST_READ_WAIT`].
fn read_waiting<T>(
    path: &Path,
    patience: Patience,
    consume: impl FnMut(&mut BoundedReader) -> Result<T, Error>,
) -> Result<(T, FileStamp), Error> {
    read_stable(path, None, patience, consume)?.ok_or_else(|| Error::Io {
        path: path.display().to_string(),
        message: format!(
            "changed while being read or less than {} ms before, on every try ({MAX_READ_ATTEMPTS} \
             at most, in {} ms): a writer is still at work; replace server files by renaming a \
             complete file into place",
            SETTLE_TIME.as_millis(),
            MAX_FIRST_READ_WAIT.as_millis(),
        ),
    })
}

/// Reads a file through `consume` when it has settled (or has nothing to
/// wait for, see the module docs) and the read was not disturbed by a
/// writer, returning what `consume` made of it and the file's stamp; `None`
/// when it was not read so, at once ([`Patience::Never`]) or within the
/// attempts and time allowed ([`Patience::Wait`]).
fn read_stable<T>(
    path: &Path,
    last: Option<&FileStamp>,
    patience: Patience,
    mut consume: impl FnMut(&mut BoundedReader) -> Result<T, Error>,
) -> Result<Option<(T, FileStamp)>, Error> {
    let io_error = |message: String| Error::Io {
        path: path.display().to_string(),
        message,
    };
    let attempts = match patience {
        Patience::Wait { .. } => MAX_READ_ATTEMPTS,
        Patience::Never { .. } => 1,
    };
    // The inode of the last look at the path: another one now means a file
    // was renamed into place, complete.
    let mut seen = last.map(|last| (last.inode, last.born));
    for attempt in 0..attempts {
        if attempt > 0 && !patience.sleep(Duration::from_millis(5 << attempt)) {
            return Ok(None);
        }
        let file = open(path).map_err(|e| io_error(e.to_string()))?;
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
        let now = match patience {
            Patience::Wait { .. } => SystemTime::now(),
            Patience::Never { now } => now,
        };
        if let Some(wait) = settle_wait(&before, now).filter(|_| !replaced && !as_last_read) {
            if !patience.sleep(wait) {
                return Ok(None);
            }
            let now = file.metadata().map_err(|e| io_error(e.to_string()))?;
            if !unchanged(&before, &now) {
                continue;
            }
        }
        // Judged by the real clock (not a caller's `now`): what matters is
        // whether a change after this read must move the file's ctime.
        let settled = quiet(&before, SystemTime::now());
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
                ctime: (before.ctime(), before.ctime_nsec()),
                settled,
            };
            return result.map(|value| Some((value, stamp)));
        }
    }
    Ok(None)
}

/// What the library reads from a path: the one rule for server files and
/// key files ([`crate::key_file`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file, read to its end (server files: at most
    /// [`MAX_FILE_BYTES`]).
    Regular,
    /// A character device (`/dev/null`, `/dev/zero`), read without blocking
    /// and at most [`MAX_DEVICE_BYTES`].
    CharDevice,
}

impl FileKind {
    /// The kind of what `metadata` describes, or what it is when it is not
    /// read at all: `"a directory"`, `"a block device"`, `"a FIFO"`,
    /// `"a socket"`, `"not a regular file"`.
    pub fn of(metadata: &Metadata) -> Result<FileKind, &'static str> {
        let kind = metadata.file_type();
        Err(if kind.is_file() {
            return Ok(FileKind::Regular);
        } else if kind.is_char_device() {
            return Ok(FileKind::CharDevice);
        } else if kind.is_dir() {
            "a directory"
        } else if kind.is_block_device() {
            "a block device"
        } else if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        })
    }
}

/// Opens `path` for reading as every file is opened here: never blocking
/// (a FIFO is refused by [`FileKind::of`] after the open instead of
/// waiting for a writer) and never making a terminal ours.
pub fn open(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(OPEN_FLAGS)
        .open(path)
}

/// The most bytes to read from what `metadata` describes, or why it is not
/// read at all: a regular file of at most [`MAX_FILE_BYTES`], or a
/// character device.
fn check_readable(metadata: &Metadata) -> Result<u64, String> {
    match FileKind::of(metadata) {
        Ok(FileKind::CharDevice) => Ok(MAX_DEVICE_BYTES),
        Ok(FileKind::Regular) if metadata.size() > MAX_FILE_BYTES => Err(format!(
            "is {} bytes, larger than the {} MiB limit for server files",
            metadata.size(),
            MAX_FILE_BYTES >> 20
        )),
        Ok(FileKind::Regular) => Ok(MAX_FILE_BYTES),
        Err("a directory") => Err("is a directory, not a server file".into()),
        Err(what) => Err(format!(
            "is {what}, not a regular file (server lists are read from regular files)"
        )),
    }
}

/// How long, from `now`, until a file modified less than [`SETTLE_TIME`]
/// before `now` (or after it, by a skewed clock) has been left alone for
/// that long; `None` when it has.
fn settle_wait(metadata: &Metadata, now: SystemTime) -> Option<Duration> {
    let mtime = UNIX_EPOCH
        + Duration::from_secs(metadata.mtime().max(0) as u64)
        + Duration::from_nanos(metadata.mtime_nsec().max(0) as u64);
    match now.duration_since(mtime) {
        Ok(age) if age >= SETTLE_TIME => None,
        Ok(age) => Some(SETTLE_TIME - age),
        Err(_) => Some(SETTLE_TIME),
    }
}

/// True when neither the mtime nor the ctime of what `metadata` describes
/// moved in the [`SETTLE_TIME`] before `now`.
fn quiet(metadata: &Metadata, now: SystemTime) -> bool {
    let ctime = UNIX_EPOCH
        + Duration::from_secs(metadata.ctime().max(0) as u64)
        + Duration::from_nanos(metadata.ctime_nsec().max(0) as u64);
    settle_wait(metadata, now).is_none()
        && now
            .duration_since(ctime)
            .is_ok_and(|age| age >= SETTLE_TIME)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::ScratchDir;

    fn set_mtime(path: &Path, mtime: SystemTime) {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }

    fn addresses(look: Look) -> Vec<String> {
        match look {
            Look::Read(file) => file
                .servers
                .iter()
                .map(|s| String::from_utf8_lossy(&s.address).into_owned())
                .collect(),
            Look::Unsettled => panic!("not read"),
        }
    }

    const A: &str = "10.0.0.1:11211\t100\n";
    const B: &str = "10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n";

    #[test]
    fn look_judges_an_in_place_change_by_the_clock_it_is_given() {
        let dir = ScratchDir::new("server-file-clock");
        let path = dir.join("servers");
        std::fs::write(&path, A).unwrap();
        set_mtime(&path, SystemTime::now() - Duration::from_secs(3600));
        let last = load(&path, ParseMode::Strict).unwrap().stamp;
        // Rewritten in place (same inode) at `written`.
        std::fs::write(&path, B).unwrap();
        let written = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        set_mtime(&path, written);
        let at = |after: Duration| look(&path, ParseMode::Strict, &last, written + after).unwrap();
        assert!(matches!(at(Duration::ZERO), Look::Unsettled));
        assert!(matches!(at(SETTLE_TIME / 2), Look::Unsettled));
        assert!(matches!(
            at(SETTLE_TIME - Duration::from_nanos(1)),
            Look::Unsettled
        ));
        // Written after `now` by a skewed clock: not settled either.
        let before = look(
            &path,
            ParseMode::Strict,
            &last,
            written - Duration::from_secs(1),
        )
        .unwrap();
        assert!(matches!(before, Look::Unsettled));
        assert_eq!(
            addresses(at(SETTLE_TIME)),
            ["10.0.0.2:11211", "10.0.0.3:11211"]
        );
    }

    #[test]
    fn a_first_read_that_would_sleep_past_its_deadline_refuses_the_file_unread() {
        let dir = ScratchDir::new("server-file-deadline");
        let path = dir.join("servers");
        std::fs::write(&path, A).unwrap();
        // Modified after now by the real clock: it has to wait to settle.
        set_mtime(&path, SystemTime::now() + Duration::from_secs(3600));
        // A deadline already reached allows no sleep: refused at once,
        // without reading, with the message a writer at work gets.
        let patience = Patience::Wait {
            until: Instant::now(),
        };
        assert!(!patience.sleep(Duration::from_nanos(1)));
        let refused = read_waiting(&path, patience, |_| -> Result<(), Error> {
            panic!("read an unsettled file")
        })
        .unwrap_err()
        .to_string();
        assert!(
            refused.contains("a writer is still at work; replace server files by renaming"),
            "{refused}"
        );
        // Never sleeps, whatever the deadline.
        let never = Patience::Never {
            now: SystemTime::now(),
        };
        assert!(!never.sleep(Duration::ZERO));
    }

    #[test]
    fn a_file_renamed_into_place_or_untouched_since_the_last_read_is_read_at_once() {
        let dir = ScratchDir::new("server-file-renamed");
        let path = dir.join("servers");
        std::fs::write(&path, A).unwrap();
        set_mtime(&path, SystemTime::now() - Duration::from_secs(3600));
        let last = load(&path, ParseMode::Strict).unwrap().stamp;
        // A complete file renamed into place, written just now by the clock given.
        let written = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let tmp = dir.join("servers.tmp");
        std::fs::write(&tmp, B).unwrap();
        set_mtime(&tmp, written);
        std::fs::rename(&tmp, &path).unwrap();
        let Look::Read(file) = look(&path, ParseMode::Strict, &last, written).unwrap() else {
            panic!("a renamed file is read at once");
        };
        assert_eq!(file.servers.len(), 2);
        // The same inode, size and mtime as at that read: read (and its
        // content compared by the caller) at once.
        let again = look(&path, ParseMode::Strict, &file.stamp, written).unwrap();
        let Look::Read(again) = again else {
            panic!("an untouched file is read at once");
        };
        assert_eq!(again.stamp, file.stamp);
    }
}
