//! The library's error type: every failure names what was wrong and where.

use std::fmt;

/// An error from building a ring, reading a server list or an FFI call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A required pointer argument was NULL (FFI only); names the argument.
    NullArgument(&'static str),
    /// An argument had a value the function does not accept.
    InvalidArgument(String),
    /// A file could not be opened or read.
    Io {
        /// The path as given by the caller.
        path: String,
        /// What the operating system said.
        message: String,
    },
    /// A server-list line was rejected.
    Parse {
        /// The file name as given by the caller (or a description of the source).
        file: String,
        /// 1-based line number.
        line: usize,
        /// Why the line was rejected.
        reason: String,
    },
    /// The server list held no usable server; names the source ("file F").
    NoServers(String),
    /// No server can take a key: the continuum is empty or every server
    /// owning points is marked down.
    NoServerAvailable(String),
    /// An index is past the end of what it indexes.
    OutOfRange(String),
    /// An output buffer was too small; `needed` bytes are required.
    BufferTooSmall {
        /// Bytes required.
        needed: usize,
    },
    /// A set-codec failure (kind, byte offset, record index).
    Set(crate::setcodec::SetError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NullArgument(name) => write!(f, "argument `{name}` is NULL"),
            Error::InvalidArgument(msg) => f.write_str(msg),
            Error::Io { path, message } => write!(f, "{path}: {message}"),
            Error::Parse { file, line, reason } => write!(f, "{reason} (line {line} in {file})"),
            Error::NoServers(source) => write!(f, "No valid server definitions in {source}"),
            Error::NoServerAvailable(msg) | Error::OutOfRange(msg) => f.write_str(msg),
            Error::BufferTooSmall { needed } => {
                write!(f, "output buffer too small: {needed} bytes needed")
            }
            Error::Set(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// No server can take any key: the ring has no points.
    pub fn no_points() -> Error {
        Error::NoServerAvailable("the ring has no points: no server can take a key".into())
    }
}

impl From<crate::setcodec::SetError> for Error {
    fn from(error: crate::setcodec::SetError) -> Self {
        Error::Set(error)
    }
}
