//! Server files are read with bounds in every entry point (compat roll,
//! modern ring, CLI): FIFOs and directories are refused at once, a
//! character device is read up to 64 KiB, size is capped,
//! the parser stops at the first bad line without holding the file, and the
//! roll cache stays bounded under churn. Memory is measured as the peak RSS
//! of a child process (`wait4`).

use ketama_testkit as common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use ketama_core::parser::ParseMode;
use ketama_core::server_file::{self, MAX_FILE_BYTES};
use ketama_core::{Ring, RingConfig};

/// Extra peak RSS a refused input may cost, over a small good file.
const EXTRA_RSS_CEILING_KIB: u64 = 32 * 1024;

/// Compiles a C program of tests/c once per test process.
fn program(name: &str, extra: &[&str]) -> std::path::PathBuf {
    static BUILT: Mutex<BTreeMap<String, std::path::PathBuf>> = Mutex::new(BTreeMap::new());
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    built
        .entry(name.to_string())
        .or_insert_with(|| {
            let source = common::repo_root().join(format!("tests/c/{name}.c"));
            common::compile_c(&[&source], name, extra)
        })
        .clone()
}

fn roll_files_program() -> std::path::PathBuf {
    program("roll_files", &[])
}

/// Runs the compat roll program on `files`; returns its lines and peak RSS.
fn roll_files(files: &[&Path]) -> (Vec<String>, u64) {
    let (out, peak) = common::run_measuring_peak_rss(
        Command::new(roll_files_program()).args(files),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{out:?}");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    (lines, peak)
}

fn good_file(name: &str) -> std::path::PathBuf {
    let path = common::scratch_dir(name).join("servers");
    std::fs::write(&path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t200\n").unwrap();
    path
}

/// A sparse file of `size` bytes starting with `head`.
fn sparse_file(name: &str, head: &[u8], size: u64) -> std::path::PathBuf {
    let path = common::scratch_dir(name).join("servers");
    std::fs::write(&path, head).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(size)
        .unwrap();
    path
}

#[test]
fn dev_zero_stops_at_once_in_the_compat_roll() {
    let good = good_file("rss-good");
    let (baseline, base_rss) = roll_files(&[&good]);
    assert_eq!(baseline[0], "OK 316");
    let (lines, rss) = roll_files(&[Path::new("/dev/zero")]);
    assert_eq!(
        lines[0],
        "FAIL Invalid filename specified: /dev/zero (gave more than 64 KiB, the most read from a \
         character device)"
    );
    assert!(
        rss < base_rss + EXTRA_RSS_CEILING_KIB,
        "/dev/zero cost {rss} KiB of peak RSS against {base_rss} KiB for a good file"
    );
}

#[test]
fn the_cli_stops_at_once_on_dev_zero_and_refuses_a_fifo() {
    let good = good_file("cli-rss-good");
    let (base, base_rss) = common::run_measuring_peak_rss(
        Command::new(common::cli()).args(["check", good.to_str().unwrap()]),
        Duration::from_secs(30),
    );
    assert!(base.status.success(), "{base:?}");
    let fifo = common::scratch_dir("fifo").join("servers.fifo");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    for (args, what) in [
        (
            vec!["check", "/dev/zero"],
            "/dev/zero: gave more than 64 KiB, the most read from a character device",
        ),
        (
            vec!["find", "/dev/zero", "k"],
            "Line longer than 126 bytes (libketama would split it into two lines) (line 1 in \
             /dev/zero)",
        ),
        (
            vec!["check", fifo.to_str().unwrap()],
            "is a FIFO, not a regular file",
        ),
    ] {
        let (out, rss) = common::run_measuring_peak_rss(
            Command::new(common::cli()).args(&args),
            Duration::from_secs(30),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(what), "{args:?}: {stderr}");
        assert!(
            rss < base_rss + EXTRA_RSS_CEILING_KIB,
            "{args:?} cost {rss} KiB against {base_rss} KiB"
        );
    }
}

#[test]
fn a_large_file_with_a_bad_first_line_is_not_read_whole() {
    // 60 MiB (under the cap), sparse: the strict and the libketama readings
    // both stop at line 1, after one read.
    let bad = sparse_file("bad-first-line", b"10.0.0.1:11211\tabc\n", 60 << 20);
    let (lines, rss) = roll_files(&[&bad]);
    let (_, base_rss) = roll_files(&[&good_file("bad-first-line-good")]);
    assert!(
        lines[0].starts_with("FAIL Invalid memory value (line 1 in"),
        "{lines:?}"
    );
    assert!(rss < base_rss + EXTRA_RSS_CEILING_KIB, "{rss} KiB");
    let (out, rss) = common::run_measuring_peak_rss(
        Command::new(common::cli()).args(["find", bad.to_str().unwrap(), "k"]),
        Duration::from_secs(30),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Invalid weight 'abc'"),
        "{out:?}"
    );
    assert!(rss < base_rss + EXTRA_RSS_CEILING_KIB, "{rss} KiB");
}

#[test]
fn files_over_the_size_limit_are_refused_before_reading() {
    let big = sparse_file("over-limit", b"10.0.0.1:11211\t100\n", MAX_FILE_BYTES + 1);
    let error = Ring::from_file(&big, RingConfig::default(), ParseMode::Strict)
        .unwrap_err()
        .to_string();
    assert!(
        error.ends_with("is 67108865 bytes, larger than the 64 MiB limit for server files"),
        "{error}"
    );
    let (lines, _) = roll_files(&[&big]);
    assert!(
        lines[0].contains("larger than the 64 MiB limit"),
        "{lines:?}"
    );
}

#[test]
fn every_reading_refuses_directories_and_reads_dev_null_as_empty() {
    let dir = common::scratch_dir("not-a-file");
    for mode in [ParseMode::Strict, ParseMode::Libketama, ParseMode::Peers] {
        let error = server_file::load(&dir, mode).unwrap_err().to_string();
        assert!(
            error.ends_with("is a directory, not a server file"),
            "{error}"
        );
        let error = server_file::load(Path::new("/dev/null"), mode)
            .unwrap_err()
            .to_string();
        assert_eq!(error, "No valid server definitions in file /dev/null");
    }
}

#[test]
fn a_long_peer_style_line_is_bounded() {
    // One 5 MiB line without a newline, in a sparse file of NUL bytes.
    let path = sparse_file("long-peer-line", b"10.0.0.1:11211", 5 << 20);
    let error = server_file::load(&path, ParseMode::Peers)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("line longer than 4194304 bytes (line 1 in"),
        "{error}"
    );
}

fn churn_program() -> std::path::PathBuf {
    program("roll_churn", &["-pthread"])
}

/// Peak RSS after a tenth of the work and at the end, and the roll count.
fn churn(args: &[&str]) -> (u64, u64, u64) {
    let out = common::run_with_timeout(
        Command::new(churn_program()).args(args),
        Duration::from_secs(240),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let field = |name: &str| -> u64 {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {stdout}"))
    };
    (
        field("rss_kib_at_tenth"),
        field("rss_kib_at_end"),
        field("rolls"),
    )
}

/// Growth of peak RSS allowed from a tenth of the churn to its end.
const CHURN_GROWTH_CEILING_KIB: u64 = 8 * 1024;

#[test]
fn rolling_ten_thousand_distinct_files_keeps_memory_bounded() {
    let dir = common::scratch_dir("churn-distinct");
    let (tenth, end, rolls) = churn(&["distinct", dir.to_str().unwrap(), "10000"]);
    eprintln!("10,000 distinct files: peak RSS {tenth} KiB at 1,000, {end} KiB at 10,000");
    assert_eq!(rolls, 10_000);
    assert!(
        end < tenth + CHURN_GROWTH_CEILING_KIB,
        "peak RSS grew from {tenth} KiB to {end} KiB"
    );
}

#[test]
fn one_file_replaced_ten_thousand_times_under_readers_keeps_memory_bounded() {
    let dir = common::scratch_dir("churn-rewrite");
    let (tenth, end, rolls) = churn(&["rewrite", dir.to_str().unwrap(), "10000", "4"]);
    eprintln!(
        "one file replaced 10,000 times, 4 readers holding up to 8 handles each: \
         {rolls} rolls, peak RSS {tenth} KiB at 1,000 replacements, {end} KiB at 10,000"
    );
    assert!(rolls > 0);
    assert!(
        end < tenth + CHURN_GROWTH_CEILING_KIB,
        "peak RSS grew from {tenth} KiB to {end} KiB"
    );
}
