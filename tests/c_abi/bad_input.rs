//! Inputs that crash, hang or corrupt the original libketama get a clear
//! error here (or work, where the original's only problem was a limit).

use ketama_testkit as common;

use std::ffi::{CString, c_char};

use ketama::compat::{ketama_get_server, ketama_smoke};
use ketama_core::parser::ParseMode;
use ketama_core::{Ring, RingConfig};

fn write(name: &str, content: &[u8]) -> std::path::PathBuf {
    let path = common::scratch_dir("bad").join(name);
    std::fs::write(&path, content).unwrap();
    path
}

#[test]
fn inputs_that_crash_or_hang_the_original_give_clear_errors() {
    let dir = common::scratch_dir("bad-dir");
    let cases: Vec<(std::path::PathBuf, String)> = vec![
        // SIGSEGV in the original (negative weight wraps to 2^64-5).
        (
            write("negative", b"10.0.0.1:11211\t-5\n"),
            "Invalid memory value: weight is negative (line 1 in".into(),
        ),
        // SIGSEGV in the original (strtok returns NULL on a blank chunk at EOF).
        (
            write("blank_eof", b"10.0.0.1:11211\t100\n  \t "),
            "Unable to find address (line 2 in".into(),
        ),
        // A 126-byte run of blanks is a blank chunk too.
        (
            write("blank_run", &[b' '; 200]),
            "Unable to find address (line 1 in".into(),
        ),
        // Infinite loop in the original.
        (
            dir.clone(),
            format!(
                "Invalid filename specified: {} (is a directory, not a server file)",
                dir.display()
            ),
        ),
        // Weights whose sum wraps an unsigned long.
        (
            write(
                "sum_overflow",
                b"a:1\t9223372036854775807\nb:1\t9223372036854775807\nc:1\t9223372036854775807\n",
            ),
            "Sum of weights overflows 64 bits (line 3 in".into(),
        ),
        (
            write("missing_reason", b"10.0.0.1:11211\t0\n"),
            "Invalid memory value: weight is zero (line 1 in".into(),
        ),
        (
            write(
                "binary",
                &[0xff, 0xfe, 0x00, 0x01, b'\n', 0x80, b'\t', 0x81, b'\n'],
            ),
            "Unable to find delimiter (line 1 in".into(),
        ),
        (
            write("binary_weight", &[b'a', b'\t', 0x80, 0x81, b'\n']),
            "Invalid memory value (line 1 in".into(),
        ),
    ];
    for (path, expected) in cases {
        let error = crate::compat_roll(&path).expect_err(&expected);
        assert!(
            error.starts_with(&expected),
            "{path:?}: got {error:?}, want {expected:?}"
        );
    }
    let missing = common::scratch_dir("bad").join("does-not-exist");
    let error = crate::compat_roll(&missing).unwrap_err();
    assert!(
        error.starts_with(&format!(
            "Invalid filename specified: {}",
            missing.display()
        )),
        "{error}"
    );
    assert!(error.contains("No such file or directory"), "{error}");
}

#[test]
fn no_capacity_limit_past_the_originals_18723_points() {
    // 1,000 equal servers: 160,000 points (the original segfaults at 118 servers).
    let content: String = (0..1000)
        .map(|i| format!("10.{}.{}.1:11211\t100\n", i / 250, i % 250))
        .collect();
    let path = write("thousand", content.as_bytes());
    let cont = crate::compat_roll(&path).unwrap();
    // SAFETY: live continuum.
    let numpoints = unsafe { (*cont).numpoints };
    assert_eq!(numpoints, 160_000);
    let key = CString::new("some key").unwrap();
    // SAFETY: live continuum, valid key.
    let found = unsafe { ketama_get_server(key.as_ptr() as *mut c_char, cont) };
    assert!(!found.is_null());
    // SAFETY: rolled above, smoked once.
    unsafe { ketama_smoke(cont) };
}

#[test]
fn strict_mode_rejects_lines_the_original_misreads_with_line_numbers() {
    let cases: &[(&[u8], &str)] = &[
        (
            b"a:1\t100\nb:2\t100 \n",
            "Trailing blank after the weight (libketama would drop the weight's last digit) (line 2 in",
        ),
        (
            b"a:1\t12abc\n",
            "Invalid weight '12abc': expected a positive decimal integer (line 1 in",
        ),
        (b"a:1\t100 extra\n", "Unexpected third column 'extra'"),
        (
            b"a:1\t100\n \t \n",
            "Blank line containing spaces, tabs or a carriage return (libketama rejects it) (line 2 in",
        ),
        (
            b"# pool\n  # indented\n",
            "Indented comment: '#' must be in column 1 (libketama reads it as a server) (line 2 in",
        ),
        (
            b"a:1\t100",
            "Missing newline at end of file (libketama would read weight 100 as 10) (line 1 in",
        ),
    ];
    for (content, expected) in cases {
        let path = write("strict", content);
        let error = Ring::from_file(&path, RingConfig::default(), ParseMode::Strict)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(expected),
            "got {error:?}, want {expected:?}"
        );
    }
}

#[test]
fn garbage_never_crashes_either_parser() {
    // Deterministic pseudo-random files: both parsers return Ok or Err, and
    // whenever strict accepts, the compat reading is identical.
    let mut state = 99u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let alphabet = b"0123456789abc:.\t \n\r#-+\x00\xff";
    for _ in 0..20_000 {
        let len = (next() % 200) as usize;
        let content: Vec<u8> = (0..len)
            .map(|_| alphabet[(next() as usize) % alphabet.len()])
            .collect();
        let compat = ketama_core::parser::libketama::parse(&content, "fuzz");
        if let Ok(strict) = ketama_core::parser::strict::parse(&content, "fuzz") {
            assert_eq!(
                Ok(strict),
                compat,
                "strict and compat disagree on {content:?}"
            );
        }
    }
}

#[test]
fn calls_during_thread_teardown_do_not_abort_the_process() {
    // A C library's thread-exit cleanup may call in after Rust's thread
    // locals are gone; a failing call must still return an error.
    struct CallsOnExit;
    impl Drop for CallsOnExit {
        fn drop(&mut self) {
            let mut out = std::mem::MaybeUninit::<ketama::ring::ketama_server_ref>::uninit();
            // SAFETY: NULL ring is checked by the function; out is writable.
            let status = unsafe {
                ketama::ring::ketama_find_server(
                    std::ptr::null(),
                    std::ptr::null(),
                    0,
                    out.as_mut_ptr(),
                )
            };
            assert_eq!(
                status,
                ketama::status::ketama_status::KETAMA_ERR_NULL_ARGUMENT
            );
            // SAFETY: ketama_error returns a valid string even now.
            let _ = unsafe { std::ffi::CStr::from_ptr(ketama::compat::ketama_error()) };
        }
    }
    thread_local! {
        static ON_EXIT: std::cell::RefCell<Option<CallsOnExit>> = const { std::cell::RefCell::new(None) };
    }
    let worker = std::thread::spawn(|| {
        // Thread locals are destroyed in reverse order of first use: ours
        // first registered, the library's second, so the library's is gone
        // when ours runs.
        ON_EXIT.with(|slot| *slot.borrow_mut() = Some(CallsOnExit));
        let _ = ketama::compat::ketama_error();
    });
    worker.join().expect("the thread ended normally");
}
