//! The `nginx` flavour against nginx itself (Debian `nginx-light`), observed
//! live: one nginx on 127.0.0.1 (started and stopped by this test, by PID)
//! proxies `location /uN/` to `upstream uN { hash $http_x_key consistent;
//! server 127.0.0.1:PORT [weight=W]; ... }`, whose servers are loopback
//! listeners of the same nginx answering 204; each response carries
//! `$upstream_addr`. Every key is sent as an `X-Key` header and the
//! upstream nginx chose must be the server the library places the key on,
//! on 3, 10 and 100 servers, unweighted, equal and unequal weights, with
//! ASCII and non-ASCII keys. The library reads the same `upstream` blocks.
//! nginx's plain `hash $key;` (no `consistent`) is asked the same way and
//! must place keys as the `cache-memcached` flavour does (nginx says it
//! follows Cache::Memcached), keys whose 15-bit hash is 0 included.

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::peers;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ketama_core::parser::nginx as nginx_blocks;
use ketama_core::{Flavour, Ring, RingConfig};
use peers::{Weights, keys, non_ascii_keys, our_indices};

/// nginx as Debian installs it.
const NGINX: &str = "/usr/sbin/nginx";

/// A running nginx, stopped (by PID) when dropped.
struct Nginx {
    child: Child,
    port: u16,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One upstream: its block, as written in nginx.conf, and its name.
struct Upstream {
    name: String,
    block: String,
}

/// `server 127.0.0.1:PORT [weight=W];` lines over `ports`, weighted like
/// the peer lists, under the directive `hash` (`hash $http_x_key
/// consistent`, or without `consistent`).
fn upstream(name: &str, hash: &str, ports: &[u16], weights: Weights) -> Upstream {
    let list = peers::servers(ports.len(), weights);
    let mut block = format!("upstream {name} {{\n    {hash};\n");
    for (port, server) in ports.iter().zip(&list.servers) {
        block += &format!("    server 127.0.0.1:{port}");
        if let Some(w) = server.weight {
            block += &format!(" weight={w}");
        }
        block += ";\n";
    }
    block += "}\n";
    Upstream {
        name: format!("{name} ({})", list.name),
        block,
    }
}

/// Starts nginx with `upstreams` behind `/u0/`, `/u1/`... and `backends`
/// loopback listeners; waits (boundedly) until the proxy accepts connections.
fn start(upstreams: &[Upstream], backends: &[u16]) -> Nginx {
    assert!(
        std::path::Path::new(NGINX).exists(),
        "{NGINX} is missing: run `make deps` (Debian package nginx-light)"
    );
    let dir = common::scratch_dir("nginx-peer");
    let port = common::free_port();
    let mut conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\nevents {{ worker_connections 512; }}\nhttp {{\n  access_log off;\n  keepalive_requests 1000000;\n",
        d = dir.display()
    );
    for temp in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"] {
        conf += &format!("  {temp}_temp_path {}/{temp};\n", dir.display());
    }
    for (n, u) in upstreams.iter().enumerate() {
        conf += &u
            .block
            .replacen("upstream u ", &format!("upstream u{n} "), 1);
    }
    conf += &format!("  server {{\n    listen 127.0.0.1:{port};\n");
    for n in 0..upstreams.len() {
        conf += &format!(
            "    location /u{n}/ {{ proxy_pass http://u{n}; add_header X-Upstream $upstream_addr always; }}\n"
        );
    }
    conf += "  }\n  server {\n";
    for b in backends {
        conf += &format!("    listen 127.0.0.1:{b};\n");
    }
    conf += "    location / { return 204; }\n  }\n}\n";
    let conf_path = dir.join("nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let child = Command::new(NGINX)
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(&conf_path)
        .arg("-e")
        .arg(dir.join("error.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn nginx");
    let mut nginx = Nginx { child, port };
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return nginx;
        }
        if let Some(status) = nginx.child.try_wait().unwrap() {
            let log = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
            panic!("nginx exited ({status}): {log}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("nginx did not start listening on 127.0.0.1:{port}");
}

/// The `$upstream_addr` nginx reports for each key on `/u{n}/`, over one
/// keep-alive connection, 100 pipelined requests at a time.
fn ask(nginx: &Nginx, n: usize, keys: &[Vec<u8>]) -> Vec<String> {
    let stream = TcpStream::connect(("127.0.0.1", nginx.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut answers = Vec::with_capacity(keys.len());
    for batch in keys.chunks(100) {
        let mut requests = Vec::new();
        for key in batch {
            requests
                .extend_from_slice(format!("GET /u{n}/ HTTP/1.1\r\nHost: t\r\nX-Key: ").as_bytes());
            requests.extend_from_slice(key);
            requests.extend_from_slice(b"\r\n\r\n");
        }
        writer.write_all(&requests).unwrap();
        for key in batch {
            let mut upstream = None;
            let mut status = String::new();
            reader.read_line(&mut status).unwrap();
            assert!(
                status.starts_with("HTTP/1.1 204"),
                "key {:?}: nginx answered {status:?}",
                String::from_utf8_lossy(key)
            );
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(value) = line.strip_prefix("X-Upstream: ") {
                    upstream = Some(value.to_string());
                }
            }
            let upstream = upstream.expect("an X-Upstream header");
            assert!(
                !upstream.contains(','),
                "nginx tried more than one upstream: {upstream}"
            );
            answers.push(upstream);
        }
    }
    answers
}

/// Keys nginx receives unchanged in a header: the 10,000 ASCII keys and the
/// non-ASCII keys (bytes 0x21..0xfe, valid UTF-8 or not).
fn header_keys() -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(non_ascii_keys());
    keys
}

/// Asks nginx, upstreams of 3, 10 and 100 servers (unweighted, equal and
/// unequal weights) under the directive `hash`, about `keys`; compares
/// with `flavour`'s ring of the same blocks. Returns the keys compared.
fn compare(hash: &str, flavour: Flavour, keys: &[Vec<u8>]) -> usize {
    let mut ports: Vec<u16> = Vec::new();
    while ports.len() < 100 {
        let port = common::free_port();
        if !ports.contains(&port) {
            ports.push(port);
        }
    }
    let mut upstreams = Vec::new();
    for n in [3, 10, 100] {
        for w in [Weights::None, Weights::Equal, Weights::Unequal] {
            upstreams.push(upstream("u", hash, &ports[..n], w));
        }
    }
    let nginx = start(&upstreams, &ports);
    let mut compared = 0;
    for (n, u) in upstreams.iter().enumerate() {
        let servers = nginx_blocks::parse(u.block.as_bytes(), &u.name).unwrap();
        let ring = Ring::new(servers, RingConfig::flavour(flavour)).unwrap();
        let ours: Vec<String> = our_indices(&ring, keys)
            .into_iter()
            .map(|i| String::from_utf8(ring.servers()[i].address().to_vec()).unwrap())
            .collect();
        compared += report(
            flavour.name(),
            &format!("{hash}, {}", u.name),
            keys,
            &ours,
            &ask(&nginx, n, keys),
        );
    }
    compared
}

#[test]
fn nginx_consistent_hash_picks_the_library_s_server() {
    let compared = compare(
        "hash $http_x_key consistent",
        Flavour::Nginx,
        &header_keys(),
    );
    assert!(compared >= 9 * 10_000);
    println!("9 upstreams, {compared} keys, 0 differences");
}

/// Keys whose 15-bit hash `(crc32 >> 16) & 0x7fff` is 0, where clients
/// that say they follow Cache::Memcached part (python-memcached takes 1).
fn zero_hash_keys(count: usize) -> Vec<Vec<u8>> {
    let crc32 = ketama_core::hash::HashAlgorithm::from_name("crc32").unwrap();
    (0u64..)
        .map(|i| format!("zero:{i}").into_bytes())
        .filter(|key| (crc32.hash(key) >> 16) & 0x7fff == 0)
        .take(count)
        .collect()
}

#[test]
fn nginx_plain_hash_places_keys_as_cache_memcached() {
    let mut keys = header_keys();
    let zeros = zero_hash_keys(20);
    keys.extend(zeros.iter().cloned());
    let compared = compare("hash $http_x_key", Flavour::CacheMemcached, &keys);
    assert!(compared >= 9 * 10_000);
    println!(
        "nginx plain hash | 9 upstreams | {compared} keys ({} with a 15-bit hash of 0 each) | 0 differing",
        zeros.len()
    );
}
