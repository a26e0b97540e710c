//! Concurrency and reload: lookups from several threads while the server
//! file is rewritten and re-rolled; handles are never mutated; errors are
//! per thread; a changed file is noticed even when its mtime is kept.

use ketama_testkit as common;

use std::ffi::{CStr, CString, c_char};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use ketama::compat::{ketama_continuum, ketama_error, ketama_get_server, ketama_smoke, mcs};
use ketama_core::{Ring, RingConfig, ServerSpec};

/// (point, address) the compat lookup returns for `key`.
fn lookup(cont: ketama_continuum, key: &CStr) -> (u32, String) {
    // SAFETY: live continuum, valid key; the result points into its array.
    let m: &mcs = unsafe { &*ketama_get_server(key.as_ptr() as *mut c_char, cont) };
    // SAFETY: ip is NUL-terminated in this library.
    let ip = unsafe { CStr::from_ptr(m.ip.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    (m.point, ip)
}

struct Version {
    content: String,
    points: usize,
    answers: Vec<(u32, String)>,
}

fn version(servers: &[(&str, u64)], keys: &[CString]) -> Version {
    let specs: Vec<ServerSpec> = servers
        .iter()
        .map(|&(a, w)| ServerSpec::new(a, w))
        .collect();
    let ring = Ring::new(specs, RingConfig::default()).unwrap();
    let answers = keys
        .iter()
        .map(|k| {
            let at = ring.locate(k.to_bytes()).unwrap();
            (
                at.point,
                String::from_utf8(ring.servers()[at.server_index].address().to_vec()).unwrap(),
            )
        })
        .collect();
    Version {
        content: servers.iter().map(|(a, w)| format!("{a}\t{w}\n")).collect(),
        points: ring.continuum().len(),
        answers,
    }
}

#[test]
fn readers_never_see_a_torn_or_inconsistent_continuum_while_the_file_changes() {
    let keys: Vec<CString> = (0..300)
        .map(|i| CString::new(format!("key-{i}")).unwrap())
        .collect();
    let versions = [
        version(
            &[
                ("10.0.0.1:11211", 100),
                ("10.0.0.2:11211", 100),
                ("10.0.0.3:11211", 100),
            ],
            &keys,
        ),
        version(
            &[
                ("10.0.0.1:11211", 100),
                ("10.0.0.2:11211", 300),
                ("10.0.0.4:11211", 100),
                ("10.0.0.5:11211", 50),
            ],
            &keys,
        ),
    ];
    assert_ne!(versions[0].points, versions[1].points);
    let dir = common::scratch_dir("concurrency");
    let path = dir.join("servers");
    std::fs::write(&path, &versions[0].content).unwrap();

    let stop = AtomicBool::new(false);
    let rolls = AtomicUsize::new(0);
    let seen = [AtomicUsize::new(0), AtomicUsize::new(0)];
    std::thread::scope(|scope| {
        // Writer: atomic replace (write + rename), 300 times.
        scope.spawn(|| {
            for i in 0..300 {
                let tmp = dir.join(format!("servers.tmp{i}"));
                std::fs::write(&tmp, &versions[(i + 1) % 2].content).unwrap();
                std::fs::rename(&tmp, &path).unwrap();
                std::thread::sleep(Duration::from_micros(300));
            }
            stop.store(true, Ordering::SeqCst);
        });
        for _ in 0..4 {
            scope.spawn(|| {
                let mut kept: Option<(ketama_continuum, usize)> = None;
                while !stop.load(Ordering::SeqCst) {
                    let cont = crate::compat_roll(&path).unwrap();
                    rolls.fetch_add(1, Ordering::Relaxed);
                    // SAFETY: live continuum.
                    let points = unsafe { (*cont).numpoints } as usize;
                    let which = versions
                        .iter()
                        .position(|v| v.points == points)
                        .expect("numpoints of a known version");
                    seen[which].fetch_add(1, Ordering::Relaxed);
                    for (key, expected) in keys.iter().zip(&versions[which].answers) {
                        assert_eq!(
                            &lookup(cont, key),
                            expected,
                            "a handle answered inconsistently"
                        );
                    }
                    // An older handle still answers for its own version.
                    if let Some((old, old_which)) = kept {
                        assert_eq!(lookup(old, &keys[7]), versions[old_which].answers[7]);
                        // SAFETY: rolled earlier in this thread, smoked once.
                        unsafe { ketama_smoke(old) };
                    }
                    kept = Some((cont, which));
                }
                if let Some((old, _)) = kept {
                    // SAFETY: as above.
                    unsafe { ketama_smoke(old) };
                }
            });
        }
    });
    let (a, b) = (
        seen[0].load(Ordering::Relaxed),
        seen[1].load(Ordering::Relaxed),
    );
    eprintln!(
        "{} rolls checked ({a} of version A, {b} of version B), 300 keys each",
        rolls.load(Ordering::Relaxed)
    );
    assert!(a > 0 && b > 0, "both versions were observed");
}

#[test]
fn a_content_change_is_noticed_even_when_size_and_mtime_are_kept() {
    let dir = common::scratch_dir("same-mtime");
    let path = dir.join("servers");
    std::fs::write(&path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n").unwrap();
    let mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let first = crate::compat_roll(&path).unwrap();
    // Same size, same inode, same mtime, different servers (an rsync -t style edit).
    std::fs::write(&path, "10.0.0.1:11211\t100\n10.0.0.9:11211\t100\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let second = crate::compat_roll(&path).unwrap();
    let key = CString::new("k").unwrap();
    let servers = |cont: ketama_continuum| -> std::collections::BTreeSet<String> {
        // SAFETY: live continuum with numpoints records.
        let array = unsafe {
            std::slice::from_raw_parts((*cont).array as *const mcs, (*cont).numpoints as usize)
        };
        array
            .iter()
            .map(|m| {
                // SAFETY: the pointers come from live locals and the library's own handles.
                unsafe { CStr::from_ptr(m.ip.as_ptr()) }
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    };
    assert!(servers(second).contains("10.0.0.9:11211"));
    assert!(
        servers(first).contains("10.0.0.2:11211"),
        "the first handle was not modified"
    );
    // An unchanged file shares the continuum: same array.
    let third = crate::compat_roll(&path).unwrap();
    // SAFETY: live continuums.
    unsafe {
        assert_eq!((*third).array, (*second).array);
        assert_eq!(lookup(third, &key), lookup(second, &key));
        ketama_smoke(first);
        ketama_smoke(second);
        ketama_smoke(third);
    }
}

#[test]
fn errors_are_per_thread() {
    let dir = common::scratch_dir("errors");
    let good = dir.join("good");
    let bad = dir.join("bad");
    std::fs::write(&good, "10.0.0.1:11211\t100\n").unwrap();
    std::fs::write(&bad, "10.0.0.1:11211\tabc\n").unwrap();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (good, bad) = (&good, &bad);
            scope.spawn(move || {
                for _ in 0..200 {
                    if t % 2 == 0 {
                        let cont = crate::compat_roll(good).unwrap();
                        // SAFETY: NUL-terminated.
                        assert_eq!(unsafe { CStr::from_ptr(ketama_error()) }.to_bytes(), b"");
                        // SAFETY: rolled above.
                        unsafe { ketama_smoke(cont) };
                    } else {
                        let error = crate::compat_roll(bad).unwrap_err();
                        assert!(
                            error.starts_with("Invalid memory value (line 1 in"),
                            "{error}"
                        );
                    }
                }
            });
        }
    });
}
