//! The twemproxy flavours (`distribution: ketama` and `modula`), checked
//! against a real nutcracker 0.5.0 (Debian
//! `nutcracker`) in the same run: real memcached backends and nutcracker on
//! 127.0.0.1 only; keys are set through each nutcracker pool and then looked
//! for on every backend; pools with `hash_tag` too. Every process is started here and stopped by PID,
//! every wait is bounded.

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::peers;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::Memcached;
use ketama_core::{Flavour, Options, Ring, RingConfig, ServerSpec};

const IO_TIMEOUT: Duration = Duration::from_secs(20);

fn connect(port: u16) -> TcpStream {
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).expect("connect");
    stream.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    stream.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
    stream
}

/// Writes `request` from a helper thread while reading `lines` reply lines
/// (the counterpart of each command's last line), so large pipelines cannot
/// deadlock. Returns every line read.
fn pipeline(
    port: u16,
    request: Vec<u8>,
    is_last_line: impl Fn(&[u8]) -> bool,
    commands: usize,
) -> Vec<Vec<u8>> {
    let stream = connect(port);
    let mut writer = stream.try_clone().unwrap();
    let sender = std::thread::spawn(move || writer.write_all(&request));
    let mut reader = BufReader::new(stream);
    let (mut lines, mut finished) = (Vec::new(), 0);
    while finished < commands {
        let mut line = Vec::new();
        let n = reader
            .by_ref()
            .take(1 << 20)
            .read_until(b'\n', &mut line)
            .expect("read reply");
        assert!(
            n > 0,
            "connection closed after {finished} of {commands} replies"
        );
        let text = line.strip_suffix(b"\r\n").unwrap_or(&line).to_vec();
        assert!(
            !text.ends_with(b"ERROR"),
            "server replied {}",
            String::from_utf8_lossy(&text)
        );
        if is_last_line(&text) {
            finished += 1;
        }
        lines.push(text);
    }
    sender.join().unwrap().expect("write requests");
    lines
}

/// nutcracker on loopback, stopped (by PID) when dropped.
struct Nutcracker {
    child: Child,
}

impl Nutcracker {
    fn start(config: &str, listen_ports: &[u16]) -> Nutcracker {
        common::require_tool("nutcracker", "nutcracker");
        // One directory per proxy: two tests can be handed the same free port.
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = common::scratch_dir(&format!("nutcracker-{}-{n}", listen_ports[0]));
        let conf = dir.join("nutcracker.yml");
        std::fs::write(&conf, config).unwrap();
        let test = common::run_with_timeout(
            Command::new("nutcracker").arg("-t").arg("-c").arg(&conf),
            Duration::from_secs(20),
        );
        assert!(
            test.status.success(),
            "nutcracker rejected its configuration: {}",
            String::from_utf8_lossy(&test.stderr)
        );
        let child = Command::new("nutcracker")
            .arg("-c")
            .arg(&conf)
            .args([
                "-a",
                "127.0.0.1",
                "-s",
                &common::free_port().to_string(),
                "-v",
                "2",
            ])
            .arg("-o")
            .arg(dir.join("nutcracker.log"))
            .arg("-p")
            .arg(dir.join("nutcracker.pid"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn nutcracker");
        let mut proxy = Nutcracker { child };
        let deadline = Instant::now() + Duration::from_secs(10);
        for &port in listen_ports {
            let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
            while TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_err() {
                assert!(
                    proxy.child.try_wait().unwrap().is_none(),
                    "nutcracker exited"
                );
                assert!(
                    Instant::now() < deadline,
                    "nutcracker did not listen on {port} within 10 s"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        proxy
    }
}

impl Drop for Nutcracker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One nutcracker pool: servers (index into the backends), weights, names, hash.
struct Pool {
    backends: Vec<usize>,
    weights: Vec<u64>,
    names: Option<Vec<String>>,
    /// twemproxy's spelling; `None` leaves the default (fnv1a_64).
    hash: Option<&'static str>,
    listen: u16,
    /// `distribution: modula` instead of `ketama`.
    modula: bool,
    /// `hash_tag: "XY"` (`--hash-tag`).
    hash_tag: Option<&'static str>,
}

impl Pool {
    fn yaml(&self, n: usize, backends: &[Memcached]) -> String {
        let mut y = format!(
            "pool{n}:\n  listen: 127.0.0.1:{}\n  distribution: {}\n",
            self.listen,
            if self.modula { "modula" } else { "ketama" }
        );
        if let Some(hash) = self.hash {
            y += &format!("  hash: {hash}\n");
        }
        if let Some(tag) = self.hash_tag {
            y += &format!("  hash_tag: \"{tag}\"\n");
        }
        y += "  timeout: 5000\n  auto_eject_hosts: false\n  servers:\n";
        for (i, &b) in self.backends.iter().enumerate() {
            y += &format!("   - {}:{}", backends[b].address(), self.weights[i]);
            if let Some(names) = &self.names {
                y += &format!(" {}", names[i]);
            }
            y += "\n";
        }
        y
    }

    fn ring(&self, backends: &[Memcached]) -> Ring {
        let specs = self
            .backends
            .iter()
            .enumerate()
            .map(|(i, &b)| ServerSpec {
                address: backends[b].address().into_bytes(),
                weight: Some(self.weights[i]),
                name: self.names.as_ref().map(|n| n[i].clone().into_bytes()),
            })
            .collect();
        let flavour = if self.modula {
            Flavour::TwemproxyModula
        } else {
            Flavour::Twemproxy
        };
        let hash = self.hash.map(|h| {
            flavour
                .hash_from_name(h)
                .unwrap_or_else(|| panic!("library lacks twemproxy hash {h}"))
        });
        let mut config = RingConfig::new(flavour, hash);
        if let Some(tag) = self.hash_tag {
            config.options = Options::parse(&format!("hash_tag={tag}")).unwrap();
        }
        Ring::new(specs, config).expect("library ring")
    }
}

/// Keys valid for memcached's text protocol: the standard keys, point
/// labels, keys past the last point and non-ASCII keys.
fn keys_for(ring: &Ring, pool: &Pool, backends: &[Memcached]) -> Vec<Vec<u8>> {
    let mut keys = peers::keys();
    for (i, &b) in pool.backends.iter().enumerate() {
        let name = pool
            .names
            .as_ref()
            .map_or_else(|| backends[b].address(), |n| n[i].clone());
        keys.extend((0..40).map(|k| format!("{name}-{k}").into_bytes()));
    }
    keys.extend(peers::past_last_point_keys(ring, 5));
    keys.extend(
        peers::non_ascii_keys()
            .into_iter()
            .filter(|k| !k.contains(&0x7f)),
    );
    if let Some(tag) = pool.hash_tag {
        keys.extend(tagged_keys(tag.as_bytes()));
    }
    keys
}

/// Keys for a hash tag `[open, close]`: tags shared by many keys, tags at
/// the start and the end, empty tags, an open byte with no close, a close
/// before the open, and two tags (the first counts).
fn tagged_keys(tag: &[u8]) -> Vec<Vec<u8>> {
    let (o, c) = (tag[0] as char, tag[1] as char);
    let mut keys = Vec::new();
    for i in 0..4000 {
        let t = i % 250;
        keys.push(format!("user:{o}{t}{c}:field{i}"));
        keys.push(format!("{o}{t}{c}tail{i}"));
        keys.push(format!("head{i}{o}{t}{c}"));
    }
    for i in 0..300 {
        keys.push(format!("empty{o}{c}{i}"));
        keys.push(format!("open{o}only{i}"));
        keys.push(format!("close{c}first{o}{i}{c}"));
        keys.push(format!("two{o}a{i}{c}{o}b{c}"));
        keys.push(format!("nested{o}{o}{i}{c}{c}"));
    }
    keys.into_iter().map(String::into_bytes).collect()
}

fn set_through_proxy(port: u16, keys: &[Vec<u8>]) {
    let mut request = Vec::new();
    for key in keys {
        request.extend_from_slice(b"set ");
        request.extend_from_slice(key);
        request.extend_from_slice(b" 0 0 1\r\nx\r\n");
    }
    let lines = pipeline(port, request, |l| l == b"STORED", keys.len());
    assert_eq!(
        lines.len(),
        keys.len(),
        "unexpected replies through nutcracker"
    );
}

/// Which of `keys` a backend holds.
fn held_by(port: u16, keys: &[Vec<u8>]) -> std::collections::HashSet<Vec<u8>> {
    let mut request = Vec::new();
    let chunks: Vec<&[Vec<u8>]> = keys.chunks(20).collect();
    for chunk in &chunks {
        request.extend_from_slice(b"get");
        for key in *chunk {
            request.push(b' ');
            request.extend_from_slice(key);
        }
        request.extend_from_slice(b"\r\n");
    }
    let lines = pipeline(port, request, |l| l == b"END", chunks.len());
    lines
        .iter()
        .filter_map(|l| l.strip_prefix(b"VALUE "))
        .map(|rest| {
            rest.strip_suffix(b" 0 1")
                .expect("VALUE <key> 0 1")
                .to_vec()
        })
        .collect()
}

fn flush(backends: &[Memcached]) {
    for b in backends {
        pipeline(b.port, b"flush_all\r\n".to_vec(), |l| l == b"OK", 1);
    }
}

fn check_pools(backends: &[Memcached], pools: &[Pool]) {
    let config: String = pools
        .iter()
        .enumerate()
        .map(|(n, p)| p.yaml(n, backends))
        .collect();
    let proxy = Nutcracker::start(&config, &pools.iter().map(|p| p.listen).collect::<Vec<_>>());
    for pool in pools {
        let ring = pool.ring(backends);
        let keys = keys_for(&ring, pool, backends);
        flush(backends);
        set_through_proxy(pool.listen, &keys);
        let mut peer = vec![usize::MAX; keys.len()];
        for (i, &b) in pool.backends.iter().enumerate() {
            let held = held_by(backends[b].port, &keys);
            for (k, key) in keys.iter().enumerate() {
                if held.contains(key) {
                    assert_eq!(peer[k], usize::MAX, "key {key:?} found on two backends");
                    peer[k] = i;
                }
            }
        }
        let ours = peers::our_indices(&ring, &keys);
        let name = format!(
            "{} hash {} on {} servers{}",
            ring.config().flavour.name(),
            ring.key_hash().name(),
            pool.backends.len(),
            if pool.names.is_some() {
                " with names"
            } else {
                ""
            }
        ) + &pool
            .hash_tag
            .map_or(String::new(), |t| format!(" hash_tag {t}"));
        report("twemproxy", &name, &keys, &ours, &peer);
    }
    drop(proxy);
}

#[test]
fn nutcracker_places_keys_like_the_twemproxy_flavour_on_3_and_10_servers_with_every_hash() {
    let backends: Vec<Memcached> = (0..10)
        .map(|_| Memcached::start_with(8, &["-t", "1", "-u", "nobody"]))
        .collect();
    let unequal: Vec<u64> = (0..10)
        .map(|i| if i == 1 { 12 } else { i % 5 + 1 })
        .collect();
    let mut pools = vec![
        Pool {
            backends: vec![0, 1, 2],
            weights: vec![1; 3],
            names: None,
            hash: None,
            listen: common::free_port(),
            modula: false,
            hash_tag: None,
        },
        Pool {
            backends: (0..10).collect(),
            weights: unequal.clone(),
            names: Some((0..10).map(|i| format!("cache-{i}")).collect()),
            hash: None,
            listen: common::free_port(),
            modula: false,
            hash_tag: None,
        },
    ];
    for hash in [
        "md5",
        "crc32",
        "crc32a",
        "fnv1_64",
        "fnv1a_64",
        "fnv1_32",
        "fnv1a_32",
        "hsieh",
        "murmur",
        "jenkins",
        "one_at_a_time",
        "crc16",
    ] {
        pools.push(Pool {
            backends: (0..10).collect(),
            weights: unequal.clone(),
            names: None,
            hash: Some(hash),
            listen: common::free_port(),
            modula: false,
            hash_tag: None,
        });
    }
    for (tag, hash) in [("{}", None), ("<>", Some("crc32a")), ("$$", Some("murmur"))] {
        pools.push(Pool {
            backends: (0..10).collect(),
            weights: unequal.clone(),
            names: None,
            hash,
            listen: common::free_port(),
            modula: false,
            hash_tag: Some(tag),
        });
    }
    // The same pools under `distribution: modula` (twemproxy-modula).
    let modula: Vec<Pool> = pools
        .iter()
        .map(|p| Pool {
            backends: p.backends.clone(),
            weights: p.weights.clone(),
            names: p.names.clone(),
            hash: p.hash,
            listen: common::free_port(),
            modula: true,
            hash_tag: p.hash_tag,
        })
        .collect();
    check_pools(&backends, &pools);
    check_pools(&backends, &modula);
}

#[test]
fn nutcracker_places_keys_like_the_twemproxy_flavour_on_100_servers() {
    let backends: Vec<Memcached> = (0..100)
        .map(|_| Memcached::start_with(2, &["-t", "1", "-c", "32", "-u", "nobody"]))
        .collect();
    let weights: Vec<u64> = (0..100).map(|i| 1 + i % 3).collect();
    let pools = [
        Pool {
            backends: (0..100).collect(),
            weights: vec![1; 100],
            names: Some((0..100).map(|i| format!("mc{i:03}")).collect()),
            hash: None,
            listen: common::free_port(),
            modula: false,
            hash_tag: None,
        },
        Pool {
            backends: (0..100).collect(),
            weights,
            names: None,
            hash: None,
            listen: common::free_port(),
            modula: true,
            hash_tag: None,
        },
    ];
    check_pools(&backends, &pools);
    let ring = pools[0].ring(&backends);
    assert!(
        ring.servers().iter().all(|s| s.point_count() == 156),
        "100 equal servers get 156 points each"
    );
}

#[test]
fn duplicate_server_names_are_rejected_like_nutcracker_rejects_them() {
    common::require_tool("nutcracker", "nutcracker");
    let dir = common::scratch_dir("nutcracker-duplicates");
    let lists: [&[(&str, Option<&str>)]; 2] = [
        &[
            ("127.0.0.1:41001", Some("twin")),
            ("127.0.0.1:41002", Some("solo")),
            ("127.0.0.1:41003", Some("twin")),
        ],
        &[("127.0.0.1:41001", None), ("127.0.0.1:41001", None)],
    ];
    for (n, list) in lists.iter().enumerate() {
        let mut config =
            "pool:\n  listen: 127.0.0.1:40001\n  distribution: ketama\n  servers:\n".to_string();
        for (address, name) in *list {
            config += &format!(
                "   - {address}:1{}\n",
                name.map_or(String::new(), |n| format!(" {n}"))
            );
        }
        let conf = dir.join(format!("duplicates{n}.yml"));
        std::fs::write(&conf, config).unwrap();
        let test = common::run_with_timeout(
            Command::new("nutcracker").arg("-t").arg("-c").arg(&conf),
            Duration::from_secs(20),
        );
        assert!(!test.status.success(), "nutcracker accepted {list:?}");
        let specs = list
            .iter()
            .map(|(address, name)| ServerSpec {
                address: address.as_bytes().to_vec(),
                weight: Some(1),
                name: name.map(|n| n.as_bytes().to_vec()),
            })
            .collect();
        let err = Ring::new(specs, RingConfig::flavour(Flavour::Twemproxy))
            .unwrap_err()
            .to_string();
        assert!(err.contains("two servers are named"), "{err}");
    }
}
