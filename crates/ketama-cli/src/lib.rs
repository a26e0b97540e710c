//! The command line of `ketama` as a library: its clap definition
//! (`cli.rs`; `cli_migrate.rs` for `ketama migrate`; `cli_ring.rs` for the options that build a ring), which the binary (`main.rs`) parses with and the tests walk
//! to check that help, completions and the man page name every command and
//! option. The commands themselves are the binary's.

pub mod cli;
pub mod cli_migrate;
pub mod cli_ring;
