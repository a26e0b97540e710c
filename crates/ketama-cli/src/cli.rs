//! The command line of `ketama`, declared with clap's derive API.
//!
//! This file depends on clap, std and the core's lists only: `build.rs`
//! includes it too (with `#[path]`) to render the man page from the same
//! definitions. Names are validated by the library (flavours, hashes, set
//! encodings, placement options), and the help texts that list them are
//! built from its registry; every option of a subcommand lives in its
//! `*Args` struct here and nowhere else.

use std::ffi::OsString;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use crate::cli_migrate::MigrateCommand;
pub use crate::cli_ring::{ChangeArgs, PlacementArgs, ServerListArgs};

/// Exit codes, as `ketama --help` and the man page state them.
pub const EXIT_STATUS: &str = "\
0  success (for check: the file is valid)
1  invalid input: a server file or list that cannot be read or parsed, a
   set value that does not decode, a key no server can take
2  usage: an unknown command or option, a missing or malformed argument";

/// The `--json` formats, as `ketama --help` and the man page state them.
pub const JSON_OUTPUT: &str = "\
--json writes JSON to standard output instead of text:
find   one object per key (JSON Lines): {\"key\":K,\"server\":S,\"point\":P},
       P the continuum point the key landed on; with --group-by-server one
       object per server holding keys: {\"server\":S,\"keys\":[K,...]}
dump   one object per point (JSON Lines): {\"point\":P,\"server\":S}
dist   one document: {\"source\":\"keyspace\"|\"generated\"|\"keys\",\"keys_file\",\"keys\",
       \"points\",\"servers\":[{\"server\",\"weight\",\"points\",\"share\",
       \"expected\",\"ratio\"}],\"max_ratio\",\"min_ratio\",\"stddev\"}
diff   one document: {\"old\":{\"source\",\"flavour\",\"hash\",\"points\"},\"new\":{...},
       \"measure\":\"exact\"|\"sampled\",\"keys\",\"keys_file\",\"moved\",\"ideal\",
       \"flows\":[{\"from\",\"to\",\"share\"}]}
check  one document: {\"file\",\"servers\",\"points\",\"warnings\":[...]}
set decode  one document: {\"members\":[...],\"records\",\"removals\",
       \"redundant\",\"encoding\",\"sealed\"}
Shares, ratios and the deviation are fractions (the text shows percentages);
a weight not given is null; keys (how many keys were placed) and keys_file
are null for an exact measure; points is null for a per-key placement.
Errors go to standard error as in text mode, with no JSON.";

/// How bytes that are not UTF-8 appear in JSON, as `ketama --help` and the
/// man page state it.
pub const ESCAPING: &str = "\
Keys, servers and set members are bytes. In JSON, one that is valid UTF-8
and holds no backslash appears as it is. Any other is written in the escape
`ketama set decode` prints as text: every byte outside printable ASCII
(0x20-0x7e) and every backslash as \\xNN (two lowercase hex digits). A JSON
string containing a backslash is therefore always escaped: replace each
\\xNN by its byte to get the bytes back. Text output writes keys and servers
as their raw bytes (find, dump) and set members escaped (set decode).";

/// The end of `ketama --help`: an example, then the conventions.
pub fn root_long_help() -> String {
    format!(
        "Example:\n  ketama find /etc/memcached.servers user:1 user:2\n\n\
         Exit status:\n{EXIT_STATUS}\n\nJSON output:\n{JSON_OUTPUT}\n\n\
         Bytes that are not UTF-8:\n{ESCAPING}\n\n\
         Run 'ketama <COMMAND> --help' for a command's options."
    )
}

/// `ketama`: find servers for keys, inspect continuums, plan pool changes.
#[derive(Debug, Parser)]
#[command(
    name = "ketama",
    version,
    about = "Consistent hashing for memcached clients: find a key's server, dump a continuum, check a server file, plan pool changes",
    long_about = "Consistent hashing for memcached clients, with the library's own engine: \
find the server of each key, dump a continuum, check a server file, see how evenly a pool \
spreads keys and how many keys move when it changes, and inspect set values dumped from memcached.",
    after_help = "Example:\n  ketama find /etc/memcached.servers user:1 user:2\n\n\
Run 'ketama <COMMAND> --help' for a command's options; 'ketama --help' also shows the exit codes.",
    after_long_help = root_long_help(),
    arg_required_else_help = true,
    max_term_width = 100
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print KEY<TAB>SERVER for each key (keys from standard input, one per line, when none given)
    #[command(
        args_override_self = true,
        after_help = "Examples:\n  ketama find /etc/memcached.servers user:1 user:2\n  \
ketama find --flavor php-memcached --servers 10.0.0.1:11211,10.0.0.2:11211 < keys.txt\n  \
ketama find --down 10.0.0.2:11211 /etc/memcached.servers user:1\n  \
ketama find --group-by-server /etc/memcached.servers user:1 user:2 user:3"
    )]
    Find(FindArgs),
    /// Print POINT<TAB>SERVER for every point, in continuum order
    #[command(
        args_override_self = true,
        after_help = "Example:\n  ketama dump /etc/memcached.servers | head"
    )]
    Dump(DumpArgs),
    /// Validate a server file strictly; exit 1 with line-precise errors
    #[command(
        args_override_self = true,
        after_help = "Example:\n  ketama check /etc/memcached.servers"
    )]
    Check(CheckArgs),
    /// Each server's share of the keyspace (exact) against its weight share
    #[command(
        args_override_self = true,
        after_help = "Examples:\n  ketama dist /etc/memcached.servers\n  \
ketama dist --servers 10.0.0.1:11211,10.0.0.2:11211 --weights 1,3 --keys keys.txt"
    )]
    Dist(DistArgs),
    /// The fraction of the keyspace that moves between two server lists, flavours or key hashes
    #[command(
        args_override_self = true,
        after_help = "Examples:\n  ketama diff old.servers new.servers\n  \
ketama diff --from-flavor libketama --to-flavor php-memcached /etc/memcached.servers\n  \
ketama diff --flavor twemproxy --from-hash crc32 --to-hash crc32a --keys keys.txt pool.servers"
    )]
    Diff(ChangeArgs),
    /// Carry a pool from one ring to another: routes, the plan, the keys at risk
    #[command(subcommand)]
    Migrate(MigrateCommand),
    /// Inspect and build set values dumped from memcached
    #[command(subcommand)]
    Set(SetCommand),
    /// Print a shell completion script (bash, zsh or fish) to standard output
    #[command(after_help = "Examples:\n  \
ketama completions bash > /etc/bash_completion.d/ketama\n  \
ketama completions zsh > \"${fpath[1]}/_ketama\"\n  \
ketama completions fish > ~/.config/fish/completions/ketama.fish")]
    Completions(CompletionsArgs),
}

/// `--encoding`'s help: the set encodings the library reads.
fn encoding_help() -> String {
    use ketama_core::registry::Named;
    use ketama_core::setcodec::Format;
    format!(
        "The value's encoding: {} (default), {}",
        Format::extra_name().unwrap_or_default(),
        Format::names()
    )
}

/// `--to`'s help: the set encodings the library writes.
fn to_help() -> String {
    use ketama_core::setcodec::Format;
    format!(
        "The encoding to write: {} (default: the value's own when writable, else {})",
        Format::writable_names(),
        Format::T1.name()
    )
}

/// `ketama find`.
#[derive(Debug, Args)]
pub struct FindArgs {
    #[command(flatten)]
    pub placement: PlacementArgs,
    #[command(flatten)]
    pub list: ServerListArgs,
    /// Servers to skip, by address or name: their keys fail over to the next live server
    #[arg(long, value_name = "H:P,...")]
    pub down: Option<String>,
    /// Print the multi-GET plan instead: SERVER<TAB>KEY<TAB>KEY... for each server holding
    /// keys (servers in list order, keys in input order)
    #[arg(long = "group-by-server", conflicts_with = "down")]
    pub group_by_server: bool,
    /// Print N distinct servers per key, KEY<TAB>SERVER<TAB>SERVER..., the key's own server
    /// first and the others by the flavour's replica rule (a ring walk, or the next in list
    /// order for libmemcached and the modulo clients); all servers when N exceeds them
    #[arg(long, value_name = "N", conflicts_with_all = ["down", "group_by_server"])]
    pub replicas: Option<usize>,
    /// Write JSON Lines: {"key":K,"server":S,"point":P}, with --replicas
    /// {"key":K,"servers":[S,...]}, or with --group-by-server {"server":S,"keys":[K,...]}
    /// (see 'ketama --help' on escaping)
    #[arg(long)]
    pub json: bool,
    /// The server file (leave it out with --servers or --servers-file: the first argument is
    /// then a key)
    #[arg(value_name = "SERVERS_FILE")]
    pub file: Option<OsString>,
    /// Keys to look up (none: read standard input, one key per line); put keys that begin
    /// with '-' after '--'
    #[arg(value_name = "KEY")]
    pub keys: Vec<OsString>,
}

/// `ketama dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    #[command(flatten)]
    pub placement: PlacementArgs,
    #[command(flatten)]
    pub list: ServerListArgs,
    /// Write JSON Lines: {"point":P,"server":S}
    #[arg(long)]
    pub json: bool,
    /// The server file (leave it out with --servers or --servers-file)
    #[arg(value_name = "SERVERS_FILE")]
    pub file: Option<OsString>,
}

/// `ketama check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Write one JSON document: {"file","servers","points","warnings":[...]}
    #[arg(long)]
    pub json: bool,
    /// The server file to validate
    #[arg(value_name = "SERVERS_FILE")]
    pub file: OsString,
}

/// `ketama dist`.
#[derive(Debug, Args)]
pub struct DistArgs {
    #[command(flatten)]
    pub placement: PlacementArgs,
    #[command(flatten)]
    pub list: ServerListArgs,
    /// Measure the share of a sample of real keys (one per line) instead of the exact share
    #[arg(long, value_name = "FILE")]
    pub keys: Option<OsString>,
    /// Write one JSON document (shares as fractions of 1)
    #[arg(long)]
    pub json: bool,
    /// The server file (leave it out with --servers or --servers-file)
    #[arg(value_name = "SERVERS_FILE")]
    pub file: Option<OsString>,
}

/// `ketama set …`.
#[derive(Debug, Subcommand)]
pub enum SetCommand {
    /// Read a set value on standard input; print its members and a '# records=...' line
    #[command(
        args_override_self = true,
        after_help = "Example:\n  printf '+a +b -a ' | ketama set decode"
    )]
    Decode(SetDecodeArgs),
    /// Write the APPEND payload for the members to standard output
    #[command(
        args_override_self = true,
        after_help = "Example:\n  ketama set encode add --binary user:1 user:2 > payload"
    )]
    Encode(SetEncodeArgs),
    /// Read a set value on standard input and write its compacted form
    #[command(
        args_override_self = true,
        after_help = "Example:\n  ketama set compact --to b1 < value > compacted"
    )]
    Compact(SetCompactArgs),
}

/// Options for reading a set value.
#[derive(Debug, Args)]
pub struct SetReadArgs {
    #[arg(long, value_name = "E", help = encoding_help())]
    pub encoding: Option<String>,
    /// The longest member accepted, in bytes
    #[arg(long = "max-member-len", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_member_len: Option<u64>,
}

/// `ketama set decode`.
#[derive(Debug, Args)]
pub struct SetDecodeArgs {
    #[command(flatten)]
    pub read: SetReadArgs,
    /// Write one JSON document: {"members":[...],"records","removals","redundant","encoding"}
    #[arg(long)]
    pub json: bool,
}

/// `ketama set compact`.
#[derive(Debug, Args)]
pub struct SetCompactArgs {
    #[command(flatten)]
    pub read: SetReadArgs,
    #[arg(long, value_name = "E", help = to_help())]
    pub to: Option<String>,
}

/// `ketama set encode`.
#[derive(Debug, Args)]
pub struct SetEncodeArgs {
    /// What the records do with the members
    #[arg(value_name = "OP", value_parser = set_ops())]
    pub op: String,
    /// Write the binary encoding (b1) instead of text (t1)
    #[arg(long)]
    pub binary: bool,
    /// The members; put members that begin with '-' after '--'
    #[arg(value_name = "MEMBER", required = true)]
    pub members: Vec<OsString>,
}

/// What `set encode` writes: the library's record operations, each with
/// its documentation.
fn set_ops() -> clap::builder::PossibleValuesParser {
    use clap::builder::PossibleValue;
    use ketama_core::registry::Named;
    use ketama_core::setcodec::Op;
    let ops = Op::ALL
        .iter()
        .map(|op| PossibleValue::new(op.name()).help(op.doc().trim()));
    clap::builder::PossibleValuesParser::new(ops)
}

/// `ketama completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

/// The shells `ketama completions` writes for.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CompletionShell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
}
