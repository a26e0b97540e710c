//! Build script of the `ketama` command: the man page `ketama.1`, rendered
//! with clap_mangen from the CLI's own clap definition (`src/cli.rs`,
//! included here) into `$OUT_DIR/ketama.1`; `make man` copies it to
//! `target/man/ketama.1`.

use std::env;
use std::path::PathBuf;

/// The CLI's clap definition, shared with the binary.
#[path = "src/cli.rs"]
#[allow(dead_code)]
mod cli;
/// The part of it that declares `ketama migrate`.
#[path = "src/cli_migrate.rs"]
#[allow(dead_code)]
mod cli_migrate;
/// The options that build a ring, shared by both.
#[path = "src/cli_ring.rs"]
#[allow(dead_code)]
mod cli_ring;

fn main() {
    println!("cargo:rerun-if-changed=src/cli.rs");
    println!("cargo:rerun-if-changed=src/cli_migrate.rs");
    println!("cargo:rerun-if-changed=src/cli_ring.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out_dir.join("ketama.1"), man_page()).expect("OUT_DIR is writable");
}

/// `ketama.1`: clap_mangen's name, synopsis, description and options of
/// `ketama`, then one subsection per command (usage, description, options,
/// example), the exit status, the JSON output and the escaping of bytes.
fn man_page() -> Vec<u8> {
    use clap::CommandFactory;
    use clap_mangen::roff::{Roff, bold, italic, roman};

    let mut command = cli::Cli::command();
    command.build();
    let man = clap_mangen::Man::new(command.clone()).manual("ketama manual");
    let mut page = Vec::new();
    man.render_title(&mut page).unwrap();
    man.render_name_section(&mut page).unwrap();
    man.render_synopsis_section(&mut page).unwrap();
    man.render_description_section(&mut page).unwrap();
    man.render_options_section(&mut page).unwrap();

    let mut roff = Roff::new();
    roff.control("SH", ["COMMANDS"]);
    let mut commands = Vec::new();
    for sub in command.get_subcommands().filter(|c| c.get_name() != "help") {
        if sub.has_subcommands() {
            commands.extend(sub.get_subcommands().filter(|c| c.get_name() != "help"));
        } else {
            commands.push(sub);
        }
    }
    for sub in commands {
        let name = sub.get_bin_name().unwrap_or(sub.get_name()).to_string();
        roff.control("SS", [name.as_str()]);
        let usage = sub.clone().render_usage().to_string();
        let usage = usage.trim_start_matches("Usage: ").trim();
        roff.text([bold(usage)]);
        roff.control("PP", []);
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            roff.text([roman(format!("{about}."))]);
        }
        for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
            roff.control("TP", []);
            let mut head = Vec::new();
            if arg.is_positional() {
                let value = arg
                    .get_value_names()
                    .and_then(|v| v.first())
                    .map_or(arg.get_id().to_string(), |v| v.to_string());
                head.push(italic(value));
            } else {
                let mut names: Vec<String> = arg
                    .get_short()
                    .map(|s| format!("-{s}"))
                    .into_iter()
                    .collect();
                names.extend(arg.get_long().map(|l| format!("--{l}")));
                names.extend(
                    arg.get_visible_aliases()
                        .into_iter()
                        .flatten()
                        .map(|a| format!("--{a}")),
                );
                head.push(bold(names.join(", ")));
                if arg.get_action().takes_values() {
                    if let Some(value) = arg.get_value_names().and_then(|v| v.first()) {
                        head.push(roman(" "));
                        head.push(italic(value.to_string()));
                    }
                }
            }
            roff.text(head);
            if let Some(help) = arg.get_long_help().or(arg.get_help()) {
                roff.text([roman(help.to_string())]);
            }
        }
        if let Some(example) = sub.get_after_help() {
            roff.control("PP", []);
            roff.control("nf", []);
            for line in example.to_string().lines() {
                roff.text([roman(line)]);
            }
            roff.control("fi", []);
        }
    }
    for (title, text) in [
        ("EXIT STATUS", cli::EXIT_STATUS),
        ("JSON OUTPUT", cli::JSON_OUTPUT),
        ("BYTES THAT ARE NOT UTF-8", cli::ESCAPING),
    ] {
        roff.control("SH", [title]);
        roff.control("nf", []);
        for line in text.lines() {
            roff.text([roman(line)]);
        }
        roff.control("fi", []);
    }
    roff.to_writer(&mut page).unwrap();
    man.render_version_section(&mut page).unwrap();
    page
}
