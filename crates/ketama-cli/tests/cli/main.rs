//! The `ketama` command, run as users run it: each module is one concept of
//! the command line (its commands, conventions, flavours, JSON output, …).
//! The command under test is the binary cargo built for these tests
//! (`CARGO_BIN_EXE_ketama`); shared helpers come from `ketama_testkit`.

mod commands;
mod conventions;
mod flavours;
mod fuzz;
mod json;
mod migrate;
mod migration;
mod output;
mod progress;
mod published_peers;

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

/// The `ketama` command cargo built for these tests.
fn ketama_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_ketama"))
}

/// Runs `ketama` with `args` and `stdin` (bounded: 120 s).
fn ketama_cli<S: AsRef<OsStr>>(args: &[S], stdin: &[u8]) -> Output {
    ketama_testkit::run_with_input(
        Command::new(ketama_bin()).args(args),
        Some(stdin),
        Duration::from_secs(120),
    )
}

/// [`ketama_cli`] that must succeed; its standard output.
fn ketama_cli_ok(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = ketama_cli(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
