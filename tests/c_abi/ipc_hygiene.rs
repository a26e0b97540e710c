//! The oracle tests leave SysV IPC as they found it. The original libketama
//! they run creates a semaphore and a shared memory segment per server file
//! (keys `ftok(FILE, 'R')`, high byte 0x52) and never removes them; the
//! tests' guards (`common::sysv`) remove exactly those, and nothing else.

use ketama_testkit as common;

use std::collections::BTreeSet;
use std::process::Command;
use std::time::Duration;

use common::sysv::{self, SysvGuard, SysvObject};

/// Every semaphore set and shared memory segment whose key has the
/// original's high byte ('R'), as `ipcs` lists them.
fn original_style_objects() -> BTreeSet<(String, String)> {
    common::require_tool("ipcs", "util-linux");
    let mut found = BTreeSet::new();
    for kind in ["-s", "-m"] {
        let out = Command::new("ipcs").arg(kind).output().expect("ipcs");
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let mut fields = line.split_whitespace();
            if let (Some(key), Some(id)) = (fields.next(), fields.next()) {
                if key.starts_with("0x52") {
                    found.insert((kind.to_string(), format!("{key} id {id}")));
                }
            }
        }
    }
    found
}

#[test]
fn a_full_oracle_run_leaves_ipcs_as_it_found_it() {
    // No other test of this process runs the original meanwhile; the oracle
    // tests run in a child: this test binary, filtered to their module.
    let _alone = sysv::no_original_running();
    let before = original_style_objects();
    let out = common::run_with_timeout(
        Command::new(std::env::current_exe().unwrap())
            .args(["--test-threads=2", "libketama_oracle::"]),
        Duration::from_secs(600),
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the oracle tests failed:\n{said}");
    let ran = said
        .lines()
        .filter(|l| l.starts_with("test libketama_oracle::") && l.ends_with(" ok"))
        .count();
    assert!(ran >= 6, "the child ran {ran} oracle tests:\n{said}");
    let after = original_style_objects();
    let left: Vec<_> = after.difference(&before).collect();
    assert!(
        left.is_empty(),
        "the oracle run left SysV objects behind: {left:?}"
    );
}

#[test]
fn the_guard_removes_only_what_appeared_for_its_files() {
    let dir = common::scratch_dir("sysv-guard");
    let file = dir.join("servers");
    std::fs::write(&file, "10.0.0.1:11211\t100\n").unwrap();
    let key = sysv::original_key(&file);
    // Someone else's segment, with no key, made before: it must survive.
    // SAFETY: creating a private 4 KiB segment.
    let unrelated = unsafe { libc::shmget(libc::IPC_PRIVATE, 4096, libc::IPC_CREAT | 0o600) };
    assert!(unrelated >= 0);
    let guard = SysvGuard::new(&[&file]);
    // What the original does on a roll of `file`.
    // SAFETY: creating a keyed semaphore set and a keyed segment.
    let (sem, shm) = unsafe {
        (
            libc::semget(key, 1, libc::IPC_CREAT | 0o666),
            libc::shmget(key, 524288, libc::IPC_CREAT | 0o644),
        )
    };
    assert!(sem >= 0 && shm >= 0);
    assert_eq!(
        guard.appeared(),
        [SysvObject::Semaphore(sem), SysvObject::SharedMemory(shm)].into()
    );
    drop(guard);
    assert!(
        sysv::objects_with_key(key).is_empty(),
        "the original's objects are gone"
    );
    // SAFETY: IPC_STAT into a zeroed buffer; then removing our own segment.
    unsafe {
        let mut stat: libc::shmid_ds = std::mem::zeroed();
        assert_eq!(
            libc::shmctl(unrelated, libc::IPC_STAT, &mut stat),
            0,
            "the unrelated segment survived"
        );
        libc::shmctl(unrelated, libc::IPC_RMID, std::ptr::null_mut());
    }
}
