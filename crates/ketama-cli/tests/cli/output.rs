//! The default (text) output of every `ketama` command, byte for byte, for
//! the inputs and options the other CLI tests leave out: each line is
//! rebuilt from the library's own answers (or is a stated format), so any
//! change in spelling, order or layout fails here. Usage errors exit 2,
//! invalid input 1.

use ketama_testkit as common;

use crate::ketama_cli as ketama;
use crate::ketama_cli_ok as ok;

use std::path::Path;

use ketama_core::analysis::{keyspace_shares, movement};
use ketama_core::parser::ParseMode;
use ketama_core::setcodec::{self, Format, Op};
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};

fn sample() -> String {
    common::repo_root()
        .join("examples/ketama.servers")
        .display()
        .to_string()
}

fn file_ring(path: &str, config: RingConfig, mode: ParseMode) -> Ring {
    Ring::from_file(Path::new(path), config, mode).unwrap()
}

/// `find`'s lines for `keys` as the library places them.
fn find_lines(ring: &Ring, keys: &[&[u8]]) -> Vec<u8> {
    let mut text = Vec::new();
    for key in keys {
        text.extend_from_slice(key);
        text.push(b'\t');
        text.extend_from_slice(ring.find_server(key).unwrap().address());
        text.push(b'\n');
    }
    text
}

/// `dump`'s lines: every point with its server, continuum order.
fn dump_lines(ring: &Ring) -> Vec<u8> {
    let continuum = ring.continuum();
    let mut text = Vec::new();
    for (point, owner) in continuum.points().iter().zip(continuum.owners()) {
        text.extend_from_slice(format!("{point}\t").as_bytes());
        text.extend_from_slice(ring.servers()[*owner as usize].address());
        text.push(b'\n');
    }
    text
}

#[test]
fn find_writes_keys_as_raw_bytes_from_stdin_and_after_double_dash() {
    let ring = file_ring(&sample(), RingConfig::default(), ParseMode::Strict);
    // Bytes that are not UTF-8, a backslash, a CR before the newline.
    let stdin = b"caf\xc3\xa9\nbad\xff\\key\r\n\nlast";
    let keys: [&[u8]; 4] = [b"caf\xc3\xa9", b"bad\xff\\key", b"", b"last"];
    assert_eq!(ok(&["find", &sample()], stdin), find_lines(&ring, &keys));
    // Keys that look like options go after `--`.
    assert_eq!(
        ok(&["find", &sample(), "--", "--weird", "-k"], b""),
        find_lines(&ring, &[b"--weird", b"-k"])
    );
}

#[test]
fn find_with_flavour_alias_servers_file_and_libketama_parser() {
    let dir = common::scratch_dir("cli-output-find");
    let list = dir.join("list");
    std::fs::write(
        &list,
        "10.0.0.1:11211:1\n10.0.0.2:11211:3\n10.0.0.3:11211\n",
    )
    .unwrap();
    let config = RingConfig::flavour(Flavour::from_name("php-memcached").unwrap());
    let ring = Ring::new(
        vec![
            ServerSpec::new("10.0.0.1:11211", 1),
            ServerSpec::new("10.0.0.2:11211", 3),
            ServerSpec::unweighted("10.0.0.3:11211"),
        ],
        config,
    )
    .unwrap();
    let keys: [&[u8]; 3] = [b"a", b"user:7", b"z"];
    assert_eq!(
        ok(
            &[
                "find",
                "--flavour",
                "php-memcached",
                "--servers-file",
                list.to_str().unwrap(),
                "a",
                "user:7",
                "z"
            ],
            b""
        ),
        find_lines(&ring, &keys)
    );
    // --weights applies to a --servers-file list without weights, in order.
    let plain = dir.join("plain");
    std::fs::write(&plain, "10.0.0.1:11211\n10.0.0.2:11211\n").unwrap();
    let weighted = Ring::new(
        vec![
            ServerSpec::new("10.0.0.1:11211", 2),
            ServerSpec::new("10.0.0.2:11211", 5),
        ],
        RingConfig::default(),
    )
    .unwrap();
    assert_eq!(
        ok(
            &[
                "find",
                "--servers-file",
                plain.to_str().unwrap(),
                "--weights",
                "2,5",
                "a",
                "z"
            ],
            b""
        ),
        find_lines(&weighted, &[b"a", b"z"])
    );
    // A weight with a trailing blank: the strict reading refuses the line,
    // the original's reading (--libketama-parser) takes it.
    let lax = dir.join("lax");
    std::fs::write(&lax, "10.0.0.1:11211\t100 \n10.0.0.2:11211\t200\n").unwrap();
    let lax = lax.to_str().unwrap();
    assert_eq!(ketama(&["find", lax, "k"], b"").status.code(), Some(1));
    let original = file_ring(lax, RingConfig::default(), ParseMode::Libketama);
    assert_eq!(
        ok(&["find", "--libketama-parser", lax, "k", "user:1"], b""),
        find_lines(&original, &[b"k", b"user:1"])
    );
}

#[test]
fn dump_prints_the_librarys_continuum_for_files_lists_and_flavours() {
    let ring = file_ring(&sample(), RingConfig::default(), ParseMode::Strict);
    assert_eq!(ok(&["dump", &sample()], b""), dump_lines(&ring));
    let dalli = Ring::new(
        vec![
            ServerSpec::new("a.example:11211", 1),
            ServerSpec::new("b.example:11211", 2),
        ],
        RingConfig::flavour(Flavour::Dalli),
    )
    .unwrap();
    assert_eq!(
        ok(
            &[
                "dump",
                "--flavor",
                "dalli",
                "--servers",
                "a.example:11211:1,b.example:11211:2"
            ],
            b""
        ),
        dump_lines(&dalli)
    );
}

#[test]
fn check_prints_one_ok_line_and_warns_on_stderr() {
    let out = ketama(&["check", &sample()], b"");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{}: OK, 8 servers, 1264 points\n", sample())
    );
    assert!(out.stderr.is_empty());
    let dir = common::scratch_dir("cli-output-check");
    let tiny = dir.join("tiny");
    std::fs::write(&tiny, "10.0.0.1:11211\t100000\n10.0.0.2:11211\t1\n").unwrap();
    let ring = file_ring(
        tiny.to_str().unwrap(),
        RingConfig::default(),
        ParseMode::Strict,
    );
    assert_eq!(ring.servers()[1].point_count(), 0);
    let out = ketama(&["check", tiny.to_str().unwrap()], b"");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "{}: OK, 2 servers, {} points\n",
            tiny.display(),
            ring.continuum().len()
        )
    );
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "ketama: warning: server '10.0.0.2:11211' gets no points (its weight is too small) and will receive no keys\n"
    );
}

/// `dist`'s table, rebuilt from the library's shares.
fn dist_text(ring: &Ring, shares: &[f64], source: &str) -> String {
    let total: f64 = ring
        .servers()
        .iter()
        .map(|s| s.weight().unwrap_or(1) as f64)
        .sum();
    let widest = ring
        .servers()
        .iter()
        .map(|s| s.address().len())
        .max()
        .unwrap()
        .max(6);
    let mut text = format!(
        "# {source}; {} servers, {} points\n{:<widest$}  {:>8}  {:>7}  {:>8}  {:>8}  {:>6}\n",
        ring.servers().len(),
        ring.continuum().len(),
        "SERVER",
        "WEIGHT",
        "POINTS",
        "SHARE",
        "EXPECTED",
        "RATIO"
    );
    let max_share = shares.iter().copied().fold(0.0, f64::max);
    let mut ratios = Vec::new();
    for (server, &share) in ring.servers().iter().zip(shares) {
        let expected = server.weight().unwrap_or(1) as f64 / total;
        ratios.push(share / expected);
        text += &format!(
            "{:<widest$}  {:>8}  {:>7}  {:>7.3}%  {:>7.3}%  {:>6.3}  {}\n",
            String::from_utf8_lossy(server.address()),
            server.weight().map_or("-".to_string(), |w| w.to_string()),
            server.point_count(),
            share * 100.0,
            expected * 100.0,
            share / expected,
            "#".repeat((share / max_share * 40.0).round() as usize)
        );
    }
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    let deviation =
        (ratios.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / ratios.len() as f64).sqrt();
    text += &format!(
        "# share/expected: max {:.3}  min {:.3}  stddev {:.2}%\n",
        ratios.iter().copied().fold(0.0, f64::max),
        ratios.iter().copied().fold(f64::INFINITY, f64::min),
        deviation * 100.0
    );
    text
}

#[test]
fn dist_prints_the_exact_and_the_sampled_table() {
    let ring = file_ring(&sample(), RingConfig::default(), ParseMode::Strict);
    let exact = ok(&["dist", &sample()], b"");
    assert_eq!(
        String::from_utf8(exact).unwrap(),
        dist_text(
            &ring,
            &keyspace_shares(&ring),
            "exact share of the keyspace"
        )
    );
    let dir = common::scratch_dir("cli-output-dist");
    let keys = dir.join("keys");
    let lines: Vec<String> = (0..3000).map(|i| format!("key:{i}")).collect();
    std::fs::write(&keys, lines.join("\n") + "\n").unwrap();
    let list = "10.0.0.1:11211:1,10.0.0.2:11211:2,[::1]:11300";
    let node = Ring::new(
        vec![
            ServerSpec::new("10.0.0.1:11211", 1),
            ServerSpec::new("10.0.0.2:11211", 2),
            ServerSpec::unweighted("[::1]:11300"),
        ],
        RingConfig::flavour(Flavour::NodeMemcached),
    )
    .unwrap();
    let mut counts = [0u64; 3];
    for key in &lines {
        counts[node.locate(key.as_bytes()).unwrap().server_index] += 1;
    }
    let shares: Vec<f64> = counts.iter().map(|&c| c as f64 / 3000.0).collect();
    let out = ketama(
        &[
            "dist",
            "--flavor",
            "node",
            "--servers",
            list,
            "--keys",
            keys.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        dist_text(
            &node,
            &shares,
            &format!("share of 3000 keys from {}", keys.display())
        )
    );
}

#[test]
fn diff_prints_moved_ideal_and_every_flow() {
    let dir = common::scratch_dir("cli-output-diff");
    let (old, new) = (dir.join("old"), dir.join("new"));
    std::fs::write(
        &old,
        "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "10.0.0.1:11211\t100\n10.0.0.3:11211\t300\n10.0.0.5:11211\t100\n",
    )
    .unwrap();
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    for flavour in ["libketama", "spymemcached"] {
        let config = RingConfig::flavour(Flavour::from_name(flavour).unwrap());
        let m = movement(
            &file_ring(old, config, ParseMode::Strict),
            &file_ring(new, config, ParseMode::Strict),
        );
        let mut expected = format!(
            "moved: {:.3}% of the keyspace\nideal: {:.3}% (the least any placement must move for this change)\nFROM\tTO\tSHARE\n",
            m.moved * 100.0,
            m.ideal * 100.0
        );
        for (from, to, share) in &m.flows {
            expected += &format!(
                "{}\t{}\t{:.3}%\n",
                String::from_utf8_lossy(from),
                String::from_utf8_lossy(to),
                share * 100.0
            );
        }
        let out = ok(&["diff", "--flavor", flavour, old, new], b"");
        assert_eq!(String::from_utf8(out).unwrap(), expected, "{flavour}");
    }
    // The same list twice: nothing moves, no table.
    assert_eq!(
        String::from_utf8(ok(&["diff", old, old], b"")).unwrap(),
        "moved: 0.000% of the keyspace\nideal: 0.000% (the least any placement must move for this change)\n"
    );
}

#[test]
fn set_commands_write_the_codecs_bytes() {
    let members: [&[u8]; 2] = [b"m1", b"m\\2"];
    for (args, op, format) in [
        (vec!["set", "encode", "add"], Op::Add, Format::T1),
        (vec!["set", "encode", "remove"], Op::Remove, Format::T1),
        (
            vec!["set", "encode", "add", "--binary"],
            Op::Add,
            Format::B1,
        ),
    ] {
        let mut args = args.clone();
        args.extend(["m1", "m\\2"]);
        assert_eq!(
            ok(&args, b""),
            setcodec::encode(op, &members, format, setcodec::DEFAULT_MAX_MEMBER_LEN).unwrap(),
            "{args:?}"
        );
    }
    assert_eq!(
        ok(&["set", "encode", "add", "--", "--dash"], b""),
        setcodec::encode(
            Op::Add,
            &[b"--dash"],
            Format::T1,
            setcodec::DEFAULT_MAX_MEMBER_LEN
        )
        .unwrap()
    );
    // decode escapes bytes outside printable ASCII and the backslash as \xNN.
    let value = setcodec::encode(
        Op::Add,
        &[&b"caf\xc3\xa9"[..], b"a\\b", b"plain"],
        Format::B1,
        setcodec::DEFAULT_MAX_MEMBER_LEN,
    )
    .unwrap();
    let records = setcodec::decode(&value, &Default::default())
        .unwrap()
        .stats
        .records;
    assert_eq!(
        String::from_utf8(ok(&["set", "decode"], &value)).unwrap(),
        format!(
            "a\\x5cb\ncaf\\xc3\\xa9\nplain\n# records={records} removals=0 redundant=0 encoding=b1\n"
        )
    );
    // compact writes the canonical value in the encoding asked for.
    let text_value = b"+a +b +c -b ";
    for (to, format) in [("t1", Format::T1), ("b1", Format::B1)] {
        let set = setcodec::decode(text_value, &Default::default()).unwrap();
        assert_eq!(
            ok(&["set", "compact", "--to", to], text_value),
            setcodec::compacted(&set.members, format, setcodec::DEFAULT_MAX_MEMBER_LEN).unwrap()
        );
    }
    assert_eq!(
        ok(&["set", "compact", "--encoding", "t1"], text_value),
        b"+a +c ".to_vec()
    );
}

#[test]
fn usage_errors_exit_2_and_invalid_input_exits_1() {
    let dir = common::scratch_dir("cli-output-usage");
    let list = dir.join("list");
    std::fs::write(&list, "10.0.0.1:11211\n").unwrap();
    let list = list.to_str().unwrap();
    let usage: &[&[&str]] = &[
        &[],
        &["set"],
        &["set", "nope"],
        &["find", "--servers", "a:1", "--servers-file", list, "k"],
        &["find", "--hash", "nope", &sample(), "k"],
        &["find", "--down", "zz:1", &sample(), "k"],
        &["find", &sample(), "--weights", "1"],
        &["find", "--servers", "a:1,,b:2", "k"],
        &["find", "--servers", "a:1,b:2", "--weights", "1,x", "k"],
        &["find", "--unknown", &sample()],
        &["find", &sample(), "--flavor"],
        &["dump", &sample(), "extra"],
        &["dump", "--down", "a:1", "--servers", "a:1"],
        &["check"],
        &["check", &sample(), &sample()],
        &["dist", &sample(), "--keys"],
        &["dist", "--servers", "a:1", "extra"],
        &["diff", &sample(), &sample(), &sample()],
        &["diff", "--servers", "a:1", &sample()],
        &["diff", "--down", "a:1", &sample()],
        &["set", "encode"],
        &["set", "encode", "add"],
        &["set", "encode", "move", "m"],
        &["set", "decode", "--encoding", "nope"],
        &["set", "decode", "--max-member-len", "0"],
        &["set", "decode", "--max-member-len", "99999999999999999999"],
        &["set", "compact", "--to", "membase-comma"],
    ];
    for args in usage {
        let out = ketama(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let invalid: &[(&[&str], &[u8])] = &[
        (&["find", "/nonexistent/servers", "k"], b""),
        (&["find", "--servers", "a:1:x", "k"], b""),
        (&["dist", &sample(), "--keys", "/nonexistent/keys"], b""),
        (&["dist", &sample(), "--keys", "/dev/null"], b""),
        (&["diff", &sample(), "/nonexistent/servers"], b""),
        (&["check", "/nonexistent/servers"], b""),
        (&["set", "decode", "--encoding", "b1"], b"+a "),
        (&["set", "compact", "--encoding", "t1"], b"?bad"),
    ];
    for (args, stdin) in invalid {
        let out = ketama(args, stdin);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("ketama: "),
            "{args:?}"
        );
    }
}
