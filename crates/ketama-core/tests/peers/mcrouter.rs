//! mcrouter's hash functions against mcrouter's own published unit-test
//! expectations. mcrouter (and folly) cannot be built here, so the facts
//! are the expected values its tests publish, read from facebook/mcrouter
//! at 9d7f43422b858da05bf699d4c311f236d122792b and facebook/folly at
//! ff98381ea68687a95c6185326db933aa6124d4c5; each test names the upstream
//! file and test it encodes. Placements go through the flavour (`Ring`)
//! wherever the pool can be written as a server list; pools that cannot
//! (8M servers, weights outside what a weight column says) use the core's
//! types directly.

use std::path::{Path, PathBuf};

use ketama_core::flavour::mcrouter::{Ch3, WeightedCh3, crc32_index, routing_key};
use ketama_core::hash::furc::{MAX_POOL_SIZE, furc_hash};
use ketama_core::hash::spooky;
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};

/// A file of `published/`: expectations copied from mcrouter's tests.
fn published(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers/published")
        .join(name)
}

fn servers(n: usize, weight: impl Fn(usize) -> u64) -> Vec<ServerSpec> {
    (0..n)
        .map(|i| {
            let address = format!("10.{}.{}.{}:11211", i >> 16, (i >> 8) & 255, i & 255);
            ServerSpec::new(address, weight(i))
        })
        .collect()
}

fn ring(flavour: Flavour, n: usize) -> Ring {
    Ring::new(servers(n, |_| 1), RingConfig::flavour(flavour)).unwrap()
}

fn index(ring: &Ring, key: &[u8]) -> usize {
    ring.locate(key).unwrap().server_index
}

/// The bytes -128..127 as C++ `char`s (Ch3HashTest, Crc32HashTest).
fn max_key() -> Vec<u8> {
    (0..256i32).map(|i| (i - 128) as u8).collect()
}

/// `acc = acc * 31 + hash` over `keys` (the tests' polynomial checksums).
fn checksum(keys: impl Iterator<Item = String>, mut hash: impl FnMut(&[u8]) -> usize) -> u32 {
    keys.fold(0u32, |acc, key| {
        acc.wrapping_mul(31)
            .wrapping_add(hash(key.as_bytes()) as u32)
    })
}

fn numbered(prefix: &str, n: u32) -> impl Iterator<Item = String> + '_ {
    (0..n).map(move |i| format!("{prefix}{i}"))
}

/// lib/fbi/test/hash_test.cpp, TEST(ch3, golden_values): 264 (key, m,
/// expected) rows; through the mcrouter-ch3 flavour as well for m <= 1000.
#[test]
fn furc_golden_values() {
    let table = std::fs::read_to_string(published("mcrouter_furc_golden.tsv")).unwrap();
    let rows: Vec<(String, u32, u32)> = table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 264);
    let mut through_ring = 0;
    for (key, m, expected) in &rows {
        assert_eq!(
            furc_hash(key.as_bytes(), *m),
            *expected,
            "furc_hash({key:?}, {m})"
        );
        if *m <= 1000 {
            let ring = ring(Flavour::McrouterCh3, *m as usize);
            assert_eq!(
                index(&ring, key.as_bytes()),
                *expected as usize,
                "{key:?} m={m}"
            );
            through_ring += 1;
        }
    }
    assert_eq!(through_ring, 176);
}

/// hash_test.cpp, TEST(ch3, power_of_two_boundaries).
#[test]
fn furc_power_of_two_boundaries() {
    let expected = [
        (4, 0),
        (8, 7),
        (32, 22),
        (64, 22),
        (128, 115),
        (256, 115),
        (512, 413),
        (1024, 950),
        (2048, 1735),
        (4096, 3375),
        (8192, 3375),
    ];
    for (m, bucket) in expected {
        assert_eq!(furc_hash(b"key0", m), bucket, "m={m}");
    }
}

/// hash_test.cpp, TEST(ch3, bulk_checksum): 19 pools x 100,000 keys
/// `k<i>`; the pools up to 100,000 servers also through the flavour.
#[test]
fn furc_bulk_checksums() {
    let expected: [(u32, u32); 19] = [
        (2, 1_346_413_954),
        (3, 914_505_363),
        (5, 1_517_365_794),
        (7, 4_252_552_508),
        (10, 2_894_016_351),
        (16, 2_995_729_350),
        (50, 1_717_182_892),
        (100, 2_289_223_413),
        (500, 2_400_597_860),
        (1000, 2_251_851_331),
        (5000, 2_711_796_627),
        (10_000, 1_328_492_545),
        (100_000, 1_053_928_120),
        (1_000_000, 209_068_971),
        (8_388_608, 2_328_588_562),
        (16_777_216, 1_406_750_828),
        (100_000_000, 55_292_389),
        (1_073_741_824, 1_798_155_495),
        (4_294_967_295, 504_907_336),
    ];
    for (m, sum) in expected {
        let got = checksum(numbered("k", 100_000), |k| furc_hash(k, m) as usize);
        assert_eq!(got, sum, "furc_hash checksum for m={m}");
        if m <= 100_000 {
            let ring = ring(Flavour::McrouterCh3, m as usize);
            let got = checksum(numbered("k", 100_000), |k| index(&ring, k));
            assert_eq!(got, sum, "mcrouter-ch3 checksum for {m} servers");
        }
    }
}

/// hash_test.cpp: m_zero_returns_zero, m_beyond_max_pool_size,
/// maximum_pool_size_value, zero_length_key, binary_key_with_embedded_nulls,
/// determinism, result_in_range_all_m, m_two_binary_output,
/// consistency_at_power_of_two_boundaries.
#[test]
fn furc_properties_published_as_tests() {
    assert_eq!(furc_hash(b"key", 0), 0);
    for m in [MAX_POOL_SIZE + 1, MAX_POOL_SIZE * 2] {
        assert!(furc_hash(b"test_key", m) < m);
    }
    assert_eq!(MAX_POOL_SIZE, 8_388_608);
    for m in [2, 10, 1000, 1_000_000] {
        assert!(furc_hash(&b"ignored_content"[..0], m) < m);
    }
    assert_eq!(furc_hash(&b"aaa"[..0], 1000), furc_hash(&b"bbb"[..0], 1000));
    let (h1, h2, h3) = (
        furc_hash(b"abc\0def", 1_000_000),
        furc_hash(b"abc\0xyz", 1_000_000),
        furc_hash(b"abc", 1_000_000),
    );
    assert!(h1 < 1_000_000 && h2 < 1_000_000 && h3 < 1_000_000);
    assert!(h1 != h2 && h1 != h3);
    for key in [
        "determinism_test",
        "another_key",
        "",
        "x",
        "mcrouter:pool:regional:0042",
    ] {
        for m in [2, 7, 100, 1000, 10_000, 8_388_608, 4_294_967_295] {
            assert_eq!(furc_hash(key.as_bytes(), m), furc_hash(key.as_bytes(), m));
        }
    }
    let pools = [
        2u32,
        3,
        4,
        5,
        7,
        8,
        10,
        15,
        16,
        17,
        31,
        32,
        33,
        63,
        64,
        65,
        100,
        127,
        128,
        129,
        255,
        256,
        257,
        1000,
        10_000,
        100_000,
        1_000_000,
        8_388_608,
        16_777_216,
        100_000_000,
        1_073_741_824,
        2_147_483_648,
        4_294_967_295,
    ];
    for m in pools {
        for key in numbered("range_", 10_000) {
            assert!(furc_hash(key.as_bytes(), m) < m, "{key} m={m}");
        }
    }
    let mut counts = [0i64; 2];
    for key in numbered("bin_", 100_000) {
        counts[furc_hash(key.as_bytes(), 2) as usize] += 1;
    }
    assert!((counts[0] - 50_000).abs() <= 1000 && (counts[1] - 50_000).abs() <= 1000);
    for boundary in [4u32, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 8192] {
        for key in numbered("cons_", 10_000) {
            let at = furc_hash(key.as_bytes(), boundary);
            let at_plus = furc_hash(key.as_bytes(), boundary + 1);
            assert!(at == at_plus || at_plus == boundary, "{key} m={boundary}");
        }
    }
}

/// lib/test/Ch3HashTest.cpp, TEST(Ch3Func, basic), ch3_3 and ch3_10.
#[test]
fn ch3_func_published_values() {
    let (r100, r1, r99999) = (
        ring(Flavour::McrouterCh3, 100),
        ring(Flavour::McrouterCh3, 1),
        ring(Flavour::McrouterCh3, 99_999),
    );
    assert_eq!(index(&r100, b"sample"), 97);
    assert_eq!(index(&r1, b"sample"), 0);
    assert_eq!(index(&r100, b""), 72);
    assert_eq!(index(&r1, b""), 0);
    let max = Ch3::new(MAX_POOL_SIZE as usize).unwrap();
    assert_eq!(max.index(b""), 6_173_600);
    assert_eq!(max.index(b"sample"), 5_167_780);
    let mut key = max_key();
    assert_eq!(index(&r99999, &key), 31_015);
    key.reverse();
    assert_eq!(index(&r99999, &key), 67_101);
    assert!(Ch3::new(MAX_POOL_SIZE as usize + 1).is_err());

    assert_eq!(
        counts(&ring(Flavour::McrouterCh3, 3), 1000),
        [307, 342, 351]
    );
    assert_eq!(
        counts(&ring(Flavour::McrouterCh3, 10), 10_000),
        [995, 955, 1046, 968, 1032, 972, 1016, 1038, 1010, 968]
    );
}

/// How many of the keys "0".."n-1" each server holds.
fn counts(ring: &Ring, n: u32) -> Vec<usize> {
    let mut counts = vec![0; ring.servers().len()];
    for key in numbered("", n) {
        counts[index(ring, key.as_bytes())] += 1;
    }
    counts
}

/// lib/test/Crc32HashTest.cpp, TEST(Crc32Func, basic).
#[test]
fn crc32_func_published_values() {
    let (r100, r1, r99999) = (
        ring(Flavour::McrouterCrc32, 100),
        ring(Flavour::McrouterCrc32, 1),
        ring(Flavour::McrouterCrc32, 99_999),
    );
    assert_eq!(index(&r100, b"sample"), 7);
    assert_eq!(index(&r1, b"sample"), 0);
    assert_eq!(index(&r100, b""), 0);
    assert_eq!(index(&r1, b""), 0);
    let max = (1u64 << 30) - 1;
    assert_eq!(crc32_index(b"", max).0, 0);
    assert_eq!(crc32_index(b"sample", max).0, 822_834_884);
    let mut key = max_key();
    assert_eq!(index(&r99999, &key), 11_697);
    key.reverse();
    assert_eq!(index(&r99999, &key), 97_630);
}

/// lib/test/WeightedCh3HashFuncTest.cpp: basic, zeroWeight, singleServer,
/// determinism, resultInRange.
#[test]
fn weighted_ch3_small_published_values() {
    let unit = |n: usize| WeightedCh3::new(vec![1.0; n]).unwrap();
    let (w100, w1, w99999) = (unit(100), unit(1), unit(99_999));
    assert_eq!(w100.index(b"sample"), 97);
    assert_eq!(w1.index(b"sample"), 0);
    assert_eq!(w100.index(b""), 72);
    assert_eq!(w1.index(b""), 0);
    let wmax = unit(MAX_POOL_SIZE as usize);
    assert_eq!(wmax.index(b""), 6_173_600);
    assert_eq!(wmax.index(b"sample"), 5_167_780);
    drop(wmax);
    let mut key = max_key();
    assert_eq!(w99999.index(&key), 31_015);
    key.reverse();
    assert_eq!(w99999.index(&key), 67_101);
    // Through the flavour: an unweighted list is all 1.0.
    let r100 = ring(Flavour::McrouterWch3, 100);
    assert_eq!(index(&r100, b"sample"), 97);
    assert_eq!(index(&r100, b""), 72);

    let zero1 = WeightedCh3::new(vec![0.0]).unwrap();
    let zero100 = WeightedCh3::new(vec![0.0; 100]).unwrap();
    assert_eq!(zero1.index(b"sample"), 0);
    assert_eq!(zero1.index(b""), 0);
    assert_eq!(zero100.index(b"sample"), 59);
    assert_eq!(zero100.index(b""), 45);

    for w in [0.0, 0.5, 1.0] {
        let single = WeightedCh3::new(vec![w]).unwrap();
        assert!(numbered("s", 100).all(|k| single.index(k.as_bytes()) == 0));
    }
    for n in [1usize, 2, 3, 5, 10, 100, 1000, 10_000] {
        for w in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let f = WeightedCh3::new(vec![w; n]).unwrap();
            assert!(numbered("rng_", 1000).all(|k| f.index(k.as_bytes()) < n));
        }
    }
}

/// WeightedCh3HashFuncTest.cpp, reducedWeight ({1.0, 1.0, 0.7}: the
/// weight column 10, 10, 7) and weightReductionConsistency (server 42 of
/// 100 at 0.3: weights 10 and 3), through the mcrouter-wch3 flavour.
#[test]
fn weighted_ch3_reduced_weights_through_the_flavour() {
    let config = RingConfig::flavour(Flavour::McrouterWch3);
    let wch3 = Ring::new(servers(3, |i| if i == 2 { 7 } else { 10 }), config).unwrap();
    let ch3 = ring(Flavour::McrouterCh3, 3);
    let mut ch3_counts = [0; 3];
    let mut wch3_counts = [0; 3];
    for key in numbered("", 1000) {
        let (c, w) = (index(&ch3, key.as_bytes()), index(&wch3, key.as_bytes()));
        if c != 2 {
            assert_eq!(c, w, "{key}");
        }
        ch3_counts[c] += 1;
        wch3_counts[w] += 1;
    }
    assert_eq!(ch3_counts, [307, 342, 351]);
    assert_eq!(wch3_counts, [341, 371, 288]);

    let full = ring(Flavour::McrouterWch3, 100);
    let reduced = Ring::new(servers(100, |i| if i == 42 { 3 } else { 10 }), config).unwrap();
    let mut redirected = 0;
    for key in numbered("cons_", 10_000) {
        let (f, r) = (
            index(&full, key.as_bytes()),
            index(&reduced, key.as_bytes()),
        );
        if f != 42 {
            assert_eq!(f, r, "{key}");
        } else if r != 42 {
            redirected += 1;
        }
    }
    assert!(redirected > 0);
}

/// WeightedCh3HashFuncTest.cpp, randomWeights and mixedWeightsDistribution
/// (weights a weight column cannot say: the core's type).
#[test]
fn weighted_ch3_random_and_mixed_weights() {
    let weights = vec![
        0.429, 0.541, 0.117, 0.998, 0.283, 0.065, 0.109, 0.042, 0.676, 0.943,
    ];
    let wch3 = WeightedCh3::new(weights).unwrap();
    let ch3 = Ch3::new(10).unwrap();
    let (mut c, mut w) = (vec![0; 10], vec![0; 10]);
    for key in numbered("", 10_000) {
        c[ch3.index(key.as_bytes())] += 1;
        w[wch3.index(key.as_bytes())] += 1;
    }
    assert_eq!(c, [995, 955, 1046, 968, 1032, 972, 1016, 1038, 1010, 968]);
    assert_eq!(w, [1016, 1252, 288, 2354, 661, 195, 247, 122, 1668, 2197]);

    let mixed = WeightedCh3::new(vec![1.0, 0.5, 0.0, 0.75, 1.0]).unwrap();
    let mut counts = [0; 5];
    let sum = checksum(numbered("d", 10_000), |k| {
        let h = mixed.index(k);
        counts[h] += 1;
        h
    });
    assert_eq!(counts[2], 0);
    assert!(counts[0] > counts[1] && counts[4] > counts[1]);
    assert_eq!(sum, 2_309_057_571);
}

/// WeightedCh3HashFuncTest.cpp, unitWeightsMatchFurcHash and the bulk
/// checksums (unit, half and zero weights; short and 128-byte keys).
#[test]
fn weighted_ch3_bulk_checksums() {
    for n in [2u32, 3, 5, 10, 100, 1000, 10_000, 100_000, 1_000_000] {
        let f = WeightedCh3::new(vec![1.0; n as usize]).unwrap();
        for key in numbered("eq_", 10_000) {
            assert_eq!(
                f.index(key.as_bytes()),
                furc_hash(key.as_bytes(), n) as usize
            );
        }
    }
    let unit: [(usize, u32); 9] = [
        (2, 1_346_413_954),
        (3, 914_505_363),
        (7, 4_252_552_508),
        (10, 2_894_016_351),
        (16, 2_995_729_350),
        (100, 2_289_223_413),
        (1000, 2_251_851_331),
        (10_000, 1_328_492_545),
        (100_000, 1_053_928_120),
    ];
    let half: [(usize, u32); 5] = [
        (2, 2_395_690_262),
        (10, 547_444_706),
        (100, 2_951_198_297),
        (1000, 1_336_857_622),
        (10_000, 3_378_951_161),
    ];
    let zero: [(usize, u32); 4] = [
        (2, 3_431_444_300),
        (10, 1_290_067_504),
        (100, 2_604_325_093),
        (1000, 337_394_182),
    ];
    let cases = [
        (1.0, 100_000, &unit[..]),
        (0.5, 10_000, &half),
        (0.0, 10_000, &zero),
    ];
    for (weight, keys, expected) in cases {
        for &(n, sum) in expected {
            let f = WeightedCh3::new(vec![weight; n]).unwrap();
            let got = checksum(numbered("k", keys), |k| f.index(k));
            assert_eq!(got, sum, "weight {weight}, n={n}");
        }
    }
    let base: String = (0..128).map(|i| (b'A' + (i % 26) as u8) as char).collect();
    let long_half: [(usize, u32); 4] = [
        (2, 3_784_301_429),
        (10, 707_485_837),
        (100, 4_273_108_085),
        (1000, 954_106_693),
    ];
    let long_zero: [(usize, u32); 3] =
        [(2, 2_171_781_178), (10, 2_937_312_667), (100, 532_711_027)];
    for (weight, expected) in [(0.5, &long_half[..]), (0.0, &long_zero[..])] {
        for &(n, sum) in expected {
            let f = WeightedCh3::new(vec![weight; n]).unwrap();
            let got = checksum(numbered(&base, 10_000), |k| f.index(k));
            assert_eq!(got, sum, "128-byte keys, weight {weight}, n={n}");
        }
    }
}

/// lib/test/WeightedChHashFuncBaseTest.cpp, parseWeightsTest: weights
/// outside [0, 1] are refused, 0.5 and 0.75 or 0 and 1.0 accepted.
#[test]
fn weighted_ch3_weight_range() {
    assert!(WeightedCh3::new(vec![0.5, 2.0]).is_err());
    assert!(WeightedCh3::new(vec![0.5, -1.0]).is_err());
    assert!(WeightedCh3::new(vec![0.5, 0.75]).is_ok());
    assert!(WeightedCh3::new(vec![0.0, 1.0]).is_ok());
}

/// mcrouter/test/test_wch3.py (its pool, weights 0, 1, 1, 0, 0.5, 1, 0.3,
/// 0.5, and 20,000 keys `someprefix:<i>:|#|id=123`): servers of weight 0
/// get no key, the others their share within 0.075.
#[test]
fn weighted_ch3_integration_pool() {
    let weights = [0.0, 1.0, 1.0, 0.0, 0.5, 1.0, 0.3, 0.5];
    let f = WeightedCh3::new(weights.to_vec()).unwrap();
    let mut counts = [0usize; 8];
    for i in 0..20_000 {
        counts[f.index(routing_key(format!("someprefix:{i}:|#|id=123").as_bytes()))] += 1;
    }
    let total: f64 = weights.iter().sum();
    for (i, w) in weights.iter().enumerate() {
        let measured = counts[i] as f64 / 20_000.0;
        if *w == 0.0 {
            assert_eq!(counts[i], 0, "server {i}");
        } else {
            assert!(
                (measured - w / total).abs() <= 0.075,
                "server {i}: {measured}"
            );
        }
    }
}

/// folly/hash/test/SpookyHashV2Test.cpp, TestResults(): Hash32 of 512
/// messages (both forms of the hash, every tail length).
#[test]
fn spooky_v2_published_values() {
    let table = std::fs::read_to_string(published("spooky_v2_hash32.txt")).unwrap();
    let expected: Vec<u32> = table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| u32::from_str_radix(l.trim_start_matches("0x"), 16).unwrap())
        .collect();
    assert_eq!(expected.len(), 512);
    let buf: Vec<u8> = (0..512).map(|i| (i + 128) as u8).collect();
    for (len, want) in expected.iter().enumerate() {
        assert_eq!(spooky::hash32(&buf[..len], 0), *want, "length {len}");
    }
}
