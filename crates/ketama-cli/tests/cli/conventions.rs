//! The conventions of the `ketama` command line: `--help` with an example on
//! every command, `--version`, clap's usage errors with exit code 2, shell
//! completions and the man page that name every command and option (taken
//! from the CLI's own clap definition), and the `make` targets that write
//! them.

use ketama_testkit as common;

use std::process::{Command, Output};

use clap::CommandFactory;

/// The CLI's clap definition, the one the binary and build.rs use.
use ketama_cli::cli;

fn ketama(args: &[&str]) -> Output {
    crate::ketama_cli(args, b"")
}

/// Every command as its words (`["set", "decode"]`), leaves and groups.
fn command_paths() -> Vec<Vec<String>> {
    fn walk(command: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in command.get_subcommands().filter(|c| c.get_name() != "help") {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_string());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut paths = Vec::new();
    walk(&cli::Cli::command(), &[], &mut paths);
    paths
}

/// True when the command at `path` is a group of subcommands (`set`,
/// `migrate`): its help lists them, it has no example of its own.
fn is_group(path: &[String]) -> bool {
    let root = cli::Cli::command();
    let mut command = &root;
    for word in path {
        command = command.find_subcommand(word).unwrap();
    }
    command.has_subcommands()
}

/// `(command words, long option names)` for every command.
fn long_options() -> Vec<(Vec<String>, Vec<String>)> {
    let root = cli::Cli::command();
    command_paths()
        .into_iter()
        .map(|path| {
            let mut command = &root;
            for word in &path {
                command = command.find_subcommand(word).unwrap();
            }
            let longs = command
                .get_arguments()
                .filter_map(|a| a.get_long())
                .map(str::to_string)
                .collect();
            (path, longs)
        })
        .collect()
}

#[test]
fn every_command_answers_help_with_usage_and_an_example() {
    let paths = command_paths();
    for word in [
        "find",
        "dump",
        "check",
        "dist",
        "diff",
        "migrate",
        "set",
        "completions",
    ] {
        assert!(paths.iter().any(|p| p == &[word]), "{word} is a command");
    }
    for path in &paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = ketama(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(&format!("Usage: ketama {}", path.join(" "))),
            "{args:?}: {text}"
        );
        let is_group = is_group(path);
        assert!(
            is_group || text.contains("Example"),
            "{args:?} shows an example: {text}"
        );
        // `-h` and `ketama help COMMAND` answer too.
        args.pop();
        args.push("-h");
        assert_eq!(ketama(&args).status.code(), Some(0), "{args:?}");
        let mut help = vec!["help"];
        help.extend(path.iter().map(String::as_str));
        assert!(
            String::from_utf8(ketama(&help).stdout)
                .unwrap()
                .contains(&format!("Usage: ketama {}", path.join(" "))),
            "{help:?}"
        );
    }
    let root = ketama(&["--help"]);
    assert_eq!(root.status.code(), Some(0));
    let text = String::from_utf8(root.stdout).unwrap();
    for section in ["Exit status:", "JSON output:", "Bytes that are not UTF-8:"] {
        assert!(text.contains(section), "{section}: {text}");
    }
}

#[test]
fn version_names_the_package_version() {
    for flag in ["--version", "-V"] {
        let out = ketama(&[flag]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("ketama {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn usage_errors_are_claps_message_with_the_commands_usage_and_exit_2() {
    let sample = common::repo_root().join("examples/ketama.servers");
    let sample = sample.to_str().unwrap();
    for (args, message, usage) in [
        (
            &["frobnicate"][..],
            "unrecognized subcommand 'frobnicate'",
            "Usage: ketama ",
        ),
        (
            &["find", "--bogus", sample],
            "unexpected argument '--bogus'",
            "Usage: ketama find",
        ),
        (
            &["find", "--flavor", "nope", sample],
            "unknown flavour \"nope\" (known: libketama, spymemcached,",
            "Usage: ketama find",
        ),
        (
            &["dump"],
            "give a SERVERS_FILE or --servers H:P,...",
            "Usage: ketama dump",
        ),
        (
            &["diff", sample, sample, sample],
            "diff takes two server files",
            "Usage: ketama diff",
        ),
        (
            &["set", "compact", "--to", "x"],
            "--to 'x' must be t1 or b1",
            "Usage: ketama set compact",
        ),
        (
            &["completions", "tcsh"],
            "invalid value 'tcsh'",
            "possible values: bash, zsh, fish",
        ),
    ] {
        let out = ketama(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(stderr.contains(usage), "{args:?}: {stderr}");
        assert!(stderr.contains("--help"), "{args:?}: {stderr}");
    }
    // No command at all: the help on stderr, exit 2.
    let bare = ketama(&[]);
    assert_eq!(bare.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bare.stderr).contains("Usage: ketama <COMMAND>"));
}

/// The three completion scripts, as `ketama completions SHELL` writes them.
fn completions() -> Vec<(&'static str, String)> {
    ["bash", "zsh", "fish"]
        .into_iter()
        .map(|shell| {
            let out = ketama(&["completions", shell]);
            assert_eq!(out.status.code(), Some(0), "{shell}");
            (shell, String::from_utf8(out.stdout).unwrap())
        })
        .collect()
}

#[test]
fn completions_name_every_command_and_option_and_bash_accepts_its_script() {
    let scripts = completions();
    for (shell, script) in &scripts {
        for (path, longs) in long_options() {
            let name = path.last().unwrap();
            assert!(script.contains(name.as_str()), "{shell}: {path:?}");
            for long in longs {
                let spelled = if *shell == "fish" {
                    format!("-l {long}")
                } else {
                    format!("--{long}")
                };
                assert!(script.contains(&spelled), "{shell}: {path:?} --{long}");
            }
        }
    }
    let (_, bash) = &scripts[0];
    let dir = common::scratch_dir("cli-completions");
    let file = dir.join("ketama.bash");
    std::fs::write(&file, bash).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&file).output().unwrap();
    assert!(
        syntax.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&syntax.stderr)
    );
    // Sourced, it completes the commands after `ketama `.
    let completed = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {}; COMP_WORDS=(ketama di); COMP_CWORD=1; COMP_LINE='ketama di'; COMP_POINT=9; \
             _ketama ketama di ketama; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            file.display()
        ))
        .output()
        .unwrap();
    let words = String::from_utf8(completed.stdout).unwrap();
    assert_eq!(
        words.lines().collect::<Vec<_>>(),
        ["dist", "diff"],
        "{}",
        String::from_utf8_lossy(&completed.stderr)
    );
    assert!(scripts[1].1.starts_with("#compdef ketama"));
    assert!(scripts[2].1.contains("complete -c ketama"));
}

#[test]
fn make_completions_files_writes_the_three_scripts() {
    common::require_tool("make", "make");
    let out_dir = common::scratch_dir("cli-make-completions");
    let status = Command::new("make")
        .current_dir(common::repo_root())
        .args(["--no-print-directory", "-s", "completions-files"])
        .arg(format!("CLI={}", crate::ketama_bin().to_str().unwrap()))
        .arg(format!("COMPLETIONS_OUT={}", out_dir.display()))
        .status()
        .unwrap();
    assert!(status.success());
    for ((_, script), file) in completions()
        .iter()
        .zip(["ketama.bash", "_ketama", "ketama.fish"])
    {
        assert_eq!(
            &std::fs::read_to_string(out_dir.join(file)).unwrap(),
            script
        );
    }
}

/// The man page build.rs rendered for this build.
/// `ketama.1` as the CLI crate's build script rendered it: the newest
/// `build/ketama-cli-*/out/ketama.1` beside the CLI binary.
fn man_page_path() -> std::path::PathBuf {
    let build = crate::ketama_bin().parent().unwrap().join("build");
    std::fs::read_dir(&build)
        .unwrap()
        .filter_map(|entry| {
            let page = entry.ok()?.path().join("out/ketama.1");
            let built = page.metadata().ok()?.modified().ok()?;
            Some((built, page))
        })
        .filter(|(_, page)| {
            let dir = page.parent().unwrap().parent().unwrap();
            dir.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("ketama-cli-")
        })
        .max()
        .map(|(_, page)| page)
        .unwrap_or_else(|| panic!("no ketama-cli-*/out/ketama.1 under {}", build.display()))
}

fn man_page() -> String {
    std::fs::read_to_string(man_page_path()).unwrap()
}

#[test]
fn the_man_page_documents_every_command_option_and_convention() {
    let page = man_page();
    assert!(page.contains("\n.TH ketama 1 "), "{}", &page[..120]);
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH COMMANDS",
        ".SH \"EXIT STATUS\"",
        ".SH \"JSON OUTPUT\"",
        ".SH \"BYTES THAT ARE NOT UTF-8\"",
        ".SH VERSION",
    ] {
        assert!(page.contains(section), "{section}");
    }
    // roff escapes '-' as '\-'.
    for (path, longs) in long_options() {
        if is_group(&path) {
            continue;
        }
        let title = format!(".SS \"ketama {}\"", path.join(" "));
        let start = page.find(&title).unwrap_or_else(|| panic!("{title}"));
        let section = &page[start..];
        let end = section[title.len()..]
            .find(".SS ")
            .or_else(|| section.find(".SH \"EXIT"))
            .unwrap();
        let section = &section[..title.len() + end];
        for long in longs {
            let spelled = format!("\\-\\-{}", long.replace('-', "\\-"));
            assert!(section.contains(&spelled), "{title}: --{long}");
        }
        assert!(section.contains("Example"), "{title} shows an example");
    }

    // It renders without a warning, and man reads it.
    common::require_tool("groff", "groff-base");
    let dir = common::scratch_dir("cli-man");
    let file = dir.join("ketama.1");
    std::fs::write(&file, &page).unwrap();
    let rendered = Command::new("groff")
        .args(["-man", "-Tascii", "-ww"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(rendered.status.success());
    assert!(
        rendered.stderr.is_empty(),
        "groff warns: {}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    // Bold and underline are overstruck: drop each character a backspace follows.
    let mut text = String::new();
    for c in String::from_utf8_lossy(&rendered.stdout).chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    for line in ["EXIT STATUS", "ketama find", "ketama set decode", "--json"] {
        assert!(text.contains(line), "{line}");
    }
}

#[test]
fn make_man_files_copies_the_page() {
    common::require_tool("make", "make");
    let out_dir = common::scratch_dir("cli-make-man");
    let status = Command::new("make")
        .current_dir(common::repo_root())
        .args(["--no-print-directory", "-s", "man-files"])
        .arg(format!("MAN_SOURCE={}", man_page_path().display()))
        .arg(format!("MAN_OUT={}", out_dir.display()))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(out_dir.join("ketama.1")).unwrap(),
        man_page()
    );
}
