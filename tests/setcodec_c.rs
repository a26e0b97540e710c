//! The C ABI from C: libmemcached against a real memcached, under valgrind,
//! and the `ketama set` CLI.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Memcached, assert_valgrind_clean, compile_c, repo_root, run_with_timeout};

#[test]
fn c_client_with_libmemcached_is_correct_and_valgrind_clean() {
    common::require_tool("pkg-config", "pkg-config");
    let probe = Command::new("pkg-config").args(["--exists", "libmemcached"]).status().expect("pkg-config");
    assert!(probe.success(), "libmemcached is not installed: Debian package libmemcached-dev");
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
    let checked = assert_valgrind_clean(&program, &[&fresh.port.to_string()], Duration::from_secs(300));
    assert!(String::from_utf8_lossy(&checked.stdout).contains("all checks passed"));
}

fn ketama_cli(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ketama"))
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
    assert_eq!(out.stdout, b"a\nc\n# records=5 removals=2 redundant=3 encoding=t1\n");
    let out = ketama_cli(&["set", "decode"], b"\xa1\x03a\x00\\\xa1\x00");
    assert_eq!(out.stdout, b"\n\na\\x00\\x5c\n# records=2 removals=0 redundant=0 encoding=b1\n"[1..].to_vec());
    let out = ketama_cli(&["set", "decode"], b"");
    assert_eq!(out.stdout, b"# records=0 removals=0 redundant=0 encoding=empty\n");
    let out = ketama_cli(&["set", "decode", "--encoding", "membase-tombstone"], b"x,|x,y,");
    assert_eq!(out.stdout, b"y\n# records=3 removals=1 redundant=2 encoding=membase-tombstone\n");
    let out = ketama_cli(&["set", "decode"], b"+a +b \xa1\x01z");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("MixedEncoding at byte offset 6 (record 2)"), "{stderr}");
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
