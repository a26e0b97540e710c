//! The `ketama` command-line tool: find, dump and check.

use ketama_testkit as common;

use crate::ketama_cli as ketama;

fn sample() -> String {
    common::repo_root()
        .join("examples/ketama.servers")
        .display()
        .to_string()
}

#[test]
fn find_prints_key_tab_server_for_arguments_and_stdin() {
    let out = ketama(&["find", &sample(), "user:1", "user:2"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let ring = ketama_core::Ring::from_file(
        std::path::Path::new(&sample()),
        Default::default(),
        ketama_core::parser::ParseMode::Strict,
    )
    .unwrap();
    for (line, key) in lines.iter().zip(["user:1", "user:2"]) {
        let server =
            String::from_utf8(ring.find_server(key.as_bytes()).unwrap().address().to_vec())
                .unwrap();
        assert_eq!(*line, format!("{key}\t{server}"));
    }
    let from_stdin = ketama(&["find", &sample()], b"user:1\r\nuser:2\n");
    assert_eq!(String::from_utf8(from_stdin.stdout).unwrap(), text);
}

#[test]
fn servers_option_spells_servers_as_given() {
    let out = ketama(
        &[
            "find",
            "--servers",
            "[::1]:11211,cache-a.example:11211",
            "--weights",
            "1,3",
            "k1",
            "k2",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let server = line.split('\t').nth(1).unwrap();
        assert!(
            server == "[::1]:11211" || server == "cache-a.example:11211",
            "{line}"
        );
    }
}

#[test]
fn dump_prints_every_point_in_order() {
    let out = ketama(&["dump", &sample()], b"");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let points: Vec<u32> = text
        .lines()
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect();
    assert!(!points.is_empty());
    assert!(points.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn check_accepts_good_files_and_reports_bad_lines() {
    let ok = ketama(&["check", &sample()], b"");
    assert!(ok.status.success());
    assert!(String::from_utf8_lossy(&ok.stdout).contains("OK, 8 servers, 1264 points"));

    let dir = common::scratch_dir("cli");
    let bad = dir.join("bad.servers");
    std::fs::write(&bad, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100 \n").unwrap();
    let out = ketama(&["check", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Trailing blank after the weight") && stderr.contains("(line 2 in"),
        "{stderr}"
    );

    let long = dir.join("long.servers");
    std::fs::write(&long, "memcached-node-0001.example.internal:11211\t100\n").unwrap();
    let out = ketama(&["check", long.to_str().unwrap()], b"");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("longer than 23 bytes"));
}

#[test]
fn usage_errors_exit_2_and_failures_exit_1() {
    assert_eq!(ketama(&["frobnicate"], b"").status.code(), Some(2));
    assert_eq!(ketama(&["find"], b"").status.code(), Some(2));
    assert_eq!(
        ketama(&["find", "--flavor", "nope", &sample()], b"")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        ketama(
            &["find", "--servers", "a:1,b:2", "--weights", "1", "k"],
            b""
        )
        .status
        .code(),
        Some(2)
    );
    let missing = ketama(&["find", "/nonexistent/servers", "k"], b"");
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/servers"));
}

#[test]
fn dist_reports_exact_shares_and_balance() {
    let out = ketama(&["dist", &sample()], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let shares: f64 = text
        .lines()
        .filter(|l| l.starts_with("10.0.1."))
        .map(|l| {
            l.split_whitespace()
                .nth(3)
                .unwrap()
                .trim_end_matches('%')
                .parse::<f64>()
                .unwrap()
        })
        .sum();
    assert!((shares - 100.0).abs() < 0.01, "shares add up to {shares}");
    assert!(text.contains("# share/expected: max "), "{text}");

    let dir = common::scratch_dir("dist");
    let keys = dir.join("keys");
    std::fs::write(
        &keys,
        (0..20_000).map(|i| format!("k{i}\n")).collect::<String>(),
    )
    .unwrap();
    let sampled = ketama(&["dist", &sample(), "--keys", keys.to_str().unwrap()], b"");
    assert!(String::from_utf8_lossy(&sampled.stdout).starts_with("# share of 20000 keys"));
}

#[test]
fn diff_shows_that_adding_a_server_only_moves_keys_to_it() {
    let dir = common::scratch_dir("diff");
    let (old, new) = (dir.join("old"), dir.join("new"));
    std::fs::write(
        &old,
        "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n10.0.0.4:11211\t100\n",
    )
    .unwrap();
    let out = ketama(&["diff", old.to_str().unwrap(), new.to_str().unwrap()], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("ideal: 25.000%"), "{text}");
    let flows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("FROM"))
        .skip(1)
        .collect();
    assert_eq!(flows.len(), 3, "{text}");
    assert!(
        flows
            .iter()
            .all(|l| l.split('\t').nth(1) == Some("10.0.0.4:11211"))
    );
    // The moved fraction equals the new server's exact share.
    let dist = String::from_utf8(ketama(&["dist", new.to_str().unwrap()], b"").stdout).unwrap();
    let share = dist
        .lines()
        .find(|l| l.starts_with("10.0.0.4"))
        .unwrap()
        .split_whitespace()
        .nth(3)
        .unwrap()
        .to_string();
    assert!(
        text.starts_with(&format!("moved: {share} of the keyspace")),
        "{text}\n{dist}"
    );
}

#[test]
fn find_group_by_server_prints_the_multi_get_plan() {
    let servers = "10.0.0.1:11211,10.0.0.2:11211,10.0.0.3:11211,10.0.0.4:11211,10.0.0.5:11211";
    let keys: Vec<String> = (0..300).map(|i| format!("user:{i}")).collect();
    let stdin = keys.join("\n") + "\n";
    for flavour in [
        "libketama",
        "libmemcached",
        "spymemcached",
        "pymemcache",
        "python-memcached",
    ] {
        let single = ketama(
            &["find", "--flavor", flavour, "--servers", servers],
            stdin.as_bytes(),
        );
        assert!(single.status.success());
        let single = String::from_utf8(single.stdout).unwrap();
        let mut expected: Vec<(String, Vec<String>)> = servers
            .split(',')
            .map(|s| (s.to_string(), Vec::new()))
            .collect();
        for line in single.lines() {
            let (key, server) = line.split_once('\t').unwrap();
            let slot = expected.iter_mut().find(|(s, _)| s == server).unwrap();
            slot.1.push(key.to_string());
        }
        let expected: String = expected
            .into_iter()
            .filter(|(_, keys)| !keys.is_empty())
            .map(|(server, keys)| format!("{server}\t{}\n", keys.join("\t")))
            .collect();
        let grouped = ketama(
            &[
                "find",
                "--flavor",
                flavour,
                "--servers",
                servers,
                "--group-by-server",
            ],
            stdin.as_bytes(),
        );
        assert!(grouped.status.success(), "{flavour}");
        assert_eq!(
            String::from_utf8(grouped.stdout).unwrap(),
            expected,
            "{flavour}"
        );
    }
    // Keys as arguments; a server without keys is left out.
    let out = ketama(
        &["find", "--servers", servers, "--group-by-server", "user:1"],
        b"",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(text.trim_end().ends_with("\tuser:1"));
    // Only find takes it, and not with --down.
    for args in [
        &["dump", "--servers", servers, "--group-by-server"][..],
        &[
            "find",
            "--servers",
            servers,
            "--group-by-server",
            "--down",
            "10.0.0.1:11211",
            "k",
        ],
    ] {
        let out = ketama(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--group-by-server"));
    }
}
