//! Oracle comparison with the original libketama C code (PyPI `ketama==0.1.1`,
//! compiled by pip; driven through ctypes by ketama-testkit/oracle/libketama_oracle.py).
//!
//! For every server list: the same continuum (every point and address) and
//! the same server for every key, through the compat ABI (`ketama_roll`,
//! `ketama_get_server`, `cont->array`) and through the modern ring
//! (`Ring::locate` with explicit key lengths). For malformed files both must
//! fail, on the same line.

use ketama_testkit as common;
use ketama_testkit::oracle_lists;

use std::ffi::{CString, c_char};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use ketama::compat::{continuum, ketama_get_server, ketama_smoke, mcs};
use ketama_core::parser::ParseMode;
use ketama_core::{Ring, RingConfig};
use oracle_lists::{
    Lcg, MALFORMED_FILES, equal, hex_encode, lines, oracle_python, oracle_server_lists, test_keys,
};

struct OracleRoll {
    ok: bool,
    error: String,
    points: Vec<(u32, Vec<u8>)>,
    keys: Vec<(usize, u32)>,
}

/// Runs the oracle script with `mode` on the server files `files` (then
/// `extra` arguments). The SysV objects the original creates for those
/// files are removed afterwards, also when the original crashes or the
/// test fails.
fn run_original(mode: &str, files: &[&Path], extra: &[&Path], limit: Duration) -> Output {
    let _guard = common::sysv::SysvGuard::new(files);
    let script = common::oracle_script();
    common::run_with_timeout(
        Command::new(oracle_python())
            .arg(script)
            .arg(mode)
            .args(files)
            .args(extra),
        limit,
    )
}

fn ask_oracle(servers: &Path, keys: Option<&Path>) -> OracleRoll {
    let extra: Vec<&Path> = keys.into_iter().collect();
    let output = run_original("roll", &[servers], &extra, Duration::from_secs(120));
    assert!(
        output.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut roll = OracleRoll {
        ok: false,
        error: String::new(),
        points: vec![],
        keys: vec![],
    };
    for line in output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
    {
        let fields: Vec<&[u8]> = line.splitn(3, |&b| b == b'\t').collect();
        let text = |i: usize| std::str::from_utf8(fields[i]).unwrap();
        match fields[0] {
            b"roll" => {
                roll.ok = text(1) == "1";
                roll.error = fields
                    .get(2)
                    .map(|e| String::from_utf8_lossy(e).into_owned())
                    .unwrap_or_default();
            }
            b"points" => {}
            b"P" => roll
                .points
                .push((text(1).parse().unwrap(), hex_decode(text(2)))),
            b"K" => roll
                .keys
                .push((text(1).parse().unwrap(), text(2).parse().unwrap())),
            other => panic!(
                "unexpected oracle line {:?}",
                String::from_utf8_lossy(other)
            ),
        }
    }
    roll
}

fn hex_decode(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// The first 22 bytes of an `ip` field, up to its first NUL.
fn ip_prefix(ip: &[u8]) -> &[u8] {
    let ip = &ip[..22];
    ip.iter().position(|&b| b == 0).map_or(ip, |nul| &ip[..nul])
}

/// Compares one server file with the oracle; returns the number of keys compared.
fn compare_file(name: &str, content: &[u8]) -> usize {
    let dir = common::scratch_dir("oracle");
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    let lines: Vec<String> = String::from_utf8_lossy(content)
        .lines()
        .map(str::to_string)
        .collect();
    let keys = test_keys(&lines);
    let keys_path = dir.join(format!("{name}.keys"));
    let hex: String = keys.iter().map(|k| hex_encode(k) + "\n").collect();
    std::fs::write(&keys_path, hex).unwrap();
    let oracle = ask_oracle(&path, Some(&keys_path));
    assert!(
        oracle.ok,
        "{name}: the oracle rejected a file meant to be valid: {}",
        oracle.error
    );

    let cont = crate::compat_roll(&path).unwrap_or_else(|e| panic!("{name}: our roll failed: {e}"));
    // SAFETY: cont is a live continuum from ketama_roll.
    let c: &continuum = unsafe { &*cont };
    assert_eq!(
        c.numpoints as usize,
        oracle.points.len(),
        "{name}: numpoints"
    );
    // SAFETY: array holds numpoints mcs records.
    let array = unsafe { std::slice::from_raw_parts(c.array as *const mcs, c.numpoints as usize) };
    for (i, (ours, theirs)) in array.iter().zip(&oracle.points).enumerate() {
        assert_eq!(ours.point, theirs.0, "{name}: point {i}");
        let ip: Vec<u8> = ours.ip.iter().map(|&b| b as u8).collect();
        assert_eq!(
            ip_prefix(&ip),
            ip_prefix(&theirs.1),
            "{name}: address of point {i}"
        );
    }

    let ring = Ring::from_file(&path, RingConfig::default(), ParseMode::Libketama).unwrap();
    let mut compared = 0;
    for (key, &(index, point)) in keys.iter().zip(&oracle.keys) {
        let at = ring.locate(key).unwrap();
        assert_eq!(
            (at.point_index, at.point),
            (index, point),
            "{name}: modern lookup of key {:?}",
            hex_encode(key)
        );
        if !key.contains(&0) {
            let ckey = CString::new(key.clone()).unwrap();
            // SAFETY: live continuum, NUL-terminated key.
            let found = unsafe { ketama_get_server(ckey.as_ptr() as *mut c_char, cont) };
            let found_index = (found as usize - c.array as usize) / std::mem::size_of::<mcs>();
            // SAFETY: found points into the array.
            let found_point = unsafe { (*found).point };
            assert_eq!(
                (found_index, found_point),
                (index, point),
                "{name}: ketama_get_server"
            );
        }
        compared += 1;
    }
    assert_eq!(compared, keys.len());
    // SAFETY: cont came from ketama_roll and is smoked once.
    unsafe { ketama_smoke(cont) };
    compared
}

#[test]
fn continuum_and_lookups_match_the_original_for_every_server_list() {
    let files = oracle_server_lists();
    let mut total_keys = 0;
    for (name, content) in &files {
        total_keys += compare_file(name, content);
    }
    eprintln!(
        "compared {} server lists and {total_keys} key lookups with the original: 0 differences",
        files.len()
    );
}

#[test]
fn zero_point_servers_really_get_no_points() {
    let content = lines(&[
        ("10.3.0.1:11211".into(), 1000),
        ("10.3.0.2:11211".into(), 1000),
        ("10.3.0.3:11211".into(), 1),
    ]);
    compare_file("zero_point", &content);
    let ring = Ring::new(
        ketama_core::parser::libketama::parse(&content, "f").unwrap(),
        RingConfig::default(),
    )
    .unwrap();
    assert_eq!(ring.servers()[2].point_count(), 0);
}

#[test]
fn malformed_files_fail_on_the_same_line_as_the_original() {
    // Files the original rejects without crashing (crashing inputs are in
    // tests/c_abi/bad_input.rs).
    let cases = MALFORMED_FILES;
    let dir = common::scratch_dir("oracle-bad");
    for (name, content) in cases {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let oracle = ask_oracle(&path, None);
        assert!(!oracle.ok, "{name}: the original accepted it");
        let ours = crate::compat_roll(&path).expect_err(name);
        let line_of = |message: &str| message.rfind("(line ").map(|at| message[at..].to_string());
        assert_eq!(
            line_of(&ours),
            line_of(&oracle.error),
            "{name}: ours {ours:?}, original {:?}",
            oracle.error
        );
        if line_of(&ours).is_some() {
            assert!(
                !ours.starts_with(" ("),
                "{name}: our message keeps its reason: {ours:?}"
            );
        } else {
            assert_eq!(ours, oracle.error, "{name}");
        }
    }
}

#[test]
fn point_counts_match_the_original_for_random_weights() {
    // The float rule (f32 share, double product, float floor) differs from
    // exact arithmetic in rare configurations; sweep many to catch them.
    let dir = common::scratch_dir("oracle-counts");
    let mut rng = Lcg(2024);
    let mut paths = Vec::new();
    let mut expected = Vec::new();
    for config in 0..400 {
        let n = 1 + (rng.next() % 40) as usize;
        let scale = [10, 1000, 1 << 20][config % 3];
        let entries: Vec<(String, u64)> = (0..n)
            .map(|i| {
                (
                    format!("10.{}.0.{}:11211", config % 250, i + 1),
                    1 + rng.next() % scale,
                )
            })
            .collect();
        let path = dir.join(format!("config{config}"));
        std::fs::write(&path, lines(&entries)).unwrap();
        let servers = ketama_core::parser::libketama::parse(&lines(&entries), "f").unwrap();
        expected.push(
            Ring::new(servers, RingConfig::default())
                .unwrap()
                .continuum()
                .len()
                .to_string(),
        );
        paths.push(path);
    }
    let files: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let output = run_original("counts", &files, &[], Duration::from_secs(300));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let theirs: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(theirs.len(), expected.len());
    let differing: Vec<usize> = (0..expected.len())
        .filter(|&i| expected[i] != theirs[i])
        .collect();
    assert!(
        differing.is_empty(),
        "configurations with different point counts: {differing:?}"
    );
}

#[test]
fn a_c_program_written_for_libketama_prints_what_the_original_prints() {
    let program = common::compile_c(
        &[&common::repo_root().join("tests/c/legacy_client.c")],
        "legacy_client",
        &[],
    );
    let dir = common::scratch_dir("oracle-c");
    let path = dir.join("ketama.servers");
    let mut entries = equal(4);
    entries.push(("255.255.255.255:655351".into(), 150)); // 22 bytes: NUL-terminated in ours
    std::fs::write(&path, lines(&entries)).unwrap();
    let keys: Vec<String> = (0..300).map(|i| format!("user:{i}")).collect();
    let mut args = vec![path.to_str().unwrap()];
    args.extend(keys.iter().map(String::as_str));
    let output = common::assert_valgrind_clean(&program, &args, Duration::from_secs(300));
    let text = String::from_utf8(output.stdout).unwrap();
    let (ours_head, ours_print) =
        text.split_at(text.find("Numpoints in continuum:").expect("print section"));

    // The print section is byte-identical to the original's.
    let printed = run_original("print", &[&path], &[], Duration::from_secs(60));
    // The original prints a 22-byte address followed by whatever bytes come
    // after it in memory; compare the first 22 address bytes and the point.
    let parse = |text: &[u8]| -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut records = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.windows(2).position(|w| w == b" (") {
            let close = open + rest[open..].iter().position(|&b| b == b')').unwrap();
            let ip = &rest[..open];
            records.push((
                ip[..ip.len().min(22)].to_vec(),
                rest[open + 2..close].to_vec(),
            ));
            rest = &rest[close + 2..];
        }
        records
    };
    let (ours_count, ours_body) = ours_print.split_once('\n').unwrap();
    let theirs_text = &printed.stdout;
    let newline = theirs_text.iter().position(|&b| b == b'\n').unwrap();
    assert_eq!(ours_count.as_bytes(), &theirs_text[..newline], "count line");
    let (ours_records, theirs_records) = (
        parse(ours_body.as_bytes()),
        parse(&theirs_text[newline + 1..]),
    );
    assert_eq!(ours_records.len(), theirs_records.len());
    if let Some(i) = (0..ours_records.len()).find(|&i| ours_records[i] != theirs_records[i]) {
        panic!(
            "printed point {i} differs: ours {:?}, original {:?}",
            ours_records[i], theirs_records[i]
        );
    }
    assert!(
        ours_print.contains("255.255.255.255:655351 ("),
        "22-byte address printed whole"
    );

    // Each key line agrees with the original's lookup.
    let keys_path = dir.join("keys");
    std::fs::write(
        &keys_path,
        keys.iter()
            .map(|k| hex_encode(k.as_bytes()) + "\n")
            .collect::<String>(),
    )
    .unwrap();
    let oracle = ask_oracle(&path, Some(&keys_path));
    let key_lines: Vec<&str> = ours_head
        .lines()
        .filter(|l| l.starts_with("key "))
        .collect();
    assert_eq!(key_lines.len(), keys.len());
    for (line, (index, point)) in key_lines.iter().zip(&oracle.keys) {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(
            (f[5].parse::<u32>().unwrap(), f[9].parse::<usize>().unwrap()),
            (*point, *index),
            "{line}"
        );
        assert_eq!(
            ip_prefix(&oracle.points[*index].1),
            f[7].as_bytes().get(..22.min(f[7].len())).unwrap()
        );
    }
    assert!(ours_head.starts_with("roll 1 error ''\n"), "{ours_head}");
    assert!(ours_head.contains(&format!(
        "points {} sorted 1 modtime set",
        oracle.points.len()
    )));
    assert!(ours_head.contains("md5(test) 098f6bcd4621d373cade4e832627b4f6"));
    assert!(!ours_head.contains("FAIL"), "{ours_head}");
}

#[test]
fn cli_dump_and_find_on_the_sample_file_agree_with_the_original() {
    let sample = common::repo_root().join("examples/ketama.servers");
    let dir = common::scratch_dir("oracle-cli");
    let keys: Vec<String> = (0..2000).map(|i| format!("object:{i}")).collect();
    let keys_path = dir.join("keys");
    std::fs::write(
        &keys_path,
        keys.iter()
            .map(|k| hex_encode(k.as_bytes()) + "\n")
            .collect::<String>(),
    )
    .unwrap();
    let oracle = ask_oracle(&sample, Some(&keys_path));
    assert!(oracle.ok);

    let dump = Command::new(common::cli())
        .arg("dump")
        .arg(&sample)
        .output()
        .unwrap();
    let dumped: Vec<(u32, Vec<u8>)> = String::from_utf8(dump.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (point, server) = l.split_once('\t').unwrap();
            (point.parse().unwrap(), server.as_bytes().to_vec())
        })
        .collect();
    let theirs: Vec<(u32, Vec<u8>)> = oracle
        .points
        .iter()
        .map(|(p, ip)| (*p, ip_prefix(ip).to_vec()))
        .collect();
    assert_eq!(dumped, theirs);

    let find = Command::new(common::cli())
        .arg("find")
        .arg(&sample)
        .args(&keys)
        .output()
        .unwrap();
    let found: Vec<String> = String::from_utf8(find.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    for ((line, key), (index, _)) in found.iter().zip(&keys).zip(&oracle.keys) {
        let server = String::from_utf8(ip_prefix(&oracle.points[*index].1).to_vec()).unwrap();
        assert_eq!(line, &format!("{key}\t{server}"));
    }
    assert_eq!(found.len(), keys.len());
}
