//! The `varnish-shard` flavour against Varnish itself (Debian `varnish`),
//! observed live: one varnishd on 127.0.0.1 (started and stopped by this
//! test, by PID) whose VCL builds shard directors (`directors.shard()`)
//! over backends that are loopback listeners of this test, each answering
//! with its own port. Every request passes (no caching) and carries its
//! key in `X-Key` (a key with bytes outside 0x21..0x7e, which Varnish
//! refuses in a request header, hex-encoded in `X-Key-Hex` and decoded by
//! `blob.transcode` where it is hashed) and its director in `X-Dir`; the director picks the
//! backend by `key(req.http.X-Key)` (one by `by=HASH` over a `vcl_hash`
//! of the key). The listener that answered must be the server the library
//! places the key on. Directors: 3, 10 and 100 backends, idents as backend
//! names or written out, unweighted, equal and unequal weights; replicas 1
//! and 160; an ident added twice (skipped); backends that are sick
//! (failover). Keys: 10,000 ASCII, 500 non-ASCII, and keys hashing before
//! the first point and past the last (no wrap-around).

use ketama_testkit as common;
use ketama_testkit::harness::report;
use ketama_testkit::loopback_http;
use ketama_testkit::peers;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::ServiceDir;
use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Options, Ring, RingConfig};
use loopback_http::{Backends, Proxy, ask};
use peers::{Weights, keys, non_ascii_keys};

/// varnishd as Debian installs it.
const VARNISHD: &str = "/usr/sbin/varnishd";

/// One `add_backend` of a director.
#[derive(Clone)]
struct Member {
    /// Index of the VCL backend (`bN`, listening on the Nth port).
    backend: usize,
    /// `ident=` when given; otherwise the ident is the backend's name.
    ident: Option<String>,
    weight: Option<u64>,
    /// A backend whose probe never succeeds.
    sick: bool,
}

/// One shard director and the library's view of it.
struct Director {
    name: String,
    members: Vec<Member>,
    replicas: Option<u32>,
    /// `by=HASH` in `vcl_backend_fetch` instead of `by=KEY` in `vcl_recv`.
    by_hash: bool,
}

impl Director {
    fn new(name: String, members: Vec<Member>) -> Director {
        Director {
            name,
            members,
            replicas: None,
            by_hash: false,
        }
    }

    /// The lines of `vcl_init` that build it as `d{n}`.
    fn init(&self, n: usize) -> String {
        let mut text = format!("  new d{n} = directors.shard();\n");
        for m in &self.members {
            let prefix = if m.sick { "s" } else { "b" };
            text += &format!("  d{n}.add_backend({prefix}{}", m.backend);
            if let Some(ident) = &m.ident {
                text += &format!(", ident=\"{ident}\"");
            }
            if let Some(w) = m.weight {
                text += &format!(", weight={w}");
            }
            text += ");\n";
        }
        match self.replicas {
            Some(r) => text += &format!("  d{n}.reconfigure(replicas={r});\n"),
            None => text += &format!("  d{n}.reconfigure();\n"),
        }
        text
    }

    /// The server list as the flavour's users write it: `ADDRESS[:WEIGHT]
    /// [IDENT]`, the name column holding the ident when the address is not it.
    fn list(&self, ports: &[u16], dead: &[u16]) -> String {
        let mut text = String::new();
        for m in &self.members {
            let port = if m.sick {
                dead[m.backend]
            } else {
                ports[m.backend]
            };
            text += &format!("127.0.0.1:{port}");
            if let Some(w) = m.weight {
                text += &format!(":{w}");
            }
            match &m.ident {
                Some(ident) if *ident == format!("127.0.0.1:{port}") => {}
                Some(ident) => text += &format!(" {ident}"),
                None => text += &format!(" {}{}", if m.sick { "s" } else { "b" }, m.backend),
            }
            text += "\n";
        }
        text
    }

    fn ring(&self, ports: &[u16], dead: &[u16]) -> Ring {
        let servers = peer_lists::parse(self.list(ports, dead).as_bytes(), &self.name).unwrap();
        let hash = Flavour::VarnishShard
            .hash_from_name(if self.by_hash { "hash" } else { "key" })
            .unwrap();
        let config = RingConfig {
            options: Options {
                points: self.replicas,
                ..Options::default()
            },
            ..RingConfig::new(Flavour::VarnishShard, Some(hash))
        };
        Ring::new(servers, config).unwrap()
    }
}

/// Members `first..first + n` with idents as backend names (unweighted),
/// written out as addresses (equal weights), or both alternately (unequal
/// weights).
fn members(first: usize, n: usize, weights: Weights, ports: &[u16]) -> Vec<Member> {
    let list = peers::servers(n, weights);
    (0..n)
        .map(|i| {
            let backend = first + i;
            let written = match weights {
                Weights::None => false,
                Weights::Equal => true,
                Weights::Unequal => i % 2 == 0,
            };
            Member {
                backend,
                ident: written.then(|| format!("127.0.0.1:{}", ports[backend])),
                weight: list.servers[i].weight,
                sick: false,
            }
        })
        .collect()
}

fn vcl(directors: &[Director], ports: &[u16], dead: &[u16]) -> String {
    let mut text = String::from("vcl 4.1;\nimport blob;\nimport directors;\n\n");
    for (i, port) in ports.iter().enumerate() {
        text += &format!("backend b{i} {{ .host = \"127.0.0.1\"; .port = \"{port}\"; }}\n");
    }
    for (i, port) in dead.iter().enumerate() {
        text += &format!(
            "backend s{i} {{ .host = \"127.0.0.1\"; .port = \"{port}\"; .probe = {{ .url = \"/\"; .interval = 60s; .initial = 0; .window = 8; .threshold = 3; }} }}\n"
        );
    }
    text += "\nsub vcl_init {\n";
    for (n, d) in directors.iter().enumerate() {
        text += &d.init(n);
    }
    // Varnish refuses bytes outside 0x21..0x7e in a request header (and VCL
    // refuses to write them into one): such keys come hex-encoded and are
    // decoded to their bytes where they are hashed.
    let decoded = "blob.transcode(decoding=HEX, encoding=IDENTITY, encoded=req.http.X-Key-Hex)";
    text += "}\n\nsub vcl_recv {\n";
    for (n, d) in directors.iter().enumerate() {
        if !d.by_hash {
            for (when, key) in [
                ("!req.http.X-Key-Hex", "req.http.X-Key"),
                ("req.http.X-Key-Hex", decoded),
            ] {
                text += &format!(
                    "  if (req.http.X-Dir == \"{n}\" && {when}) {{ set req.backend_hint = d{n}.backend(by=KEY, key=d{n}.key({key})); }}\n"
                );
            }
        }
    }
    text += &format!(
        "  return (pass);\n}}\n\nsub vcl_hash {{\n  if (req.http.X-Key-Hex) {{ hash_data({decoded}); }} else {{ hash_data(req.http.X-Key); }}\n  return (lookup);\n}}\n\nsub vcl_backend_fetch {{\n"
    );
    for (n, d) in directors.iter().enumerate() {
        if d.by_hash {
            text += &format!(
                "  if (bereq.http.X-Dir == \"{n}\") {{ set bereq.backend = d{n}.backend(by=HASH); }}\n"
            );
        }
    }
    text += "}\n\nsub vcl_backend_response {\n  set beresp.http.X-Backend-Name = beresp.backend.name;\n}\n";
    text
}

/// A running varnishd and its directory (VCL, working directory, log),
/// which varnishd's own users (varnish, vcache) can read when the tests run
/// as root.
struct Varnish {
    proxy: Proxy,
    _dir: ServiceDir,
}

fn start(vcl_text: &str) -> Varnish {
    common::require_tool(VARNISHD, "varnish");
    let service = ServiceDir::new("varnish-peer");
    let dir = service.path();
    let port = common::free_port();
    let vcl_path = dir.join("shard.vcl");
    std::fs::write(&vcl_path, vcl_text).unwrap();
    service.open_to_all();
    let log = dir.join("varnishd.log");
    let output = std::fs::File::create(&log).unwrap();
    let child = Command::new(VARNISHD)
        .arg("-F")
        .arg("-a")
        .arg(format!("127.0.0.1:{port}"))
        .arg("-f")
        .arg(&vcl_path)
        .arg("-n")
        .arg(dir.join("work"))
        .args(["-s", "malloc,32m", "-p", "thread_pools=1"])
        .stdout(output.try_clone().unwrap())
        .stderr(Stdio::from(output))
        .spawn()
        .expect("spawn varnishd");
    let mut proxy = Proxy { child, port, log };
    proxy.wait_listening("varnishd", Duration::from_secs(60));
    Varnish {
        proxy,
        _dir: service,
    }
}

fn varnish_version() -> String {
    let out = Command::new(VARNISHD)
        .arg("-V")
        .output()
        .expect("varnishd -V");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .chain(String::from_utf8_lossy(&out.stdout).lines())
        .find(|l| l.contains("varnish-"))
        .unwrap_or_default()
        .to_string()
}

/// Up to `count` keys hashing before the ring's first point and as many
/// past its last (where a wrapping ring would go to the first point).
fn edge_keys(ring: &Ring, count: usize) -> Vec<Vec<u8>> {
    let points = ring.continuum().points();
    let (first, last) = (points[0], *points.last().unwrap());
    let mut before = Vec::new();
    let mut past = Vec::new();
    for i in 0..400_000u32 {
        let key = format!("edge:{i}").into_bytes();
        let h = ring.hash_key(&key);
        if h < first && before.len() < count {
            before.push(key);
        } else if h > last && past.len() < count {
            past.push(key);
        }
        if before.len() == count && past.len() == count {
            break;
        }
    }
    before.extend(past);
    before
}

#[test]
fn varnish_shard_director_picks_the_library_s_server() {
    common::require_tool(VARNISHD, "varnish");
    let backends = Backends::start(100);
    let ports = backends.ports.clone();
    // Ports nothing listens on, for the sick backends.
    let dead: Vec<u16> = (0..3).map(|_| common::free_port()).collect();
    let mut directors = Vec::new();
    for n in [3, 10, 100] {
        for w in [Weights::None, Weights::Equal, Weights::Unequal] {
            let name = peers::servers(n, w).name;
            directors.push(Director::new(name, members(0, n, w, &ports)));
        }
    }
    let mut by_hash = Director::new(
        "10 backends, by=HASH over vcl_hash of the key".into(),
        members(10, 10, Weights::Unequal, &ports),
    );
    by_hash.by_hash = true;
    directors.push(by_hash);
    let mut sparse = Director::new(
        "3 backends, replicas=1".into(),
        members(20, 3, Weights::None, &ports),
    );
    sparse.replicas = Some(1);
    directors.push(sparse);
    let mut dense = Director::new(
        "10 backends, unequal weights, replicas=160".into(),
        members(30, 10, Weights::Unequal, &ports),
    );
    dense.replicas = Some(160);
    directors.push(dense);
    // b41 added again under b44's ident, b40 added again under its own name:
    // Varnish skips both.
    let mut twice = members(40, 6, Weights::None, &ports);
    twice[4].ident = Some("b41".into());
    twice[5].backend = 40;
    directors.push(Director::new(
        "6 backends, two idents added twice".into(),
        twice,
    ));
    let mut sick = members(50, 10, Weights::Unequal, &ports);
    for (s, member) in [2, 5, 6].into_iter().enumerate() {
        sick[member] = Member {
            backend: s,
            ident: None,
            weight: Some(2),
            sick: true,
        };
    }
    directors.push(Director::new("10 backends, 3 sick".into(), sick));

    let varnish = start(&vcl(&directors, &ports, &dead));
    let mut header_keys = keys();
    header_keys.extend(non_ascii_keys());
    let mut cases = Vec::new();
    let mut requests = Vec::new();
    for (n, director) in directors.iter().enumerate() {
        let ring = director.ring(&ports, &dead);
        let mut sent = header_keys.clone();
        sent.extend(edge_keys(&ring, 5));
        for key in &sent {
            let mut request = format!("GET / HTTP/1.1\r\nHost: t\r\nX-Dir: {n}\r\n").into_bytes();
            if key.iter().all(|b| (0x21..0x7f).contains(b)) {
                request.extend_from_slice(b"X-Key: ");
                request.extend_from_slice(key);
            } else {
                request.extend_from_slice(b"X-Key-Hex: ");
                request.extend(key.iter().flat_map(|b| format!("{b:02x}").into_bytes()));
            }
            request.extend_from_slice(b"\r\n\r\n");
            requests.push(request);
        }
        cases.push((ring, sent));
    }
    let answers = ask(
        varnish.proxy.port,
        &requests,
        &["x-backend-port", "x-backend-name"],
        8,
        32,
    );
    drop(varnish);

    let mut answers = answers.into_iter();
    let mut compared = 0;
    for (director, (ring, sent)) in directors.iter().zip(&cases) {
        let is_down = |i: usize| director.members[i].sick;
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for key in sent {
            let answer = answers.next().unwrap();
            assert_eq!(
                answer.status,
                200,
                "{}: key {:?} (backend {:?})",
                director.name,
                String::from_utf8_lossy(key),
                answer.headers[1]
            );
            let at = ring.locate_live(key, is_down).expect("a live server");
            ours.push(ports[director.members[at.server_index].backend].to_string());
            theirs.push(answer.headers[0].clone().unwrap_or_default());
        }
        compared += report(
            Flavour::VarnishShard.name(),
            &director.name,
            sent,
            &ours,
            &theirs,
        );
    }
    assert!(compared >= directors.len() * 10_000);
    println!(
        "{}: {} shard directors, {compared} keys, 0 differences",
        varnish_version(),
        directors.len()
    );
}
