//! The stamp of a server file's state ([`FileStamp`]), and whether a
//! file is still that state without reading it ([`untouched`]).

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::SystemTime;

/// One state of a server file: where it lives, its size and mtime, and the
/// MD5 of its bytes (so an edit that keeps size and mtime is noticed).
///
/// Two stamps are equal when they describe the same content in the same
/// file (inode, creation time, size, mtime, digest); `ctime` and `settled`
/// only say whether the file may be taken as unchanged without reading it
/// again ([`untouched`]).
#[derive(Debug, Clone)]
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
    /// Status change time (seconds, nanoseconds): every write, truncation,
    /// rename onto the inode or chmod moves it, and no caller can set it.
    pub ctime: (i64, i64),
    /// True when neither the file's mtime nor its ctime had moved for
    /// [`SETTLE_TIME`](crate::server_file::SETTLE_TIME) when it was read (by the real clock): a later change
    /// then gives it a later ctime, even one that puts the mtime back and
    /// within the clock's coarse tick, so the same inode, size, mtime and
    /// ctime mean the same bytes.
    pub settled: bool,
}

impl PartialEq for FileStamp {
    fn eq(&self, other: &FileStamp) -> bool {
        (self.inode, self.born, self.size, self.mtime, self.digest)
            == (
                other.inode,
                other.born,
                other.size,
                other.mtime,
                other.digest,
            )
    }
}

impl Eq for FileStamp {}

/// True when the regular file at `path` is, without reading it, the state
/// `stamp` describes: the stamp was taken of a settled file and the path
/// still names the same inode with the same size, mtime and ctime (one
/// `stat`, no open). A character device is never taken unread: its bytes do
/// not follow its times.
pub fn untouched(path: &Path, stamp: &FileStamp) -> bool {
    if !stamp.settled {
        return false;
    }
    let Ok(now) = std::fs::metadata(path) else {
        return false;
    };
    now.is_file()
        && ((now.dev(), now.ino()), now.created().ok()) == (stamp.inode, stamp.born)
        && now.size() == stamp.size
        && (now.mtime(), now.mtime_nsec()) == stamp.mtime
        && (now.ctime(), now.ctime_nsec()) == stamp.ctime
}
