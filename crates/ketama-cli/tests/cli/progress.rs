//! Progress on long work (`dist --keys`, a `diff` of large lists) is drawn
//! on standard error only when it is a terminal: with standard error piped
//! nothing at all is written there; on a terminal (a pseudo-terminal made
//! by `script`) the progress appears and standard output is unchanged.

use ketama_testkit as common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn bin() -> std::path::PathBuf {
    crate::ketama_bin().to_path_buf()
}

/// A server file of `count` equal servers.
fn servers(path: &Path, count: usize) {
    let list: String = (0..count)
        .map(|i| format!("10.{}.{}.{}:11211\t100\n", i >> 16, (i >> 8) & 255, i & 255))
        .collect();
    std::fs::write(path, list).unwrap();
}

struct Inputs {
    dir: std::path::PathBuf,
    keys: String,
    old: String,
    new: String,
}

fn inputs(name: &str) -> Inputs {
    let dir = common::scratch_dir(name);
    let keys = dir.join("keys");
    std::fs::write(
        &keys,
        (0..200_000)
            .map(|i| format!("key:{i}\n"))
            .collect::<String>(),
    )
    .unwrap();
    // Together past a million points: the size from which diff shows a spinner.
    let (old, new) = (dir.join("old"), dir.join("new"));
    servers(&old, 3200);
    servers(&new, 3300);
    let path = |p: &Path| p.to_str().unwrap().to_string();
    Inputs {
        keys: path(&keys),
        old: path(&old),
        new: path(&new),
        dir,
    }
}

fn commands(inputs: &Inputs) -> Vec<Vec<String>> {
    let sample = common::repo_root().join("examples/ketama.servers");
    vec![
        vec![
            "dist".into(),
            "--keys".into(),
            inputs.keys.clone(),
            sample.display().to_string(),
        ],
        vec!["diff".into(), inputs.old.clone(), inputs.new.clone()],
    ]
}

#[test]
fn nothing_is_written_to_stderr_when_it_is_not_a_terminal() {
    let inputs = inputs("cli-progress-pipe");
    for args in commands(&inputs) {
        let out =
            common::run_with_timeout(Command::new(bin()).args(&args), Duration::from_secs(300));
        assert!(out.status.success(), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "{args:?} wrote to a piped stderr"
        );
    }
}

#[test]
fn progress_appears_on_a_terminal_and_stdout_is_unchanged() {
    common::require_tool("script", "bsdutils");
    let inputs = inputs("cli-progress-tty");
    for (args, shown) in commands(&inputs)
        .into_iter()
        .zip(["reading keys from", "comparing"])
    {
        let piped =
            common::run_with_timeout(Command::new(bin()).args(&args), Duration::from_secs(300));
        // Under `script`, stderr is a pseudo-terminal and stdout a file.
        let stdout = inputs.dir.join("stdout");
        let line = format!(
            "{} {} > {}",
            bin().display(),
            args.iter()
                .map(|a| format!("'{a}'"))
                .collect::<Vec<_>>()
                .join(" "),
            stdout.display()
        );
        let terminal = common::run_with_timeout(
            Command::new("script")
                .args(["-qec", &line, "/dev/null"])
                .env("TERM", "xterm"),
            Duration::from_secs(300),
        );
        assert!(terminal.status.success(), "{args:?}");
        let on_terminal = String::from_utf8_lossy(&terminal.stdout);
        assert!(
            on_terminal.contains(shown),
            "{args:?} shows '{shown}' on a terminal: {on_terminal:?}"
        );
        assert_eq!(std::fs::read(&stdout).unwrap(), piped.stdout, "{args:?}");
    }
}
