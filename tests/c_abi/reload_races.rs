//! Reload while the server file is being rewritten: readers (the compat
//! `ketama_roll` and the modern `FileRing`) never fail after the first good
//! read and never answer from a torn file, whether the writer renames
//! complete files into place, truncates and rewrites in place, or writes the
//! file in several chunks with pauses. Held handles never change. A roll
//! while an in-place change has not settled answers with the last good
//! state at once, without reading the file.
//!
//! The two versions differ in every prefix: a reader that took the first
//! lines of a half-written file for the whole would answer for neither.

use ketama_testkit as common;

use std::ffi::{CStr, CString, c_char};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ketama::compat::{ketama_continuum, ketama_get_server, ketama_smoke, mcs};
use ketama_core::file_ring::{FileRing, ReloadPolicy};
use ketama_core::parser::ParseMode;
use ketama_core::server_file::SETTLE_TIME;
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

/// Writes one version of the file; returns the longest time it was left
/// half-written (for an in-place rewrite, an upper bound of the time between
/// two consecutive modifications; zero for a rename).
fn write_version(path: &Path, writer: Writer, content: &[u8], serial: usize) -> Duration {
    match writer {
        Writer::Rename => {
            let tmp = path.with_extension(format!("tmp{serial}"));
            std::fs::write(&tmp, content).unwrap();
            std::fs::rename(&tmp, path).unwrap();
            std::thread::sleep(Duration::from_millis(1));
            Duration::ZERO
        }
        Writer::InPlace { pause } => {
            // The truncation, then one write.
            let start = Instant::now();
            std::fs::File::create(path)
                .unwrap()
                .write_all(content)
                .unwrap();
            let longest = start.elapsed();
            std::thread::sleep(pause);
            longest
        }
        Writer::Slow { gap, pause } => {
            // Cut at line ends, so that what a reader catches between two
            // chunks is a valid, shorter server list.
            let mut longest = Duration::ZERO;
            let mut before_previous = Instant::now();
            let mut file = std::fs::File::create(path).unwrap();
            let lines: Vec<&[u8]> = content.split_inclusive(|&b| b == b'\n').collect();
            let cuts = [0, lines.len() / 3, 2 * lines.len() / 3, lines.len()];
            for (i, window) in cuts.windows(2).enumerate() {
                if i > 0 {
                    std::thread::sleep(gap);
                }
                let before = Instant::now();
                file.write_all(&lines[window[0]..window[1]].concat())
                    .unwrap();
                longest = longest.max(before_previous.elapsed());
                before_previous = before;
            }
            drop(file);
            std::thread::sleep(pause);
            longest
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
        crate::compat_roll(&self.0).ok()
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
) -> Race {
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
    let longest_half_written = std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            let start = Instant::now();
            let mut serial = 0;
            let mut longest = Duration::ZERO;
            while start.elapsed() < duration {
                serial += 1;
                let content = &versions[serial % 2].content;
                longest = longest.max(write_version(&path, writer, content, serial));
            }
            // End on a complete file.
            write_version(&path, Writer::Rename, &versions[1].content, serial + 1);
            stop.store(true, Ordering::SeqCst);
            longest
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
        writer.join().unwrap()
    });
    Race {
        counts: counts.report(&format!(
            "{name}, {writer:?}, half-written for at most {longest_half_written:?}"
        )),
        longest_half_written,
    }
}

fn compat_race(name: &str, writer: Writer, duration: Duration) -> Race {
    race(name, writer, duration, |path| {
        CompatRoll(path.to_path_buf())
    })
}

fn file_ring_race(name: &str, writer: Writer, duration: Duration) -> Race {
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

/// What a race saw, and the longest time its writer left the file
/// half-written.
struct Race {
    counts: [usize; 6],
    longest_half_written: Duration,
}

/// How long a writer may leave a file half-written for the readers to be
/// bound not to take it: a reader takes a file left alone for SETTLE_TIME
/// (by its mtime, which the kernel takes from a clock a few ms coarse).
const WRITER_LIMIT: Duration = SETTLE_TIME.saturating_sub(Duration::from_millis(10));
/// Runs of a race at most, for one in which the writer kept within the limit.
const RUNS: usize = 5;

/// Runs `race` (named `name-N` in its N-th run) until its writer never left
/// the file half-written for [`WRITER_LIMIT`] (a loaded machine can hold a
/// writer thread back that long, and readers may then take what it wrote so
/// far, as documented), at most [`RUNS`] times. In every run, every read
/// succeeded and held handles kept their answers; in that run, every answer
/// was for a whole version and, with `both`, each version was seen.
fn assert_clean(name: &str, both: bool, race: impl Fn(&str) -> Race) {
    for run in 1..=RUNS {
        let Race {
            counts,
            longest_half_written,
        } = race(&format!("{name}-{run}"));
        let [reads, failed, torn, changed, a, b] = counts;
        assert!(reads > 0, "no reads");
        assert_eq!(failed, 0, "failed reads");
        assert_eq!(changed, 0, "held handles changed");
        if longest_half_written >= WRITER_LIMIT {
            eprintln!(
                "{name}: the writer left the file half-written for {longest_half_written:?}, \
                 so readers may take it ({torn} torn answers); running again"
            );
            continue;
        }
        assert_eq!(torn, 0, "torn answers");
        if both {
            assert!(a > 0 && b > 0, "both versions observed: {a} A, {b} B");
        }
        return;
    }
    panic!(
        "{name}: in each of {RUNS} runs the writer was held back for {WRITER_LIMIT:?} or more \
         in the middle of a rewrite (the machine is too loaded to test tearing)"
    );
}

const PAUSE: Duration = Duration::from_millis(150);

#[test]
fn compat_roll_during_renames() {
    let duration = Duration::from_millis(1500);
    assert_clean("race-rename", true, |name| {
        compat_race(name, Writer::Rename, duration)
    });
}

#[test]
fn compat_roll_during_in_place_rewrites() {
    let writer = Writer::InPlace { pause: PAUSE };
    assert_clean("compat-in-place", true, |name| {
        compat_race(name, writer, Duration::from_secs(2))
    });
}

#[test]
fn compat_roll_during_back_to_back_in_place_rewrites() {
    let writer = Writer::InPlace {
        pause: Duration::ZERO,
    };
    assert_clean("compat-back-to-back", false, |name| {
        compat_race(name, writer, Duration::from_secs(1))
    });
}

#[test]
fn compat_roll_during_a_slow_chunked_writer() {
    let writer = Writer::Slow {
        gap: Duration::from_millis(20),
        pause: PAUSE,
    };
    assert_clean("compat-slow", true, |name| {
        compat_race(name, writer, Duration::from_secs(2))
    });
}

#[test]
fn file_ring_during_renames_and_in_place_and_slow_rewrites() {
    let duration = Duration::from_millis(1500);
    assert_clean("file-ring-rename", true, |name| {
        file_ring_race(name, Writer::Rename, duration)
    });
    let writer = Writer::InPlace { pause: PAUSE };
    assert_clean("file-ring-in-place", true, |name| {
        file_ring_race(name, writer, Duration::from_secs(2))
    });
    let writer = Writer::Slow {
        gap: Duration::from_millis(20),
        pause: PAUSE,
    };
    assert_clean("file-ring-slow", true, |name| {
        file_ring_race(name, writer, Duration::from_secs(2))
    });
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
    let cont = crate::compat_roll(&path).unwrap();
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
    let again = crate::compat_roll(&path).unwrap();
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
        crate::compat_roll(&never)
            .unwrap_err()
            .starts_with("Invalid memory value (line 1 in")
    );
}

/// Rewrites `path` in place (same inode) with `content`, modified at `mtime`.
fn rewrite_in_place(path: &Path, content: &str, mtime: std::time::SystemTime) {
    std::fs::write(path, content).unwrap();
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
}

#[test]
fn a_roll_during_an_in_place_change_answers_with_the_last_good_without_reading_it() {
    use ketama::file_ring::{
        ketama_file_ring_current, ketama_file_ring_free, ketama_file_ring_open,
    };
    use ketama::ring::{ketama_ring, ketama_ring_free, ketama_ring_server_count};
    use ketama::status::ketama_status;

    let hour = Duration::from_secs(3600);
    let path = common::scratch_dir("unsettled").join("servers");
    let good = "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n";
    rewrite_in_place(&path, good, std::time::SystemTime::now() - hour);
    let name = CString::new(path.to_str().unwrap()).unwrap();
    let cont = crate::compat_roll(&path).unwrap();
    let mut file_ring = std::ptr::null();
    // SAFETY: a NUL-terminated path and a writable out-pointer.
    let opened = unsafe { ketama_file_ring_open(name.as_ptr(), 0, 0, 0, 0, &mut file_ring) };
    assert_eq!(opened, ketama_status::KETAMA_OK);
    let current = || {
        let mut ring: *const ketama_ring = std::ptr::null();
        // SAFETY: a live file ring and a writable out-pointer.
        let status = unsafe { ketama_file_ring_current(file_ring, &mut ring) };
        // SAFETY: ketama_error returns a NUL-terminated string.
        let error = unsafe { CStr::from_ptr(ketama::compat::ketama_error()) };
        let error = error.to_string_lossy().into_owned();
        // SAFETY: the ring handed out above (or NULL), released once.
        let servers = unsafe {
            let servers = ketama_ring_server_count(ring);
            ketama_ring_free(ring);
            servers
        };
        (status, servers, error)
    };
    let first = current();
    assert_eq!(first.0, ketama_status::KETAMA_OK);
    // A broken in-place rewrite, modified an hour after now: it never
    // settles during the test. Had it been read, the rolls would report its
    // bad line; they answer with the last good state, with no error.
    let broken = "10.0.0.1:11211\t100\n10.0.0.2:11211\tl00\n10.0.0.3:11211\t100\n";
    rewrite_in_place(&path, broken, std::time::SystemTime::now() + hour);
    let pending = crate::compat_roll(&path).unwrap();
    // SAFETY: ketama_error returns a NUL-terminated string; live continuums.
    unsafe {
        assert_eq!(
            CStr::from_ptr(ketama::compat::ketama_error()).to_bytes(),
            b""
        );
        assert_eq!((*pending).array, (*cont).array, "the last good continuum");
        ketama_smoke(pending);
    }
    assert_eq!(current(), (ketama_status::KETAMA_OK, 2, String::new()));
    // Once settled, the same file is read, and its problem reported.
    rewrite_in_place(&path, broken, std::time::SystemTime::now() - hour);
    let kept = crate::compat_roll(&path).unwrap();
    // SAFETY: ketama_error returns a NUL-terminated string; live continuums.
    unsafe {
        let error = CStr::from_ptr(ketama::compat::ketama_error()).to_string_lossy();
        assert!(
            error.starts_with("Kept the last good continuum of"),
            "{error}"
        );
        assert_eq!((*kept).array, (*cont).array);
        ketama_smoke(kept);
    }
    let (status, servers, error) = current();
    assert_eq!((status, servers), (ketama_status::KETAMA_KEPT_LAST_GOOD, 2));
    assert!(error.starts_with("Kept the last good ring of"), "{error}");
    // SAFETY: live handles, released once.
    unsafe {
        ketama_smoke(cont);
        ketama_file_ring_free(file_ring);
    }
}
