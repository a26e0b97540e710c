//! The process-local cache: same input, same ring; edits, bounds, stats.

use super::*;
use crate::scratch::ScratchDir;
use crate::server_file::SETTLE_TIME;
use std::time::{Duration, SystemTime};

const TWO: &str = "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n";
const THREE: &str = "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n";

/// Writes `content` to `path` (in place when it exists), modified an
/// hour ago, then waits until its ctime has settled too.
fn write_settled(path: &Path, content: &str) {
    std::fs::write(path, content).unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(hour_ago).unwrap();
    std::thread::sleep(SETTLE_TIME + Duration::from_millis(20));
}

fn list(n: usize) -> Vec<ServerSpec> {
    (0..n)
        .map(|i| ServerSpec::new(format!("10.0.{}.{}:11211", i / 250, i % 250), 100))
        .collect()
}

/// The times the cached file at `path` was opened to be read.
fn reads(cache: &RingCache, path: &Path) -> u64 {
    let mut reads = None;
    cache.rings.for_each(|source, cached| {
        if let (Source::File { path: p, .. }, Cached::File(followed)) = (source, cached) {
            if p == path {
                reads = Some(followed.reads());
            }
        }
    });
    reads.expect("the file is cached")
}

#[test]
fn the_same_file_or_list_gives_the_ring_already_built() {
    let dir = ScratchDir::new("ring-cache-same");
    let path = dir.join("servers");
    write_settled(&path, TWO);
    let cache = RingCache::new(DEFAULT_BOUNDS);
    let config = RingConfig::default();
    let first = cache.from_file(&path, config, ParseMode::Strict).unwrap();
    assert_eq!(reads(&cache, &path), 1);
    for _ in 0..3 {
        let again = cache.from_file(&path, config, ParseMode::Strict).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
    }
    // Settled when read: the later builds cost a stat, not a read.
    assert_eq!(reads(&cache, &path), 1);
    // Another reading or configuration is another ring.
    let libketama = cache
        .from_file(&path, config, ParseMode::Libketama)
        .unwrap();
    let other_flavour = RingConfig::from_names("php-memcached", Some("default"), None).unwrap();
    let other_config = cache
        .from_file(&path, other_flavour, ParseMode::Strict)
        .unwrap();
    assert!(!Arc::ptr_eq(&first, &libketama) && !Arc::ptr_eq(&first, &other_config));
    assert_eq!(cache.len(), 3);
    // The flavour's own syntax is the flavour's reading, as Ring::from_file takes it
    // (libketama's own syntax is peer-style lists).
    let peers = dir.join("peers");
    write_settled(&peers, "10.0.0.1:11211\n10.0.0.2:11211:200\n");
    let own = cache.from_file(&peers, config, ParseMode::Flavour).unwrap();
    let direct = Ring::from_file(&peers, config, ParseMode::Flavour).unwrap();
    assert_eq!(own.servers().len(), 2);
    assert_eq!(own.servers()[1].weight(), direct.servers()[1].weight());
    let by_name = cache.from_file(&peers, config, config.flavour.list_syntax());
    assert!(Arc::ptr_eq(&own, &by_name.unwrap()));
    cache.clear();

    let listed = cache.from_servers(list(10), config).unwrap();
    assert!(Arc::ptr_eq(
        &listed,
        &cache.from_servers(list(10), config).unwrap()
    ));
    let mut reweighed = list(10);
    reweighed[3].weight = Some(101);
    let changed = cache.from_servers(reweighed, config).unwrap();
    assert!(!Arc::ptr_eq(&listed, &changed));
    assert_eq!(cache.len(), 2);
    // Bad input is refused as Ring::new refuses it, and not kept.
    let err = cache.from_servers(Vec::new(), config).unwrap_err();
    assert_eq!(
        err.to_string(),
        Ring::new(Vec::new(), config).unwrap_err().to_string()
    );
    assert_eq!(cache.len(), 2);
}

#[test]
fn an_edit_between_two_builds_is_seen_once_it_has_settled() {
    let dir = ScratchDir::new("ring-cache-edit");
    let path = dir.join("servers");
    write_settled(&path, TWO);
    let cache = RingCache::new(DEFAULT_BOUNDS);
    let build = || cache.from_file(&path, RingConfig::default(), ParseMode::Strict);
    let first = build().unwrap();
    assert_eq!(first.servers().len(), 2);
    // Rewritten in place just now: not read before it settles; the last
    // good ring answers meanwhile, at once.
    std::fs::write(&path, THREE).unwrap();
    let started = std::time::Instant::now();
    let pending = build().unwrap();
    assert!(Arc::ptr_eq(&first, &pending));
    assert!(started.elapsed() < SETTLE_TIME, "{:?}", started.elapsed());
    std::thread::sleep(SETTLE_TIME + Duration::from_millis(20));
    let edited = build().unwrap();
    assert_eq!(edited.servers().len(), 3);
    assert!(Arc::ptr_eq(&edited, &build().unwrap()));
    // The ring handed out before is untouched.
    assert_eq!(first.servers().len(), 2);
    // An edit that keeps size and mtime (a byte changed, mtime put back)
    // is seen too: its ctime moved.
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, THREE.replace("10.0.0.3", "10.0.0.4")).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(mtime).unwrap();
    std::thread::sleep(SETTLE_TIME + Duration::from_millis(20));
    assert_eq!(build().unwrap().servers()[2].address(), b"10.0.0.4:11211");
    // Broken now: fails as a first read would...
    write_settled(&path, "10.0.0.1:11211\tl00\n");
    let err = build().unwrap_err().to_string();
    assert!(err.starts_with("Invalid weight 'l00'"), "{err}");
    // ...and deleted, too; written again, read again.
    std::fs::remove_file(&path).unwrap();
    assert!(build().is_err());
    write_settled(&path, TWO);
    assert_eq!(build().unwrap().servers().len(), 2);
}

#[test]
fn a_full_cache_evicts_without_invalidating_a_ring_in_use() {
    let cache = RingCache::new(Bounds {
        entries: 3,
        weight: usize::MAX,
    });
    let config = RingConfig::default();
    let held = cache.from_servers(list(5), config).unwrap();
    let before: Vec<Option<u32>> = (0..100)
        .map(|k| held.server_index(format!("key{k}").as_bytes()))
        .collect();
    for n in 6..12 {
        cache.from_servers(list(n), config).unwrap();
    }
    assert_eq!(cache.len(), 3);
    assert_eq!(cache.evictions(), 4);
    // Dropped from the cache, still whole for its holder...
    let after: Vec<Option<u32>> = (0..100)
        .map(|k| held.server_index(format!("key{k}").as_bytes()))
        .collect();
    assert_eq!(before, after);
    assert_eq!(held.servers().len(), 5);
    // ...and built anew when asked for again.
    let rebuilt = cache.from_servers(list(5), config).unwrap();
    assert!(!Arc::ptr_eq(&held, &rebuilt));
    cache.clear();
    assert!(cache.is_empty() && cache.bytes() == 0);
    assert_eq!(held.server_index(b"key0"), before[0]);
}

#[test]
fn the_bytes_bound_holds() {
    let config = RingConfig::default();
    // A libketama ring of 10 servers: 1,600 points of 8 bytes, and more.
    let one = Ring::new(list(10), config).unwrap().heap_bytes();
    assert!(one > 1600 * 8, "{one}");
    let bound = 3 * one + one / 2;
    let cache = RingCache::new(Bounds {
        entries: 100,
        weight: bound,
    });
    for round in 0..3 {
        for first in 0..8 {
            let mut servers = list(10);
            servers[0] = ServerSpec::new(format!("10.9.{round}.{first}:11211"), 100);
            cache.from_servers(servers, config).unwrap();
            assert!(cache.bytes() <= bound, "{} > {bound}", cache.bytes());
        }
    }
    assert_eq!(cache.len(), 3);
    // One ring over the bound alone is kept (the newest), then dropped
    // for the next.
    let big = cache.from_servers(list(100), config).unwrap();
    assert!(big.heap_bytes() > bound);
    assert_eq!(cache.len(), 1);
    cache.from_servers(list(10), config).unwrap();
    assert_eq!(cache.len(), 1);
    assert!(cache.bytes() <= bound);
    // Lowered bounds apply at once.
    cache.set_bounds(Bounds {
        entries: 0,
        weight: bound,
    });
    assert!(cache.is_empty() && cache.bytes() == 0);
    let uncached = cache.from_servers(list(10), config).unwrap();
    assert!(!Arc::ptr_eq(
        &uncached,
        &cache.from_servers(list(10), config).unwrap()
    ));
}

#[test]
fn stats_count_hits_and_misses() {
    let dir = ScratchDir::new("ring-cache-stats");
    let path = dir.join("servers");
    write_settled(&path, TWO);
    let cache = RingCache::new(DEFAULT_BOUNDS);
    let config = RingConfig::default();
    let zero = cache.stats();
    assert_eq!(
        (zero.rings, zero.bytes, zero.hits, zero.misses),
        (0, 0, 0, 0)
    );
    assert_eq!(zero.bounds, DEFAULT_BOUNDS);
    cache.from_file(&path, config, ParseMode::Strict).unwrap();
    cache.from_file(&path, config, ParseMode::Strict).unwrap();
    cache.from_servers(list(3), config).unwrap();
    cache.from_servers(list(3), config).unwrap();
    cache.from_servers(list(3), config).unwrap();
    let stats = cache.stats();
    assert_eq!((stats.rings, stats.hits, stats.misses), (2, 3, 2));
    assert_eq!(stats.bytes, cache.bytes());
    assert!(stats.bytes > 0);
    // An edit, once settled, is a miss: the file was read again.
    write_settled(&path, THREE);
    assert_eq!(
        cache
            .from_file(&path, config, ParseMode::Strict)
            .unwrap()
            .servers()
            .len(),
        3
    );
    assert_eq!((cache.stats().hits, cache.stats().misses), (3, 3));
    // A failed first build is a miss too, and keeps nothing.
    assert!(
        cache
            .from_file(&dir.join("missing"), config, ParseMode::Strict)
            .is_err()
    );
    assert_eq!((cache.stats().rings, cache.stats().misses), (2, 4));
}

#[test]
fn a_serialized_list_finds_the_ring_of_its_servers() {
    let cache = RingCache::new(DEFAULT_BOUNDS);
    let config = RingConfig::default();
    // PHP's serialize(['10.0.0.1:11211' => 100, '10.0.0.2:11211' => 100]).
    let bytes = br#"a:2:{s:14:"10.0.0.1:11211";i:100;s:14:"10.0.0.2:11211";i:100;}"#;
    let listed = cache
        .from_servers(
            vec![
                ServerSpec::new("10.0.0.1:11211", 100),
                ServerSpec::new("10.0.0.2:11211", 100),
            ],
            config,
        )
        .unwrap();
    let serialized = cache.from_serialized(bytes, config).unwrap();
    assert!(Arc::ptr_eq(&listed, &serialized));
    assert!(Arc::ptr_eq(
        &listed,
        &cache.from_serialized(bytes, config).unwrap()
    ));
    assert_eq!((cache.stats().hits, cache.stats().misses), (2, 1));
    // Another configuration is another ring; a bad string is refused and kept nowhere.
    let other = RingConfig::from_names("php-memcached", None, None).unwrap();
    assert!(!Arc::ptr_eq(
        &listed,
        &cache.from_serialized(bytes, other).unwrap()
    ));
    let rings = cache.len();
    assert!(cache.from_serialized(b"a:1:{i:0;d:1.5;}", config).is_err());
    assert!(cache.from_serialized(b"a:0:{}", config).is_err());
    assert_eq!(cache.len(), rings);
    // Dropped from the cache (bounds of one ring), the alias is rebuilt, not dangling.
    cache.set_bounds(Bounds {
        entries: 1,
        weight: usize::MAX,
    });
    let again = cache.from_serialized(bytes, config).unwrap();
    assert_eq!(again.servers().len(), 2);
    assert_eq!(listed.server_index(b"key"), again.server_index(b"key"));
}

#[test]
#[cfg_attr(miri, ignore = "Miri does not map files")]
fn stats_count_rings_attached_from_another_cache_and_rolled() {
    let dir = ScratchDir::new("ring-cache-shared");
    let path = dir.join("servers");
    write_settled(&path, THREE);
    let (one, other) = (
        RingCache::new(DEFAULT_BOUNDS),
        RingCache::new(DEFAULT_BOUNDS),
    );
    assert_eq!(one.sharing().0, Sharing::Off);
    for cache in [&one, &other] {
        cache.set_sharing(Sharing::Dir(dir.join("rings")), 1);
    }
    let config = RingConfig::default();
    let rolled = one.from_servers(list(20), config).unwrap();
    let filed = one.from_file(&path, config, ParseMode::Strict).unwrap();
    assert_eq!((one.stats().rolled, one.stats().attached), (2, 0));
    // Another cache (another process, say) maps what the first published.
    let attached = other.from_servers(list(20), config).unwrap();
    let from_file = other.from_file(&path, config, ParseMode::Strict).unwrap();
    let stats = other.stats();
    assert_eq!((stats.rolled, stats.attached, stats.misses), (0, 2, 2));
    assert!(attached.continuum().is_mapped() && from_file.continuum().is_mapped());
    assert_eq!(attached.continuum().points(), rolled.continuum().points());
    assert_eq!(from_file.continuum().owners(), filed.continuum().owners());
    // A hit neither rolls nor attaches; a cache that does not share rolls.
    other.from_servers(list(20), config).unwrap();
    assert_eq!((other.stats().attached, other.stats().hits), (2, 1));
    let private = RingCache::new(DEFAULT_BOUNDS);
    assert!(
        !private
            .from_servers(list(20), config)
            .unwrap()
            .continuum()
            .is_mapped()
    );
    assert_eq!((private.stats().rolled, private.stats().attached), (1, 0));
}
