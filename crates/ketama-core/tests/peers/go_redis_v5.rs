//! The `go-redis-ring-v5` flavour against go-redis v5's own `Ring` (Debian
//! `golang-gopkg-redis.v5-dev` 5.2.9 with `golang-go`), asked in the same
//! run through ketama-testkit/peers/goredis_v5_peer.go, built offline against
//! the Debian sources (GOPATH mode, no network). Every key goes through
//! `Ring.Eval` (`EVAL script 1 key`, routed by the ring's `cmdShard`,
//! `hashtag.Key` and `consistenthash`):
//!
//! * offline, each shard's client records that the ring handed it the
//!   command: 3, 10 and 100 shards named by their addresses and by shard
//!   names (`RingOptions.Addrs` keys); the ring's whole map (read from the
//!   `Ring`) and every key must equal the library's;
//! * live, three real `redis-server`s on loopback: each key is `SET` through
//!   the ring and found again with `KEYS *` on the server that holds it.
//!
//! Keys: 10,000 ASCII keys, the hash-tag keys, bytes ≥ 0x80 (UTF-8 and
//! not), control bytes, 245 to 300 bytes, and keys forged onto points and
//! one below and above them (the first and last points, 0 and 2^32 − 1: the
//! wrap-around). Equal points of two shards are left out of the lists:
//! `NewRing` adds shards in Go's randomised map order, so the peer's answer
//! there changes from run to run (the library keeps the later server).

use ketama_testkit as common;
use ketama_testkit::peers;
use ketama_testkit::redis_clients;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring};
use ketama_testkit::go::build_peer;
use ketama_testkit::harness::{self, Answer, Case};
use peers::Weights;
use redis_clients::{byte_keys, forged_keys, redis_lists, ring_of, some_points};

const FLAVOUR: Flavour = Flavour::GoRedisRingV5;

/// The peer program, built once per test process from the Debian sources.
fn peer_program() -> &'static PathBuf {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        build_peer(
            "goredis_v5_peer.go",
            &[(
                "gopkg.in/redis.v5/internal/consistenthash/consistenthash.go",
                "golang-gopkg-redis.v5-dev",
            )],
        )
    })
}

/// One ring: our server lines (peer syntax) and the shard names.
struct Pool {
    name: String,
    ours: String,
    shards: Vec<String>,
}

fn standard() -> Vec<Pool> {
    let mut all = Vec::new();
    for list in redis_lists(&[Weights::None]) {
        let addresses: Vec<String> = list.servers.iter().map(|s| s.address()).collect();
        all.push(Pool {
            name: format!("{} (addresses)", list.name),
            ours: addresses.join("\n") + "\n",
            shards: addresses.clone(),
        });
        let names: Vec<String> = (1..=addresses.len()).map(|i| format!("shard{i}")).collect();
        all.push(Pool {
            name: format!("{} (shard names)", list.name),
            ours: addresses
                .iter()
                .zip(&names)
                .map(|(a, n)| format!("{a} {n}\n"))
                .collect(),
            shards: names,
        });
    }
    all
}

fn ring(pool: &Pool) -> Ring {
    ring_of(
        peer_lists::parse(pool.ours.as_bytes(), "servers").unwrap(),
        FLAVOUR,
    )
}

fn keys_for(ring: &Ring) -> Vec<Vec<u8>> {
    let mut keys = byte_keys();
    keys.extend(forged_keys(&some_points(ring, 300), false));
    keys
}

/// Compares every pool through `ask` (offline or live).
fn compare_pools(
    pools: &[Pool],
    ask: impl FnOnce(&[(String, &[Vec<u8>])]) -> Vec<Answer>,
) -> usize {
    for pool in pools {
        let specs = peer_lists::parse(pool.ours.as_bytes(), "servers").unwrap();
        assert!(
            redis_clients::cross_server_ties(&specs, FLAVOUR).is_empty(),
            "{}: two shards share a point (the peer's answer there is random)",
            pool.name
        );
    }
    let table: Vec<Case<&Pool>> = pools
        .iter()
        .map(|p| Case::new(p.name.as_str(), p, keys_for(&ring(p))))
        .collect();
    let ask_pools = |table: &[Case<&Pool>]| {
        let answers = ask(&harness::questions(table, |p| p.shards.join("\n") + "\n"));
        for (case, answer) in table.iter().zip(&answers) {
            assert!(answer.continuum.is_some(), "{}: no ring shown", case.name);
        }
        answers
    };
    harness::compare(FLAVOUR.name(), &table, ask_pools, |case| ring(case.input))
}

#[test]
fn ring_eval_routes_every_key_as_the_library_does() {
    let program = peer_program();
    let compared = compare_pools(&standard(), |cases| {
        let (answers, said) = redis_clients::ask("go-redis-v5", &[program.as_os_str()], cases);
        print!("{said}");
        answers
    });
    assert!(compared >= 6 * 10_000);
    println!("{compared} keys, 0 differences");
}

/// A `redis-server` on a free loopback port, killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Server {
        common::require_tool("redis-server", "redis-server");
        let port = common::free_port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--loglevel", "warning"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn redis-server");
        let mut server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("redis-server on port {port} exited: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "redis-server on port {port} did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn live_shards_hold_the_keys_the_library_places() {
    let program = peer_program();
    let servers: Vec<Server> = (0..3).map(|_| Server::start()).collect();
    let addresses: Vec<String> = servers
        .iter()
        .map(|s| format!("127.0.0.1:{}", s.port))
        .collect();
    let names = ["cache-a", "cache-b", "cache-c"].map(String::from).to_vec();
    let pools = [
        Pool {
            name: "3 live redis-servers (addresses)".into(),
            ours: addresses.join("\n") + "\n",
            shards: addresses.clone(),
        },
        Pool {
            name: "3 live redis-servers (shard names)".into(),
            ours: addresses
                .iter()
                .zip(&names)
                .map(|(a, n)| format!("{a} {n}\n"))
                .collect(),
            shards: names,
        },
    ];
    let live = addresses.join(",");
    let compared = compare_pools(&pools, |cases| {
        let (answers, said) = redis_clients::ask(
            "go-redis-v5-live",
            &[program.as_os_str(), "live".as_ref(), live.as_ref()],
            cases,
        );
        print!("{said}");
        answers
    });
    assert!(compared >= 2 * 10_000);
}
