//! Server lists and keys shared by the peer tests: every peer is asked
//! about the same lists and keys as the library (the comparison itself is
//! `harness.rs`).

use ketama_core::{Ring, ServerSpec};

/// One server as a test hands it to a peer and to the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerServer {
    /// Host as the peer receives it (IPv6 without brackets).
    pub host: String,
    /// Port.
    pub port: u16,
    /// Weight, when the list gives weights.
    pub weight: Option<u64>,
}

impl PeerServer {
    /// `host:port`, or `[v6]:port`.
    pub fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// A named server list.
#[derive(Debug, Clone)]
pub struct ServerList {
    /// Short description used in messages (`10 servers, unequal weights`).
    pub name: String,
    /// The servers in list order.
    pub servers: Vec<PeerServer>,
}

impl ServerList {
    /// Writes the list as a libketama server file (`ADDRESS<TAB>WEIGHT`
    /// lines, weight 1 where none is given) at `path`, and returns `path`.
    pub fn write_libketama_file(&self, path: std::path::PathBuf) -> std::path::PathBuf {
        let text: String = self
            .servers
            .iter()
            .map(|s| format!("{}\t{}\n", s.address(), s.weight.unwrap_or(1)))
            .collect();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The list in the library's peer syntax: `ADDRESS[:WEIGHT]` lines.
    pub fn peer_syntax_lines(&self) -> String {
        self.lines(':')
    }

    /// The list as `ADDRESS[<TAB>WEIGHT]` lines (what the peer programs read).
    pub fn tab_lines(&self) -> String {
        self.lines('\t')
    }

    fn lines(&self, separator: char) -> String {
        self.servers
            .iter()
            .map(|s| match s.weight {
                Some(w) => format!("{}{separator}{w}\n", s.address()),
                None => format!("{}\n", s.address()),
            })
            .collect()
    }

    /// The list as the library's server specs.
    pub fn specs(&self) -> Vec<ServerSpec> {
        self.servers
            .iter()
            .map(|s| ServerSpec {
                address: s.address().into_bytes(),
                weight: s.weight,
                name: None,
            })
            .collect()
    }
}

/// `n` servers on 10.0.x.y; every third on port 11211 (so the peers' "drop
/// the default port" rules are exercised), the others on distinct ports.
/// `weights`: None, all equal (`Some(1)`), or unequal (1..=5 and one 12).
pub fn servers(n: usize, weights: Weights) -> ServerList {
    let servers = (0..n)
        .map(|i| PeerServer {
            host: format!("10.0.{}.{}", i / 200, i % 200 + 1),
            port: if i % 3 == 0 { 11211 } else { 11211 + i as u16 },
            weight: match weights {
                Weights::None => None,
                Weights::Equal => Some(1),
                Weights::Unequal => Some(if i == 1 { 12 } else { (i as u64 * 7) % 5 + 1 }),
            },
        })
        .collect();
    ServerList {
        name: format!("{n} servers, {weights:?} weights"),
        servers,
    }
}

/// Which weights a generated list carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// No weights at all.
    None,
    /// Every server weight 1.
    Equal,
    /// Different weights.
    Unequal,
}

/// The standard lists: 3, 10 and 100 servers, without weights, with equal
/// and with unequal weights.
pub fn standard_lists() -> Vec<ServerList> {
    let mut lists = Vec::new();
    for n in [3, 10, 100] {
        for w in [Weights::None, Weights::Equal, Weights::Unequal] {
            lists.push(servers(n, w));
        }
    }
    lists
}

/// Lists for the edges: one server; a server listed twice (every one of its
/// points tied, so the peer's tie rule decides); IPv6 and hostnames.
pub fn edge_lists() -> Vec<ServerList> {
    let one = ServerList {
        name: "1 server".into(),
        servers: servers(1, Weights::None).servers,
    };
    let mut dup = servers(3, Weights::None);
    dup.servers.push(dup.servers[0].clone());
    dup.servers.insert(1, dup.servers[2].clone());
    dup.name = "5 servers, two listed twice (tied points)".into();
    let mixed = ServerList {
        name: "IPv6 and hostnames".into(),
        servers: vec![
            PeerServer {
                host: "::1".into(),
                port: 11211,
                weight: None,
            },
            PeerServer {
                host: "2001:db8::10".into(),
                port: 11300,
                weight: None,
            },
            PeerServer {
                host: "cache-a.example".into(),
                port: 11211,
                weight: None,
            },
            PeerServer {
                host: "cache-b.example".into(),
                port: 22122,
                weight: None,
            },
        ],
    };
    vec![one, dup, mixed]
}

fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

/// 10,000 ASCII keys valid for every peer: `key:N` and random printable keys
/// of 1 to 60 characters.
pub fn keys() -> Vec<Vec<u8>> {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:.-/";
    let mut keys: Vec<Vec<u8>> = (0..5000).map(|i| format!("key:{i}").into_bytes()).collect();
    let mut state = 42u64;
    for _ in 0..5000 {
        let len = 1 + lcg(&mut state) as usize % 60;
        keys.push(
            (0..len)
                .map(|_| CHARS[lcg(&mut state) as usize % CHARS.len()])
                .collect(),
        );
    }
    keys
}

/// Keys with bytes ≥ 0x80 (valid UTF-8 and not), for the C peers' signed
/// `char` reading; none contains `\n`, `\r`, space or NUL.
pub fn non_ascii_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = [
        "é",
        "naïve-key",
        "ключ",
        "鍵:42",
        "emoji-😀",
        "ÿ",
        "\u{7ff}\u{800}",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let mut state = 7u64;
    for _ in 0..500 {
        let len = 1 + lcg(&mut state) as usize % 24;
        keys.push(
            (0..len)
                .map(|_| 0x21 + (lcg(&mut state) % 0xde) as u8)
                .collect(),
        );
    }
    keys
}

/// Keys no memcached server would accept but clients still hash: control
/// bytes (no `\n`), blanks, DEL, and 245 to 300 bytes long.
pub fn odd_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = (1u8..=0x20)
        .filter(|&b| b != b'\n')
        .flat_map(|b| [vec![b'k', b, b'y'], vec![b]])
        .collect();
    keys.extend([&b"a b"[..], b"tab\tkey", b"del\x7fkey", b"cr\rlf"].map(|k| k.to_vec()));
    keys.extend((245..=300).map(|n| (0..n).map(|i| b'a' + (i % 26) as u8).collect()));
    keys
}

/// Keys that are point labels under every spelling the peers use
/// (`host:port-k`, `host-k`, `/host:port-k`, Java's IPv6 form), so that
/// some land exactly on points whatever the flavour.
pub fn label_keys(list: &ServerList, per_server: u32) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    for s in &list.servers {
        let mut prefixes = vec![
            s.address(),
            format!("{}:{}", s.host, s.port),
            format!("/{}:{}", s.host, s.port),
        ];
        if s.port == 11211 {
            prefixes.push(s.host.clone());
        }
        if let Ok(v6) = s.host.parse::<std::net::Ipv6Addr>() {
            let full: Vec<String> = v6.segments().iter().map(|x| format!("{x:x}")).collect();
            prefixes.push(format!("[{}]:{}", full.join(":"), s.port));
        }
        for prefix in prefixes {
            keys.extend((0..per_server).map(|k| format!("{prefix}-{k}").into_bytes()));
        }
    }
    keys
}

/// Up to `count` keys whose lookup position lies past the ring's last point
/// (so the lookup wraps), found by trying `past:N`.
pub fn past_last_point_keys(ring: &Ring, count: usize) -> Vec<Vec<u8>> {
    let Some(&last) = ring.continuum().points().last() else {
        return Vec::new();
    };
    (0..2_000_000u32)
        .map(|i| format!("past:{i}").into_bytes())
        .filter(|k| ring.hash_key(k) > last)
        .take(count)
        .collect()
}

/// The standard keys plus the edge keys for `list` on `ring`.
pub fn keys_for(list: &ServerList, ring: &Ring) -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(label_keys(list, 40));
    keys.extend(past_last_point_keys(ring, 5));
    keys
}

/// Writes keys one per line.
pub fn write_keys(path: &std::path::Path, keys: &[Vec<u8>]) {
    let mut text = Vec::new();
    for key in keys {
        assert!(!key.contains(&b'\n'), "key with a newline");
        text.extend_from_slice(key);
        text.push(b'\n');
    }
    std::fs::write(path, text).expect("write keys");
}

/// The server index the library picks for each key.
pub fn our_indices(ring: &Ring, keys: &[Vec<u8>]) -> Vec<usize> {
    keys.iter()
        .map(|k| ring.locate(k).expect("ring has points").server_index)
        .collect()
}
