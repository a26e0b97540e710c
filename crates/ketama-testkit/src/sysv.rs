//! The SysV IPC objects the original libketama leaves behind. Its
//! `ketama_roll(FILE)` creates a semaphore and a 512 KiB shared memory
//! segment keyed by `ftok(FILE, 'R')` and never removes them. A
//! [`SysvGuard`] made for the files a test hands to the original removes, when
//! it is dropped (also on panic), exactly the objects with those keys that
//! appeared after it was made: objects of other programs, even with a
//! colliding key, are left alone.

use std::collections::BTreeSet;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A SysV object: semaphore set or shared memory segment, by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SysvObject {
    /// A semaphore set id.
    Semaphore(i32),
    /// A shared memory segment id.
    SharedMemory(i32),
}

/// The key the original uses for `file`: `ftok(file, 'R')`.
pub fn original_key(file: &Path) -> libc::key_t {
    let name = CString::new(file.as_os_str().as_bytes()).expect("path without NUL");
    // SAFETY: a NUL-terminated path.
    let key = unsafe { libc::ftok(name.as_ptr(), b'R' as i32) };
    assert!(
        key != -1,
        "ftok({file:?}) failed: {}",
        std::io::Error::last_os_error()
    );
    key
}

/// The objects that exist now under `key`.
pub fn objects_with_key(key: libc::key_t) -> BTreeSet<SysvObject> {
    let mut found = BTreeSet::new();
    // SAFETY: plain lookups without IPC_CREAT; they create nothing.
    let sem = unsafe { libc::semget(key, 0, 0) };
    if sem >= 0 {
        found.insert(SysvObject::Semaphore(sem));
    }
    // SAFETY: as above.
    let shm = unsafe { libc::shmget(key, 0, 0) };
    if shm >= 0 {
        found.insert(SysvObject::SharedMemory(shm));
    }
    found
}

/// Removes one object by id (it may already be gone).
pub fn remove(object: SysvObject) {
    match object {
        // SAFETY: IPC_RMID on an id; an id that is gone fails harmlessly.
        SysvObject::Semaphore(id) => unsafe {
            libc::semctl(id, 0, libc::IPC_RMID);
        },
        // SAFETY: as above; IPC_RMID takes no buffer.
        SysvObject::SharedMemory(id) => unsafe {
            libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut());
        },
    }
}

/// Taken shared by every [`SysvGuard`] while it lives and exclusively by
/// [`no_original_running`]: a test that counts every object of the system
/// runs while no other test of its process runs the original.
static ORIGINAL_RUNS: RwLock<()> = RwLock::new(());

/// Waits until no test of this process holds a [`SysvGuard`] (none runs the
/// original) and keeps it so until the returned guard is dropped. A test
/// holds one [`SysvGuard`] at a time: a second one taken while this waits
/// would wait for it.
pub fn no_original_running() -> RwLockWriteGuard<'static, ()> {
    ORIGINAL_RUNS.write().unwrap_or_else(|e| e.into_inner())
}

/// Removes, when dropped, the objects that appeared under the keys of the
/// files it was made for.
#[derive(Debug)]
pub struct SysvGuard {
    keys: Vec<libc::key_t>,
    before: BTreeSet<SysvObject>,
    _running: RwLockReadGuard<'static, ()>,
}

impl SysvGuard {
    /// Records what exists under the original's keys for `files` (which must exist).
    pub fn new(files: &[&Path]) -> Self {
        let running = ORIGINAL_RUNS.read().unwrap_or_else(|e| e.into_inner());
        let keys: Vec<libc::key_t> = files.iter().map(|f| original_key(f)).collect();
        let before = keys.iter().flat_map(|&k| objects_with_key(k)).collect();
        SysvGuard {
            keys,
            before,
            _running: running,
        }
    }

    /// The objects that appeared under the keys since the guard was made.
    pub fn appeared(&self) -> BTreeSet<SysvObject> {
        self.keys
            .iter()
            .flat_map(|&k| objects_with_key(k))
            .filter(|o| !self.before.contains(o))
            .collect()
    }
}

impl Drop for SysvGuard {
    fn drop(&mut self) {
        for object in self.appeared() {
            remove(object);
        }
    }
}
