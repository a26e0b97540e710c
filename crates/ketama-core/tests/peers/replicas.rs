//! Replica lists (`Ring::replicas`) against the real clients' own, asked in
//! the same run: npm `hashring` 3.2.0's `range(key, size)` (the ring of the
//! npm `memcached` client: `node-memcached`), uhashring 2.1's
//! `range(key, size)` in both its modes (`uhashring`, `uhashring-ketama`),
//! and libmemcached's `NUMBER_OF_REPLICAS` through pylibmc and php-memcached,
//! live: keys set into real memcached servers on 127.0.0.1, then each
//! server's holdings read with `lru_crawler metadump all` (`libmemcached`,
//! `libmemcached-consistent`). On 3, 10 and 100 servers, without and with
//! weights, for 1, 2, 3 and more replicas than servers: every list must
//! equal the library's.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::peers::{self, ServerList, Weights, keys, non_ascii_keys, standard_lists};

use common::Memcached;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};

/// One question to a replica-listing peer: the text of its `servers` file
/// and the keys.
struct Question {
    servers: String,
    keys: Vec<Vec<u8>>,
}

/// Runs `program` once over every question (each in its own directory:
/// `servers`, and `keys` in hex); returns per question, per key, per size
/// the server indices the peer listed, and what the peer printed.
fn ask_lists(
    name: &str,
    program: &[&OsStr],
    env: &[(&str, PathBuf)],
    questions: &[Question],
) -> (Vec<Vec<Vec<Vec<usize>>>>, String) {
    let root = common::scratch_dir(&format!("replicas-{name}"));
    let dirs: Vec<PathBuf> = questions
        .iter()
        .enumerate()
        .map(|(n, q)| {
            let dir = root.join(format!("case{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            let hex: String = q.keys.iter().map(|k| hex(k) + "\n").collect();
            std::fs::write(dir.join("keys"), hex).unwrap();
            std::fs::write(dir.join("servers"), &q.servers).unwrap();
            dir
        })
        .collect();
    let mut command = Command::new(program[0]);
    command.args(&program[1..]).args(&dirs);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = common::run_with_timeout(&mut command, Duration::from_secs(900));
    assert!(
        output.status.success(),
        "the {name} peer failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers = dirs
        .iter()
        .map(|dir| {
            std::fs::read_to_string(dir.join("out"))
                .unwrap()
                .lines()
                .map(|line| {
                    line.split(' ')
                        .map(|list| list.split(',').map(|i| i.parse().unwrap()).collect())
                        .collect()
                })
                .collect()
        })
        .collect();
    (
        answers,
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// The sizes asked of a list of `n` servers: 1, 2, 3 and more than `n`.
fn sizes(n: usize) -> Vec<usize> {
    vec![1, 2, 3, n + 2]
}

/// 10,000 ASCII keys and the non-ASCII keys that are UTF-8 text (both
/// peers take strings).
fn text_keys() -> Vec<Vec<u8>> {
    let mut all = keys();
    all.extend(
        non_ascii_keys()
            .into_iter()
            .filter(|k| std::str::from_utf8(k).is_ok()),
    );
    all
}

/// Compares each list the peer gave with the library's, per case and size;
/// returns the number of lists compared.
fn compare_lists(
    flavour: Flavour,
    lists: &[ServerList],
    questions: &[Question],
    answers: &[Vec<Vec<Vec<usize>>>],
) -> usize {
    let mut compared = 0;
    for ((list, question), answer) in lists.iter().zip(questions).zip(answers) {
        let ring = Ring::new(list.specs(), RingConfig::flavour(flavour)).unwrap();
        for (s, size) in sizes(list.servers.len()).into_iter().enumerate() {
            let ours: Vec<Vec<usize>> = question
                .keys
                .iter()
                .map(|key| ring.replicas(key, size).unwrap())
                .collect();
            let theirs: Vec<Vec<usize>> =
                answer.iter().map(|per_size| per_size[s].clone()).collect();
            let case = format!("{}, {size} replicas", list.name);
            compared += report(flavour.name(), &case, &question.keys, &ours, &theirs);
        }
    }
    println!(
        "{} | {} lists | {compared} replica lists compared | 0 differing",
        flavour.name(),
        lists.len()
    );
    compared
}

/// Every list as a peer takes it: `ADDRESS` lines, or `ADDRESS<TAB>WEIGHT`;
/// `keys_of` the keys asked for a list.
fn questions(
    lists: &[ServerList],
    header: impl Fn(&ServerList) -> String,
    keys_of: impl Fn(&ServerList) -> Vec<Vec<u8>>,
) -> Vec<Question> {
    lists
        .iter()
        .map(|list| Question {
            servers: header(list) + &list.tab_lines(),
            keys: keys_of(list),
        })
        .collect()
}

fn size_line(list: &ServerList) -> String {
    let sizes: Vec<String> = sizes(list.servers.len())
        .iter()
        .map(usize::to_string)
        .collect();
    sizes.join(" ")
}

#[test]
fn hashring_range_lists_what_the_library_lists() {
    common::require_tool("node", "nodejs");
    let modules = common::repo_root().join("target/node-peer/node_modules");
    assert!(
        modules.join("hashring/package.json").exists(),
        "npm hashring is not installed in {modules:?}: run `make deps`"
    );
    let lists = standard_lists();
    let asked = questions(&lists, |list| size_line(list) + "\n", |_| text_keys());
    let script = common::peer_program("replicas_hashring_peer.js");
    let (answers, said) = ask_lists(
        "hashring",
        &["node".as_ref(), script.as_os_str()],
        &[("NODE_PATH", modules)],
        &asked,
    );
    print!("{said}");
    assert!(
        said.starts_with("hashring 3.2.0"),
        "unexpected hashring: {said}"
    );
    let compared = compare_lists(Flavour::NodeMemcached, &lists, &asked, &answers);
    assert!(compared >= lists.len() * 4 * 10_000);
}

#[test]
fn uhashring_range_lists_what_the_library_lists() {
    ketama_testkit::redis_clients::require_python_module("uhashring", "python3-uhashring");
    let lists = standard_lists();
    let script = common::peer_program("replicas_uhashring_peer.py");
    for (flavour, mode) in [
        (Flavour::Uhashring, "default"),
        (Flavour::UhashringKetama, "ketama"),
    ] {
        // uhashring's range() copies the rest of its ring for each call:
        // 1,000 keys on 100 nodes.
        let asked = questions(
            &lists,
            |list| format!("{mode} {}\n", size_line(list)),
            |list| {
                let take = if list.servers.len() > 10 {
                    1_000
                } else {
                    usize::MAX
                };
                text_keys().into_iter().take(take).collect()
            },
        );
        let (answers, said) = ask_lists(
            "uhashring",
            &["/usr/bin/python3".as_ref(), script.as_os_str()],
            &[],
            &asked,
        );
        print!("{said}");
        assert!(
            said.starts_with("uhashring 2.1"),
            "unexpected uhashring: {said}"
        );
        let compared = compare_lists(flavour, &lists, &asked, &answers);
        assert!(compared >= 6 * 4 * 10_000 + 3 * 4 * 1_000);
    }
}

/// One configuration of the live libmemcached test.
struct LiveCase {
    name: String,
    flavour: Flavour,
    specs: Vec<ServerSpec>,
    replicas: usize,
    keys: Vec<Vec<u8>>,
    dir: PathBuf,
}

/// The client and its distribution setting (the first word of the case's
/// `servers` file) for one configuration.
#[derive(Clone, Copy, PartialEq)]
enum Client {
    Pylibmc(&'static str),
    PhpMemcached,
}

/// Writes one configuration's directory (`servers`, `keys` in hex) for
/// `client`; its keys carry the prefix `rN:` of its number, so that all
/// configurations share the servers.
fn live_case(
    dir: &std::path::Path,
    number: usize,
    client: Client,
    flavour: Flavour,
    list: &ServerList,
    servers: &[Memcached],
    replicas: usize,
) -> LiveCase {
    let n = list.servers.len();
    let specs: Vec<ServerSpec> = servers[..n]
        .iter()
        .zip(&list.servers)
        .map(|(m, s)| ServerSpec {
            address: m.address().into_bytes(),
            weight: s.weight,
            name: None,
        })
        .collect();
    // More replicas than servers: every key on every server.
    let take = if replicas > n { 1_000 } else { usize::MAX };
    let mut case_keys: Vec<Vec<u8>> = keys().into_iter().take(take).collect();
    if replicas <= n {
        case_keys.extend(non_ascii_keys());
    }
    let case_keys: Vec<Vec<u8>> = case_keys
        .into_iter()
        .map(|k| [format!("r{number}:").into_bytes(), k].concat())
        .collect();
    let lines: String = specs
        .iter()
        .map(|s| {
            let address = String::from_utf8_lossy(&s.address);
            match s.weight {
                Some(w) => format!("{address}:{w}\n"),
                None => format!("{address}\n"),
            }
        })
        .collect();
    let (client_name, mode) = match client {
        Client::Pylibmc(behaviour) => ("pylibmc", behaviour),
        Client::PhpMemcached => ("php-memcached", "libketama"),
    };
    let case_dir = dir.join(format!("case{number}"));
    std::fs::create_dir_all(&case_dir).unwrap();
    std::fs::write(
        case_dir.join("servers"),
        format!("{mode} {replicas}\n{lines}"),
    )
    .unwrap();
    let hexed: String = case_keys.iter().map(|k| hex(k) + "\n").collect();
    std::fs::write(case_dir.join("keys"), hexed).unwrap();
    LiveCase {
        name: format!(
            "{} ({client_name} {mode}), NUMBER_OF_REPLICAS {replicas}",
            list.name
        ),
        flavour,
        specs,
        replicas,
        keys: case_keys,
        dir: case_dir,
    }
}

/// Runs a storing peer over its case directories; returns what it printed.
fn store_through(command: &mut Command, cases: &[&LiveCase], what: &str) -> String {
    let output = common::run_with_timeout(
        command.args(cases.iter().map(|c| &c.dir)),
        Duration::from_secs(900),
    );
    assert!(
        output.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn libmemcached_number_of_replicas_stores_where_the_library_lists() {
    ketama_testkit::redis_clients::require_python_module("pylibmc", "python3-pylibmc");
    ketama_testkit::redis_clients::require_php("class_exists('Memcached')", "php8.2-memcached");
    let servers: Vec<Memcached> = (0..100).map(|_| Memcached::start_with(64, &[])).collect();
    let dir = common::scratch_dir("replicas-libmemcached");
    let mut pylibmc = Vec::new();
    let mut php = Vec::new();
    for n in [3, 10, 100] {
        // NUMBER_OF_REPLICAS r: the key's server and r more.
        for replicas in [0, 1, 2, n + 1] {
            for (client, flavour, weights) in [
                (
                    Client::Pylibmc("ketama_weighted"),
                    Flavour::Libmemcached,
                    Weights::None,
                ),
                (
                    Client::Pylibmc("ketama_weighted"),
                    Flavour::Libmemcached,
                    Weights::Unequal,
                ),
                (
                    Client::Pylibmc("ketama"),
                    Flavour::LibmemcachedConsistent,
                    Weights::None,
                ),
                (Client::PhpMemcached, Flavour::Libmemcached, Weights::None),
                (
                    Client::PhpMemcached,
                    Flavour::Libmemcached,
                    Weights::Unequal,
                ),
            ] {
                if client == Client::PhpMemcached && replicas == 0 {
                    continue;
                }
                let number = pylibmc.len() + php.len();
                let list = peers::servers(n, weights);
                let case = live_case(&dir, number, client, flavour, &list, &servers, replicas);
                match client {
                    Client::Pylibmc(_) => pylibmc.push(case),
                    Client::PhpMemcached => php.push(case),
                }
            }
        }
    }
    let script = common::peer_program("replicas_pylibmc_peer.py");
    let said = store_through(
        Command::new("/usr/bin/python3").arg(&script),
        &pylibmc.iter().collect::<Vec<_>>(),
        "replicas_pylibmc_peer.py",
    );
    print!("{said}");
    assert!(
        said.starts_with("pylibmc 1.6.3"),
        "unexpected pylibmc: {said}"
    );
    let script = common::peer_program("replicas_php_memcached_peer.php");
    let said = store_through(
        Command::new("php")
            .args(["-n", "-d", "extension=igbinary", "-d", "extension=msgpack"])
            .args(["-d", "extension=memcached"])
            .arg(&script),
        &php.iter().collect::<Vec<_>>(),
        "replicas_php_memcached_peer.php",
    );
    print!("{said}");
    assert!(
        said.starts_with("php-memcached 3.2"),
        "unexpected php-memcached: {said}"
    );
    // Which servers hold each key.
    let mut held: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    for (index, server) in servers.iter().enumerate() {
        for key in server.keys_held() {
            held.entry(key).or_default().push(index);
        }
    }
    let mut compared = 0;
    for case in pylibmc.iter().chain(&php) {
        let ring = Ring::new(case.specs.clone(), RingConfig::flavour(case.flavour)).unwrap();
        let ours: Vec<Vec<usize>> = case
            .keys
            .iter()
            .map(|key| {
                let mut list = ring.replicas(key, case.replicas + 1).unwrap();
                list.sort_unstable();
                list
            })
            .collect();
        let theirs: Vec<Vec<usize>> = case
            .keys
            .iter()
            .map(|key| held.get(key).cloned().unwrap_or_default())
            .collect();
        compared += report(case.flavour.name(), &case.name, &case.keys, &ours, &theirs);
    }
    println!(
        "libmemcached NUMBER_OF_REPLICAS | {} configurations ({} pylibmc, {} php-memcached) | \
         {compared} keys | 0 differing",
        pylibmc.len() + php.len(),
        pylibmc.len(),
        php.len()
    );
    assert!(compared >= 40 * 10_000);
}
