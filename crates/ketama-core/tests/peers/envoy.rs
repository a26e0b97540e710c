//! Envoy's ring_hash and maglev load balancers against Envoy's own published
//! unit-test expectations. Envoy cannot be built here, so the facts are the
//! expected values its tests publish (envoyproxy/envoy:
//! test/extensions/load_balancing_policies/ring_hash/ring_hash_lb_test.cc at
//! 13e9fdb2d4db3480ff278565a596324951e8dccd,
//! test/extensions/load_balancing_policies/maglev/maglev_lb_test.cc at
//! 08417eb62f1ecfa6ac015caa0146d25565a142ed, test/common/common/hash_test.cc
//! at 01ee5bb6f8621b9e227acfc3eb9243e8eaba967e); each test names the
//! upstream test it encodes. Envoy's tests give request hashes directly, so
//! they place 64-bit hashes (`Envoy::pick_hash`); a test's host `tcp://
//! 127.0.0.1:90` is the server `127.0.0.1:90`, its hostname or `hash_key`
//! metadata the server's name column. Locality weights, which a server list
//! does not have, are normalized as Envoy's `normalizeLocalityWeights` does
//! and the balancer built from those weights.

use ketama_core::ServerSpec;
use ketama_core::flavour::envoy::maglev::MaglevTable;
use ketama_core::flavour::envoy::ring::RingTable;
use ketama_core::flavour::envoy::{
    Entry, Envoy, MaglevConfig, Policy, RingHashConfig, RingHashFunction, Table,
};
use ketama_testkit::envoy_published::{BASIC_RING, HOSTNAME_RING, MURMUR_RING};

fn host(port: u32) -> ServerSpec {
    ServerSpec::unweighted(format!("127.0.0.1:{port}"))
}

fn weighted(port: u32, weight: u64) -> ServerSpec {
    ServerSpec::new(format!("127.0.0.1:{port}"), weight)
}

fn named(port: u32) -> ServerSpec {
    let mut server = host(port);
    server.name = Some(port.to_string().into_bytes());
    server
}

fn hosts(ports: std::ops::Range<u32>) -> Vec<ServerSpec> {
    ports.map(host).collect()
}

fn ring_config(min: u64, max: u64) -> RingHashConfig {
    RingHashConfig {
        minimum_ring_size: min,
        maximum_ring_size: max,
        ..RingHashConfig::default()
    }
}

fn ring_hash(servers: &[ServerSpec], config: RingHashConfig) -> Envoy {
    Envoy::new(servers, Policy::RingHash(config)).unwrap()
}

fn maglev(servers: &[ServerSpec], table_size: u64) -> Envoy {
    Envoy::new(servers, Policy::Maglev(MaglevConfig { table_size })).unwrap()
}

fn ring(envoy: &Envoy) -> &RingTable {
    match envoy.table() {
        Table::Ring(ring) => ring,
        Table::Maglev(_) => panic!("not a ring"),
    }
}

fn table(envoy: &Envoy) -> &MaglevTable {
    match envoy.table() {
        Table::Maglev(table) => table,
        Table::Ring(_) => panic!("not a maglev table"),
    }
}

fn pick(table: &Table, hash: u64) -> usize {
    table.pick(hash).expect("a host").host
}

/// Envoy's `min_*_per_host` and `max_*_per_host` stats.
fn least_most(per_host: &[(usize, u64)]) -> (u64, u64) {
    let counts = per_host.iter().map(|&(_, n)| n);
    (counts.clone().min().unwrap(), counts.max().unwrap())
}

/// The ring's positions with the port of each.
fn positions(envoy: &Envoy, servers: &[ServerSpec]) -> Vec<(u32, u64)> {
    let ring = ring(envoy);
    ring.positions()
        .iter()
        .zip(ring.hosts())
        .map(|(&p, &h)| {
            let address = String::from_utf8(servers[h as usize].address.clone()).unwrap();
            (address.rsplit(':').next().unwrap().parse().unwrap(), p)
        })
        .collect()
}

/// `normalizeLocalityWeights`: localities in order, each `(locality weight,
/// [(server index, host weight)])`; a locality of weight 0 is left out.
fn locality_entries<'a>(
    keys: &'a [Vec<u8>],
    localities: &[(u32, Vec<(usize, u32)>)],
) -> (Vec<Entry<'a>>, f64, f64) {
    let sum: u64 = localities.iter().map(|(w, _)| u64::from(*w)).sum();
    let (mut entries, mut min, mut max) = (Vec::new(), 1.0f64, 0.0f64);
    if sum == 0 {
        return (entries, min, max);
    }
    for (locality_weight, members) in localities.iter().filter(|(w, _)| *w != 0) {
        let share = f64::from(*locality_weight) / sum as f64;
        let hosts_sum: u64 = members.iter().map(|&(_, w)| u64::from(w)).sum();
        for &(host, w) in members {
            let weight = f64::from(w) * share / hosts_sum as f64;
            min = min.min(weight);
            max = max.max(weight);
            entries.push(Entry {
                key: &keys[host],
                weight,
                host,
            });
        }
    }
    (entries, min, max)
}

fn keys_of(servers: &[ServerSpec]) -> Vec<Vec<u8>> {
    servers
        .iter()
        .map(|s| s.name.clone().unwrap_or_else(|| s.address.clone()))
        .collect()
}

/// `i * (UINT64_MAX / n)` for `i` in `0..n`: the tests' sweep of the ring.
fn sweep(n: u64) -> impl Iterator<Item = u64> {
    (0..n).map(move |i| i * (u64::MAX / n))
}

fn histogram(table: &Table, n: u64, hosts: usize) -> Vec<u32> {
    let mut counts = vec![0; hosts];
    for hash in sweep(n) {
        counts[pick(table, hash)] += 1;
    }
    counts
}

/// ring_hash_lb_test.cc, RingHashLoadBalancerTest: Basic and
/// BasicWithRetryHostPredicate (the ring's entries after the first).
#[test]
fn ring_hash_basic() {
    let servers = hosts(90..96);
    let envoy = ring_hash(&servers, ring_config(12, 8 * 1024 * 1024));
    assert_eq!(ring(&envoy).size(), 12);
    assert_eq!(least_most(ring(&envoy).entries_per_host()), (2, 2));
    let expected = BASIC_RING;
    assert_eq!(positions(&envoy, &servers), expected);
    let table = envoy.table();
    assert_eq!(pick(table, 0), 4);
    assert_eq!(pick(table, u64::MAX), 4);
    assert_eq!(pick(table, 3_551_244_743_356_806_947), 5);
    assert_eq!(pick(table, 3_551_244_743_356_806_948), 3);
    assert_eq!(pick(table, 16_117_243_373_044_804_880), 0);
    // Every host unhealthy: Envoy panics and uses the ring over all hosts.
    assert_eq!(envoy.pick_hash_live(0, &|_| true).unwrap().host, 4);
    // Retries take the next entries: 1 (:92), 2 (:90), and 13 wraps to 1.
    let hosts = ring(&envoy).hosts();
    assert_eq!((hosts[1], hosts[2], hosts[13 % hosts.len()]), (2, 0, 2));
}

/// ring_hash_lb_test.cc, BasicWithMurmur2 (`hash_function: MURMUR_HASH_2`).
#[test]
fn ring_hash_murmur2() {
    let servers = hosts(80..86);
    let config = RingHashConfig {
        hash_function: RingHashFunction::MurmurHash2,
        ..ring_config(12, 8 * 1024 * 1024)
    };
    let envoy = ring_hash(&servers, config);
    assert_eq!(ring(&envoy).size(), 12);
    assert_eq!(least_most(ring(&envoy).entries_per_host()), (2, 2));
    let expected = MURMUR_RING;
    assert_eq!(positions(&envoy, &servers), expected);
    let table = envoy.table();
    assert_eq!(pick(table, 0), 5);
    assert_eq!(pick(table, u64::MAX), 5);
    assert_eq!(pick(table, 1_358_027_074_129_602_068), 5);
    assert_eq!(pick(table, 1_358_027_074_129_602_069), 3);
    assert_eq!(pick(table, 10_150_910_876_324_007_730), 2);
}

/// ring_hash_lb_test.cc, BasicWithHostname, BasicWithMetadataHashKey and
/// BasicWithDoundedLoad (no requests in flight: the bounded load changes
/// nothing): the name column is hashed.
#[test]
fn ring_hash_hostnames() {
    let servers: Vec<ServerSpec> = (90..96).map(named).collect();
    let envoy = ring_hash(&servers, ring_config(12, 8 * 1024 * 1024));
    assert_eq!(ring(&envoy).size(), 12);
    assert_eq!(least_most(ring(&envoy).entries_per_host()), (2, 2));
    let expected = HOSTNAME_RING;
    assert_eq!(positions(&envoy, &servers), expected);
    let table = envoy.table();
    for (hash, host) in [
        (0, 5),
        (u64::MAX, 5),
        (7_225_015_537_174_310_577, 2),
        (6_803_900_775_736_438_537, 3),
    ] {
        assert_eq!(pick(table, hash), host, "{hash}");
    }
    assert_eq!(envoy.pick_hash_live(0, &|_| true).unwrap().host, 5);
}

/// ring_hash_lb_test.cc, UnevenHosts.
#[test]
fn ring_hash_uneven_hosts() {
    let servers = hosts(80..82);
    let envoy = ring_hash(&servers, ring_config(3, 8 * 1024 * 1024));
    assert_eq!(ring(&envoy).size(), 4);
    assert_eq!(least_most(ring(&envoy).entries_per_host()), (2, 2));
    let expected: [(u32, u64); 4] = [
        (80, 5_454_692_015_285_649_509),
        (81, 7_859_399_908_942_313_493),
        (80, 13_838_424_394_637_650_569),
        (81, 16_064_866_803_292_627_174),
    ];
    assert_eq!(positions(&envoy, &servers), expected);
    assert_eq!(pick(envoy.table(), 0), 0);
    let servers = hosts(81..83);
    let envoy = ring_hash(&servers, ring_config(3, 8 * 1024 * 1024));
    let expected: [(u32, u64); 4] = [
        (81, 7_859_399_908_942_313_493),
        (82, 8_241_336_090_459_785_962),
        (82, 12_882_406_409_176_325_258),
        (81, 16_064_866_803_292_627_174),
    ];
    assert_eq!(positions(&envoy, &servers), expected);
    assert_eq!(pick(envoy.table(), 0), 0);
}

/// The expected picks of HostWeightedTinyRing and LocalityWeightedTinyRing.
const TINY_RING: [(u64, usize); 6] = [
    (928_266_305_478_181_108, 2),
    (4_443_673_547_860_492_590, 2),
    (5_583_722_120_771_150_861, 1),
    (6_311_230_543_546_372_928, 1),
    (13_444_792_449_719_432_967, 2),
    (16_117_243_373_044_804_889, 0),
];

/// ring_hash_lb_test.cc, HostWeightedTinyRing and HostWeightedLargeRing.
#[test]
fn ring_hash_host_weights() {
    let servers = vec![weighted(90, 1), weighted(91, 2), weighted(92, 3)];
    let envoy = ring_hash(&servers, ring_config(6, 6));
    assert_eq!(ring(&envoy).size(), 6);
    assert_eq!(least_most(ring(&envoy).entries_per_host()), (1, 3));
    for (hash, host) in TINY_RING {
        assert_eq!(pick(envoy.table(), hash), host, "{hash}");
    }
    let envoy = ring_hash(&servers, ring_config(6144, 8 * 1024 * 1024));
    assert_eq!(ring(&envoy).size(), 6144);
    assert_eq!(least_most(ring(&envoy).entries_per_host()), (1024, 3072));
    assert_eq!(histogram(envoy.table(), 6000, 3), [987, 1932, 3081]);
}

fn locality_ring(
    servers: &[ServerSpec],
    localities: &[(u32, Vec<(usize, u32)>)],
    config: RingHashConfig,
) -> Table {
    let keys = keys_of(servers);
    let (entries, min, max) = locality_entries(&keys, localities);
    Table::build(&Policy::RingHash(config), &entries, min, max)
}

fn ring_stats(table: &Table) -> (u64, u64, u64) {
    match table {
        Table::Ring(ring) => {
            let (least, most) = least_most(ring.entries_per_host());
            (ring.size(), least, most)
        }
        Table::Maglev(_) => unreachable!(),
    }
}

/// ring_hash_lb_test.cc, ZeroLocalityWeights, LocalityWeightedTinyRing,
/// LocalityWeightedLargeRing, HostAndLocalityWeightedTinyRing,
/// HostAndLocalityWeightedLargeRing, LopsidedWeightSmallScale.
#[test]
fn ring_hash_locality_weights() {
    let servers = hosts(90..94);
    let zero = locality_ring(
        &servers[..2],
        &[(0, vec![(0, 1)]), (0, vec![(1, 1)])],
        ring_config(1024, 1024),
    );
    assert_eq!(zero.pick(0), None);

    let one_each = |weights: [u32; 4]| -> Vec<(u32, Vec<(usize, u32)>)> {
        (0..4).map(|i| (weights[i], vec![(i, 1)])).collect()
    };
    let tiny = locality_ring(&servers, &one_each([1, 2, 3, 0]), ring_config(6, 6));
    assert_eq!(ring_stats(&tiny), (6, 1, 3));
    for (hash, host) in TINY_RING {
        assert_eq!(pick(&tiny, hash), host, "{hash}");
    }
    let large = locality_ring(
        &servers,
        &one_each([1, 2, 3, 0]),
        ring_config(6144, 8 << 20),
    );
    assert_eq!(ring_stats(&large), (6144, 1024, 3072));
    assert_eq!(histogram(&large, 6000, 4), [987, 1932, 3081, 0]);

    let both = [(1, vec![(0, 1), (1, 2)]), (2, vec![(2, 1), (3, 2)])];
    let tiny = locality_ring(&servers, &both, ring_config(9, 9));
    assert_eq!(ring_stats(&tiny), (9, 1, 4));
    let expected: [(u64, usize); 9] = [
        (928_266_305_478_181_108, 2),
        (3_851_675_632_748_031_481, 3),
        (5_583_722_120_771_150_861, 1),
        (6_311_230_543_546_372_928, 1),
        (7_700_377_290_971_790_572, 3),
        (12_559_126_875_973_811_811, 3),
        (13_444_792_449_719_432_967, 2),
        (13_784_988_426_630_141_778, 3),
        (16_117_243_373_044_804_889, 0),
    ];
    for (hash, host) in expected {
        assert_eq!(pick(&tiny, hash), host, "{hash}");
    }
    let large = locality_ring(&servers, &both, ring_config(9216, 8 << 20));
    assert_eq!(ring_stats(&large), (9216, 1024, 4096));
    assert_eq!(histogram(&large, 9000, 4), [924, 2009, 2053, 4014]);

    let many = hosts(0..1024);
    let lopsided = [
        (127, vec![(0, 1)]),
        (1, (1..1024).map(|i| (i, 1)).collect()),
    ];
    let small = locality_ring(&many, &lopsided, ring_config(1024, 1024));
    assert_eq!(ring_stats(&small), (1024, 0, 1016));
    let expected: [(u64, usize); 8] = [
        (11_664_790_346_325_243_808, 1),
        (15_894_554_872_961_148_518, 128),
        (13_958_138_884_277_627_155, 256),
        (15_803_774_069_438_192_949, 384),
        (3_829_253_010_855_396_576, 512),
        (17_918_147_347_826_565_154, 640),
        (6_442_769_608_292_299_103, 768),
        (5_881_074_926_069_334_434, 896),
    ];
    for (hash, host) in expected {
        assert_eq!(pick(&small, hash), host, "{hash}");
    }
}

/// ring_hash_lb_test.cc, SmallFractionalScale, LargeFractionalScale and
/// BadRingSizeBounds.
#[test]
fn ring_hash_fractional_scales() {
    let envoy = ring_hash(&hosts(90..94), ring_config(2, 2));
    assert_eq!(ring(&envoy).size(), 2);
    assert_eq!(least_most(ring(&envoy).entries_per_host()), (0, 1));
    let counts = histogram(envoy.table(), 1024, 4);
    assert_eq!(counts.iter().filter(|&&c| c == 0).count(), 2);
    assert_eq!(counts.iter().sum::<u32>(), 1024);

    let envoy = ring_hash(&hosts(90..92), ring_config(1023, 1023));
    assert_eq!(ring(&envoy).size(), 1023);
    assert_eq!(least_most(ring(&envoy).entries_per_host()), (511, 512));
    assert_eq!(histogram(envoy.table(), 1023, 2), [526, 497]);

    let err = Envoy::new(&hosts(90..92), Policy::RingHash(ring_config(20, 10))).unwrap_err();
    assert!(
        err.to_string()
            .contains("ring hash: minimum_ring_size (20) > maximum_ring_size (10)"),
        "{err}"
    );
}

/// maglev_lb_test.cc: the 7-slot table of six hosts (Basic,
/// BasicWithRetryHostPredicate, BasicStability) and of six named hosts
/// (BasicWithHostName, BasicWithMetadataHashKey, BasicWithBoundedLoad).
#[test]
fn maglev_basic() {
    let servers = hosts(90..96);
    let envoy = maglev(&servers, 7);
    assert_eq!(least_most(table(&envoy).entries_per_host()), (1, 2));
    let expected = [2, 4, 0, 1, 5, 0, 3];
    for hash in 0..21u64 {
        assert_eq!(
            pick(envoy.table(), hash),
            expected[hash as usize % 7],
            "{hash}"
        );
    }
    // Retries mutate the hash: attempt k picks `hash ^ (~0 - k + 1)`.
    assert_eq!(pick(envoy.table(), 10), 1);
    assert_eq!(pick(envoy.table(), 10 ^ u64::MAX), 0);
    assert_eq!(pick(envoy.table(), 10 ^ (u64::MAX - 1)), 5);
    // The table does not depend on the hosts' order.
    let mut shuffled = servers.clone();
    shuffled.reverse();
    shuffled.swap(1, 4);
    let again = maglev(&shuffled, 7);
    for hash in 0..21u64 {
        let host = &shuffled[pick(again.table(), hash)];
        assert_eq!(host.address, servers[expected[hash as usize % 7]].address);
    }

    let named: Vec<ServerSpec> = (90..96).map(named).collect();
    let envoy = maglev(&named, 7);
    assert_eq!(least_most(table(&envoy).entries_per_host()), (1, 2));
    let expected = [2, 5, 0, 3, 4, 1, 0];
    for hash in 0..21u64 {
        assert_eq!(
            pick(envoy.table(), hash),
            expected[hash as usize % 7],
            "{hash}"
        );
    }
}

/// maglev_lb_test.cc, SingleHost, Weighted, WeightedSingleHost,
/// NoPrimeNumber, DefaultMaglevTableSize.
#[test]
fn maglev_weights_and_sizes() {
    let envoy = maglev(&hosts(90..91), 7);
    assert!((0..5).all(|h| pick(envoy.table(), h) == 0));
    let envoy = maglev(&[weighted(90, 1), weighted(91, 2)], 17);
    assert_eq!(least_most(table(&envoy).entries_per_host()), (6, 11));
    let expected = [1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1];
    for hash in 0..51u64 {
        assert_eq!(
            pick(envoy.table(), hash),
            expected[hash as usize % 17],
            "{hash}"
        );
    }
    let envoy = maglev(&[weighted(90, 7)], 17);
    assert!((0..17).all(|h| pick(envoy.table(), h) == 0));
    let err = Envoy::new(
        &hosts(90..92),
        Policy::Maglev(MaglevConfig { table_size: 8 }),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("The table size of maglev must be prime number"),
        "{err}"
    );
    assert_eq!(MaglevConfig::default().table_size, 65_537);
}

fn locality_table(
    servers: &[ServerSpec],
    localities: &[(u32, Vec<(usize, u32)>)],
    size: u64,
) -> Table {
    let keys = keys_of(servers);
    let (entries, min, max) = locality_entries(&keys, localities);
    Table::build(
        &Policy::Maglev(MaglevConfig { table_size: size }),
        &entries,
        min,
        max,
    )
}

fn maglev_stats(table: &Table) -> (u64, u64) {
    match table {
        Table::Maglev(table) => least_most(table.entries_per_host()),
        Table::Ring(_) => unreachable!(),
    }
}

/// maglev_lb_test.cc, LocalityWeightedSameLocalityWeights,
/// LocalityWeightedGlobalPanic (the same table over every host),
/// LocalityWeightedDifferentLocalityWeights,
/// LocalityWeightedAllZeroLocalityWeights, LocalityWeightedLopsided.
#[test]
fn maglev_locality_weights() {
    let servers = vec![weighted(90, 1), weighted(91, 2), weighted(92, 3)];
    let same = locality_table(&servers, &[(1, vec![(0, 1)]), (1, vec![(1, 2)])], 17);
    assert_eq!(maglev_stats(&same), (8, 9));
    let expected = [1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1];
    for hash in 0..51u64 {
        assert_eq!(pick(&same, hash), expected[hash as usize % 17], "{hash}");
    }
    let localities = [(8, vec![(0, 1)]), (0, vec![(2, 3)]), (2, vec![(1, 2)])];
    let different = locality_table(&servers, &localities, 17);
    assert_eq!(maglev_stats(&different), (4, 13));
    let expected = [1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0];
    for hash in 0..51u64 {
        assert_eq!(
            pick(&different, hash),
            expected[hash as usize % 17],
            "{hash}"
        );
    }
    let zero = locality_table(&servers[..1], &[(0, vec![(0, 1)])], 17);
    assert_eq!(zero.pick(0), None);

    let many = hosts(0..1024);
    let lopsided = [
        (127, vec![(0, 1)]),
        (1, (1..1024).map(|i| (i, 1)).collect()),
    ];
    let table = locality_table(&many, &lopsided, 65_537);
    assert_eq!(maglev_stats(&table), (1, 65_537 - 1023));
    let mut counts = vec![0u64; 1024];
    for hash in 0..65_537 {
        counts[pick(&table, hash)] += 1;
    }
    assert!(counts[1..].iter().all(|&c| c == 1));
    assert_eq!(counts[0], 65_537 - 1023);
}
