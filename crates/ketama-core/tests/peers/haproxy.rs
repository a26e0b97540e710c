//! The `haproxy` flavour against HAProxy itself (Debian `haproxy`), observed
//! live: one HAProxy on 127.0.0.1 (started and stopped by this test, by PID)
//! routes each request by its `X-Pool` header to a backend with
//! `balance hdr(X-Key)` (one with `balance uri`) and `hash-type consistent`,
//! whose servers are loopback listeners of this test answering with their
//! own port. Every key is sent once per backend; the listener that answered
//! must be the server the library places the key on (and HAProxy's
//! `srv_id` the id the library gave it). Backends: 3, 10 and 100 servers,
//! unweighted, equal and unequal weights; every hash function with and
//! without `avalanche`; ids given in the server line (`id N`) mixed with
//! automatic ones (the others named by their server names, which HAProxy
//! does not hash); ids that collide on the ring (tied points); servers
//! `disabled` (failover). Keys: 10,000 ASCII, 500 non-ASCII, keys whose
//! sdbm hash lies exactly on a point or half way between two (the tie
//! rule), and keys past the last point and before the first (the wrap).

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::loopback_http;
use ketama_testkit::peers;

use std::process::{Command, Stdio};
use std::time::Duration;

use ketama_core::flavour::haproxy::haproxy_ids;
use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring, RingConfig};
use loopback_http::{Backends, Proxy, ask};
use peers::{Weights, keys, non_ascii_keys};

/// HAProxy as Debian installs it.
const HAPROXY: &str = "/usr/sbin/haproxy";

/// One server line of a backend.
#[derive(Clone)]
struct Member {
    port: u16,
    weight: Option<u64>,
    id: Option<u32>,
    disabled: bool,
}

/// One HAProxy backend and the library's view of it.
struct Pool {
    name: String,
    /// `hash-type consistent` function and modifier, as written there.
    hash: &'static str,
    members: Vec<Member>,
    /// How the key is sampled.
    balance: Balance,
    /// The list names each server without an id by its name in the
    /// `server` line (`s3`), which HAProxy does not hash.
    named: bool,
}

/// The `balance` line of a backend.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Balance {
    /// `balance hdr(X-Key)`: the header's first comma-separated value.
    Header,
    /// `balance hash req.fhdr(X-Key)`: the whole header value.
    FullHeader,
    /// `balance uri`: the path (the key after a `/`).
    Uri,
}

/// What HAProxy hashes of a key sent as `X-Key` under `balance hdr(X-Key)`
/// (`http_find_header` without `full`): the header is read as a list, so
/// leading blanks are skipped, the value ends at the first comma outside a
/// quoted string (where `\` escapes a byte), and trailing blanks are cut;
/// `None` when that leaves nothing (HAProxy then falls back to round robin).
fn first_list_value(key: &[u8]) -> Option<Vec<u8>> {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let start = key.iter().position(|b| !blank(b)).unwrap_or(key.len());
    let value = &key[start..];
    let (mut quoted, mut escaped, mut end) = (false, false, value.len());
    for (i, &b) in value.iter().enumerate() {
        if escaped {
            escaped = false;
        } else if quoted {
            match b {
                b'\\' => escaped = true,
                b'"' => quoted = false,
                _ => {}
            }
        } else if b == b'"' {
            quoted = true;
        } else if b == b',' {
            end = i;
            break;
        }
    }
    let end = value[..end]
        .iter()
        .rposition(|b| !blank(b))
        .map_or(0, |e| e + 1);
    (end > 0).then(|| value[..end].to_vec())
}

impl Pool {
    fn new(name: &str, hash: &'static str, members: Vec<Member>) -> Pool {
        Pool {
            name: format!("{name}, hash-type consistent {hash}"),
            hash,
            members,
            balance: Balance::Header,
            named: false,
        }
    }

    /// The `backend` section.
    fn section(&self, n: usize) -> String {
        let balance = match self.balance {
            Balance::Header => "hdr(X-Key)",
            Balance::FullHeader => "hash req.fhdr(X-Key)",
            Balance::Uri => "uri",
        };
        let mut text = format!(
            "backend p{n}\n  balance {balance}\n  hash-type consistent {}\n  http-reuse always\n  http-response set-header X-Server-Id %[srv_id]\n",
            self.hash
        );
        for (i, m) in self.members.iter().enumerate() {
            text += &format!("  server s{i} 127.0.0.1:{}", m.port);
            if let Some(w) = m.weight {
                text += &format!(" weight {w}");
            }
            if let Some(id) = m.id {
                text += &format!(" id {id}");
            }
            if m.disabled {
                text += " disabled";
            }
            text += "\n";
        }
        text
    }

    /// The server list as the flavour's users write it: `HOST:PORT[:WEIGHT]
    /// [ID]`, the name column holding HAProxy's id (or, in a `named` pool,
    /// the server's name where it has no id).
    fn list(&self) -> String {
        let mut text = String::new();
        for (i, m) in self.members.iter().enumerate() {
            text += &format!("127.0.0.1:{}", m.port);
            if let Some(w) = m.weight {
                text += &format!(":{w}");
            }
            match m.id {
                Some(id) => text += &format!(" {id}"),
                None if self.named => text += &format!(" s{i}"),
                None => {}
            }
            text += "\n";
        }
        text
    }

    fn ring(&self) -> Ring {
        let servers = peer_lists::parse(self.list().as_bytes(), &self.name).unwrap();
        let hash = Flavour::Haproxy.hash_from_name(self.hash).unwrap();
        Ring::new(servers, RingConfig::new(Flavour::Haproxy, Some(hash))).unwrap()
    }
}

fn members(ports: &[u16], weights: Weights) -> Vec<Member> {
    let list = peers::servers(ports.len(), weights);
    ports
        .iter()
        .zip(&list.servers)
        .map(|(&port, s)| Member {
            port,
            weight: s.weight,
            id: None,
            disabled: false,
        })
        .collect()
}

/// Bytes of the constructed keys: printable ASCII but the comma and the
/// double quote (which `balance hdr()` reads as list syntax).
fn key_bytes() -> Vec<u8> {
    (0x21u8..0x7f)
        .filter(|b| !matches!(b, b',' | b'"'))
        .collect()
}

/// sdbm is `h * 65599 + byte`: a key whose sdbm is `target`, found by
/// meeting in the middle: a 4-byte head `@` + three bytes, tried in order,
/// and a 3-byte tail from `tails`.
fn sdbm_key(target: u32, tails: &[(u32, [u8; 3])]) -> Vec<u8> {
    let bytes = key_bytes();
    let m = |h: u32, b: u8| h.wrapping_mul(65599).wrapping_add(u32::from(b));
    let m3 = 65599u32.wrapping_mul(65599).wrapping_mul(65599);
    for &a in &bytes {
        for &b in &bytes {
            for &c in &bytes {
                let head = m(m(m(m(0, b'@'), a), b), c);
                let need = target.wrapping_sub(head.wrapping_mul(m3));
                if let Ok(at) = tails.binary_search_by_key(&need, |t| t.0) {
                    let mut key = vec![b'@', a, b, c];
                    key.extend_from_slice(&tails[at].1);
                    return key;
                }
            }
        }
    }
    panic!("no 7-byte key has sdbm {target:#x}");
}

/// Every 3-byte tail of [`key_bytes`] with its sdbm, sorted.
fn sdbm_tails() -> Vec<(u32, [u8; 3])> {
    let bytes = key_bytes();
    let mut tails = Vec::with_capacity(bytes.len().pow(3));
    for &a in &bytes {
        for &b in &bytes {
            for &c in &bytes {
                let tail = [a, b, c];
                tails.push((ketama_core::hash::haproxy::sdbm(&tail), tail));
            }
        }
    }
    tails.sort_unstable();
    tails
}

/// Keys on the rule's edges for an sdbm ring: exactly on points, exactly
/// half way between two points (the point before wins), one past half way,
/// and keys hashing below the first point or above the last (the wrap).
fn edge_keys(ring: &Ring, tails: &[(u32, [u8; 3])]) -> Vec<Vec<u8>> {
    let points = ring.continuum().points();
    let mut targets = Vec::new();
    for i in (0..points.len()).step_by(points.len() / 8 + 1) {
        let (a, b) = (points[i], points[(i + 1) % points.len()]);
        let middle = a.wrapping_add(b.wrapping_sub(a) / 2);
        targets.extend([a, middle, middle.wrapping_add(1)]);
    }
    let (first, last) = (points[0], *points.last().unwrap());
    let wrap_gap = first.wrapping_sub(last);
    targets.extend([
        last.wrapping_add(wrap_gap / 2),
        last.wrapping_add(wrap_gap / 2 + 1),
        u32::MAX,
        0,
    ]);
    targets
        .into_iter()
        .map(|t| {
            let key = sdbm_key(t, tails);
            assert_eq!(ring.hash_key(&key), t);
            key
        })
        .collect()
}

/// Keys (after `prefix`) whose hash lies below the first point or above
/// the last.
fn wrap_keys(ring: &Ring, prefix: &str) -> Vec<Vec<u8>> {
    let points = ring.continuum().points();
    let (first, last) = (points[0], *points.last().unwrap());
    (0..3_000_000u32)
        .map(|i| format!("{prefix}wrap:{i}").into_bytes())
        .filter(|k| {
            let h = ring.hash_key(k);
            h < first || h > last
        })
        .take(20)
        .collect()
}

fn start(pools: &[Pool]) -> Proxy {
    common::require_tool(HAPROXY, "haproxy");
    let dir = common::scratch_dir("haproxy-peer");
    let port = common::free_port();
    let mut conf = format!(
        "global\n  maxconn 2000\n  nbthread 2\n\ndefaults\n  mode http\n  timeout connect 10s\n  timeout client 120s\n  timeout server 120s\n  timeout http-keep-alive 120s\n\nfrontend fe\n  bind 127.0.0.1:{port}\n  use_backend p%[req.hdr(X-Pool)]\n\n"
    );
    for (n, pool) in pools.iter().enumerate() {
        conf += &pool.section(n);
        conf += "\n";
    }
    let conf_path = dir.join("haproxy.cfg");
    std::fs::write(&conf_path, conf).unwrap();
    let log = dir.join("haproxy.log");
    let check = Command::new(HAPROXY)
        .arg("-c")
        .arg("-f")
        .arg(&conf_path)
        .output()
        .expect("run haproxy -c");
    assert!(
        check.status.success(),
        "haproxy rejects the configuration:\n{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let child = Command::new(HAPROXY)
        .arg("-db")
        .arg("-f")
        .arg(&conf_path)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("spawn haproxy");
    let mut proxy = Proxy { child, port, log };
    proxy.wait_listening("haproxy", Duration::from_secs(20));
    proxy
}

fn haproxy_version() -> String {
    let out = Command::new(HAPROXY)
        .arg("-v")
        .output()
        .expect("haproxy -v");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn haproxy_consistent_hash_picks_the_library_s_server() {
    common::require_tool(HAPROXY, "haproxy");
    let backends = Backends::start(100);
    let ports = &backends.ports;
    let mut pools = Vec::new();
    for n in [3, 10, 100] {
        for w in [Weights::None, Weights::Equal, Weights::Unequal] {
            let name = peers::servers(n, w).name;
            pools.push(Pool::new(&name, "sdbm", members(&ports[..n], w)));
        }
    }
    for hash in [
        "djb2",
        "wt6",
        "crc32",
        "sdbm avalanche",
        "djb2 avalanche",
        "wt6 avalanche",
        "crc32 avalanche",
    ] {
        let ten = members(&ports[..10], Weights::Unequal);
        pools.push(Pool::new("10 servers, unequal weights", hash, ten));
    }
    // Ids in the server lines mixed with automatic ones.
    let mut mixed = members(&ports[10..22], Weights::Unequal);
    for (i, id) in [(0, 5), (3, 1), (4, 1000), (7, 70000), (8, 9), (11, 2)] {
        mixed[i].id = Some(id);
    }
    let mut mixed = Pool::new(
        "12 servers, ids 5, 1, 1000, 70000, 9, 2 and automatic (named s1, s2, ...)",
        "sdbm",
        mixed,
    );
    mixed.named = true;
    pools.push(mixed);
    // id × 4096 wraps at 2^32: ids equal modulo 2^20 share every point.
    let mut tied = members(&ports[30..35], Weights::None);
    for (m, id) in tied.iter_mut().zip([1, 1 + (1 << 20), 2, 3 + (3 << 20), 3]) {
        m.id = Some(id);
    }
    tied[2].weight = Some(3);
    pools.push(Pool::new(
        "5 servers, ids colliding on the ring",
        "sdbm",
        tied,
    ));
    // Servers in maintenance: their points are out of the tree.
    let mut down = members(&ports[40..50], Weights::Unequal);
    for i in [0, 3, 4, 9] {
        down[i].disabled = true;
    }
    pools.push(Pool::new("10 servers, 4 disabled", "sdbm", down));
    let mut uri = Pool::new(
        "10 servers, balance uri",
        "sdbm",
        members(&ports[50..60], Weights::Unequal),
    );
    uri.balance = Balance::Uri;
    pools.push(uri);
    let mut full = Pool::new(
        "10 servers, balance hash req.fhdr(X-Key)",
        "sdbm",
        members(&ports[60..70], Weights::Unequal),
    );
    full.balance = Balance::FullHeader;
    pools.push(full);

    let proxy = start(&pools);
    let tails = sdbm_tails();
    let mut header_keys = keys();
    header_keys.extend(non_ascii_keys());

    // Per backend: the keys sent, and what HAProxy hashes of each (the
    // library's key), `None` where HAProxy does not hash (round robin).
    let mut cases = Vec::new();
    let mut requests = Vec::new();
    for (n, pool) in pools.iter().enumerate() {
        let ring = pool.ring();
        let by_uri = pool.balance == Balance::Uri;
        let mut sent: Vec<Vec<u8>> = if by_uri {
            keys()
                .into_iter()
                .map(|k| [b"/".as_slice(), &k].concat())
                .collect()
        } else {
            header_keys.clone()
        };
        if pool.hash == "sdbm" && !by_uri {
            sent.extend(edge_keys(&ring, &tails));
        }
        sent.extend(wrap_keys(&ring, if by_uri { "/" } else { "" }));
        let hashed: Vec<Option<Vec<u8>>> = sent
            .iter()
            .map(|key| match pool.balance {
                Balance::Header => first_list_value(key),
                Balance::FullHeader | Balance::Uri => Some(key.clone()),
            })
            .collect();
        for key in &sent {
            let mut request = Vec::new();
            if by_uri {
                request.extend_from_slice(b"GET ");
                request.extend_from_slice(key);
                request.extend_from_slice(
                    format!(" HTTP/1.1\r\nHost: t\r\nX-Pool: {n}\r\n\r\n").as_bytes(),
                );
            } else {
                request.extend_from_slice(
                    format!("GET / HTTP/1.1\r\nHost: t\r\nX-Pool: {n}\r\nX-Key: ").as_bytes(),
                );
                request.extend_from_slice(key);
                request.extend_from_slice(b"\r\n\r\n");
            }
            requests.push(request);
        }
        cases.push((ring, sent, hashed));
    }
    let answers = ask(
        proxy.port,
        &requests,
        &["x-backend-port", "x-server-id"],
        4,
        64,
    );
    drop(proxy);

    let mut answers = answers.into_iter();
    let mut compared = 0;
    let mut round_robin = 0;
    for (pool, (ring, sent, hashed)) in pools.iter().zip(&cases) {
        let ids = haproxy_ids(&peer_lists::parse(pool.list().as_bytes(), "list").unwrap()).unwrap();
        let is_down = |i: usize| pool.members[i].disabled;
        let (mut keys, mut ours, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
        for (key, hashed) in sent.iter().zip(hashed) {
            let answer = answers.next().unwrap();
            assert_eq!(
                answer.status,
                200,
                "{}: key {:?}",
                pool.name,
                String::from_utf8_lossy(key)
            );
            let Some(hashed) = hashed else {
                round_robin += 1;
                continue;
            };
            let at = ring.locate_live(hashed, is_down).expect("a live server");
            let member = &pool.members[at.server_index];
            ours.push((member.port.to_string(), ids[at.server_index].to_string()));
            let [port, id] =
                [&answer.headers[0], &answer.headers[1]].map(|h| h.clone().unwrap_or_default());
            theirs.push((port, id));
            keys.push(key.clone());
        }
        compared += report(Flavour::Haproxy.name(), &pool.name, &keys, &ours, &theirs);
    }
    assert!(compared >= pools.len() * 10_000);
    println!(
        "{}: {} backends, {compared} keys, 0 differences ({round_robin} keys whose \
         first comma-separated value is empty went round robin, not compared)",
        haproxy_version(),
        pools.len()
    );
}
