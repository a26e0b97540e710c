//! Images published, attached, refused and swept, in scratch directories
//! (a cache with sharing set stands for another process).

use super::*;
use crate::scratch::ScratchDir;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::time::SystemTime;

/// `n` servers as a server file lists them.
fn list(n: usize) -> Vec<ServerSpec> {
    (0..n)
        .map(|i| {
            ServerSpec::new(
                format!("10.{}.{}.{}:11211", i >> 16, (i >> 8) & 255, i & 255),
                100,
            )
        })
        .collect()
}

/// Sharing through `dir` with a threshold of one byte: every continuum
/// ring of a list of one server and more is looked for and published.
fn sharing(dir: &Path) -> SharedRings {
    let shared = SharedRings::off();
    shared.set(Sharing::Dir(dir.to_path_buf()), 1);
    shared
}

/// The server of each of `keys` keys on `ring`.
fn answers(ring: &Ring, keys: usize) -> Vec<Option<u32>> {
    (0..keys)
        .map(|k| ring.server_index(format!("user:{k}").as_bytes()))
        .collect()
}

/// The image files in `dir`.
fn images(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| {
        p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("ring-")
    });
    found.sort();
    found
}

#[test]
#[cfg_attr(miri, ignore = "Miri does not map files")]
fn an_image_round_trips_and_places_keys_as_the_ring_built_here() {
    let scratch = ScratchDir::new("shared-round-trip");
    let dir = scratch.join("rings");
    // libketama; a last-wins flavour (SockIOPool's port); one that
    // prepares keys (dalli) and one that prepares them and searches buckets.
    for flavour in ["libketama", "libketama-java", "dalli", "pecl-memcache"] {
        let config = RingConfig::from_names(flavour, None, None).unwrap();
        let private = Ring::new(list(300), config).unwrap();
        let (first, origin) = sharing(&dir).build(list(300), config).unwrap();
        assert_eq!(origin, Origin::Rolled, "{flavour}");
        // The process that rolled maps the image it published, too.
        assert!(first.continuum().is_mapped(), "{flavour}");
        let (second, origin) = sharing(&dir).build(list(300), config).unwrap();
        assert_eq!(origin, Origin::Attached, "{flavour}");
        assert!(second.continuum().is_mapped());
        assert_eq!(second.continuum().points(), private.continuum().points());
        assert_eq!(second.continuum().owners(), private.continuum().owners());
        assert_eq!(second.search(), private.search(), "{flavour}");
        assert_eq!(
            second.preparation().map(|p| p.name),
            private.preparation().map(|p| p.name),
            "{flavour}"
        );
        let expected = answers(&private, 100_000);
        assert_eq!(answers(&second, 100_000), expected, "{flavour}");
        assert_eq!(answers(&first, 100_000), expected, "{flavour}");
        for (a, b) in second.servers().iter().zip(private.servers()) {
            assert_eq!(a.point_count(), b.point_count(), "{flavour}");
        }
    }
    let written = images(&dir);
    assert_eq!(written.len(), 4);
    let meta = std::fs::metadata(&written[0]).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o400);
    assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    // Another list, or another configuration, is another image.
    let (_, origin) = sharing(&dir)
        .build(list(301), RingConfig::default())
        .unwrap();
    assert_eq!(origin, Origin::Rolled);
    assert_eq!(images(&dir).len(), 5);
}

/// A change made to an image's bytes.
type Damage = Box<dyn Fn(&mut Vec<u8>)>;

/// Rewrites the image at `path` with `change`, then (when `reseal`) its
/// checksum to match, so that a later check is the one that refuses it.
fn tamper(path: &Path, reseal: bool, change: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(path).unwrap();
    change(&mut bytes);
    if reseal && bytes.len() >= image::HEADER {
        let sum = crate::hash::xxh3::xxh3_64(&bytes[image::HEADER..], 0);
        bytes[40..48].copy_from_slice(&sum.to_ne_bytes());
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(path, &bytes).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o400)).unwrap();
}

#[test]
#[cfg_attr(miri, ignore = "Miri does not map files")]
fn a_damaged_image_is_refused_rebuilt_and_replaced() {
    let scratch = ScratchDir::new("shared-damaged");
    let dir = scratch.join("rings");
    let config = RingConfig::from_names("libketama-java", None, None).unwrap();
    let servers = list(200);
    let private = Ring::new(servers.clone(), config).unwrap();
    let expected = answers(&private, 20_000);
    sharing(&dir).build(servers.clone(), config).unwrap();
    let path = images(&dir).pop().unwrap();
    let key = key::key_bytes(&servers, config);
    let points = private.continuum().len();
    let points_at = image::HEADER + key.len().next_multiple_of(8);
    let owners_at = points_at + 4 * points;
    let set_u32 = |bytes: &mut Vec<u8>, at: usize, value: u32| {
        bytes[at..at + 4].copy_from_slice(&value.to_ne_bytes())
    };
    let damages: Vec<(&str, bool, Damage)> = vec![
        ("wrong magic", true, Box::new(|b| b[0] ^= 1)),
        (
            "format version is 2",
            true,
            Box::new(move |b| set_u32(b, 8, 2)),
        ),
        (
            "checksum",
            false,
            Box::new(move |b| b[points_at + 4 * 17 + 1] ^= 0x40),
        ),
        ("checksum", false, Box::new(move |b| b[owners_at + 3] ^= 1)),
        (
            "not in order",
            true,
            Box::new(move |b| {
                let (x, y) = (points_at + 4 * 10, points_at + 4 * 11);
                let first: [u8; 4] = b[x..x + 4].try_into().unwrap();
                b.copy_within(y..y + 4, x);
                b[y..y + 4].copy_from_slice(&first);
            }),
        ),
        (
            "owner 200 is not one of 200 servers",
            true,
            Box::new(move |b| set_u32(b, owners_at + 40, 200)),
        ),
        (
            "its key differs",
            true,
            Box::new(|b| b[image::HEADER + 40] ^= 1),
        ),
        (
            "another build (key length or servers)",
            true,
            Box::new(|b| b[32] ^= 1),
        ),
        (
            "bytes where its header makes",
            false,
            Box::new(|b| b.truncate(b.len() - 4)),
        ),
        (
            "bytes where its header makes",
            false,
            Box::new(|b| b.extend_from_slice(&[0; 8])),
        ),
        ("shorter than a header", false, Box::new(|b| b.truncate(10))),
        ("shorter than a header", false, Box::new(|b| b.clear())),
        (
            "past the address space",
            true,
            Box::new(|b| b[24..32].fill(0xff)),
        ),
    ];
    let rules = config
        .flavour
        .generate(&servers[..1], private.key_hash(), &config.options)
        .unwrap();
    for (why, reseal, damage) in damages {
        tamper(&path, reseal, damage);
        let refused = attach(&path, &key, servers.len(), &rules).unwrap_err();
        assert!(refused.contains(why), "{why}: {refused}");
        // The build does not take it: it rolls, answers right, and replaces the image.
        let (ring, origin) = sharing(&dir).build(servers.clone(), config).unwrap();
        assert_eq!(origin, Origin::Rolled, "{why}");
        assert_eq!(answers(&ring, 20_000), expected, "{why}");
        let (again, origin) = sharing(&dir).build(servers.clone(), config).unwrap();
        assert_eq!(origin, Origin::Attached, "{why}");
        assert_eq!(answers(&again, 20_000), expected, "{why}");
    }
    // A file others may write, or a link, is not opened.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o422)).unwrap();
    let refused = attach(&path, &key, servers.len(), &rules).unwrap_err();
    assert!(refused.contains("not a read-only file"), "{refused}");
    let (_, origin) = sharing(&dir).build(servers.clone(), config).unwrap();
    assert_eq!(origin, Origin::Rolled);
    let link = dir.join("ring-link");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    assert!(attach(&link, &key, servers.len(), &rules).is_err());
    // Another list's image under this list's name is another build's.
    let other = list(199);
    assert!(
        attach(&path, &key::key_bytes(&other, config), other.len(), &rules)
            .unwrap_err()
            .contains("another build")
    );
}

#[test]
#[cfg_attr(miri, ignore = "Miri does not map files")]
fn a_directory_others_may_write_or_do_not_own_is_not_used() {
    let scratch = ScratchDir::new("shared-unsafe-dir");
    let config = RingConfig::default();
    let expected = answers(&Ring::new(list(100), config).unwrap(), 10_000);
    let open = scratch.join("group-writable");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o770)).unwrap();
    assert!(
        dir::usable(&open)
            .unwrap_err()
            .contains("writable by group or others")
    );
    let (ring, origin) = sharing(&open).build(list(100), config).unwrap();
    assert_eq!(
        (origin, answers(&ring, 10_000)),
        (Origin::Rolled, expected.clone())
    );
    assert!(!ring.continuum().is_mapped());
    assert!(images(&open).is_empty());
    // Another user's directory: root makes one; anyone else has /usr.
    let theirs = if dir::euid() == 0 {
        let theirs = scratch.join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o700)).unwrap();
        theirs
    } else {
        PathBuf::from("/usr")
    };
    assert!(dir::usable(&theirs).unwrap_err().contains("belongs to uid"));
    let (ring, origin) = sharing(&theirs).build(list(100), config).unwrap();
    assert_eq!(
        (origin, answers(&ring, 10_000)),
        (Origin::Rolled, expected.clone())
    );
    assert!(images(&theirs).is_empty());
    // A link to a good directory, or a file, is not a directory.
    let good = scratch.join("good");
    dir::usable(&good).unwrap();
    let link = scratch.join("link");
    std::os::unix::fs::symlink(&good, &link).unwrap();
    assert!(
        dir::usable(&link)
            .unwrap_err()
            .contains("is not a directory")
    );
    std::fs::write(scratch.join("file"), "").unwrap();
    assert!(dir::usable(&scratch.join("file")).is_err());
    assert!(dir::usable(&scratch.join("file/below")).is_err());
}

#[test]
#[cfg_attr(miri, ignore = "rolls rings of 1,000 servers: too slow under Miri")]
fn sharing_off_or_small_rings_write_nothing() {
    let scratch = ScratchDir::new("shared-off");
    let dir = scratch.join("rings");
    let shared = SharedRings::off();
    let (ring, origin) = shared.build(list(1000), RingConfig::default()).unwrap();
    assert_eq!(origin, Origin::Rolled);
    assert!(!ring.continuum().is_mapped());
    // Turned off after sharing through a directory: nothing more is written there.
    shared.set(Sharing::Dir(dir.clone()), 1);
    shared.build(list(3), RingConfig::default()).unwrap();
    assert_eq!(images(&dir).len(), 1);
    shared.set(Sharing::parse("off").unwrap(), 1);
    let (ring, origin) = shared.build(list(1000), RingConfig::default()).unwrap();
    assert!(origin == Origin::Rolled && !ring.continuum().is_mapped());
    assert_eq!(images(&dir).len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
    // At the default threshold a small list is not looked for (the
    // directory is not even made), nor a placement without a continuum.
    shared.set(Sharing::Dir(dir.clone()), DEFAULT_THRESHOLD);
    let (ring, _) = shared.build(list(100), RingConfig::default()).unwrap();
    assert!(!ring.continuum().is_mapped());
    let modula = RingConfig::from_names("libmemcached-modula", None, None).unwrap();
    shared.set(Sharing::Dir(dir.clone()), 1);
    shared.build(list(1000), modula).unwrap();
    assert!(!dir.exists());
    // Errors are Ring::new's.
    let none = shared.build(Vec::new(), RingConfig::default()).unwrap_err();
    assert_eq!(
        none.to_string(),
        Ring::new(Vec::new(), RingConfig::default())
            .unwrap_err()
            .to_string()
    );
    let nul = shared.build(vec![ServerSpec::new("a\0b", 1)], RingConfig::default());
    assert_eq!(
        nul.unwrap_err().to_string(),
        "server address contains a NUL byte at offset 1"
    );
}

#[test]
#[cfg_attr(miri, ignore = "Miri does not map files")]
fn a_large_enough_ring_is_published_at_the_default_threshold() {
    let scratch = ScratchDir::new("shared-threshold");
    let dir = scratch.join("rings");
    let shared = SharedRings::off();
    shared.set(Sharing::Dir(dir.clone()), DEFAULT_THRESHOLD);
    // 820 libketama servers: 131,200 points, 1,049,600 bytes.
    assert_eq!(LOOKUP_MIN_SERVERS, 820);
    let (ring, origin) = shared
        .build(list(LOOKUP_MIN_SERVERS), RingConfig::default())
        .unwrap();
    assert_eq!(origin, Origin::Rolled);
    assert!(ring.continuum().len() * 8 >= DEFAULT_THRESHOLD);
    assert!(ring.continuum().is_mapped());
    assert_eq!(images(&dir).len(), 1);
    // 820 xmemcached servers weigh 100 points each: looked for, not published.
    let hundred = RingConfig::from_names("xmemcached-libmemcached", None, None).unwrap();
    let (ring, _) = shared.build(list(LOOKUP_MIN_SERVERS), hundred).unwrap();
    assert!(ring.continuum().len() * 8 < DEFAULT_THRESHOLD);
    assert!(!ring.continuum().is_mapped());
    assert_eq!(images(&dir).len(), 1);
}

#[test]
#[cfg_attr(miri, ignore = "Miri does not map files")]
fn the_directory_stays_bounded() {
    let scratch = ScratchDir::new("shared-sweep");
    let dir = scratch.join("rings");
    let shared = sharing(&dir);
    for n in 1..=6 {
        shared.build(list(n), RingConfig::default()).unwrap();
    }
    let all = images(&dir);
    assert_eq!(all.len(), 6);
    // Ages: the image of 1 server unused for two days, the others an hour
    // apart; a writer's temporary file two hours old, another just made.
    let now = SystemTime::now();
    let hours = |h: u64| now - std::time::Duration::from_secs(h * 3600);
    let file = |p: &Path| std::fs::File::open(p).unwrap();
    for (i, path) in all.iter().enumerate() {
        file(path).set_modified(hours(i as u64 + 1)).unwrap();
    }
    file(&all[0]).set_modified(hours(48)).unwrap();
    let stale = dir.join(".ring-x.1.0.tmp");
    let fresh = dir.join(".ring-y.1.1.tmp");
    std::fs::write(&stale, "").unwrap();
    std::fs::write(&fresh, "").unwrap();
    file(&stale).set_modified(hours(2)).unwrap();
    let keep = &all[5];
    dir::sweep(&dir, keep, 3, u64::MAX);
    // The idle one went, then the least recently used to three; the kept stays.
    let left = images(&dir);
    assert_eq!(left, vec![all[1].clone(), all[2].clone(), keep.clone()]);
    assert!(!stale.exists() && fresh.exists());
    // The bytes bound: two images' worth keeps the kept one and the most recent.
    let size = |p: &PathBuf| std::fs::metadata(p).unwrap().len();
    dir::sweep(&dir, keep, 64, size(keep) + size(&all[1]));
    assert_eq!(images(&dir), vec![all[1].clone(), keep.clone()]);
    // An attach marks its image used; a ring mapped from a removed image stays whole.
    let (mapped, _) = shared.build(list(2), RingConfig::default()).unwrap();
    assert!(mapped.continuum().is_mapped());
    let before = answers(&mapped, 1000);
    for path in images(&dir) {
        std::fs::remove_file(path).unwrap();
    }
    assert_eq!(answers(&mapped, 1000), before);
}

#[test]
#[cfg_attr(miri, ignore = "Miri does not map files")]
fn an_attach_marks_its_image_used() {
    let scratch = ScratchDir::new("shared-touch");
    let dir = scratch.join("rings");
    sharing(&dir).build(list(3), RingConfig::default()).unwrap();
    let path = images(&dir).pop().unwrap();
    let old = SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let (_, origin) = sharing(&dir).build(list(3), RingConfig::default()).unwrap();
    assert_eq!(origin, Origin::Attached);
    let marked = std::fs::metadata(&path).unwrap().modified().unwrap();
    assert!(marked.elapsed().unwrap() < std::time::Duration::from_secs(60));
}

#[test]
#[cfg_attr(miri, ignore = "Miri reads no environment setting")]
fn the_setting_reads_as_documented() {
    let default = Sharing::default_dir();
    assert_eq!(
        default,
        Sharing::Dir(PathBuf::from(format!("/dev/shm/ketama-{}", dir::euid())))
    );
    for off in ["off", "0", "no", "FALSE", " Off "] {
        assert_eq!(Sharing::parse(off), Ok(Sharing::Off), "{off}");
    }
    for on in ["", "on", "1", "yes", "True"] {
        assert_eq!(Sharing::parse(on), Ok(default.clone()), "{on}");
    }
    assert_eq!(
        Sharing::parse("/run/ketama"),
        Ok(Sharing::Dir("/run/ketama".into()))
    );
    let refused = Sharing::parse("rings").unwrap_err();
    assert!(
        refused.contains("'rings' is neither off/on nor an absolute directory path"),
        "{refused}"
    );
    let env = |value: Option<&str>| {
        Sharing::from_env(|name| {
            assert_eq!(name, "KETAMA_SHARED_RINGS");
            value.map(str::to_string)
        })
    };
    assert_eq!(env(None), default);
    assert_eq!(env(Some("off")), Sharing::Off);
    assert_eq!(env(Some("relative/dir")), Sharing::Off);
    assert_eq!(env(Some("/tmp/x")), Sharing::Dir("/tmp/x".into()));
}

/// A mirror of `ring` for the tests: four bytes a point, its point.
fn points_mirror(shared: &SharedRings, servers: &[ServerSpec], ring: &Ring) -> Option<Mirror> {
    let points = ring.continuum().points();
    shared.mirror(
        servers,
        RingConfig::default(),
        "points",
        4,
        points.len(),
        |first, out| {
            for (i, bytes) in out.chunks_exact_mut(4).enumerate() {
                bytes.copy_from_slice(&points[first + i].to_ne_bytes());
            }
        },
    )
}

#[test]
#[cfg_attr(miri, ignore = "Miri does not map files")]
fn a_mirror_is_published_attached_checked_and_copied_on_write() {
    let scratch = ScratchDir::new("shared-mirror");
    let dir = scratch.join("rings");
    let servers = list(300);
    let ring = Ring::new(servers.clone(), RingConfig::default()).unwrap();
    let expected: Vec<u8> = ring
        .continuum()
        .points()
        .iter()
        .flat_map(|p| p.to_ne_bytes())
        .collect();

    // One process publishes and maps it; another maps the same image.
    let first = points_mirror(&sharing(&dir), &servers, &ring).expect("published");
    let second = points_mirror(&sharing(&dir), &servers, &ring).expect("attached");
    assert_eq!(first.bytes(), &expected[..]);
    assert_eq!(second.bytes(), &expected[..]);
    assert_eq!(first.as_mut_ptr() as usize % 8, 0, "aligned records");
    let image = images(&dir)
        .into_iter()
        .find(|p| std::fs::read(p).unwrap().starts_with(b"KETAMAmi"))
        .expect("the mirror's image");
    let written = std::fs::read(&image).unwrap();

    // A write through the pointer is the writer's alone.
    // SAFETY: the first byte of a live mirror, which callers may write.
    unsafe { first.as_mut_ptr().write(!expected[0]) };
    assert_eq!(first.bytes()[0], !expected[0]);
    assert_eq!(second.bytes(), &expected[..]);
    assert_eq!(std::fs::read(&image).unwrap(), written);

    // Records other than the ring's, even resealed, are refused and replaced.
    let records_at = written.len() - expected.len();
    tamper(&image, true, |b| b[records_at] ^= 1);
    let rebuilt = points_mirror(&sharing(&dir), &servers, &ring).expect("republished");
    assert_eq!(rebuilt.bytes(), &expected[..]);
    assert_eq!(std::fs::read(&image).unwrap(), written);
    // A damaged header or checksum: the same.
    tamper(&image, false, |b| b[records_at + 5] ^= 1);
    assert_eq!(
        points_mirror(&sharing(&dir), &servers, &ring)
            .unwrap()
            .bytes(),
        &expected[..]
    );
    tamper(&image, true, |b| b[0] ^= 1);
    assert_eq!(
        points_mirror(&sharing(&dir), &servers, &ring)
            .unwrap()
            .bytes(),
        &expected[..]
    );
    assert_eq!(std::fs::read(&image).unwrap(), written);

    // Not shared: sharing off, or under the threshold.
    assert!(points_mirror(&SharedRings::off(), &servers, &ring).is_none());
    let high = SharedRings::off();
    high.set(Sharing::Dir(dir.clone()), expected.len() + 1);
    assert!(points_mirror(&high, &servers, &ring).is_none());
}
