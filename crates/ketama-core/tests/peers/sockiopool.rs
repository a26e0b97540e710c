//! The `libketama-java` flavour: libketama's own Java port
//! (`java_ketama/SockIOPool.java`), which is in no package registry. Each of
//! its rules is pinned by a test of its own, and the whole placement is
//! compared with the same arithmetic run in a real JVM
//! (ketama-testkit/peers/SockIoPoolPeer.java, written for this test from reading the
//! class: Java's int overflow, `Math.floor`, `getBytes()` and `TreeMap`
//! decide there): whole continuums and every key, on 3, 10, 61 and 100
//! servers, unweighted, equal and unequal weights. The library reads the
//! same server lines with its SockIOPool reader.

use ketama_core::parser::{ParseMode, parse_server_file};
use ketama_core::{Flavour, Ring, RingConfig};
use ketama_testkit::harness::{self, Answer, Case};
use ketama_testkit::peer_programs::{libketama_answers, sockiopool_answers};
use ketama_testkit::peers::{self, ServerList, Weights, keys, non_ascii_keys, our_indices};

/// The server lines as SockIOPool users write them: `host:port<TAB>weight`,
/// or `host:port` alone for an unweighted list.
fn lines(list: &ServerList) -> String {
    list.servers
        .iter()
        .map(|s| match s.weight {
            Some(w) => format!("{}\t{w}\n", s.address()),
            None => format!("{}\n", s.address()),
        })
        .collect()
}

/// The library's ring for server lines, read as SockIOPool reads them.
fn ring(lines: &str) -> Ring {
    let servers = parse_server_file(lines.as_bytes(), "lines", ParseMode::SockIoPool).unwrap();
    Ring::new(servers, RingConfig::flavour(Flavour::LibketamaJava)).unwrap()
}

/// The library's whole continuum as `(point, server index)` in order.
fn continuum(ring: &Ring) -> Vec<(u32, u32)> {
    let c = ring.continuum();
    c.points()
        .iter()
        .copied()
        .zip(c.owners().iter().copied())
        .collect()
}

/// Points each server owns on the library's ring.
fn per_server(ring: &Ring) -> Vec<u32> {
    ring.servers().iter().map(|s| s.point_count()).collect()
}

/// The test keys: 10,000 ASCII keys, non-ASCII UTF-8 keys (Java strings,
/// hashed from `getBytes()`), and keys that are point labels.
fn test_keys(list_lines: &str) -> Vec<Vec<u8>> {
    let mut keys = keys();
    keys.extend(
        non_ascii_keys()
            .into_iter()
            .filter(|k| std::str::from_utf8(k).is_ok()),
    );
    for line in list_lines.lines().take(20) {
        let server = line.split('\t').next().unwrap();
        keys.extend((0..20).map(|j| format!("{server}-{j}").into_bytes()));
    }
    keys
}

/// Asks the JVM about every case and compares continuum and keys; returns
/// the number of keys compared.
fn compare(cases: &[(String, String)]) -> usize {
    let table: Vec<Case<&str>> = cases
        .iter()
        .map(|(name, lines)| Case::new(name.as_str(), lines.as_str(), test_keys(lines)))
        .collect();
    harness::compare(
        Flavour::LibketamaJava.name(),
        &table,
        |table| {
            let asked = harness::questions(table, |lines| lines.to_string());
            sockiopool_answers(&asked)
                .into_iter()
                .map(Answer::from)
                .collect()
        },
        |case| ring(case.input),
    )
}

#[test]
fn whole_continuums_and_keys_equal_the_jvm_on_3_10_61_100_servers() {
    let mut cases = Vec::new();
    for n in [3, 10, 61, 100] {
        for w in [Weights::None, Weights::Equal, Weights::Unequal] {
            let list = peers::servers(n, w);
            cases.push((list.name.clone(), lines(&list)));
        }
    }
    let compared = compare(&cases);
    assert!(compared >= 12 * 10_000);
    println!("{} cases, {compared} keys, 0 differences", cases.len());
}

#[test]
fn sixty_one_equal_servers_get_160_points_each_where_c_gives_156() {
    let list = peers::servers(61, Weights::Equal);
    let java = ring(&lines(&list));
    assert_eq!(per_server(&java), vec![160; 61]);
    let c = Ring::new(list.specs(), RingConfig::flavour(Flavour::Libketama)).unwrap();
    assert_eq!(per_server(&c), vec![156; 61]);
    // The original C library, asked in this run, places 10,000 keys as the
    // libketama flavour does, and differently from the Java port.
    let keys = keys();
    let original = libketama_answers(&list, &keys);
    harness::report(
        Flavour::Libketama.name(),
        "61 equal servers",
        &keys,
        &our_indices(&c, &keys),
        &original,
    );
    let moved = our_indices(&java, &keys)
        .iter()
        .zip(&original)
        .filter(|(a, b)| a != b)
        .count();
    println!(
        "61 equal servers: libketama-java vs the original C library: {moved} of 10000 keys differ"
    );
    assert!(moved > 0);
    compare(&[("61 equal servers".into(), lines(&list))]);
}

#[test]
fn an_overflowing_int_product_gives_the_points_of_the_wrapped_int() {
    // 40·2·80,000,000 = 6,400,000,000 wraps to 2,105,032,704: 26 digests
    // (104 points) where exact arithmetic gives 79; the other server's
    // 80 / 80,000,001 floors to none.
    let wrapped = ring("10.0.0.1:11211\t80000000\n10.0.0.2:11211\t1\n");
    assert_eq!(per_server(&wrapped), vec![104, 0]);
    // 40·3·20,000,000 wraps to a negative int: that server gets none.
    let negative = ring("10.0.0.1:11211\t1\n10.0.0.2:11211\t20000000\n10.0.0.3:11211\t10000000\n");
    assert_eq!(per_server(&negative)[1], 0);
    assert!(per_server(&negative)[2] > 0);
    // A total that wraps to a negative int is summed twice (to 2 here); the
    // big weight's product wraps to -120: the small ones get 60 digests.
    let total = ring("10.0.0.1:11211\t2147483647\n10.0.0.2:11211\t1\n10.0.0.3:11211\t1\n");
    assert_eq!(per_server(&total), vec![0, 240, 240]);
    compare(&[
        (
            "product wraps positive".into(),
            "10.0.0.1:11211\t80000000\n10.0.0.2:11211\t1\n".into(),
        ),
        (
            "product wraps negative".into(),
            "10.0.0.1:11211\t1\n10.0.0.2:11211\t20000000\n10.0.0.3:11211\t10000000\n".into(),
        ),
        (
            "total wraps".into(),
            "10.0.0.1:11211\t2147483647\n10.0.0.2:11211\t1\n10.0.0.3:11211\t1\n".into(),
        ),
    ]);
}

#[test]
fn a_later_server_replaces_an_earlier_one_on_an_equal_point() {
    // The same server listed twice: every point of the first entry is put
    // again by the third, so the third owns them all.
    let lines = "10.0.0.1:11211\n10.0.0.2:11211\n10.0.0.1:11211\n";
    let r = ring(lines);
    assert_eq!(per_server(&r), vec![0, 160, 160]);
    compare(&[("a server listed twice".into(), lines.into())]);
}

#[test]
fn a_bad_weight_is_read_as_1() {
    let one = continuum(&ring("10.0.0.1:11211\t1\n10.0.0.2:11211\t3\n"));
    for bad in ["", "\t", "\tx", "\t 1", "\t1.0", "\t99999999999", "\t0x1"] {
        let lines = format!("10.0.0.1:11211{bad}\n10.0.0.2:11211\t3\n");
        assert_eq!(continuum(&ring(&lines)), one, "weight field {bad:?}");
        compare(&[(format!("weight field {bad:?}"), lines)]);
    }
    // What parseInt does read is used: a sign, and a third field ignored.
    let plus = ring("10.0.0.1:11211\t+2\textra\n10.0.0.2:11211\t3\n");
    assert_eq!(per_server(&plus), vec![128, 192]);
}

#[test]
fn keys_are_hashed_from_their_utf8_bytes() {
    let list = peers::servers(10, Weights::Unequal);
    let r = ring(&lines(&list));
    // The bytes of the key, as `getBytes()` gives them on a UTF-8 JVM, are
    // what MD5 sees: the library's key hash is libketama's over the bytes.
    for key in ["é", "ключ", "鍵:42", "emoji-😀"] {
        assert_eq!(
            r.hash_key(key.as_bytes()),
            ketama_core::hash::HashAlgorithm::Md5.hash(key.as_bytes())
        );
    }
    let compared = compare(&[("10 servers, non-ASCII keys".into(), lines(&list))]);
    assert!(compared >= 10_000);
}

#[test]
fn refused_lines_name_the_line() {
    for (text, reason, line) in [
        ("a:1\nb:2\t0\n", "weight 0 is not positive", 2),
        ("a:1\t-5\n", "weight -5 is not positive", 1),
    ] {
        let err = parse_server_file(text.as_bytes(), "lines", ParseMode::SockIoPool)
            .unwrap_err()
            .to_string();
        assert!(err.contains(reason), "{text:?}: {err}");
        assert!(
            err.ends_with(&format!("(line {line} in lines)")),
            "{text:?}: {err}"
        );
    }
    let err = Ring::new(
        vec![ketama_core::ServerSpec::new("a:1", 1 << 31)],
        RingConfig::flavour(Flavour::LibketamaJava),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("not a positive Java int"), "{err}");
    // Weights whose int total is 0: the class would divide by zero and loop.
    let err = Ring::new(
        vec![
            ketama_core::ServerSpec::new("a:1", i32::MAX as u64),
            ketama_core::ServerSpec::new("b:1", 1),
        ],
        RingConfig::flavour(Flavour::LibketamaJava),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("sum to 0 as a Java int"), "{err}");
}

/// The measured disagreement with the original C libketama (asked in this
/// run) on 10,000 keys: the lists docs/flavours.md's table names. They agree where
/// both give every server the same number of points, and differ where C's
/// float rounding (`floorf`) and the Java port's double `Math.floor` part.
#[test]
fn disagreement_with_the_original_c_library() {
    let keys = keys();
    let mut measured = Vec::new();
    for n in [3, 10, 61, 100] {
        for w in [Weights::None, Weights::Unequal] {
            let list = peers::servers(n, w);
            let java = our_indices(&ring(&lines(&list)), &keys);
            let original = libketama_answers(&list, &keys);
            let moved = java.iter().zip(&original).filter(|(a, b)| a != b).count();
            println!(
                "{}: libketama-java vs original libketama: {moved} of {} keys differ",
                list.name,
                keys.len()
            );
            measured.push((list.name, moved));
        }
    }
    let differing: Vec<usize> = measured.iter().map(|(_, n)| *n).collect();
    assert_eq!(
        differing,
        vec![0, 0, 0, 0, 238, 0, 0, 0],
        "update the disagreement table in docs/flavours.md: {measured:?}"
    );
}
