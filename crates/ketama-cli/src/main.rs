//! `ketama`: the command-line tool of the ketama library.
//!
//! It maps keys to servers (`find`), prints continuums (`dump`), checks
//! server files (`check`), plans pool changes (`dist`, `diff`), carries a
//! pool across one (`migrate`) and inspects set values (`set`) with exactly
//! the library's engine. The command line is declared in `cli.rs` and
//! `cli_migrate.rs` (the package's library); each command turns its
//! arguments into library calls and prints the answer.

mod args;
mod migrate_commands;
mod plan_commands;
mod ring_commands;
mod set_commands;

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use ketama_cli::cli;

use cli::{Cli, Command, CompletionShell, CompletionsArgs, MigrateCommand, SetCommand};

/// A command's failure: the message and the exit code.
pub struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    /// A usage error (exit code 2), reported the way clap reports its own.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: 2,
        }
    }

    /// A runtime failure: invalid input (exit code 1).
    pub fn failed(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: 1,
        }
    }
}

impl From<ketama_core::Error> for Failure {
    fn from(error: ketama_core::Error) -> Self {
        Failure::failed(error.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Self {
        Failure::failed(format!("I/O error: {error}"))
    }
}

fn main() -> ExitCode {
    // clap exits with 2 on its own usage errors and 0 after --help/--version.
    let cli = Cli::parse();
    let (path, result): (&[&str], _) = match cli.command {
        Command::Find(args) => (&["find"], ring_commands::find(args)),
        Command::Dump(args) => (&["dump"], ring_commands::dump(args)),
        Command::Check(args) => (&["check"], ring_commands::check(args)),
        Command::Dist(args) => (&["dist"], plan_commands::dist(args)),
        Command::Diff(args) => (&["diff"], plan_commands::diff(args)),
        Command::Migrate(MigrateCommand::Find(args)) => {
            (&["migrate", "find"], migrate_commands::find(args))
        }
        Command::Migrate(MigrateCommand::Plan(args)) => {
            (&["migrate", "plan"], migrate_commands::plan(args))
        }
        Command::Migrate(MigrateCommand::AtRisk(args)) => {
            (&["migrate", "at-risk"], migrate_commands::at_risk(args))
        }
        Command::Set(SetCommand::Decode(args)) => (&["set", "decode"], set_commands::decode(args)),
        Command::Set(SetCommand::Encode(args)) => (&["set", "encode"], set_commands::encode(args)),
        Command::Set(SetCommand::Compact(args)) => {
            (&["set", "compact"], set_commands::compact(args))
        }
        Command::Completions(args) => (&["completions"], completions(args)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) if failure.message.contains("Broken pipe") => ExitCode::SUCCESS,
        Err(failure) if failure.code == 2 => usage_error(path, &failure.message),
        Err(failure) => {
            let _ = writeln!(std::io::stderr(), "ketama: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// Reports a usage error found after parsing (an unknown flavour, a missing
/// server file…) as clap reports its own: message, the command's usage line
/// and a pointer to `--help`; exits with 2.
fn usage_error(path: &[&str], message: &str) -> ! {
    let mut command = Cli::command();
    command.build();
    let mut current = &mut command;
    for name in path {
        current = current
            .find_subcommand_mut(name)
            .expect("the command path names declared subcommands");
    }
    current
        .error(clap::error::ErrorKind::ValueValidation, message)
        .exit()
}

/// `ketama completions SHELL`: the completion script on standard output.
fn completions(args: CompletionsArgs) -> Result<(), Failure> {
    let shell = match args.shell {
        CompletionShell::Bash => clap_complete::Shell::Bash,
        CompletionShell::Zsh => clap_complete::Shell::Zsh,
        CompletionShell::Fish => clap_complete::Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "ketama", &mut script);
    std::io::stdout().lock().write_all(&script)?;
    Ok(())
}
