//! Server-list parsers.
//!
//! * [`libketama`]: the original library's reading of a server file, byte for
//!   byte (including the lines it silently misreads), used by the compat ABI.
//! * [`strict`]: the default for the modern API and the CLI. It accepts a file
//!   only when the original would read it the same way, and otherwise names
//!   the line and the reason.
//! * [`peers`]: server lists as the peers' users write them (`host:port:weight`,
//!   bracketed IPv6, twemproxy's name column), for the other flavours.
//! * [`sockiopool`]: `SERVER<TAB>WEIGHT` lines as libketama's Java port reads
//!   them (a bad weight is 1), for the `libketama-java` flavour.
//! * [`nginx`]: the `server` directives of an nginx `upstream` block, for
//!   the `nginx` flavour.

pub mod libketama;
pub mod nginx;
pub mod peers;
pub mod sockiopool;
pub mod strict;

use crate::{Error, ServerSpec};

/// Which reading of a server file to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParseMode {
    /// Reject every line the original libketama would misread (default).
    #[default]
    Strict,
    /// Read exactly as the original libketama does.
    Libketama,
    /// A peer-style list ([`peers`]): `HOST:PORT[:WEIGHT] [NAME]` entries.
    Peers,
    /// `SERVER<TAB>WEIGHT` lines read as libketama's Java port reads them ([`sockiopool`]).
    SockIoPool,
}

/// Parses a server file's bytes with the chosen reading. `file`
/// names the source in error messages.
pub fn parse_server_file(
    content: &[u8],
    file: &str,
    mode: ParseMode,
) -> Result<Vec<ServerSpec>, Error> {
    match mode {
        ParseMode::Strict => strict::parse(content, file),
        ParseMode::Libketama => libketama::parse(content, file),
        ParseMode::Peers => peers::parse(content, file),
        ParseMode::SockIoPool => sockiopool::parse(content, file),
    }
}

/// True for the two field delimiters of a server line, SPACE and TAB.
#[inline]
pub(crate) fn is_blank(byte: u8) -> bool {
    byte == b' ' || byte == b'\t'
}

/// Adds one weight to a running total, failing where libketama's
/// `unsigned long` sum would silently wrap.
pub(crate) fn add_weight(total: u64, weight: u64, file: &str, line: usize) -> Result<u64, Error> {
    total.checked_add(weight).ok_or_else(|| Error::Parse {
        file: file.to_string(),
        line,
        reason: "Sum of weights overflows 64 bits".to_string(),
    })
}
