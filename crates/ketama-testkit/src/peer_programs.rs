//! Runners for the peer programs in `peers/`: they hand the real clients
//! (libmemcached, spymemcached, SockIOPool, dalli, the npm client, the
//! per-key clients, the original libketama) the server lists and keys, and
//! return the clients' answers.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::harness::{self, Answer, Case};
use crate::peers::{ServerList, write_keys};

/// The libmemcached peer program, compiled against the built library.
pub fn libmemcached_program() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        crate::require_libmemcached();
        let source = crate::peer_program("libmemcached_peer.c");
        crate::compile_c(&[&source], "libmemcached_peer", &["-lmemcached"])
    })
}

/// One libmemcached pool to ask about.
pub struct LibmemcachedCase<'a> {
    /// `weighted` (KETAMA_WEIGHTED), `consistent` or `spy`.
    pub distribution: &'static str,
    /// `memcached_hash_t` to set with MEMCACHED_BEHAVIOR_HASH, if any.
    pub hash: Option<i32>,
    /// The servers (no weight: `memcached_server_add`).
    pub servers: &'a ServerList,
    /// The keys.
    pub keys: &'a [Vec<u8>],
}

/// Per case, per key: (libmemcached's server index, this library's index
/// through the C API with the matching flavour and hash).
pub fn libmemcached_answers(cases: &[LibmemcachedCase]) -> Vec<Vec<(usize, usize)>> {
    let dir = fresh_dir("libmemcached-cases");
    let files: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let (file, keys) = (
                dir.join(format!("case{n}")),
                dir.join(format!("case{n}.keys")),
            );
            write_keys(&keys, c.keys);
            let mut text = format!(
                "distribution {}\nhash {}\n",
                c.distribution,
                c.hash.unwrap_or(-1)
            );
            for s in &c.servers.servers {
                text += &format!("server {} {} {}\n", s.host, s.port, s.weight.unwrap_or(0));
            }
            text += &format!("keys {}\nout {}.out\n", keys.display(), file.display());
            std::fs::write(&file, text).unwrap();
            file
        })
        .collect();
    let output = crate::run_with_timeout(
        Command::new(libmemcached_program())
            .arg("ring")
            .args(&files),
        Duration::from_secs(300),
    );
    assert!(
        output.status.success(),
        "libmemcached_peer failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    files
        .iter()
        .map(|file| {
            std::fs::read_to_string(format!("{}.out", file.display()))
                .unwrap()
                .lines()
                .map(|l| {
                    let (peer, ours) = l.split_once(' ').expect("PEER OURS");
                    (peer.parse().unwrap(), ours.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

/// A fresh scratch directory per call (tests run in parallel threads).
fn fresh_dir(name: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    crate::scratch_dir(&format!("{name}-{}", CALLS.fetch_add(1, Ordering::Relaxed)))
}

const SPY_JAR: &str = "/usr/share/java/spymemcached.jar";

/// Compiles `peers/<source>` with javac into a scratch directory named
/// `classes` (with `classpath` on the class path) and returns the directory.
pub fn compile_java(source: &str, classes: &str, classpath: &str) -> PathBuf {
    crate::require_tool("javac", "openjdk-17-jdk-headless");
    crate::require_tool("java", "openjdk-17-jdk-headless");
    let out = crate::scratch_dir(classes);
    let source = crate::peer_program(source);
    let mut javac = Command::new("javac");
    if !classpath.is_empty() {
        javac.args(["-cp", classpath]);
    }
    let output = crate::run_with_timeout(
        javac.arg("-d").arg(&out).arg(&source),
        Duration::from_secs(180),
    );
    assert!(
        output.status.success(),
        "javac {} failed: {}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// Runs `class` from `classpath` with `args` in a UTF-8 JVM; fails on a non-zero exit.
pub fn run_java(classpath: &str, class: &str, args: &[&Path]) {
    let output = crate::run_with_timeout(
        Command::new("java")
            .args(["-Dfile.encoding=UTF-8", "-cp", classpath, class])
            .args(args),
        Duration::from_secs(300),
    );
    assert!(
        output.status.success(),
        "{class} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// spymemcached's `DefaultHashAlgorithm` name for a hash.
pub fn java_hash_name(hash: ketama_core::hash::HashAlgorithm) -> &'static str {
    use ketama_core::hash::HashAlgorithm as H;
    match hash {
        H::Md5 => "KETAMA_HASH",
        H::SpyNative => "NATIVE_HASH",
        H::Crc => "CRC_HASH",
        H::SpyFnv1_64 => "FNV1_64_HASH",
        H::SpyFnv1a64 => "FNV1A_64_HASH",
        H::SpyFnv1_32 => "FNV1_32_HASH",
        H::SpyFnv1a32 => "FNV1A_32_HASH",
        other => panic!("spymemcached has no {other:?}"),
    }
}

/// The class path of `peers/SpyPeer.java` (compiled once) and the
/// spymemcached jar.
pub fn spy_classpath() -> &'static str {
    static CLASSPATH: OnceLock<String> = OnceLock::new();
    CLASSPATH.get_or_init(|| {
        assert!(
            Path::new(SPY_JAR).exists(),
            "{SPY_JAR} is missing: run `make deps` (Debian package libspymemcached-java)"
        );
        let classes = compile_java("SpyPeer.java", "spy-classes", SPY_JAR);
        format!("{}:{SPY_JAR}", classes.display())
    })
}

/// Runs `peers/SpyPeer.java` (compiled once) with `args`.
pub fn spy_java(args: &[&Path]) {
    run_java(spy_classpath(), "SpyPeer", args);
}

/// A server as spymemcached gets it: `java_name` "-" for a bare IP literal,
/// else an `InetAddress` named so (no DNS) with address `ip`.
pub struct SpyServer {
    /// Host name given to `InetAddress.getByAddress`, or "-".
    pub java_name: String,
    /// IP literal.
    pub ip: String,
    /// Port.
    pub port: u16,
    /// Weight (used when the case is weighted).
    pub weight: u64,
}

/// One `KetamaNodeLocator` to ask about.
pub struct SpyCase<'a> {
    /// `SPYMEMCACHED`, `LIBMEMCACHED`, or `EVCACHE` (Netflix EVCache's node
    /// keys, `SpyPeer.EvcacheConfiguration`).
    pub format: &'static str,
    /// `getNodeRepetitions` (EVCache's `bucket.size`); `None`: 160.
    pub repetitions: Option<u32>,
    /// A `DefaultHashAlgorithm` name.
    pub hash: &'static str,
    /// Whether to pass the weights map (the weighted path).
    pub weighted: bool,
    /// The nodes.
    pub servers: Vec<SpyServer>,
    /// The keys.
    pub keys: &'a [Vec<u8>],
}

/// A peer's answer for one ring (spymemcached, SockIOPool, dalli ...).
pub struct PeerAnswer {
    /// The node index of each key (`getPrimary`).
    pub nodes: Vec<usize>,
    /// The whole continuum as (point, node index), in order.
    pub continuum: Vec<(u32, u32)>,
}

impl From<PeerAnswer> for Answer {
    fn from(answer: PeerAnswer) -> Answer {
        Answer {
            servers: answer.nodes.into_iter().map(Some).collect(),
            continuum: Some(answer.continuum),
        }
    }
}

/// Asks spymemcached about every case in one JVM.
pub fn spymemcached_answers(cases: &[SpyCase]) -> Vec<PeerAnswer> {
    let root = fresh_dir("spy-cases");
    let dirs: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let dir = root.join(format!("case{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            write_keys(&dir.join("keys"), c.keys);
            let mut text = format!(
                "format {}\nhash {}\nweighted {}\n",
                c.format,
                c.hash,
                u8::from(c.weighted)
            );
            if let Some(repetitions) = c.repetitions {
                text += &format!("repetitions {repetitions}\n");
            }
            for s in &c.servers {
                text += &format!("server {} {} {} {}\n", s.java_name, s.ip, s.port, s.weight);
            }
            for what in ["keys", "out", "dump"] {
                text += &format!("{what} {}\n", dir.join(what).display());
            }
            std::fs::write(dir.join("case"), text).unwrap();
            dir
        })
        .collect();
    let files: Vec<PathBuf> = dirs.iter().map(|d| d.join("case")).collect();
    let mut args: Vec<&Path> = vec![Path::new("ring")];
    args.extend(files.iter().map(PathBuf::as_path));
    spy_java(&args);
    dirs.iter().map(|dir| read_peer_answer(dir)).collect()
}

/// Reads a peer's `out` (a node index per key) and `dump` (`point
/// index` per continuum entry) files in `dir`.
pub fn read_peer_answer(dir: &Path) -> PeerAnswer {
    PeerAnswer {
        nodes: std::fs::read_to_string(dir.join("out"))
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect(),
        continuum: std::fs::read_to_string(dir.join("dump"))
            .unwrap()
            .lines()
            .map(|l| {
                let (p, s) = l.split_once(' ').unwrap();
                (p.parse().unwrap(), s.parse().unwrap())
            })
            .collect(),
    }
}

/// Writes each case (server lines, keys) into its own directory as
/// `servers` and `keys`, runs the peer once over all the directories, and
/// reads back each one's `out` and `dump`.
pub fn ask_peer(
    name: &str,
    cases: &[(String, &[Vec<u8>])],
    run: impl FnOnce(&[&Path]),
) -> Vec<PeerAnswer> {
    let root = fresh_dir(name);
    let dirs: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(n, (lines, keys))| {
            let dir = root.join(format!("case{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            write_keys(&dir.join("keys"), keys);
            std::fs::write(dir.join("servers"), lines).unwrap();
            dir
        })
        .collect();
    let args: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    run(&args);
    dirs.iter().map(|dir| read_peer_answer(dir)).collect()
}

/// SockIOPool's arithmetic (`peers/SockIoPoolPeer.java`, written from
/// reading libketama's `java_ketama/SockIOPool.java`) run in the JVM: for
/// each case (the server lines as handed to `setServersAndWeights`, and
/// UTF-8 keys) the whole `TreeMap` continuum and each key's server index.
pub fn sockiopool_answers(cases: &[(String, &[Vec<u8>])]) -> Vec<PeerAnswer> {
    static CLASSPATH: OnceLock<String> = OnceLock::new();
    let classpath = CLASSPATH.get_or_init(|| {
        compile_java("SockIoPoolPeer.java", "sockiopool-classes", "")
            .display()
            .to_string()
    });
    ask_peer("sockiopool-cases", cases, |dirs| {
        run_java(classpath, "SockIoPoolPeer", dirs)
    })
}

/// Ruby dalli (Debian `ruby-dalli`) through `peers/dalli_peer.rb`: for
/// each case (server strings one per line, as given to `Dalli::Client.new`,
/// and keys read as UTF-8 strings) the `Dalli::Ring` continuum and each
/// key's server index.
pub fn dalli_answers(cases: &[(String, &[Vec<u8>])]) -> Vec<PeerAnswer> {
    crate::require_tool("ruby", "ruby");
    let probe = Command::new("ruby")
        .args(["-e", "require 'dalli'"])
        .output()
        .expect("run ruby");
    assert!(
        probe.status.success(),
        "Ruby cannot load dalli: run `make deps` (Debian package ruby-dalli)"
    );
    let script = crate::peer_program("dalli_peer.rb");
    ask_peer("dalli-cases", cases, |dirs| {
        let output = crate::run_with_timeout(
            Command::new("ruby").arg(&script).args(dirs),
            Duration::from_secs(300),
        );
        assert!(
            output.status.success(),
            "dalli_peer.rb failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    })
}

/// The npm `memcached` client 2.2.2 (installed into target/node-peer by
/// `make deps`) through `peers/node_memcached_peer.js`: for each case
/// (lines `ADDRESS`, or `ADDRESS<TAB>WEIGHT` for its weighted object form,
/// and UTF-8 keys) the client's `HashRing` continuum and each key's server.
pub fn node_memcached_answers(cases: &[(String, &[Vec<u8>])]) -> Vec<PeerAnswer> {
    crate::require_tool("node", "nodejs");
    let modules = crate::repo_root().join("target/node-peer/node_modules");
    assert!(
        modules.join("memcached/package.json").exists(),
        "the npm memcached client is not installed in {modules:?}: run `make deps`"
    );
    let script = crate::peer_program("node_memcached_peer.js");
    ask_peer("node-memcached-cases", cases, |dirs| {
        let output = crate::run_with_timeout(
            Command::new("node")
                .env("NODE_PATH", &modules)
                .arg(&script)
                .args(dirs),
            Duration::from_secs(300),
        );
        assert!(
            output.status.success(),
            "node_memcached_peer.js failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    })
}

/// The original libketama (PyPI `ketama==0.1.1`, built by `make deps`)
/// through `oracle/libketama_oracle.py`: the server index of each key.
/// Servers are written as a libketama file (`address<TAB>weight`, weight 1
/// when none is given).
pub fn libketama_answers(list: &ServerList, keys: &[Vec<u8>]) -> Vec<usize> {
    let python = crate::oracle_lists::oracle_python();
    let dir = fresh_dir("libketama-oracle");
    std::fs::write(dir.join("servers"), "").unwrap();
    // The original leaves a semaphore and a segment per server file.
    let _guard = crate::sysv::SysvGuard::new(&[&dir.join("servers")]);
    let servers: String = list
        .servers
        .iter()
        .map(|s| format!("{}\t{}\n", s.address(), s.weight.unwrap_or(1)))
        .collect();
    let hex: String = keys
        .iter()
        .map(|k| k.iter().map(|b| format!("{b:02x}")).collect::<String>() + "\n")
        .collect();
    std::fs::write(dir.join("servers"), servers).unwrap();
    std::fs::write(dir.join("keys"), hex).unwrap();
    let script = crate::oracle_script();
    let output = crate::run_with_timeout(
        Command::new(python)
            .arg(script)
            .arg("roll")
            .arg(dir.join("servers"))
            .arg(dir.join("keys")),
        Duration::from_secs(120),
    );
    assert!(
        output.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).expect("oracle output is ASCII");
    let mut point_server = Vec::new();
    let mut answers = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[0] {
            "P" => {
                let ip: Vec<u8> = (0..fields[2].len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&fields[2][i..i + 2], 16).unwrap())
                    .take_while(|&b| b != 0)
                    .collect();
                let ip = String::from_utf8(ip).unwrap();
                point_server.push(
                    list.servers
                        .iter()
                        .position(|s| s.address() == ip)
                        .expect("a listed server"),
                );
            }
            "K" => answers.push(point_server[fields[1].parse::<usize>().unwrap()]),
            "roll" => assert_eq!(fields[1], "1", "the original rejected the list: {line}"),
            _ => {}
        }
    }
    answers
}

/// One question to a per-key peer (pymemcache, python-memcached,
/// Cache::Memcached): its server lines as the script reads them
/// (`ADDRESS` or `ADDRESS<TAB>WEIGHT`), the keys, and the servers marked down.
pub struct PerKeyCase<'a> {
    /// Server lines for the peer script.
    pub servers: String,
    /// The keys.
    pub keys: &'a [Vec<u8>],
    /// Indices of servers the client finds down.
    pub down: Vec<usize>,
}

/// Runs a per-key peer script (`program` with its interpreter first) over
/// every case; returns each key's server index per case (`None` where the
/// client gives up), and the script's standard output.
pub fn per_key_answers(
    name: &str,
    program: &[&std::ffi::OsStr],
    cases: &[PerKeyCase],
) -> (Vec<Vec<Option<usize>>>, String) {
    let root = fresh_dir(name);
    let dirs: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(n, case)| {
            let dir = root.join(format!("case{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            write_keys(&dir.join("keys"), case.keys);
            std::fs::write(dir.join("servers"), &case.servers).unwrap();
            if !case.down.is_empty() {
                let down: Vec<String> = case.down.iter().map(usize::to_string).collect();
                std::fs::write(dir.join("down"), down.join("\n") + "\n").unwrap();
            }
            dir
        })
        .collect();
    let output = crate::run_with_timeout(
        Command::new(program[0]).args(&program[1..]).args(&dirs),
        Duration::from_secs(600),
    );
    assert!(
        output.status.success(),
        "{name} peer failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers = dirs
        .iter()
        .map(|dir| {
            std::fs::read_to_string(dir.join("out"))
                .unwrap()
                .lines()
                .map(|l| usize::try_from(l.parse::<i64>().unwrap()).ok())
                .collect()
        })
        .collect();
    (
        answers,
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// Asks a per-key peer about each (list, servers down) case and compares
/// every key with the library's ring for the same list (`ring`, asked with
/// `Ring::locate_live`) through the harness; returns the number of keys
/// compared (any difference fails the test). `program` is the peer script
/// with its interpreter first; `peer_lines` writes a list as the script
/// reads it.
pub fn compare_per_key(
    name: &str,
    program: &[&std::ffi::OsStr],
    peer_lines: impl Fn(&ServerList) -> String,
    ring: impl Fn(&ServerList) -> ketama_core::Ring,
    cases: &[(ServerList, Vec<usize>)],
    keys: &[Vec<u8>],
) -> usize {
    let table: Vec<Case<&ServerList>> = cases
        .iter()
        .map(|(list, down)| {
            Case::new(
                format!("{} (down: {down:?})", list.name),
                list,
                keys.to_vec(),
            )
            .down(down.clone())
        })
        .collect();
    let ask = |table: &[Case<&ServerList>]| {
        let asked: Vec<PerKeyCase> = table
            .iter()
            .zip(cases)
            .map(|(case, (_, down))| PerKeyCase {
                servers: peer_lines(case.input),
                keys: &case.keys,
                down: down.clone(),
            })
            .collect();
        let (answers, said) = per_key_answers(name, program, &asked);
        print!("{said}");
        answers
            .into_iter()
            .map(|servers| Answer {
                servers,
                continuum: None,
            })
            .collect()
    };
    harness::compare(name, &table, ask, |case| ring(case.input))
}

/// A list as python-memcached and Cache::Memcached scripts read it:
/// `ADDRESS[<TAB>WEIGHT]` lines.
pub fn weighted_peer_lines(list: &ServerList) -> String {
    list.servers
        .iter()
        .map(|s| match s.weight {
            Some(w) => format!("{}\t{w}\n", s.address()),
            None => format!("{}\n", s.address()),
        })
        .collect()
}

/// The library's ring of `flavour` for `list`, read from `host:port[:weight]` lines.
pub fn weighted_ring(list: &ServerList, flavour: ketama_core::Flavour) -> ketama_core::Ring {
    let text: String = list
        .servers
        .iter()
        .map(|s| match s.weight {
            Some(w) => format!("{}:{w}\n", s.address()),
            None => format!("{}\n", s.address()),
        })
        .collect();
    let servers = ketama_core::parser::peers::parse(text.as_bytes(), "servers").unwrap();
    ketama_core::Ring::new(servers, ketama_core::RingConfig::flavour(flavour)).unwrap()
}

/// Keys whose 15-bit CRC is 0, where python-memcached (which reads that
/// hash as 1) and Cache::Memcached (which keeps it) part ways.
pub fn zero_hash_keys() -> Vec<Vec<u8>> {
    (0..3_000_000u32)
        .map(|i| format!("zero:{i}").into_bytes())
        .filter(|k| ketama_core::hash::crc::crc15(k) == 0)
        .take(20)
        .collect()
}
