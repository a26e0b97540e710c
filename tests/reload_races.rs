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

use ketama::compat::{ketama_continuum, ketama_get_server, ketama_smoke, mcs};
use ketama_core::file_ring::{FileRing, ReloadPolicy};
use ketama_core::parser::ParseMode;
use ketama_core::{Ring, RingConfig, ServerSpec};

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

/// The answers a handle gave for every test key.
type Answers = Vec<(u32, String)>;

/// A way of following the file: read it into a handle, answer keys from a
/// handle, release a handle.
trait Follower: Sync {
    type Handle;
    fn read(&self) -> Option<Self::Handle>;
    fn answers(&self, handle: &Self::Handle, keys: &[CString]) -> Vec<(u32, String)>;
    fn release(&self, _handle: Self::Handle) {}
}

/// `ketama_roll` and `ketama_smoke`.
struct CompatRoll(std::path::PathBuf);

impl Follower for CompatRoll {
    type Handle = ketama_continuum;
    fn read(&self) -> Option<ketama_continuum> {
        common::compat_roll(&self.0).ok()
    }
    fn answers(&self, cont: &ketama_continuum, keys: &[CString]) -> Vec<(u32, String)> {
        keys.iter().map(|k| compat_answer(*cont, k)).collect()
    }
    fn release(&self, cont: ketama_continuum) {
        // SAFETY: rolled by this reader, smoked once.
        unsafe { ketama_smoke(cont) };
    }
}

impl Follower for FileRing {
    type Handle = std::sync::Arc<Ring>;
    fn read(&self) -> Option<std::sync::Arc<Ring>> {
        self.current().ok().map(|current| current.ring)
    }
    fn answers(&self, ring: &std::sync::Arc<Ring>, keys: &[CString]) -> Vec<(u32, String)> {
        keys.iter().map(|k| answer(ring, k.to_bytes())).collect()
    }
}

/// Runs `writer` for `duration` against READERS readers that keep their
/// previous handle and re-check it before releasing it. `follow` opens the
/// follower once the file holds version A.
fn race<F: Follower>(
    name: &str,
    writer: Writer,
    duration: Duration,
    follow: impl FnOnce(&Path) -> F,
) -> [usize; 6] {
    let keys: Vec<CString> = (0..300)
        .map(|i| CString::new(format!("key-{i}")).unwrap())
        .collect();
    let versions = versions(&keys);
    let path = common::scratch_dir(name).join("servers");
    std::fs::write(&path, &versions[0].content).unwrap();
    let follower = follow(&path);
    let first = follower.read().expect("the first read of a good file");
    follower.release(first);
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
            // End on a complete file.
            write_version(&path, Writer::Rename, &versions[1].content, serial + 1);
            stop.store(true, Ordering::SeqCst);
        });
        for _ in 0..READERS {
            scope.spawn(|| {
                let mut held: Option<(F::Handle, Answers)> = None;
                while !stop.load(Ordering::SeqCst) {
                    let Some(handle) = follower.read() else {
                        counts.failed.fetch_add(1, Ordering::Relaxed);
                        continue;
                    };
                    let answers = follower.answers(&handle, &keys);
                    counts.classify(&versions, &answers);
                    if let Some((old, old_answers)) = held.take() {
                        if follower.answers(&old, &keys) != old_answers {
                            counts.changed_handles.fetch_add(1, Ordering::Relaxed);
                        }
                        follower.release(old);
                    }
                    held = Some((handle, answers));
                }
                if let Some((old, _)) = held {
                    follower.release(old);
                }
            });
        }
    });
    counts.report(&format!("{name}, {writer:?}"))
}

fn compat_race(name: &str, writer: Writer, duration: Duration) -> [usize; 6] {
    race(name, writer, duration, |path| {
        CompatRoll(path.to_path_buf())
    })
}

fn file_ring_race(name: &str, writer: Writer, duration: Duration) -> [usize; 6] {
    race(name, writer, duration, |path| {
        FileRing::open(
            path,
            RingConfig::default(),
            ParseMode::Strict,
            ReloadPolicy::KeepLastGood,
        )
        .unwrap()
    })
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
        compat_race("compat-in-place", writer, Duration::from_secs(2)),
        true,
    );
}

#[test]
fn compat_roll_during_back_to_back_in_place_rewrites() {
    let writer = Writer::InPlace {
        pause: Duration::ZERO,
    };
    assert_clean(
        compat_race("compat-back-to-back", writer, Duration::from_secs(1)),
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
        compat_race("compat-slow", writer, Duration::from_secs(2)),
        true,
    );
}

#[test]
fn file_ring_during_renames_and_in_place_and_slow_rewrites() {
    assert_clean(
        file_ring_race(
            "file-ring-rename",
            Writer::Rename,
            Duration::from_millis(1500),
        ),
        true,
    );
    let writer = Writer::InPlace { pause: PAUSE };
    assert_clean(
        file_ring_race("file-ring-in-place", writer, Duration::from_secs(2)),
        true,
    );
    let writer = Writer::Slow {
        gap: Duration::from_millis(20),
        pause: PAUSE,
    };
    assert_clean(
        file_ring_race("file-ring-slow", writer, Duration::from_secs(2)),
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
    let message = unsafe { CStr::from_ptr(ketama::compat::ketama_error()) };
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
