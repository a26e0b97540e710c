//! `ketama migrate`: each key's new and old server, the plan of a move and
//! the keys a server would serve stale, against the real peers. The old
//! and new owner of every key come from the original libketama (the C code
//! of PyPI ketama==0.1.1) and Ruby's dalli asked about the same keys; the
//! at-risk keys of a real memcached's `lru_crawler metadump` listing are
//! those the original places on it in the new list and not in the old.

use std::ffi::OsStr;

use ketama_testkit::peer_programs::{dalli_answers, libketama_answers};
use ketama_testkit::peers::{PeerServer, ServerList, Weights, keys, servers};
use ketama_testkit::{Memcached, scratch_dir};

/// The libketama server file of a list (`ADDRESS<TAB>WEIGHT`).
fn server_file(list: &ServerList, name: &str) -> std::path::PathBuf {
    list.write_libketama_file(scratch_dir("cli-migrate").join(name))
}

fn lines(keys: &[Vec<u8>]) -> Vec<u8> {
    keys.iter()
        .flat_map(|k| k.iter().copied().chain([b'\n']))
        .collect()
}

/// The expected `migrate find` output: KEY, the new owner, the old owner
/// or `-` when it is the same server.
fn expected(
    keys: &[Vec<u8>],
    old: (&ServerList, &[usize]),
    new: (&ServerList, &[usize]),
) -> String {
    let mut text = String::new();
    for (i, key) in keys.iter().enumerate() {
        let from = old.0.servers[old.1[i]].address();
        let to = new.0.servers[new.1[i]].address();
        let shown = if from == to { "-".to_string() } else { from };
        text.push_str(&format!(
            "{}\t{to}\t{shown}\n",
            String::from_utf8_lossy(key)
        ));
    }
    text
}

fn run(args: &[&OsStr], stdin: &[u8]) -> String {
    let out = crate::ketama_cli(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn find_names_the_owners_the_original_gives_before_and_after_a_resize() {
    let keys = keys();
    for (old, new) in [
        (servers(3, Weights::Equal), servers(4, Weights::Equal)),
        (servers(10, Weights::Unequal), servers(9, Weights::Unequal)),
    ] {
        let (before, after) = (
            libketama_answers(&old, &keys),
            libketama_answers(&new, &keys),
        );
        let (old_file, new_file) = (server_file(&old, "old"), server_file(&new, "new"));
        let out = run(
            &[
                OsStr::new("migrate"),
                OsStr::new("find"),
                old_file.as_os_str(),
                new_file.as_os_str(),
            ],
            &lines(&keys),
        );
        let want = expected(&keys, (&old, &before), (&new, &after));
        assert_eq!(out, want, "{} -> {}", old.name, new.name);
        let moved = want.lines().filter(|l| !l.ends_with("\t-")).count();
        println!(
            "{} -> {}: {} keys, {moved} move (the original libketama and the CLI agree)",
            old.name,
            new.name,
            keys.len()
        );
    }
}

#[test]
fn find_between_dalli_and_libketama_names_what_each_client_gives() {
    let list = servers(10, Weights::Unequal);
    let keys = keys();
    let dalli_lines: String = list
        .servers
        .iter()
        .map(|s| format!("{}:{}\n", s.address(), s.weight.unwrap_or(1)))
        .collect();
    let dalli = dalli_answers(&[(dalli_lines, keys.as_slice())])
        .remove(0)
        .nodes;
    let libketama = libketama_answers(&list, &keys);
    let file = server_file(&list, "pool");
    let out = run(
        &[
            OsStr::new("migrate"),
            OsStr::new("find"),
            OsStr::new("--from-flavor"),
            OsStr::new("dalli"),
            OsStr::new("--to-flavor"),
            OsStr::new("libketama"),
            file.as_os_str(),
            file.as_os_str(),
        ],
        &lines(&keys),
    );
    assert_eq!(out, expected(&keys, (&list, &dalli), (&list, &libketama)));
    // The same keys as arguments, and as JSON Lines.
    let json = run(
        &[
            OsStr::new("migrate"),
            OsStr::new("find"),
            OsStr::new("--json"),
            OsStr::new("--from-flavor"),
            OsStr::new("dalli"),
            file.as_os_str(),
            file.as_os_str(),
            OsStr::new("key:1"),
            OsStr::new("key:2"),
        ],
        b"",
    );
    for (line, i) in json.lines().zip(1..) {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let (from, to) = (&list.servers[dalli[i]], &list.servers[libketama[i]]);
        assert_eq!(value["key"], format!("key:{i}"));
        assert_eq!(value["new"], to.address());
        let old = (from != to).then(|| from.address());
        assert_eq!(value["old"].as_str().map(str::to_string), old, "{line}");
    }
}

#[test]
fn the_plan_counts_what_the_peers_move_and_names_the_server_to_flush() {
    let (old, new) = (servers(10, Weights::Equal), servers(11, Weights::Equal));
    let keys = keys();
    let (before, after) = (
        libketama_answers(&old, &keys),
        libketama_answers(&new, &keys),
    );
    let key_file = scratch_dir("cli-migrate").join("keys");
    std::fs::write(&key_file, lines(&keys)).unwrap();
    let (old_file, new_file) = (server_file(&old, "old10"), server_file(&new, "new11"));
    let out = run(
        &[
            OsStr::new("migrate"),
            OsStr::new("plan"),
            OsStr::new("--json"),
            OsStr::new("--keys"),
            key_file.as_os_str(),
            old_file.as_os_str(),
            new_file.as_os_str(),
        ],
        b"",
    );
    let plan: serde_json::Value = serde_json::from_str(&out).unwrap();
    let moved: Vec<usize> = (0..keys.len())
        .filter(|&i| old.servers[before[i]] != new.servers[after[i]])
        .collect();
    assert_eq!(plan["measure"], "sampled");
    assert_eq!(plan["keys"], keys.len());
    let share = moved.len() as f64 / keys.len() as f64;
    assert!(
        (plan["moved"].as_f64().unwrap() - share).abs() < 1e-12,
        "{out}"
    );
    // Each old server's warm-up reads: the share of the keys leaving it.
    for (index, server) in old.servers.iter().enumerate() {
        let away = moved.iter().filter(|&&i| before[i] == index).count() as f64 / keys.len() as f64;
        let entry = &plan["old_servers"][index];
        assert_eq!(entry["server"], server.address());
        assert!(
            (entry["warmup_reads"].as_f64().unwrap() - away).abs() < 1e-12,
            "{entry}"
        );
    }
    let added = new.servers[10].address();
    assert_eq!(plan["must_flush"], serde_json::json!([added]));
    assert_eq!(plan["gaining"][0]["returning"], true);
    let text = run(
        &[
            OsStr::new("migrate"),
            OsStr::new("plan"),
            old_file.as_os_str(),
            new_file.as_os_str(),
        ],
        b"",
    );
    assert!(text.starts_with("moved: "), "{text}");
    assert!(
        text.contains(&format!("{added}\t")) && text.contains("flush it (flush_all) first"),
        "{text}"
    );
}

#[test]
fn at_risk_lists_the_keys_a_real_server_holds_that_it_gains() {
    let memcached: Vec<Memcached> = (0..4).map(|_| Memcached::start()).collect();
    let list = |n: usize| ServerList {
        name: format!("{n} memcached servers"),
        servers: memcached[..n]
            .iter()
            .map(|m| PeerServer {
                host: "127.0.0.1".into(),
                port: m.port,
                weight: Some(1),
            })
            .collect(),
    };
    let (four, three) = (list(4), list(3));
    let keys: Vec<Vec<u8>> = (0..3000)
        .map(|i| format!("user:{i}").into_bytes())
        .collect();
    let (on_four, on_three) = (
        libketama_answers(&four, &keys),
        libketama_answers(&three, &keys),
    );
    let (four_file, three_file) = (server_file(&four, "four"), server_file(&three, "three"));
    // Every server holds every key: values from some earlier time.
    for server in &memcached[..3] {
        server.store(&keys, b"old");
    }
    // Shrinking 4 -> 3: a remaining server gains the removed one's keys.
    for (index, server) in memcached[..3].iter().enumerate() {
        let listing = scratch_dir("cli-migrate").join(format!("listing{index}"));
        std::fs::write(&listing, server.metadump()).unwrap();
        let out = run(
            &[
                OsStr::new("migrate"),
                OsStr::new("at-risk"),
                OsStr::new("--server"),
                OsStr::new(&server.address()),
                four_file.as_os_str(),
                three_file.as_os_str(),
                listing.as_os_str(),
            ],
            b"",
        );
        let mut listed: Vec<&str> = out.lines().collect();
        listed.sort_unstable();
        let mut want: Vec<String> = (0..keys.len())
            .filter(|&i| on_three[i] == index && on_four[i] != index)
            .map(|i| String::from_utf8_lossy(&keys[i]).into_owned())
            .collect();
        want.sort_unstable();
        assert_eq!(listed, want, "{}", server.address());
        assert!(!want.is_empty());
        println!(
            "4 -> 3 servers: {} of the {} keys {} holds are at risk (the original libketama agrees)",
            want.len(),
            keys.len(),
            server.address()
        );
    }
    // The listing on standard input; a server not in the new ring is refused.
    let out = crate::ketama_cli(
        &[
            OsStr::new("migrate"),
            OsStr::new("at-risk"),
            OsStr::new("--server"),
            OsStr::new(&memcached[3].address()),
            four_file.as_os_str(),
            three_file.as_os_str(),
        ],
        &memcached[0].metadump(),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a server of the new ring"), "{stderr}");
}

#[test]
fn a_find_without_two_rings_is_a_usage_error() {
    let list = servers(3, Weights::Equal);
    let file = server_file(&list, "one");
    let out = crate::ketama_cli(
        &[OsStr::new("migrate"), OsStr::new("find"), file.as_os_str()],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("migrate find takes the two server files OLD NEW"),
        "{stderr}"
    );
}
