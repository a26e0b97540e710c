//! A bounded fuzz run of the CLI's argument handling: random argument
//! vectors built from the CLI's own words, good and bad values (a device, a
//! missing file, a directory, huge numbers, unknown names, stray bytes), and
//! random bytes on standard input. The CLI must answer each with exit code
//! 0, 1 (invalid input) or 2 (usage), a message on stderr when it fails,
//! within the time limit, and never a panic or a signal.
//! `KETAMA_CLI_FUZZ_RUNS` sets the number of runs (default 600).

use ketama_testkit as common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::random::XorShift;

const COMMANDS: &[&str] = &[
    "find",
    "dump",
    "check",
    "dist",
    "diff",
    "set",
    "help",
    "--help",
    "--version",
    "bogus",
    "",
];
const SET_COMMANDS: &[&str] = &["decode", "compact", "encode", "nope"];
const OPTIONS: &[&str] = &[
    "--flavor",
    "--flavour",
    "--hash",
    "--servers",
    "--servers-file",
    "--down",
    "--weights",
    "--keys",
    "--libketama-parser",
    "--binary",
    "--encoding",
    "--max-member-len",
    "--to",
    "--",
    "-x",
    "--help",
    "--from-flavor",
    "--to-flavor",
    "--json",
];

fn run(args: &[String], stdin: &[u8]) -> (Option<i32>, String) {
    let mut child = Command::new(crate::ketama_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ketama");
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin);
    drop(input);
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ketama {args:?} did not finish within 20 s");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    use std::os::unix::process::ExitStatusExt;
    if let Some(signal) = status.signal() {
        panic!("ketama {args:?} died of signal {signal}");
    }
    (status.code(), reader.join().unwrap())
}

#[test]
fn random_argument_vectors_get_an_answer_and_an_exit_code() {
    let dir = common::scratch_dir("cli-fuzz");
    let good = dir.join("servers");
    std::fs::write(&good, "10.0.0.1:11211\t100\n10.0.0.2:11211\t200\n").unwrap();
    let bad = dir.join("bad");
    std::fs::write(&bad, "10.0.0.1:11211\tlots\n").unwrap();
    let (good, bad, dir_s) = (
        good.display().to_string(),
        bad.display().to_string(),
        dir.display().to_string(),
    );
    let values: Vec<&str> = vec![
        &good,
        &bad,
        &dir_s,
        "/dev/zero",
        "/nonexistent/servers",
        "",
        "10.0.0.1:11211,10.0.0.2:11211",
        "[::1]:11211:3",
        "libketama",
        "dalli",
        "pymemcache",
        "nope",
        "md5",
        "crc",
        "fnv1a_64",
        "0",
        "-1",
        "99999999999999999999",
        "t1",
        "b1",
        "key:1",
        "\u{1F600}",
        "a,b,,c",
    ];
    let runs: usize = std::env::var("KETAMA_CLI_FUZZ_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let mut rng = XorShift(0xC11F_0022_D00D);
    let mut codes = [0usize; 3];
    for _ in 0..runs {
        let mut args = vec![rng.pick(COMMANDS).to_string()];
        if args[0] == "set" {
            args.push(rng.pick(SET_COMMANDS).to_string());
        }
        for _ in 0..rng.next() % 6 {
            match rng.next() % 3 {
                0 => args.push(rng.pick(OPTIONS).to_string()),
                1 => args.push(rng.pick(&values).to_string()),
                _ => {
                    args.push(rng.pick(OPTIONS).to_string());
                    args.push(rng.pick(&values).to_string());
                }
            }
        }
        let stdin: Vec<u8> = (0..rng.next() % 64).map(|_| rng.next() as u8).collect();
        let (code, stderr) = run(&args, &stdin);
        assert!(
            !stderr.contains("panicked"),
            "ketama {args:?} panicked: {stderr}"
        );
        match code {
            Some(c @ 0..=2) => {
                codes[c as usize] += 1;
                if c != 0 {
                    assert!(!stderr.trim().is_empty(), "ketama {args:?} failed silently");
                }
            }
            other => panic!("ketama {args:?} exited with {other:?}: {stderr}"),
        }
    }
    eprintln!(
        "cli fuzz: {runs} runs, {} exit 0, {} exit 1, {} exit 2",
        codes[0], codes[1], codes[2]
    );
    assert!(
        codes.iter().all(|&n| n > 0),
        "every exit code was seen: {codes:?}"
    );
}
