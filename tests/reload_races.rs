//! Reload while the server file is being rewritten: readers (the compat
//! `ketama_roll` and the modern `FileRing`) never fail after the first good
//! read and never answer from a torn file, whether the writer renames
//! complete files into place, truncates and rewrites in place, or writes the
//! file in several chunks with pauses. Held handles never change.
//!
//! The two versions differ in every prefix: a reader that took the first
//! lines of a half-written file for the whole would answer for neither.

mod common;

use std::ffi::{CStr, CString, c_char};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ketama::ffi::compat::{ketama_continuum, ketama_get_server, ketama_smoke, mcs};
use ketama::file_ring::{FileRing, ReloadPolicy};
use ketama::parser::ParseMode;
use ketama::{Ring, RingConfig, ServerSpec};

const READERS: usize = 6;

/// A server list and the answer (point, address) for each test key.
struct Version {
    content: Vec<u8>,
    answers: Vec<(u32, String)>,
}

fn versions(keys: &[CString]) -> [Version; 2] {
    let make = |servers: &[(&str, u64)]| {
        let specs = servers
            .iter()
            .map(|&(a, w)| ServerSpec::new(a, w))
            .collect();
        let ring = Ring::new(specs, RingConfig::default()).unwrap();
        Version {
            content: servers
                .iter()
                .map(|(a, w)| format!("{a}\t{w}\n"))
                .collect::<String>()
                .into_bytes(),
            answers: keys.iter().map(|k| answer(&ring, k.to_bytes())).collect(),
        }
    };
    [
        make(&[
            ("10.0.0.1:11211", 100),
            ("10.0.0.2:11211", 100),
            ("10.0.0.3:11211", 100),
        ]),
        make(&[
            ("10.0.0.1:11211", 100),
            ("10.0.0.2:11211", 300),
            ("10.0.0.4:11211", 100),
            ("10.0.0.5:11211", 50),
        ]),
    ]
}

fn answer(ring: &Ring, key: &[u8]) -> (u32, String) {
    let at = ring.locate(key).unwrap();
    let address = ring.servers()[at.server_index].address();
    (at.point, String::from_utf8(address.to_vec()).unwrap())
}

fn compat_answer(cont: ketama_continuum, key: &CStr) -> (u32, String) {
    // SAFETY: live continuum, NUL-terminated key; the result points into its array.
    let m: &mcs = unsafe { &*ketama_get_server(key.as_ptr() as *mut c_char, cont) };
    // SAFETY: ip is NUL-terminated in this library.
    let ip = unsafe { CStr::from_ptr(m.ip.as_ptr()) };
    (m.point, ip.to_string_lossy().into_owned())
}

/// How a writer replaces the file.
#[derive(Clone, Copy, Debug)]
enum Writer {
    /// Write a temporary file and rename it into place.
    Rename,
    /// Truncate and rewrite in place with one write, then pause.
    InPlace { pause: Duration },
    /// Truncate and rewrite in place in three chunks (cut at line ends), with
    /// `gap` between chunks, then pause.
    Slow { gap: Duration, pause: Duration },
}

fn write_version(path: &Path, writer: Writer, content: &[u8], serial: usize) {
    match writer {
        Writer::Rename => {
            let tmp = path.with_extension(format!("tmp{serial}"));
            std::fs::write(&tmp, content).unwrap();
            std::fs::rename(&tmp, path).unwrap();
            std::thread::sleep(Duration::from_millis(1));
        }
        Writer::InPlace { pause } => {
            std::fs::File::create(path)
                .unwrap()
                .write_all(content)
                .unwrap();
            std::thread::sleep(pause);
        }
        Writer::Slow { gap, pause } => {
            // Cut at line ends, so that what a reader catches between two
            // chunks is a valid, shorter server list.
            let mut file = std::fs::File::create(path).unwrap();
            let lines: Vec<&[u8]> = content.split_inclusive(|&b| b == b'\n').collect();
            let cuts = [0, lines.len() / 3, 2 * lines.len() / 3, lines.len()];
            for (i, window) in cuts.windows(2).enumerate() {
                if i > 0 {
                    std::thread::sleep(gap);
                }
                file.write_all(&lines[window[0]..window[1]].concat())
                    .unwrap();
            }
            drop(file);
            std::thread::sleep(pause);
        }
    }
}

/// What the readers saw.
#[derive(Default, Debug)]
struct Counts {
    reads: AtomicUsize,
    failed: AtomicUsize,
    torn: AtomicUsize,
    changed_handles: AtomicUsize,
    of_version: [AtomicUsize; 2],
}

impl Counts {
    /// Records one answer set: which version it is, or torn.
    fn classify(&self, versions: &[Version; 2], answers: &[(u32, String)]) -> Option<usize> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        let which = versions.iter().position(|v| v.answers == answers);
        match which {
            Some(w) => self.of_version[w].fetch_add(1, Ordering::Relaxed),
            None => self.torn.fetch_add(1, Ordering::Relaxed),
        };
        which
    }

    fn report(&self, what: &str) -> [usize; 6] {
        let counts = [
            self.reads.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
            self.torn.load(Ordering::Relaxed),
            self.changed_handles.load(Ordering::Relaxed),
            self.of_version[0].load(Ordering::Relaxed),
            self.of_version[1].load(Ordering::Relaxed),
        ];
        eprintln!(
            "{what}: {} reads by {READERS} readers, {} failed, {} torn, {} held handles changed; \
             {} of version A, {} of version B",
            counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]
        );
        counts
    }
}

/// Runs `writer` for `duration` against READERS compat readers that keep
/// their previous handle and re-check it before smoking it.
fn compat_race(name: &str, writer: Writer, duration: Duration) -> [usize; 6] {
    let keys: Vec<CString> = (0..300)
        .map(|i| CString::new(format!("key-{i}")).unwrap())
        .collect();
    let versions = versions(&keys);
    let path = common::scratch_dir(name).join("servers");
    std::fs::write(&path, &versions[0].content).unwrap();
    let first = common::compat_roll(&path).unwrap();
    // SAFETY: rolled above, smoked once.
    unsafe { ketama_smoke(first) };
    let counts = Counts::default();
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let start = Instant::now();
            let mut serial = 0;
            while start.elapsed() < duration {
                serial += 1;
                write_version(&path, writer, &versions[serial % 2].content, serial);
            }
            // End on a settled, complete file.
            write_version(&path, Writer::Rename, &versions[1].content, serial + 1);
            stop.store(true, Ordering::SeqCst);
        });
        for _ in 0..READERS {
            scope.spawn(|| {
                let mut held: Option<(ketama_continuum, Vec<(u32, String)>)> = None;
                while !stop.load(Ordering::SeqCst) {
                    let Ok(cont) = common::compat_roll(&path) else {
                        counts.failed.fetch_add(1, Ordering::Relaxed);
                        continue;
                    };
                    let answers: Vec<_> = keys.iter().map(|k| compat_answer(cont, k)).collect();
                    counts.classify(&versions, &answers);
                    if let Some((old, old_answers)) = held.take() {
                        let again: Vec<_> = keys.iter().map(|k| compat_answer(old, k)).collect();
                        if again != old_answers {
                            counts.changed_handles.fetch_add(1, Ordering::Relaxed);
                        }
                        // SAFETY: rolled by this thread, smoked once.
                        unsafe { ketama_smoke(old) };
                    }
                    held = Some((cont, answers));
                }
                if let Some((old, _)) = held {
                    // SAFETY: as above.
                    unsafe { ketama_smoke(old) };
                }
            });
        }
    });
    counts.report(&format!("compat ketama_roll, {writer:?}"))
}

/// The same race against the modern `FileRing` (keep-last-good policy).
fn file_ring_race(name: &str, writer: Writer, duration: Duration) -> [usize; 6] {
    let keys: Vec<CString> = (0..300)
        .map(|i| CString::new(format!("key-{i}")).unwrap())
        .collect();
    let versions = versions(&keys);
    let path = common::scratch_dir(name).join("servers");
    std::fs::write(&path, &versions[0].content).unwrap();
    let file_ring = FileRing::open(
        &path,
        RingConfig::default(),
        ParseMode::Strict,
        ReloadPolicy::KeepLastGood,
    )
    .unwrap();
    let counts = Counts::default();
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let start = Instant::now();
            let mut serial = 0;
            while start.elapsed() < duration {
                serial += 1;
                write_version(&path, writer, &versions[serial % 2].content, serial);
            }
            write_version(&path, Writer::Rename, &versions[1].content, serial + 1);
            stop.store(true, Ordering::SeqCst);
        });
        for _ in 0..READERS {
            scope.spawn(|| {
                let mut held = None;
                while !stop.load(Ordering::SeqCst) {
                    let Ok(current) = file_ring.current() else {
                        counts.failed.fetch_add(1, Ordering::Relaxed);
                        continue;
                    };
                    let answers: Vec<_> = keys
                        .iter()
                        .map(|k| answer(&current.ring, k.to_bytes()))
                        .collect();
                    counts.classify(&versions, &answers);
                    if let Some((old, old_answers)) = held.take() {
                        let old: std::sync::Arc<Ring> = old;
                        let again: Vec<_> =
                            keys.iter().map(|k| answer(&old, k.to_bytes())).collect();
                        if again != old_answers {
                            counts.changed_handles.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    held = Some((current.ring, answers));
                }
            });
        }
    });
    counts.report(&format!("FileRing, {writer:?}"))
}

/// Every read succeeded and answered for a whole version; held handles
/// kept their answers; with `both`, each version was seen.
fn assert_clean(counts: [usize; 6], both: bool) {
    let [reads, failed, torn, changed, a, b] = counts;
    assert!(reads > 0, "no reads");
    assert_eq!(failed, 0, "failed reads");
    assert_eq!(torn, 0, "torn answers");
    assert_eq!(changed, 0, "held handles changed");
    if both {
        assert!(a > 0 && b > 0, "both versions observed: {a} A, {b} B");
    }
}

const PAUSE: Duration = Duration::from_millis(150);

#[test]
fn compat_roll_during_renames() {
    assert_clean(
        compat_race("race-rename", Writer::Rename, Duration::from_millis(1500)),
        true,
    );
}

#[test]
fn compat_roll_during_in_place_rewrites() {
    let writer = Writer::InPlace { pause: PAUSE };
    assert_clean(
        compat_race("race-in-place", writer, Duration::from_secs(2)),
        true,
    );
}

#[test]
fn compat_roll_during_back_to_back_in_place_rewrites() {
    let writer = Writer::InPlace {
        pause: Duration::ZERO,
    };
    assert_clean(
        compat_race("race-tight", writer, Duration::from_secs(1)),
        false,
    );
}

#[test]
fn compat_roll_during_a_slow_chunked_writer() {
    let writer = Writer::Slow {
        gap: Duration::from_millis(20),
        pause: PAUSE,
    };
    assert_clean(
        compat_race("race-slow", writer, Duration::from_secs(2)),
        true,
    );
}

#[test]
fn file_ring_during_renames_and_in_place_and_slow_rewrites() {
    assert_clean(
        file_ring_race("fr-rename", Writer::Rename, Duration::from_millis(1500)),
        true,
    );
    let writer = Writer::InPlace { pause: PAUSE };
    assert_clean(
        file_ring_race("fr-in-place", writer, Duration::from_secs(2)),
        true,
    );
    let writer = Writer::Slow {
        gap: Duration::from_millis(20),
        pause: PAUSE,
    };
    assert_clean(
        file_ring_race("fr-slow", writer, Duration::from_secs(2)),
        true,
    );
}

#[test]
fn a_broken_edit_keeps_the_last_good_ring_and_says_why() {
    let path = common::scratch_dir("broken-edit").join("servers");
    std::fs::write(&path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n").unwrap();
    let keep = FileRing::open(
        &path,
        RingConfig::default(),
        ParseMode::Strict,
        ReloadPolicy::KeepLastGood,
    )
    .unwrap();
    let strict = FileRing::open(
        &path,
        RingConfig::default(),
        ParseMode::Strict,
        ReloadPolicy::Strict,
    )
    .unwrap();
    let good = keep.current().unwrap().ring;
    let cont = common::compat_roll(&path).unwrap();
    // A typo, written an hour ago (no settling wait).
    std::fs::write(&path, "10.0.0.1:11211\t100\n10.0.0.2:11211\tl00\n").unwrap();
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let kept = keep.current().unwrap();
    assert!(std::sync::Arc::ptr_eq(&kept.ring, &good));
    assert_eq!(
        kept.problem.unwrap().to_string(),
        format!(
            "Invalid weight 'l00': expected a positive decimal integer (line 2 in {})",
            path.display()
        )
    );
    let error = strict.current().unwrap_err().to_string();
    assert!(error.starts_with("Invalid weight 'l00'"), "{error}");
    // The compat roll answers with the last good continuum and says why.
    let again = common::compat_roll(&path).unwrap();
    // SAFETY: live continuums.
    unsafe {
        assert_eq!(
            (*again).array,
            (*cont).array,
            "the cached last good continuum"
        );
        ketama_smoke(cont);
        ketama_smoke(again);
    }
    // SAFETY: ketama_error returns a NUL-terminated string.
    let message = unsafe { CStr::from_ptr(ketama::ffi::compat::ketama_error()) };
    assert_eq!(
        message.to_str().unwrap(),
        format!(
            "Kept the last good continuum of {0}: Invalid memory value (line 2 in {0})",
            path.display()
        )
    );
    // A file never good still fails as before.
    let never = common::scratch_dir("never-good").join("servers");
    std::fs::write(&never, "10.0.0.1:11211\tl00\n").unwrap();
    assert!(
        common::compat_roll(&never)
            .unwrap_err()
            .starts_with("Invalid memory value (line 1 in")
    );
}
