//! Where the peers disagree with each other, measured on the real peers in
//! the same run (the original libketama C code through the oracle of
//! `make deps`, libmemcached 1.1.4 through a C program, spymemcached 2.12.3
//! through Java): this is why the library has flavours. Each test prints the
//! measured counts
//! (`cargo test -p ketama --test c_abi -- peer_disagreements:: --nocapture`)
//! and asserts the direction: the peers disagree, or agree exactly.

use ketama_testkit::peer_programs;
use ketama_testkit::peers;

use ketama_core::{Flavour, Ring, RingConfig};
use peer_programs::{
    LibmemcachedCase, SpyCase, SpyServer, libketama_answers, libmemcached_answers,
    spymemcached_answers,
};
use peers::{PeerServer, ServerList, Weights, our_indices};

/// `n` IP-literal servers, all on `port` when given, else on distinct ports.
fn list(n: usize, port: Option<u16>) -> ServerList {
    let mut list = peers::servers(n, Weights::None);
    for (i, s) in list.servers.iter_mut().enumerate() {
        s.port = port.unwrap_or(20000 + i as u16);
    }
    list.name = match port {
        Some(p) => format!("{n} servers all on port {p}"),
        None => format!("{n} servers on ports other than 11211"),
    };
    list
}

fn spy_servers(list: &ServerList, weighted: bool) -> Vec<SpyServer> {
    list.servers
        .iter()
        .map(|s: &PeerServer| SpyServer {
            java_name: "-".into(),
            ip: s.host.clone(),
            port: s.port,
            weight: if weighted { s.weight.unwrap_or(1) } else { 1 },
        })
        .collect()
}

/// spymemcached's default locator (SPYMEMCACHED format, KETAMA_HASH).
fn spymemcached(list: &ServerList, weighted: bool, keys: &[Vec<u8>]) -> Vec<usize> {
    let case = SpyCase {
        format: "SPYMEMCACHED",
        repetitions: None,
        hash: "KETAMA_HASH",
        weighted,
        servers: spy_servers(list, weighted),
        keys,
    };
    spymemcached_answers(&[case]).remove(0).nodes
}

fn libmemcached(distribution: &'static str, list: &ServerList, keys: &[Vec<u8>]) -> Vec<usize> {
    let case = LibmemcachedCase {
        distribution,
        hash: None,
        servers: list,
        keys,
    };
    libmemcached_answers(&[case])
        .remove(0)
        .into_iter()
        .map(|(peer, _)| peer)
        .collect()
}

fn differing(what: &str, a: &[usize], b: &[usize]) -> usize {
    assert_eq!(a.len(), b.len());
    let n = a.iter().zip(b).filter(|(x, y)| x != y).count();
    println!("{what}: {n} of {} keys differ", a.len());
    n
}

#[test]
fn libketama_and_spymemcached_agree_on_ip_literal_lists() {
    let keys = peers::keys();
    for n in [3, 10, 100] {
        let list = peers::servers(n, Weights::None);
        let original = libketama_answers(&list, &keys);
        let n_diff = differing(
            &format!("original libketama vs spymemcached on {}", list.name),
            &original,
            &spymemcached(&list, false, &keys),
        );
        assert_eq!(n_diff, 0);
        let ours = Ring::new(list.specs(), RingConfig::flavour(Flavour::Libketama)).unwrap();
        assert_eq!(
            our_indices(&ours, &keys),
            original,
            "this library's libketama flavour"
        );
    }
}

#[test]
fn libketama_and_libmemcached_disagree_on_port_11211_only() {
    let keys = peers::keys();
    let on_11211 = list(10, Some(11211));
    let n = differing(
        &format!(
            "original libketama vs libmemcached KETAMA_WEIGHTED on {}",
            on_11211.name
        ),
        &libketama_answers(&on_11211, &keys),
        &libmemcached("weighted", &on_11211, &keys),
    );
    assert!(
        n > 0,
        "libmemcached drops ':11211' from its point labels, libketama keeps it"
    );
    let other_ports = list(10, None);
    let n = differing(
        &format!(
            "original libketama vs libmemcached KETAMA_WEIGHTED on {}",
            other_ports.name
        ),
        &libketama_answers(&other_ports, &keys),
        &libmemcached("weighted", &other_ports, &keys),
    );
    assert_eq!(n, 0);
}

#[test]
fn libketama_and_spymemcached_weighted_round_100_equal_servers_differently() {
    let keys = peers::keys();
    let servers = peers::servers(100, Weights::Equal);
    let n = differing(
        "original libketama vs spymemcached weighted on 100 servers, equal weights",
        &libketama_answers(&servers, &keys),
        &spymemcached(&servers, true, &keys),
    );
    assert!(
        n > 0,
        "libketama gives 160 points per server, the float formula 156"
    );
}

#[test]
fn libmemcached_ketama_weighted_differs_from_spymemcached_only_through_port_11211() {
    let keys = peers::keys();
    let on_11211 = list(10, Some(11211));
    let n = differing(
        &format!(
            "libmemcached KETAMA_WEIGHTED vs spymemcached (= libketama) on {}",
            on_11211.name
        ),
        &libmemcached("weighted", &on_11211, &keys),
        &spymemcached(&on_11211, false, &keys),
    );
    assert!(
        n > 0,
        "libmemcached drops ':11211' from its point labels, libketama and spymemcached keep it"
    );
    let other_ports = list(10, None);
    let n = differing(
        &format!(
            "libmemcached KETAMA_WEIGHTED vs spymemcached on {}",
            other_ports.name
        ),
        &libmemcached("weighted", &other_ports, &keys),
        &spymemcached(&other_ports, false, &keys),
    );
    assert_eq!(
        n, 0,
        "without port 11211 the label strings and the continuums are the same"
    );
}

#[test]
fn libmemcached_spy_compat_does_not_match_spymemcached() {
    let keys = peers::keys();
    let servers = list(10, None);
    let n = differing(
        &format!(
            "libmemcached CONSISTENT_KETAMA_SPY vs spymemcached 2.12.3 on {}",
            servers.name
        ),
        &libmemcached("spy", &servers, &keys),
        &spymemcached(&servers, false, &keys),
    );
    assert!(
        n > 0,
        "libmemcached's SPY mode keeps a leading '/' and uses 100 one-at-a-time points"
    );
}

#[test]
fn libmemcached_plain_consistent_is_not_ketama_weighted() {
    let keys = peers::keys();
    let servers = list(10, None);
    let n = differing(
        &format!(
            "libmemcached CONSISTENT vs KETAMA_WEIGHTED on {}",
            servers.name
        ),
        &libmemcached("consistent", &servers, &keys),
        &libmemcached("weighted", &servers, &keys),
    );
    assert!(n > 0, "CONSISTENT uses 100 one-at-a-time points per server");
}

#[test]
fn spymemcached_weighted_path_rounds_100_equal_servers_to_156_points() {
    let keys = peers::keys();
    let mut servers = peers::servers(100, Weights::Equal);
    servers.name = "100 servers, equal weights".into();
    let weighted = spymemcached(&servers, true, &keys);
    let unweighted = spymemcached(&servers, false, &keys);
    let n = differing(
        &format!("spymemcached weighted vs unweighted on {}", servers.name),
        &weighted,
        &unweighted,
    );
    assert!(
        n > 0,
        "the float weight formula gives 156 points per server, the unweighted path 160"
    );
    let ours = Ring::new(servers.specs(), RingConfig::flavour(Flavour::Spymemcached)).unwrap();
    assert!(ours.servers().iter().all(|s| s.point_count() == 156));
}

/// twemproxy (`hash: md5`, unnamed servers) and libmemcached KETAMA_WEIGHTED
/// build the same continuum. Each flavour is proven against its real peer
/// (crates/ketama-core/tests/peers/twemproxy.rs,
/// tests/c_abi/peer_libmemcached.rs); here the two flavours are compared on
/// every standard list.
#[test]
fn twemproxy_md5_equals_libmemcached_ketama_weighted() {
    for list in peers::standard_lists() {
        let twemproxy = RingConfig::new(
            Flavour::Twemproxy,
            Some(ketama_core::hash::HashAlgorithm::Md5),
        );
        let a = Ring::new(list.specs(), twemproxy).unwrap();
        let b = Ring::new(list.specs(), RingConfig::flavour(Flavour::Libmemcached)).unwrap();
        assert_eq!(
            a.continuum().points(),
            b.continuum().points(),
            "{}",
            list.name
        );
        assert_eq!(
            a.continuum().owners(),
            b.continuum().owners(),
            "{}",
            list.name
        );
        assert_eq!(a.key_hash(), b.key_hash());
    }
}
