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
//!   the `nginx` flavour (statements may span lines: parsed from the whole
//!   text, which the callers read with the bounds of [`crate::server_file`]).
//! * [`cluster_nodes`]: a Redis Cluster's slot map as `CLUSTER NODES`
//!   prints it, for the `redis-cluster` flavour.
//!
//! The line-based readings (all but nginx) go line by line, so a
//! [`ServerListParser`] can be fed a file as it is read and stop at the first
//! bad line without holding the file: at most one line
//! ([`ParseMode::line_limit`]) is buffered.

pub mod cluster_nodes;
pub mod libketama;
pub mod nginx;
pub mod peers;
pub mod sockiopool;
pub mod strict;

use crate::{Error, ServerSpec};

crate::named_enum! {
    /// Which reading of a server file to use.
    pub enum ParseMode: "ketama_parse_mode" {
        /// Reject every line the original libketama would misread (default).
        Strict = 0, KETAMA_PARSE_STRICT, "strict", [];
        /// Read exactly like the original libketama (for existing files).
        Libketama = 1, KETAMA_PARSE_LIBKETAMA, "libketama", ["compat"];
        /// A peer-style list: `HOST:PORT[:WEIGHT] [NAME]` entries, one per line
        /// or comma-separated, `[IPV6]:PORT`, `#` comments (twemproxy's name column).
        Peers = 2, KETAMA_PARSE_PEERS, "peers", ["peer"];
        /// `SERVER<TAB>WEIGHT` lines as libketama's Java port (SockIOPool) reads
        /// them: the weight read by Java's `Integer.parseInt`, 1 when it fails.
        SockIoPool = 3, KETAMA_PARSE_SOCKIOPOOL, "sockiopool", [];
        /// nginx `upstream` blocks as their users write them: every
        /// `server ADDRESS [weight=N];` directive is a server ([`nginx`]).
        Nginx = 4, KETAMA_PARSE_NGINX, "nginx", ["nginx-upstream"];
        /// The syntax the ring's flavour's users write server lists in, as
        /// `ketama --servers-file` reads them: SockIOPool lines for
        /// libketama-java, nginx `upstream` blocks for nginx, a peer-style
        /// list (with twemproxy's name column) for the others.
        Flavour = 5, KETAMA_PARSE_FLAVOUR, "flavour", ["flavor"];
        /// A Redis Cluster's `CLUSTER NODES` text (or a node's `nodes.conf`):
        /// each master that serves slots is a server named by its slots
        /// ([`cluster_nodes`]).
        RedisClusterNodes = 6, KETAMA_PARSE_REDIS_CLUSTER_NODES, "redis-cluster-nodes", ["cluster-nodes"];
    }
}

// Written out: named_enum! derives only what every declared enum has.
#[allow(clippy::derivable_impls)]
impl Default for ParseMode {
    fn default() -> Self {
        ParseMode::Strict
    }
}

impl ParseMode {
    /// The reading to use for a ring of `flavour`: [`ParseMode::Flavour`]
    /// becomes the flavour's list syntax, the others stand.
    pub fn for_flavour(self, flavour: crate::Flavour) -> ParseMode {
        match self {
            ParseMode::Flavour => flavour.list_syntax(),
            mode => mode,
        }
    }

    /// The most bytes of one line this reading buffers. libketama reads
    /// 126-byte chunks (`fgets`), the strict reading rejects longer lines,
    /// and a peer-style line (which may hold a comma-separated list) is
    /// rejected past 4 MiB (so are SockIOPool and `CLUSTER NODES` lines).
    pub fn line_limit(self) -> usize {
        match self {
            ParseMode::Strict | ParseMode::Libketama => libketama::CHUNK_BYTES,
            ParseMode::Peers
            | ParseMode::SockIoPool
            | ParseMode::Nginx
            | ParseMode::Flavour
            | ParseMode::RedisClusterNodes => peers::MAX_LINE_BYTES,
        }
    }
}

/// Parses a server file's bytes with the chosen reading. `file`
/// names the source in error messages.
pub fn parse_server_file(
    content: &[u8],
    file: &str,
    mode: ParseMode,
) -> Result<Vec<ServerSpec>, Error> {
    let mut parser = ServerListParser::new(mode, file);
    parser.feed(content)?;
    parser.finish()
}

/// A server-list parser fed the bytes of a file as they are read: it keeps
/// at most one line, and fails at the first bad line.
#[derive(Debug)]
pub struct ServerListParser {
    mode: ParseMode,
    lines: LineSplitter,
    list: ServerList,
    /// nginx directives span lines: its text is read whole (the file's
    /// size is bounded by the reader).
    text: Vec<u8>,
}

impl ServerListParser {
    /// A parser for `mode`; `file` names the source in error messages.
    pub fn new(mode: ParseMode, file: &str) -> Self {
        ServerListParser {
            mode,
            lines: LineSplitter::new(mode.line_limit()),
            list: ServerList {
                file: file.to_string(),
                servers: Vec::new(),
                total_weight: 0,
            },
            text: Vec::new(),
        }
    }

    /// Reads the next bytes of the file.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.mode == ParseMode::Nginx {
            self.text.extend_from_slice(bytes);
            return Ok(());
        }
        let (mode, list) = (self.mode, &mut self.list);
        self.lines.feed(bytes, &mut |line, piece| {
            read_piece(mode, list, line, piece)
        })
    }

    /// Ends the input: reads a last line without newline and returns the
    /// servers, or an error when the file held none.
    pub fn finish(mut self) -> Result<Vec<ServerSpec>, Error> {
        if self.mode == ParseMode::Nginx {
            self.list.servers = nginx::parse(&self.text, &self.list.file)?;
        }
        let (mode, list) = (self.mode, &mut self.list);
        self.lines
            .finish(&mut |line, piece| read_piece(mode, list, line, piece))?;
        if self.list.servers.is_empty() {
            return Err(Error::NoServers(format!("file {}", self.list.file)));
        }
        Ok(self.list.servers)
    }
}

fn read_piece(
    mode: ParseMode,
    list: &mut ServerList,
    line: usize,
    piece: Piece,
) -> Result<(), Error> {
    match mode {
        ParseMode::Strict => strict::read_line(list, line, piece),
        ParseMode::Libketama => libketama::read_chunk(list, line, piece),
        ParseMode::Peers => peers::read_line(list, line, piece),
        ParseMode::SockIoPool => sockiopool::read_line(list, line, piece),
        ParseMode::Nginx => Ok(()),
        ParseMode::RedisClusterNodes => cluster_nodes::read_line(list, line, piece),
        ParseMode::Flavour => Err(Error::InvalidArgument(
            "the flavour's own server list syntax needs a flavour: resolve it with \
             ParseMode::for_flavour first"
                .into(),
        )),
    }
}

/// The servers read so far, and what error messages name.
#[derive(Debug)]
pub(crate) struct ServerList {
    /// The source, as named in errors.
    pub(crate) file: String,
    servers: Vec<ServerSpec>,
    total_weight: u64,
}

impl ServerList {
    /// A parse error at `line`.
    pub(crate) fn error(&self, line: usize, reason: impl Into<String>) -> Error {
        Error::Parse {
            file: self.file.clone(),
            line,
            reason: reason.into(),
        }
    }

    /// Adds a server with a weight, failing where libketama's `unsigned
    /// long` sum of weights would silently wrap.
    pub(crate) fn push_weighted(&mut self, server: ServerSpec, line: usize) -> Result<(), Error> {
        let weight = server.weight.unwrap_or(0);
        self.total_weight = self
            .total_weight
            .checked_add(weight)
            .ok_or_else(|| self.error(line, "Sum of weights overflows 64 bits"))?;
        self.servers.push(server);
        Ok(())
    }

    /// Adds a server whose weight needs no sum (peer-style lists).
    pub(crate) fn push(&mut self, server: ServerSpec) {
        self.servers.push(server);
    }
}

/// A piece of a file as the line splitter hands it over.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Piece<'a> {
    /// A line ending with its `\n`.
    Line(&'a [u8]),
    /// `limit` bytes without a newline, with more bytes following.
    Cut(&'a [u8]),
    /// The end of the input, without a newline.
    Last(&'a [u8]),
}

/// Splits a byte stream into lines of at most `limit` bytes (newline
/// included), buffering only the current line.
#[derive(Debug)]
struct LineSplitter {
    pending: Vec<u8>,
    limit: usize,
    number: usize,
}

type PieceSink<'s> = dyn FnMut(usize, Piece) -> Result<(), Error> + 's;

impl LineSplitter {
    fn new(limit: usize) -> Self {
        LineSplitter {
            pending: Vec::new(),
            limit,
            number: 0,
        }
    }

    /// Hands every complete piece in `bytes` to `sink` with its 1-based number.
    fn feed(&mut self, mut bytes: &[u8], sink: &mut PieceSink) -> Result<(), Error> {
        while !bytes.is_empty() {
            let room = self.limit - self.pending.len();
            if room == 0 {
                self.number += 1;
                sink(self.number, Piece::Cut(&self.pending))?;
                self.pending.clear();
                continue;
            }
            let window = &bytes[..bytes.len().min(room)];
            match window.iter().position(|&b| b == b'\n') {
                Some(newline) => {
                    let (line, rest) = bytes.split_at(newline + 1);
                    self.number += 1;
                    if self.pending.is_empty() {
                        sink(self.number, Piece::Line(line))?;
                    } else {
                        self.pending.extend_from_slice(line);
                        sink(self.number, Piece::Line(&self.pending))?;
                        self.pending.clear();
                    }
                    bytes = rest;
                }
                None => {
                    self.pending.extend_from_slice(window);
                    bytes = &bytes[window.len()..];
                }
            }
        }
        Ok(())
    }

    /// Hands the last, unterminated piece (if any) to `sink`.
    fn finish(&mut self, sink: &mut PieceSink) -> Result<(), Error> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.number += 1;
        sink(self.number, Piece::Last(&self.pending))?;
        self.pending.clear();
        Ok(())
    }
}

/// True for the two field delimiters of a server line, SPACE and TAB.
#[inline]
pub(crate) fn is_blank(byte: u8) -> bool {
    byte == b' ' || byte == b'\t'
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeding a file in any split gives the answer of feeding it whole.
    #[test]
    fn any_split_of_the_input_reads_the_same() {
        let files: &[&[u8]] = &[
            b"10.0.0.1:11211\t100\n10.0.0.2:11211\t200\n",
            b"# c\n\na:1 5\r\nb:2\t7",
            &[b'x'; 300],
            b"a:1\t100\n  # x\n",
            b"a:1:2, b:2\n# comment\n\nc:3",
        ];
        for mode in [ParseMode::Strict, ParseMode::Libketama, ParseMode::Peers] {
            for file in files {
                let whole = parse_server_file(file, "f", mode);
                for step in [1, 2, 7, 125, 126, 127] {
                    let mut parser = ServerListParser::new(mode, "f");
                    let fed = file.chunks(step).try_for_each(|c| parser.feed(c));
                    let split = fed.and_then(|()| parser.finish());
                    assert_eq!(
                        split,
                        whole,
                        "{mode:?} step {step} {:?}",
                        String::from_utf8_lossy(file)
                    );
                }
            }
        }
    }
}
