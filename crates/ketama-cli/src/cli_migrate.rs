//! The command line of `ketama migrate`, declared with clap's derive API
//! as `cli.rs` declares the other commands.

use std::ffi::OsString;

use clap::{Args, Subcommand};

use crate::cli_ring::{ChangeArgs, PlacementArgs, ServerListArgs, SidesArgs};

/// `ketama migrate …`.
#[derive(Debug, Subcommand)]
pub enum MigrateCommand {
    /// Print KEY<TAB>NEW_SERVER<TAB>OLD_SERVER for each key ('-' as the old server when the
    /// key does not move); keys from standard input, one per line, when none are given
    #[command(
        args_override_self = true,
        after_help = "Examples:\n  ketama migrate find old.servers new.servers user:1 user:2\n  \
ketama migrate find --from-flavor pecl-memcache --to-flavor php-memcached pool.servers pool.servers < keys.txt"
    )]
    Find(MigrateFindArgs),
    /// The plan of a move: the share of keys moving between each pair of servers, the reads
    /// each old server answers during the warm-up, and the servers to flush first
    #[command(
        args_override_self = true,
        after_help = "Examples:\n  ketama migrate plan old.servers new.servers\n  \
ketama migrate plan --from-flavor twemproxy --to-flavor mcrouter-ch3 --json pool.servers pool.servers"
    )]
    Plan(ChangeArgs),
    /// Print the keys of a server's 'lru_crawler metadump all' listing (a file, or standard
    /// input) that the move would serve from it though the old ring does not place them there:
    /// delete them on it (or flush it) before the move starts
    #[command(
        name = "at-risk",
        args_override_self = true,
        after_help = "Example:\n  \
printf 'lru_crawler metadump all\\r\\n' | nc -q1 10.0.0.4 11211 | ketama migrate at-risk --server 10.0.0.4:11211 old.servers new.servers"
    )]
    AtRisk(MigrateAtRiskArgs),
}

/// `ketama migrate find`.
#[derive(Debug, Args)]
pub struct MigrateFindArgs {
    #[command(flatten)]
    pub placement: PlacementArgs,
    #[command(flatten)]
    pub list: ServerListArgs,
    #[command(flatten)]
    pub sides: SidesArgs,
    /// Write JSON Lines: {"key":K,"new":S,"old":S or null} (see 'ketama --help' on escaping)
    #[arg(long)]
    pub json: bool,
    /// OLD NEW (the two server files; one list for both sides with --servers or
    /// --servers-file), then the keys; put keys that begin with '-' after '--'
    #[arg(value_name = "OLD NEW KEY")]
    pub arguments: Vec<OsString>,
}

/// `ketama migrate at-risk`.
#[derive(Debug, Args)]
pub struct MigrateAtRiskArgs {
    #[command(flatten)]
    pub placement: PlacementArgs,
    #[command(flatten)]
    pub sides: SidesArgs,
    /// The server whose listing it is, as the new side spells its address
    #[arg(long, value_name = "HOST:PORT", required = true)]
    pub server: String,
    /// OLD NEW (the two server files), then the listing file (none: standard input)
    #[arg(value_name = "OLD NEW LISTING", num_args = 2..=3)]
    pub files: Vec<OsString>,
}
