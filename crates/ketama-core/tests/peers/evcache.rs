//! The `evcache` flavour (Netflix EVCache's `EVCacheNodeLocator`), checked
//! against the real spymemcached 2.12.3 `KetamaNodeLocator` (Debian
//! `libspymemcached-java`) in the same run, driven with EVCache's node keys:
//! `SpyPeer.EvcacheConfiguration`, a `KetamaNodeLocatorConfiguration`
//! written from the rule of EVCache's `EVCacheKetamaNodeLocatorConfiguration`
//! (`getHostName() + "/" + getHostAddress() + ":11211-" + i`, `bucket.size`
//! repetitions). EVCache's own locator is that loop over the same MD5
//! digests with a lookup of its own (an Eytzinger layout of the same
//! ceiling search); EVCache's published tests pin no key to a node (its
//! `NodeLocatorLookupTest` only compares its lookups with each other).
//! Java's own `InetSocketAddress` prints the host names and addresses
//! (IPv6 in its full form), MD5s the labels and keys, and keeps the later
//! of equal points. The whole continuum and every key are compared.

use std::net::IpAddr;

use ketama_core::flavour::evcache;
use ketama_core::placement::options::Options;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use ketama_testkit::harness::{self, Answer, Case};
use ketama_testkit::peer_programs::{SpyCase, SpyServer, spymemcached_answers};
use ketama_testkit::peers::{self, ServerList, Weights, edge_lists};

const FLAVOUR: Flavour = Flavour::Evcache;

/// One question: a list, whether its servers carry host names, and
/// `bucket.size` (`None`: EVCache's default, 160).
struct Question {
    list: ServerList,
    named: bool,
    bucket_size: Option<u32>,
}

/// Java's `Inet6Address.getHostAddress()` of an IPv6 literal.
fn java_v6(host: &str) -> String {
    let v6: std::net::Ipv6Addr = host.parse().unwrap();
    let groups: Vec<String> = v6.segments().iter().map(|s| format!("{s:x}")).collect();
    groups.join(":")
}

/// The servers as spymemcached's stand-in nodes get them and as the library
/// is given them. An IP literal's node is named by its own address (no
/// reverse DNS: EVCache's VPC nodes, `ip/ip:11211`); a named node (and every
/// host name of the edge lists) gets the fixed IP 10.9.9.N and the address
/// `name/10.9.9.N:port`.
fn servers(q: &Question) -> (Vec<SpyServer>, Vec<ServerSpec>) {
    q.list
        .servers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let literal = s.host.parse::<IpAddr>().ok();
            let (java_name, ip, address) = match literal {
                Some(_) if !q.named => {
                    let name = match s.host.contains(':') {
                        true => java_v6(&s.host),
                        false => s.host.clone(),
                    };
                    (name, s.host.clone(), s.address())
                }
                _ => {
                    let name = match literal {
                        Some(_) => format!("cache-{i}.example"),
                        None => s.host.clone(),
                    };
                    let ip = format!("10.9.9.{}", i % 250 + 1);
                    let address = format!("{name}/{ip}:{}", s.port);
                    (name, ip, address)
                }
            };
            let spy = SpyServer {
                java_name,
                ip,
                port: s.port,
                weight: 1,
            };
            (spy, ServerSpec::unweighted(address))
        })
        .unzip()
}

fn ring(q: &Question) -> Ring {
    let mut config = RingConfig::flavour(FLAVOUR);
    if let Some(size) = q.bucket_size {
        config.options = Options::parse(&format!("points={size}")).unwrap();
    }
    Ring::new(servers(q).1, config).expect("library ring")
}

/// Keys that are EVCache point labels (`<node key>-<i>`: each lands exactly
/// on the first point of its digest), with the standard, wrap-around,
/// non-ASCII and long keys.
fn keys(q: &Question, ring: &Ring) -> Vec<Vec<u8>> {
    let mut keys = peers::keys();
    for spec in servers(q).1 {
        let node = String::from_utf8(evcache::node_key(&spec).unwrap()).unwrap();
        keys.extend((0..40).map(|i| format!("{node}-{i}").into_bytes()));
    }
    keys.extend(peers::past_last_point_keys(ring, 5));
    keys.extend(
        peers::non_ascii_keys()
            .into_iter()
            .filter(|k| std::str::from_utf8(k).is_ok()),
    );
    keys.extend(peers::odd_keys());
    keys
}

#[test]
fn evcache_node_keys_on_the_real_ketama_node_locator() {
    let mut questions = Vec::new();
    for n in [3, 10, 100] {
        for named in [false, true] {
            questions.push(Question {
                list: peers::servers(n, Weights::None),
                named,
                bucket_size: None,
            });
        }
    }
    questions.push(Question {
        list: peers::servers(10, Weights::Equal),
        named: false,
        bucket_size: None,
    });
    for size in [40, 102, 200] {
        questions.push(Question {
            list: peers::servers(10, Weights::None),
            named: true,
            bucket_size: Some(size),
        });
    }
    for list in edge_lists() {
        questions.push(Question {
            list,
            named: false,
            bucket_size: None,
        });
    }
    let table: Vec<Case<&Question>> = questions
        .iter()
        .map(|q| {
            let name = format!(
                "{}{}, bucket.size {}",
                q.list.name,
                if q.named { ", named" } else { "" },
                q.bucket_size.unwrap_or(160)
            );
            Case::new(name, q, keys(q, &ring(q)))
        })
        .collect();
    let compared = harness::compare(
        FLAVOUR.name(),
        &table,
        |table| {
            let cases: Vec<SpyCase> = table
                .iter()
                .map(|case| SpyCase {
                    format: "EVCACHE",
                    repetitions: case.input.bucket_size,
                    hash: "KETAMA_HASH",
                    weighted: false,
                    servers: servers(case.input).0,
                    keys: &case.keys,
                })
                .collect();
            spymemcached_answers(&cases)
                .into_iter()
                .map(Answer::from)
                .collect()
        },
        |case| ring(case.input),
    );
    assert!(compared > 100_000);
}

#[test]
fn the_port_is_not_in_the_node_key() {
    // Two lists differing only in ports place every key alike.
    let keys = peers::keys();
    let a = Ring::new(
        vec![
            ServerSpec::unweighted("10.0.0.1:11211"),
            ServerSpec::unweighted("10.0.0.2:11211"),
        ],
        RingConfig::flavour(FLAVOUR),
    )
    .unwrap();
    let b = Ring::new(
        vec![
            ServerSpec::unweighted("10.0.0.1:12000"),
            ServerSpec::unweighted("10.0.0.2:12001"),
        ],
        RingConfig::flavour(FLAVOUR),
    )
    .unwrap();
    assert_eq!(peers::our_indices(&a, &keys), peers::our_indices(&b, &keys));
}
