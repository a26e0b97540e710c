//! The peers of the jump-hash placements (dskit-jump, memcached-proxy) and
//! of go-redis' ring hash, each the real part of the client that Debian
//! packages: Go's `cespare/xxhash` and `facette/natsort` (the servers'
//! natural order and XXH64 of keys and names, `peers/xxhash_natsort_peer.go`),
//! XXH3 from python3-xxhash (`peers/xxh3_peer.py`), and Guava's
//! `Hashing.consistentHash` for the jump from a hash to a bucket
//! (`peers/GuavaJumpPeer.java`). A case asks the hash peer, then Guava, in
//! the same case directories.

use crate::go::build_peer;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use crate::harness::Answer;
use crate::peer_programs::{compile_java, run_java};
use crate::redis_clients::{case_dirs, read_answers, require_python_module};

const GUAVA_JAR: &str = "/usr/share/java/guava.jar";

/// Where a case's 64-bit key hashes and bucket order come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hasher {
    /// `xxhash.Sum64String` and `natsort.Sort` (Go, Debian): dskit's selector.
    GoXxhashNatsort,
    /// `xxhash.xxh3_64_intdigest` and the list order (python3-xxhash):
    /// memcached's proxy.
    PythonXxh3,
}

/// What the Go peer said about one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoHashes {
    /// The servers' indices in natural order.
    pub order: Vec<usize>,
    /// `xxhash.Sum64String` of each key.
    pub keys: Vec<u64>,
    /// `xxhash.Sum64String` of each server line.
    pub servers: Vec<u64>,
}

/// `peers/xxhash_natsort_peer.go`, built once per test process offline
/// against Debian's sources (GOPATH mode).
pub fn xxhash_natsort_program() -> &'static PathBuf {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        build_peer(
            "xxhash_natsort_peer.go",
            &[
                (
                    "github.com/cespare/xxhash/xxhash.go",
                    "golang-github-cespare-xxhash-dev",
                ),
                (
                    "github.com/facette/natsort/natsort.go",
                    "golang-github-facette-natsort-dev",
                ),
            ],
        )
    })
}

/// The class path of `peers/GuavaJumpPeer.java` (compiled once) and Guava.
fn guava_classpath() -> &'static str {
    static CLASSPATH: OnceLock<String> = OnceLock::new();
    CLASSPATH.get_or_init(|| {
        assert!(
            Path::new(GUAVA_JAR).exists(),
            "{GUAVA_JAR} is missing: run `make deps` (Debian package libguava-java)"
        );
        let classes = compile_java("GuavaJumpPeer.java", "guava-jump-classes", GUAVA_JAR);
        format!("{}:{GUAVA_JAR}", classes.display())
    })
}

/// Runs `program` (interpreter first) over `dirs`, printing what it says.
fn run(name: &str, program: &[&std::ffi::OsStr], dirs: &[PathBuf]) {
    let output = crate::run_with_timeout(
        Command::new(program[0]).args(&program[1..]).args(dirs),
        Duration::from_secs(600),
    );
    assert!(
        output.status.success(),
        "the {name} peer failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    print!("{}", String::from_utf8_lossy(&output.stdout));
}

fn read_numbers<T: std::str::FromStr>(path: &Path) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

/// Asks the Go peer about each `(servers, keys)` case: one server per line.
pub fn go_hashes(cases: &[(String, &[Vec<u8>])]) -> Vec<GoHashes> {
    let program = xxhash_natsort_program();
    let dirs = case_dirs("xxhash-natsort", cases);
    run("xxhash/natsort", &[program.as_os_str()], &dirs);
    dirs.iter()
        .map(|dir| GoHashes {
            order: read_numbers(&dir.join("order")),
            keys: read_numbers(&dir.join("hashes")),
            servers: read_numbers(&dir.join("server_hashes")),
        })
        .collect()
}

/// Asks `hasher`, then Guava's jump, about each `(servers, keys)` case
/// (one server per line): each key's server is the server of its hash's
/// bucket.
pub fn jump_answers(hasher: Hasher, cases: &[(String, &[Vec<u8>])]) -> Vec<Answer> {
    let dirs = case_dirs("jump", cases);
    match hasher {
        Hasher::GoXxhashNatsort => {
            let program = xxhash_natsort_program();
            run("xxhash/natsort", &[program.as_os_str()], &dirs);
        }
        Hasher::PythonXxh3 => {
            require_python_module("xxhash", "python3-xxhash");
            let script = crate::peer_program("xxh3_peer.py");
            run(
                "xxh3",
                &["/usr/bin/python3".as_ref(), script.as_os_str()],
                &dirs,
            );
        }
    }
    let args: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    run_java(guava_classpath(), "GuavaJumpPeer", &args);
    read_answers(&dirs)
}

/// Keys of every length from 0 to 300 bytes and some past XXH3's 1,024-byte
/// block and XXH64's 32-byte stripes, of bytes of every value: each length
/// branch of both hashes.
pub fn length_keys() -> Vec<Vec<u8>> {
    let lengths = (0..=300).chain([511, 512, 513, 1023, 1024, 1025, 2048, 4103]);
    lengths
        .map(|n| (0..n).map(|i| (i * 131 + n * 7) as u8).collect())
        .collect()
}
