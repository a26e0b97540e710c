//! The C ABI from C: libmemcached against a real memcached, under valgrind,
//! and the `ketama set` CLI.

use ketama_testkit as common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Memcached, assert_valgrind_clean, compile_c, repo_root, run_with_timeout};

#[test]
fn c_client_with_libmemcached_is_correct_and_valgrind_clean() {
    common::require_libmemcached();
    let source = repo_root().join("tests/c/setcodec_libmemcached.c");
    let program = compile_c(&[&source], "setcodec_libmemcached", &["-lmemcached"]);
    let server = Memcached::start();
    let port = server.port.to_string();
    let plain = run_with_timeout(Command::new(&program).arg(&port), Duration::from_secs(60));
    assert!(
        plain.status.success(),
        "C test failed:\n{}{}",
        String::from_utf8_lossy(&plain.stdout),
        String::from_utf8_lossy(&plain.stderr)
    );
    assert!(String::from_utf8_lossy(&plain.stdout).contains("all checks passed"));
    let fresh = Memcached::start();
    let checked = assert_valgrind_clean(
        &program,
        &[&fresh.port.to_string()],
        Duration::from_secs(300),
    );
    assert!(String::from_utf8_lossy(&checked.stdout).contains("all checks passed"));
}

#[test]
fn the_readme_example_works() {
    let source = repo_root().join("tests/c/setcodec_readme_example.c");
    let program = compile_c(&[&source], "setcodec_readme_example", &["-lmemcached"]);
    let server = Memcached::start();
    let port = server.port.to_string();
    let out = run_with_timeout(Command::new(&program).arg(&port), Duration::from_secs(30));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, b"alice\n");
    let checked = assert_valgrind_clean(&program, &[&port], Duration::from_secs(120));
    assert_eq!(checked.stdout, b"alice\n");
}

fn ketama_cli(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = Command::new(common::cli())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ketama");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn cli_decodes_encodes_and_compacts() {
    let out = ketama_cli(&["set", "decode"], b"+a +b +c -b -x");
    assert!(out.status.success());
    assert_eq!(
        out.stdout,
        b"a\nc\n# records=5 removals=2 redundant=3 encoding=t1\n"
    );
    let out = ketama_cli(&["set", "decode"], b"\xa1\x03a\x00\\\xa1\x00");
    assert_eq!(
        out.stdout,
        b"\n\na\\x00\\x5c\n# records=2 removals=0 redundant=0 encoding=b1\n"[1..].to_vec()
    );
    let out = ketama_cli(&["set", "decode"], b"");
    assert_eq!(
        out.stdout,
        b"# records=0 removals=0 redundant=0 encoding=empty\n"
    );
    let out = ketama_cli(
        &["set", "decode", "--encoding", "membase-tombstone"],
        b"x,|x,y,",
    );
    assert_eq!(
        out.stdout,
        b"y\n# records=3 removals=1 redundant=2 encoding=membase-tombstone\n"
    );
    let out = ketama_cli(&["set", "decode"], b"+a +b \xa1\x01z");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("MixedEncoding at byte offset 6 (record 2)"),
        "{stderr}"
    );
    let out = ketama_cli(&["set", "encode", "add", "a", "b"], b"");
    assert_eq!(out.stdout, b"+a +b ");
    let out = ketama_cli(&["set", "encode", "remove", "--binary", "a b"], b"");
    assert_eq!(out.stdout, b"\xa2\x03a b");
    let out = ketama_cli(&["set", "encode", "add", "a b"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("MemberHasWhitespace"));
    let out = ketama_cli(&["set", "compact"], b"+c +a -c +b +a");
    assert_eq!(out.stdout, b"+a +b ");
    let out = ketama_cli(&["set", "compact", "--to", "b1"], b"+a");
    assert_eq!(out.stdout, b"\xa1\x01a");
    let out = ketama_cli(&["set", "compact", "--encoding", "membase-comma"], b"b,a,");
    assert_eq!(out.stdout, b"+a +b ");
    let out = ketama_cli(&["set", "frobnicate"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_c_abi_is_reentrant_across_threads() {
    use ketama::set::*;
    use ketama::status::ketama_status;
    let value = b"+a +b +c -b ".repeat(200);
    let mut shared: *mut ketama_set = std::ptr::null_mut();
    // SAFETY: valid buffers and out-pointers.
    let status = unsafe {
        ketama_set_decode(
            value.as_ptr(),
            value.len(),
            0,
            0,
            &mut shared,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, ketama_status::KETAMA_OK);
    let shared = shared as usize;
    let threads: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..500 {
                    let bad = format!("+a +{t}{i} \x01");
                    let mut out: *mut ketama_set = std::ptr::null_mut();
                    let mut error = ketama_set_error::default();
                    // SAFETY: valid buffers and out-pointers.
                    let status = unsafe {
                        ketama_set_decode(bad.as_ptr(), bad.len(), 0, 0, &mut out, &mut error)
                    };
                    assert_eq!(status, ketama_status::KETAMA_ERR_SET_DECODE);
                    assert_eq!((error.offset, error.record), (bad.len() - 1, 2));
                    let message = ketama::status::last_error();
                    assert!(
                        message.contains(&format!("byte offset {} (record 2)", bad.len() - 1)),
                        "{message}"
                    );
                    let queries = [
                        ketama_set_member_ref {
                            data: b"a".as_ptr(),
                            len: 1,
                        },
                        ketama_set_member_ref {
                            data: b"b".as_ptr(),
                            len: 1,
                        },
                    ];
                    let mut found = [false; 2];
                    // SAFETY: the shared handle lives until every thread is joined.
                    let status = unsafe {
                        ketama_set_contains_many(
                            shared as *const ketama_set,
                            queries.as_ptr(),
                            2,
                            found.as_mut_ptr(),
                        )
                    };
                    assert_eq!((status, found), (ketama_status::KETAMA_OK, [true, false]));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("thread");
    }
    // SAFETY: the handle is live and freed once.
    unsafe { ketama_set_free(shared as *mut ketama_set) };
}

#[test]
fn set_enum_names_and_ids_come_from_the_core() {
    use ketama::set::{ketama_set_encoding_name, ketama_set_error_kind_name};
    use ketama_core::setcodec::{Format, SetErrorKind};
    let text = |name: *const std::ffi::c_char| {
        assert!(!name.is_null());
        // SAFETY: the functions return static NUL-terminated strings.
        unsafe { std::ffi::CStr::from_ptr(name) }.to_str().unwrap()
    };
    for kind in SetErrorKind::ALL {
        assert_eq!(text(ketama_set_error_kind_name(kind.id())), kind.name());
    }
    assert_eq!(text(ketama_set_error_kind_name(0)), "None");
    assert_eq!(text(ketama_set_error_kind_name(4000)), "Unknown");
    for format in Format::ALL {
        assert_eq!(text(ketama_set_encoding_name(format.id())), format.name());
    }
    assert_eq!(text(ketama_set_encoding_name(0)), "auto");
    assert!(ketama_set_encoding_name(6).is_null());
}
