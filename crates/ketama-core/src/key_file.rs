//! Keys read one per line, bounded: from a key file (`ketama dist --keys`,
//! `ketama diff --keys`) or a stream (`ketama find` on standard input).
//!
//! * A key is a line without its `\n` and a `\r` before it; a line longer
//!   than [`MAX_KEY_LINE`] stops the read naming its number, so no input
//!   makes the reader hold more than that.
//! * A key file is what [`server_file`](crate::server_file) reads
//!   ([`FileKind`]): a regular file, to its end, or a character device, at
//!   most [`MAX_DEVICE_BYTES`] (`/dev/zero` gives one key of 64 KiB); a
//!   directory, FIFO, socket or block device is refused naming what it is,
//!   and opening never waits for a FIFO's writer.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Take};
use std::path::Path;

use crate::Error;
use crate::server_file::{FileKind, MAX_DEVICE_BYTES};

/// The longest key line read: 1 MiB.
pub const MAX_KEY_LINE: usize = 1 << 20;

/// Keys read one per line from `R`; see the module documentation.
pub struct KeyLines<R> {
    reader: R,
    source: String,
    line: Vec<u8>,
    number: usize,
    bytes_read: u64,
}

impl KeyLines<BufReader<Take<File>>> {
    /// Opens the key file `path`; with it, the size of a regular file (for
    /// a progress display), `None` for a device.
    pub fn open(path: &Path) -> Result<(Self, Option<u64>), Error> {
        let source = path.display().to_string();
        let failed = |message: String| Error::Io {
            path: source.clone(),
            message,
        };
        let file = crate::server_file::open(path).map_err(|e| failed(e.to_string()))?;
        let metadata = file.metadata().map_err(|e| failed(e.to_string()))?;
        let (limit, size) = match FileKind::of(&metadata) {
            Ok(FileKind::Regular) => (u64::MAX, Some(metadata.len())),
            Ok(FileKind::CharDevice) => (MAX_DEVICE_BYTES, None),
            Err(what) => {
                return Err(failed(format!(
                    "is {what}; give a file of keys, one per line"
                )));
            }
        };
        let reader = BufReader::new(file.take(limit));
        Ok((KeyLines::new(reader, source), size))
    }
}

impl<R: BufRead> KeyLines<R> {
    /// Keys from `reader`; `source` names it in messages (a path,
    /// `standard input`).
    pub fn new(reader: R, source: impl Into<String>) -> Self {
        KeyLines {
            reader,
            source: source.into(),
            line: Vec::new(),
            number: 0,
            bytes_read: 0,
        }
    }

    /// The next key, `None` at the end; an error names the source and, for
    /// a line too long, its number.
    pub fn next_key(&mut self) -> Result<Option<&[u8]>, Error> {
        self.line.clear();
        self.number += 1;
        let read = (&mut self.reader)
            .take(MAX_KEY_LINE as u64 + 1)
            .read_until(b'\n', &mut self.line)
            .map_err(|e| Error::Io {
                path: self.source.clone(),
                message: e.to_string(),
            })?;
        if read == 0 {
            return Ok(None);
        }
        self.bytes_read += read as u64;
        if self.line.last() == Some(&b'\n') {
            self.line.pop();
        } else if self.line.len() > MAX_KEY_LINE {
            return Err(Error::Io {
                path: self.source.clone(),
                message: format!("line {} is longer than {MAX_KEY_LINE} bytes", self.number),
            });
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        Ok(Some(&self.line))
    }

    /// Bytes read so far (lines and their line ends).
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::ScratchDir;

    fn keys(input: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
        let mut lines = KeyLines::new(input, "input");
        let mut keys = Vec::new();
        while let Some(key) = lines.next_key()? {
            keys.push(key.to_vec());
        }
        assert!(lines.bytes_read() <= input.len() as u64);
        Ok(keys)
    }

    #[test]
    fn lines_are_keys_with_their_line_ends_dropped() {
        assert_eq!(keys(b"").unwrap(), Vec::<Vec<u8>>::new());
        assert_eq!(
            keys(b"a\r\nb\n\nlast").unwrap(),
            [&b"a"[..], b"b", b"", b"last"]
        );
        assert_eq!(keys(b"a\n").unwrap(), [b"a"]);
        let long = [vec![b'k'; MAX_KEY_LINE], b"\nshort\n".to_vec()].concat();
        assert_eq!(keys(&long).unwrap().len(), 2);
        let longer = [b"a\n".to_vec(), vec![b'k'; MAX_KEY_LINE + 1]].concat();
        assert_eq!(
            keys(&longer).unwrap_err().to_string(),
            "input: line 2 is longer than 1048576 bytes"
        );
    }

    #[test]
    fn key_files_follow_the_server_file_kind_rule() {
        let dir = ScratchDir::new("key-file");
        let refused = KeyLines::open(&dir).err().unwrap().to_string();
        assert!(refused.ends_with(": is a directory; give a file of keys, one per line"));
        let file = dir.join("keys");
        std::fs::write(&file, "a\nb\n").unwrap();
        let (mut lines, size) = KeyLines::open(&file).unwrap();
        assert_eq!(size, Some(4));
        assert_eq!(lines.next_key().unwrap(), Some(&b"a"[..]));
        if !cfg!(miri) {
            let (mut zero, size) = KeyLines::open(Path::new("/dev/zero")).unwrap();
            assert_eq!(size, None);
            assert_eq!(zero.next_key().unwrap().map(<[u8]>::len), Some(64 << 10));
            assert_eq!(zero.next_key().unwrap(), None);
        }
    }
}
