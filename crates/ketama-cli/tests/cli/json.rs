//! `--json` output, parsed with serde_json and checked against the text
//! output of the same command and against the library: `find`/`dump` as
//! JSON Lines, `dist`/`diff`/`check`/`set decode` as one document. Bytes
//! that are not UTF-8 (and strings holding a backslash) are written in the
//! `\xNN` escape of `set decode`'s text.

use ketama_testkit as common;

use crate::ketama_cli as ketama;
use crate::ketama_cli_ok as ok;

use ketama_core::escape::unescape_json_text;
use ketama_core::parser::ParseMode;
use ketama_core::setcodec::{self, Format, Op};
use ketama_core::{Ring, RingConfig};
use serde_json::Value;

fn document(args: &[&str], stdin: &[u8]) -> Value {
    let out = ok(args, stdin);
    assert_eq!(out.last(), Some(&b'\n'), "{args:?}: one line");
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1, "{args:?}");
    serde_json::from_slice(&out).unwrap()
}

fn json_lines(args: &[&str], stdin: &[u8]) -> Vec<Value> {
    ok(args, stdin)
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

fn bytes(value: &Value) -> Vec<u8> {
    unescape_json_text(value.as_str().unwrap()).unwrap()
}

fn sample() -> String {
    common::repo_root()
        .join("examples/ketama.servers")
        .display()
        .to_string()
}

fn text_lines(text: &[u8]) -> Vec<&[u8]> {
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn find_json_lines_match_the_text_and_the_librarys_point() {
    let ring = Ring::from_file(
        std::path::Path::new(&sample()),
        RingConfig::default(),
        ParseMode::Strict,
    )
    .unwrap();
    let stdin = b"user:1\ncaf\xc3\xa9\nbad\xff\xfekey\nback\\slash\n\\x41\n\n";
    let text = ok(&["find", &sample()], stdin);
    let json = json_lines(&["find", "--json", &sample()], stdin);
    let lines = text_lines(&text);
    assert_eq!(json.len(), 6);
    assert_eq!(lines.len(), json.len());
    for (line, object) in lines.iter().zip(&json) {
        let (key, server) = line.split_at(line.iter().position(|&b| b == b'\t').unwrap());
        assert_eq!(bytes(&object["key"]), key);
        assert_eq!(bytes(&object["server"]), &server[1..]);
        let at = ring.locate(key).unwrap();
        assert_eq!(object["point"].as_u64(), Some(u64::from(at.point)));
        assert_eq!(object.as_object().unwrap().len(), 3);
    }
    // UTF-8 without a backslash as it is; everything else escaped.
    let keys: Vec<&str> = json.iter().map(|o| o["key"].as_str().unwrap()).collect();
    assert_eq!(
        keys,
        [
            "user:1",
            "caf\u{e9}",
            "bad\\xff\\xfekey",
            "back\\x5cslash",
            "\\x5cx41",
            ""
        ]
    );
    // --down fails over in JSON as in text.
    let args = ["find", "--down", "10.0.1.1:11211", &sample(), "user:1", "a"];
    let text = ok(&args, b"");
    let mut with_json = args.to_vec();
    with_json.insert(1, "--json");
    for (line, object) in text_lines(&text).iter().zip(json_lines(&with_json, b"")) {
        assert!(line.ends_with(&bytes(&object["server"])));
    }
}

#[test]
fn dump_json_lines_match_the_text() {
    let text = ok(
        &["dump", "--flavor", "twemproxy", "--servers", "a:1:2,b:2"],
        b"",
    );
    let json = json_lines(
        &[
            "dump",
            "--json",
            "--flavor",
            "twemproxy",
            "--servers",
            "a:1:2,b:2",
        ],
        b"",
    );
    let lines = text_lines(&text);
    assert_eq!(lines.len(), json.len());
    assert!(!json.is_empty());
    for (line, object) in lines.iter().zip(&json) {
        let expected = format!(
            "{}\t{}",
            object["point"].as_u64().unwrap(),
            object["server"].as_str().unwrap()
        );
        assert_eq!(String::from_utf8_lossy(line), expected);
    }
}

#[test]
fn dist_json_matches_the_text_table() {
    let dir = common::scratch_dir("cli-json-dist");
    let keys = dir.join("keys");
    std::fs::write(
        &keys,
        (0..5000).map(|i| format!("k{i}\n")).collect::<String>(),
    )
    .unwrap();
    for extra in [vec![], vec!["--keys", keys.to_str().unwrap()]] {
        let mut args = vec!["dist", "--servers", "10.0.0.1:11211:1,10.0.0.2:11211:3,c:1"];
        args.extend(&extra);
        let text = String::from_utf8(ok(&args, b"")).unwrap();
        args.push("--json");
        let json = document(&args, b"");
        let lines: Vec<&str> = text.lines().collect();
        let servers = json["servers"].as_array().unwrap();
        assert_eq!(lines.len(), servers.len() + 3);
        assert_eq!(
            lines[0],
            match json["source"].as_str().unwrap() {
                "keyspace" => format!(
                    "# exact share of the keyspace; 3 servers, {} points",
                    json["points"]
                ),
                "keys" => format!(
                    "# share of {} keys from {}; 3 servers, {} points",
                    json["keys"],
                    json["keys_file"].as_str().unwrap(),
                    json["points"]
                ),
                other => panic!("source {other}"),
            }
        );
        assert_eq!(json["keys"].is_null(), extra.is_empty());
        for (line, server) in lines[2..].iter().zip(servers) {
            let columns: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(columns[0], server["server"].as_str().unwrap());
            assert_eq!(
                columns[1],
                server["weight"]
                    .as_u64()
                    .map_or("-".to_string(), |w| w.to_string())
            );
            assert_eq!(columns[2], server["points"].to_string());
            let percent = |v: &Value| format!("{:.3}%", v.as_f64().unwrap() * 100.0);
            assert_eq!(columns[3], percent(&server["share"]));
            assert_eq!(columns[4], percent(&server["expected"]));
            assert_eq!(
                columns[5],
                format!("{:.3}", server["ratio"].as_f64().unwrap())
            );
        }
        assert_eq!(
            *lines.last().unwrap(),
            format!(
                "# share/expected: max {:.3}  min {:.3}  stddev {:.2}%",
                json["max_ratio"].as_f64().unwrap(),
                json["min_ratio"].as_f64().unwrap(),
                json["stddev"].as_f64().unwrap() * 100.0
            )
        );
        let total: f64 = servers.iter().map(|s| s["share"].as_f64().unwrap()).sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
    }
    // A per-key placement: shares of the generated keys, no points.
    let args = ["dist", "--flavor", "pymemcache", "--servers", "a:1,b:2"];
    let text = String::from_utf8(ok(&args, b"")).unwrap();
    let json = document(&[&args[..], &["--json"]].concat(), b"");
    assert_eq!(json["source"], "generated");
    assert!(json["points"].is_null() && json["servers"][0]["points"].is_null());
    assert!(
        text.starts_with(&format!(
            "# share of {} generated keys key:0..",
            json["keys"]
        )),
        "{text}"
    );
}

/// `diff`'s text rebuilt from its JSON document.
fn diff_text_from_json(json: &Value) -> String {
    let percent = |v: &Value| format!("{:.3}%", v.as_f64().unwrap() * 100.0);
    let moved = percent(&json["moved"]);
    let mut text = match (
        json["measure"].as_str().unwrap(),
        json["keys_file"].as_str(),
    ) {
        ("exact", _) => format!("moved: {moved} of the keyspace\n"),
        ("sampled", Some(file)) => format!("moved: {moved} of {} keys from {file}\n", json["keys"]),
        ("sampled", None) => format!(
            "moved: {moved} of {} generated keys key:0..key:99999 (sampled: the two sides do not hash keys alike; --keys FILE samples real keys)\n",
            json["keys"]
        ),
        other => panic!("measure {other:?}"),
    };
    text += &format!(
        "ideal: {} (the least any placement must move for this change)\n",
        percent(&json["ideal"])
    );
    let flows = json["flows"].as_array().unwrap();
    if !flows.is_empty() {
        text += "FROM\tTO\tSHARE\n";
    }
    for flow in flows {
        text += &format!(
            "{}\t{}\t{}\n",
            flow["from"].as_str().unwrap(),
            flow["to"].as_str().unwrap(),
            percent(&flow["share"])
        );
    }
    text
}

#[test]
fn diff_json_matches_the_text() {
    let dir = common::scratch_dir("cli-json-diff");
    let (old, new, keys) = (dir.join("old"), dir.join("new"), dir.join("keys"));
    std::fs::write(&old, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n").unwrap();
    std::fs::write(
        &new,
        "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t200\n",
    )
    .unwrap();
    std::fs::write(
        &keys,
        (0..3000).map(|i| format!("k{i}\n")).collect::<String>(),
    )
    .unwrap();
    let (old, new, keys) = (
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        keys.to_str().unwrap(),
    );
    let list = "10.0.0.1:11211,10.0.0.2:11211,10.0.0.3:11211";
    // (options, measure, old side's (flavour, hash), new side's)
    type Side<'a> = (&'a str, &'a str);
    let cases: [(&[&str], &str, Side, Side); 4] = [
        (
            &[old, new],
            "exact",
            ("libketama", "md5"),
            ("libketama", "md5"),
        ),
        (
            &["--from-flavor", "libketama", "--to-flavor", "dalli", new],
            "sampled",
            ("libketama", "md5"),
            ("dalli", "crc32"),
        ),
        (
            &[
                "--flavor",
                "twemproxy",
                "--from-hash",
                "crc32",
                "--to-hash",
                "crc32a",
                "--servers",
                list,
            ],
            "sampled",
            ("twemproxy", "crc"),
            ("twemproxy", "crc32"),
        ),
        (
            &["--keys", keys, old, new],
            "sampled",
            ("libketama", "md5"),
            ("libketama", "md5"),
        ),
    ];
    for (options, measure, from, to) in cases {
        let mut args = vec!["diff"];
        args.extend(options);
        let text = String::from_utf8(ok(&args, b"")).unwrap();
        args.insert(1, "--json");
        let json = document(&args, b"");
        assert_eq!(json["measure"], measure, "{args:?}");
        assert_eq!(text, diff_text_from_json(&json), "{args:?}");
        // Hashes by the library's names (twemproxy's crc32 is the library's crc).
        for (side, (flavour, hash)) in [("old", from), ("new", to)] {
            assert_eq!(json[side]["flavour"], flavour, "{args:?}");
            assert_eq!(json[side]["hash"], hash, "{args:?}");
        }
    }
    let json = document(&["diff", "--json", old, new], b"");
    assert_eq!(json["old"]["source"].as_str(), Some(old));
    assert_eq!(json["new"]["source"].as_str(), Some(new));
    assert!(json["keys"].is_null() && json["keys_file"].is_null());
    let ring = |file: &str| {
        Ring::from_file(
            std::path::Path::new(file),
            RingConfig::default(),
            ParseMode::Strict,
        )
        .unwrap()
    };
    assert_eq!(
        json["new"]["points"].as_u64(),
        Some(ring(new).continuum().len() as u64)
    );
    assert_eq!(
        json["old"]["points"].as_u64(),
        Some(ring(old).continuum().len() as u64)
    );
    // A per-key placement has no points.
    let json = document(
        &[
            "diff",
            "--json",
            "--to-flavor",
            "pymemcache",
            "--servers",
            list,
        ],
        b"",
    );
    assert!(json["new"]["points"].is_null());
    assert!(json["old"]["points"].as_u64().unwrap() > 0);
}

#[test]
fn check_json_matches_the_text_and_its_warnings() {
    let dir = common::scratch_dir("cli-json-check");
    let file = dir.join("servers");
    std::fs::write(
        &file,
        "memcached-node-0001.example.internal:11211\t100000\n10.0.0.2:11211\t1\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let text = ketama(&["check", file], b"");
    let json_out = ketama(&["check", "--json", file], b"");
    assert!(text.status.success() && json_out.status.success());
    assert_eq!(text.stderr, json_out.stderr, "the same warnings on stderr");
    let json: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert_eq!(
        String::from_utf8(text.stdout).unwrap(),
        format!(
            "{}: OK, {} servers, {} points\n",
            json["file"].as_str().unwrap(),
            json["servers"],
            json["points"]
        )
    );
    let warnings: Vec<String> = json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| format!("ketama: warning: {}\n", w.as_str().unwrap()))
        .collect();
    assert_eq!(warnings.len(), 2);
    assert_eq!(String::from_utf8(text.stderr).unwrap(), warnings.concat());
    // A bad file: the error on stderr, exit 1, no JSON.
    let bad = dir.join("bad");
    std::fs::write(&bad, "10.0.0.1:11211\tlots\n").unwrap();
    let out = ketama(&["check", "--json", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"));
}

#[test]
fn set_decode_json_matches_the_text_members_and_stats() {
    let members: [&[u8]; 5] = [b"plain", "caf\u{e9}".as_bytes(), b"\xff\x00", b"a\\b", b"-"];
    let mut value = setcodec::encode(
        Op::Add,
        &members,
        Format::B1,
        setcodec::DEFAULT_MAX_MEMBER_LEN,
    )
    .unwrap();
    value.extend(
        setcodec::encode(
            Op::Remove,
            &[b"-"],
            Format::B1,
            setcodec::DEFAULT_MAX_MEMBER_LEN,
        )
        .unwrap(),
    );
    let text = ok(&["set", "decode"], &value);
    let json = document(&["set", "decode", "--json"], &value);
    let lines = text_lines(&text);
    let (summary, member_lines) = lines.split_last().unwrap();
    let json_members = json["members"].as_array().unwrap();
    assert_eq!(member_lines.len(), json_members.len());
    assert_eq!(json_members.len(), 4);
    for (line, member) in member_lines.iter().zip(json_members) {
        let from_text = unescape_json_text(std::str::from_utf8(line).unwrap()).unwrap();
        assert_eq!(bytes(member), from_text);
    }
    // An escaped member (not UTF-8, or holding a backslash) is exactly its
    // text line; a UTF-8 one is itself.
    let shown: Vec<&str> = json_members.iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(shown, ["a\\x5cb", "caf\u{e9}", "plain", "\\xff\\x00"]);
    for (line, member) in member_lines.iter().zip(&shown) {
        if member.contains('\\') || member.is_ascii() {
            assert_eq!(*line, member.as_bytes());
        }
    }
    assert_eq!(
        String::from_utf8_lossy(summary),
        format!(
            "# records={} removals={} redundant={} encoding={}",
            json["records"],
            json["removals"],
            json["redundant"],
            json["encoding"].as_str().unwrap()
        )
    );
    assert_eq!(json["sealed"], Value::Bool(false));
    // A value with the seal of a flipped list: " sealed=1" in text, true in JSON.
    let mut sealed = vec![b'^'];
    sealed.extend(
        setcodec::encode(
            Op::Add,
            &[b"x"],
            Format::T1,
            setcodec::DEFAULT_MAX_MEMBER_LEN,
        )
        .unwrap(),
    );
    let text = String::from_utf8(ok(&["set", "decode"], &sealed)).unwrap();
    let json = document(&["set", "decode", "--json"], &sealed);
    assert!(text.ends_with(" sealed=1\n"), "{text}");
    assert_eq!(json["sealed"], Value::Bool(true));
    assert_eq!(json["members"], serde_json::json!(["x"]));
}

#[test]
fn find_group_by_server_json_matches_the_text_plan() {
    let servers = "10.0.0.1:11211,10.0.0.2:11211,10.0.0.3:11211";
    let stdin = b"user:1\nuser:2\nback\\slash\nbad\xff\nuser:3\nuser:4\n";
    let text = ok(&["find", "--group-by-server", "--servers", servers], stdin);
    let json = json_lines(
        &["find", "--group-by-server", "--json", "--servers", servers],
        stdin,
    );
    let lines = text_lines(&text);
    assert_eq!(lines.len(), json.len());
    let mut placed = 0;
    for (line, group) in lines.iter().zip(&json) {
        let mut fields = line.split(|&b| b == b'\t');
        assert_eq!(fields.next().unwrap(), bytes(&group["server"]));
        let keys: Vec<Vec<u8>> = group["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(bytes)
            .collect();
        assert_eq!(fields.map(<[u8]>::to_vec).collect::<Vec<_>>(), keys);
        placed += keys.len();
    }
    assert_eq!(placed, 6);
}

#[test]
fn find_replicas_json_matches_the_text_and_the_librarys_lists() {
    let servers = "10.0.0.1:11211,10.0.0.2:11211,10.0.0.3:11211,10.0.0.4:11211";
    let stdin = b"user:1\nuser:2\nback\\slash\nbad\xff\n\n";
    for (flavour, n) in [
        ("libketama", "2"),
        ("php-memcached", "3"),
        ("pymemcache", "9"),
    ] {
        let ring = Ring::new(
            ketama_core::parser::peers::parse(servers.replace(',', "\n").as_bytes(), "servers")
                .unwrap(),
            RingConfig::flavour(ketama_core::Flavour::from_name(flavour).unwrap()),
        )
        .unwrap();
        let args = [
            "find",
            "--flavor",
            flavour,
            "--replicas",
            n,
            "--servers",
            servers,
        ];
        let text = ok(&args, stdin);
        let mut with_json = args.to_vec();
        with_json.insert(1, "--json");
        let json = json_lines(&with_json, stdin);
        let lines = text_lines(&text);
        assert_eq!((lines.len(), json.len()), (5, 5), "{flavour}");
        for (line, object) in lines.iter().zip(&json) {
            let mut fields = line.split(|&b| b == b'\t');
            let key = fields.next().unwrap();
            assert_eq!(bytes(&object["key"]), key);
            let listed: Vec<Vec<u8>> = object["servers"]
                .as_array()
                .unwrap()
                .iter()
                .map(bytes)
                .collect();
            assert_eq!(fields.map(<[u8]>::to_vec).collect::<Vec<_>>(), listed);
            let expected: Vec<Vec<u8>> = ring
                .replicas(key, n.parse().unwrap())
                .unwrap()
                .into_iter()
                .map(|i| ring.servers()[i].address().to_vec())
                .collect();
            assert_eq!(listed, expected, "{flavour} {n}");
        }
    }
}
