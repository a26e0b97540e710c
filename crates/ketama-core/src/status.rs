//! The status codes of the C ABI and of every binding's errors, declared
//! once: what each [`Error`] is reported as.

use crate::Error;
use crate::setcodec::{SetError, SetErrorKind};

crate::named_enum! {
    /// Result of a modern API call. `KETAMA_OK` is 0; every other value comes
    /// with a message readable through `ketama_error()` on the same thread.
    /// The variants are named as the C constants, which are their names.
    #[allow(non_camel_case_types)]
    pub enum Status: "ketama_status" {
        /// Success.
        KETAMA_OK = 0, KETAMA_OK, "KETAMA_OK", [];
        /// A required pointer argument was NULL.
        KETAMA_ERR_NULL_ARGUMENT = 1, KETAMA_ERR_NULL_ARGUMENT, "KETAMA_ERR_NULL_ARGUMENT", [];
        /// An argument had a value the function does not accept.
        KETAMA_ERR_INVALID_ARGUMENT = 2, KETAMA_ERR_INVALID_ARGUMENT, "KETAMA_ERR_INVALID_ARGUMENT", [];
        /// A file could not be opened or read.
        KETAMA_ERR_IO = 3, KETAMA_ERR_IO, "KETAMA_ERR_IO", [];
        /// A server list line was rejected; the message names the line.
        KETAMA_ERR_PARSE = 4, KETAMA_ERR_PARSE, "KETAMA_ERR_PARSE", [];
        /// The server list holds no usable server.
        KETAMA_ERR_NO_SERVERS = 5, KETAMA_ERR_NO_SERVERS, "KETAMA_ERR_NO_SERVERS", [];
        /// An output buffer is too small.
        KETAMA_ERR_BUFFER_TOO_SMALL = 6, KETAMA_ERR_BUFFER_TOO_SMALL, "KETAMA_ERR_BUFFER_TOO_SMALL", [];
        /// No server can take the key (empty continuum, or all servers down).
        KETAMA_ERR_NO_SERVER_AVAILABLE = 7, KETAMA_ERR_NO_SERVER_AVAILABLE, "KETAMA_ERR_NO_SERVER_AVAILABLE", [];
        /// An index is past the end.
        KETAMA_ERR_OUT_OF_RANGE = 8, KETAMA_ERR_OUT_OF_RANGE, "KETAMA_ERR_OUT_OF_RANGE", [];
        /// Not a failure: the output holds the last good ring of a server file
        /// whose current state cannot be used (`ketama_error()` says why).
        KETAMA_KEPT_LAST_GOOD = 9, KETAMA_KEPT_LAST_GOOD, "KETAMA_KEPT_LAST_GOOD", [];
        /// The library hit an internal bug; the host process is unaffected.
        KETAMA_ERR_PANIC = 99, KETAMA_ERR_PANIC, "KETAMA_ERR_PANIC", [];
        /// A set value did not decode; the message names kind, byte offset and record.
        KETAMA_ERR_SET_DECODE = 100, KETAMA_ERR_SET_DECODE, "KETAMA_ERR_SET_DECODE", [];
        /// A member cannot be encoded (empty, too long, whitespace or control byte).
        KETAMA_ERR_SET_MEMBER = 101, KETAMA_ERR_SET_MEMBER, "KETAMA_ERR_SET_MEMBER", [];
        /// The set's value cannot grow: compact it or shard the set.
        KETAMA_ERR_SET_FULL = 102, KETAMA_ERR_SET_FULL, "KETAMA_ERR_SET_FULL", [];
        /// Append and add kept failing while the key came and went.
        KETAMA_ERR_SET_CONTENDED = 103, KETAMA_ERR_SET_CONTENDED, "KETAMA_ERR_SET_CONTENDED", [];
    }
}

impl Status {
    /// The status an error is reported as.
    pub fn of(error: &Error) -> Self {
        match error {
            Error::NullArgument(_) => Status::KETAMA_ERR_NULL_ARGUMENT,
            Error::InvalidArgument(_) => Status::KETAMA_ERR_INVALID_ARGUMENT,
            Error::Io { .. } => Status::KETAMA_ERR_IO,
            Error::Parse { .. } => Status::KETAMA_ERR_PARSE,
            Error::NoServers(_) => Status::KETAMA_ERR_NO_SERVERS,
            Error::BufferTooSmall { .. } => Status::KETAMA_ERR_BUFFER_TOO_SMALL,
            Error::NoServerAvailable(_) => Status::KETAMA_ERR_NO_SERVER_AVAILABLE,
            Error::OutOfRange(_) => Status::KETAMA_ERR_OUT_OF_RANGE,
            Error::Set(error) => Self::of_set_error(error),
        }
    }

    /// The status a set-codec error is reported as.
    pub fn of_set_error(error: &SetError) -> Self {
        match error.kind {
            SetErrorKind::SetFull => Status::KETAMA_ERR_SET_FULL,
            SetErrorKind::Contended => Status::KETAMA_ERR_SET_CONTENDED,
            SetErrorKind::InvalidArgument => Status::KETAMA_ERR_INVALID_ARGUMENT,
            _ if error.in_member => Status::KETAMA_ERR_SET_MEMBER,
            _ => Status::KETAMA_ERR_SET_DECODE,
        }
    }
}
