//! Following a server file: re-read it when it changes, and keep the last
//! good result when a change cannot be read or parsed.
//!
//! An operator saving the file in place, a deploy script writing it in
//! several steps, or a typo must not take a pool down: [`refresh`] returns
//! the value built from the last good state of the file, with the problem,
//! until the file is good again. A file that was never good still fails.
//!
//! Once a file has been read good, nothing waits: a change made in place is
//! taken once the file has been left alone for
//! [`SETTLE_TIME`](crate::server_file::SETTLE_TIME), and until then the last
//! good value answers at once ([`Refresh::Pending`]); a [`Followed`] file is
//! looked at by one thread at a time, and the others answer with the last
//! good value meanwhile. Only the first read of a file, which has nothing
//! else to answer with, waits for an in-place change to settle.
//! A file read when it had settled, whose path still names the same inode
//! with the same size, mtime and ctime, is not read again
//! ([`server_file::untouched`]: one `stat`).
//! [`FileRing`] applies this to a [`Ring`]; the ring cache
//! ([`crate::ring_cache`]) to the rings built from files, and the compat
//! `ketama_roll` to its continuums.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, TryLockError};
use std::time::SystemTime;

use crate::parser::ParseMode;
use crate::server_file::{self, FileStamp, Look};
use crate::{Error, Ring, RingConfig, ServerSpec};

/// A value built from a good state of a server file.
#[derive(Debug)]
pub struct LastGood<T> {
    /// The file state the value was built from.
    pub stamp: FileStamp,
    /// The value.
    pub value: Arc<T>,
}

impl<T> Clone for LastGood<T> {
    fn clone(&self) -> Self {
        LastGood {
            stamp: self.stamp.clone(),
            value: Arc::clone(&self.value),
        }
    }
}

/// What a look at a followed file found.
#[derive(Debug)]
pub enum Refresh<T> {
    /// The file is as it was (same inode, size, mtime and content): the
    /// last good value, with the stamp of this look.
    Unchanged(LastGood<T>),
    /// The file is new or changed, and a value was built from it.
    Changed(LastGood<T>),
    /// The file was not read now: it is being written in place (it changed
    /// less than [`SETTLE_TIME`](server_file::SETTLE_TIME) ago, or while it
    /// was read), or another thread is looking at it. The last good value
    /// answers meanwhile; nothing is wrong (yet).
    Pending(LastGood<T>),
    /// The file changed but could not be read, parsed or built: the last
    /// good value stands, and `problem` says what went wrong.
    KeptLastGood {
        /// The last good value.
        last_good: LastGood<T>,
        /// Why the file's current state was not taken.
        problem: Error,
    },
}

impl<T> Refresh<T> {
    /// The value to answer with now.
    pub fn current(&self) -> &LastGood<T> {
        match self {
            Refresh::Unchanged(good) | Refresh::Changed(good) | Refresh::Pending(good) => good,
            Refresh::KeptLastGood { last_good, .. } => last_good,
        }
    }
}

/// Looks at the server file at `path` again and builds a new value with
/// `build` (given the servers and the file state) when its state differs
/// from `last`. Without a `last`, this is a first read: it waits for an
/// in-place change to settle ([`server_file::load`]) and fails when the
/// file is not good. With one, it never waits ([`server_file::look`]):
/// a file that has not settled is [`Refresh::Pending`], a problem is
/// [`Refresh::KeptLastGood`].
pub fn refresh<T>(
    path: &Path,
    mode: ParseMode,
    last: Option<&LastGood<T>>,
    build: impl FnOnce(Vec<ServerSpec>, &FileStamp) -> Result<T, Error>,
) -> Result<Refresh<T>, Error> {
    let Some(last) = last else {
        let file = server_file::load(path, mode)?;
        return Ok(Refresh::Changed(LastGood {
            value: Arc::new(build(file.servers, &file.stamp)?),
            stamp: file.stamp,
        }));
    };
    Ok(refresh_since(path, mode, last, build))
}

/// [`refresh`] with a last good value: never waits, never fails.
fn refresh_since<T>(
    path: &Path,
    mode: ParseMode,
    last: &LastGood<T>,
    build: impl FnOnce(Vec<ServerSpec>, &FileStamp) -> Result<T, Error>,
) -> Refresh<T> {
    let built = server_file::look(path, mode, &last.stamp, SystemTime::now()).and_then(|look| {
        let file = match look {
            Look::Unsettled => return Ok(Refresh::Pending(last.clone())),
            Look::Read(file) if file.stamp == last.stamp => {
                return Ok(Refresh::Unchanged(LastGood {
                    stamp: file.stamp,
                    value: Arc::clone(&last.value),
                }));
            }
            Look::Read(file) => file,
        };
        Ok(Refresh::Changed(LastGood {
            value: Arc::new(build(file.servers, &file.stamp)?),
            stamp: file.stamp,
        }))
    });
    built.unwrap_or_else(|problem| Refresh::KeptLastGood {
        last_good: last.clone(),
        problem,
    })
}

/// A server file followed by many threads, with the value built from its
/// last good state. A file untouched since it was read settled is answered
/// from its stamp ([`server_file::untouched`]); otherwise one thread at a
/// time looks at the file ([`refresh`]) and the others answer with the last
/// good value meanwhile, so no call waits for another, nor for a writer.
#[derive(Debug)]
pub struct Followed<T> {
    path: PathBuf,
    mode: ParseMode,
    /// Held only to copy or replace the last good value (readers do not
    /// exclude each other; only the looking thread replaces it).
    last_good: RwLock<LastGood<T>>,
    /// Held by the thread looking at the file.
    looking: Mutex<()>,
    /// Times the file was opened to be read (see [`Followed::reads`]).
    reads: AtomicU64,
}

impl<T> Followed<T> {
    /// Reads the file and builds the first value with `build`; fails when
    /// the file is not good now. This first read waits for an in-place
    /// change to settle ([`server_file::load`]).
    pub fn open(
        path: &Path,
        mode: ParseMode,
        build: impl FnOnce(Vec<ServerSpec>, &FileStamp) -> Result<T, Error>,
    ) -> Result<Followed<T>, Error> {
        let first = refresh(path, mode, None, build)?;
        Ok(Followed {
            path: path.to_path_buf(),
            mode,
            last_good: RwLock::new(first.current().clone()),
            looking: Mutex::new(()),
            reads: AtomicU64::new(1),
        })
    }

    /// Looks at the file again (see [`refresh`]) and keeps a new good value
    /// built with `build`. A file untouched since it was read settled is
    /// [`Refresh::Unchanged`] at once, unread; while another thread is
    /// looking, answers [`Refresh::Pending`] at once without looking. Never
    /// waits.
    pub fn look(
        &self,
        build: impl FnOnce(Vec<ServerSpec>, &FileStamp) -> Result<T, Error>,
    ) -> Refresh<T> {
        let last = self.last_good();
        if server_file::untouched(&self.path, &last.stamp) {
            return Refresh::Unchanged(last);
        }
        let _looking = match self.looking.try_lock() {
            Ok(guard) => guard,
            // A build that panicked while looking left nothing half done.
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return Refresh::Pending(self.last_good()),
        };
        self.reads.fetch_add(1, Ordering::Relaxed);
        // Another thread may have replaced it since the copy above.
        let last = self.last_good();
        let refreshed = refresh_since(&self.path, self.mode, &last, build);
        let keep = match &refreshed {
            Refresh::Changed(good) => Some(good),
            // The same bytes, read now: its stamp lets later looks skip the read.
            Refresh::Unchanged(good)
                if (good.stamp.ctime, good.stamp.settled)
                    != (last.stamp.ctime, last.stamp.settled) =>
            {
                Some(good)
            }
            _ => None,
        };
        if let Some(good) = keep {
            *self
                .last_good
                .write()
                .unwrap_or_else(PoisonError::into_inner) = good.clone();
        }
        refreshed
    }

    /// How many times the file was opened to be read: the first read, and
    /// each look its stamp did not answer (a look that found the file
    /// unsettled included). A look answered from the stamp, or left to
    /// another thread, reads nothing.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// The last good value, as the last look left it.
    pub fn last_good(&self) -> LastGood<T> {
        let last_good = self
            .last_good
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        last_good.clone()
    }

    /// The file followed.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

crate::named_enum! {
    /// What [`FileRing::current`] does when the file changed but cannot be
    /// used (`ketama_reload_policy`).
    pub enum ReloadPolicy: "ketama_reload_policy" {
        /// Answer with the last good ring and report the problem (default).
        KeepLastGood = 0, KETAMA_RELOAD_KEEP_LAST_GOOD, "keep-last-good", [];
        /// Fail with the problem (the last good ring is still kept for later).
        Strict = 1, KETAMA_RELOAD_STRICT, "strict", [];
    }
}

// Written out: named_enum! derives only what every declared enum has.
#[allow(clippy::derivable_impls)]
impl Default for ReloadPolicy {
    fn default() -> Self {
        ReloadPolicy::KeepLastGood
    }
}

/// A ring that follows its server file. Safe to share between threads; no
/// call waits for another or for a writer once the file has been read
/// (see the module docs).
#[derive(Debug)]
pub struct FileRing {
    config: RingConfig,
    policy: ReloadPolicy,
    followed: Followed<Ring>,
}

/// The ring to use now, and why the file's current state was not taken
/// (when it was not).
#[derive(Debug, Clone)]
pub struct Current {
    /// The ring.
    pub ring: Arc<Ring>,
    /// `Some` when the ring is the last good one and the file is not.
    pub problem: Option<Error>,
}

impl FileRing {
    /// Reads the file and builds the first ring; fails when the file is not
    /// good now. This first read waits for an in-place change to settle.
    pub fn open(
        path: &Path,
        config: RingConfig,
        mode: ParseMode,
        policy: ReloadPolicy,
    ) -> Result<FileRing, Error> {
        let mode = mode.for_flavour(config.flavour);
        Ok(FileRing {
            config,
            policy,
            followed: Followed::open(path, mode, |servers, _| Ring::new(servers, config))?,
        })
    }

    /// The ring for the file as it is now: rebuilt when the file changed,
    /// the last good one while a change made in place settles or another
    /// thread looks at the file, the last good one with the problem when
    /// the change cannot be used (or under [`ReloadPolicy::Strict`] the
    /// problem as an error). Never waits.
    pub fn current(&self) -> Result<Current, Error> {
        let config = self.config;
        match self.followed.look(|servers, _| Ring::new(servers, config)) {
            Refresh::Unchanged(good) | Refresh::Changed(good) | Refresh::Pending(good) => {
                Ok(Current {
                    ring: good.value,
                    problem: None,
                })
            }
            Refresh::KeptLastGood { problem, .. } if self.policy == ReloadPolicy::Strict => {
                Err(problem)
            }
            Refresh::KeptLastGood { last_good, problem } => Ok(Current {
                ring: last_good.value,
                problem: Some(problem),
            }),
        }
    }

    /// The file followed.
    pub fn path(&self) -> &Path {
        self.followed.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::ScratchDir;
    use std::time::Duration;

    /// Rewrites `path` in place (same inode) with `content`, modified at `mtime`.
    fn rewrite(path: &Path, content: &str, mtime: SystemTime) {
        std::fs::write(path, content).unwrap();
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }

    fn an_hour(from: SystemTime, later: bool) -> SystemTime {
        let hour = Duration::from_secs(3600);
        if later { from + hour } else { from - hour }
    }

    fn server_count(servers: Vec<ServerSpec>, _: &FileStamp) -> Result<usize, Error> {
        Ok(servers.len())
    }

    const GOOD: &str = "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n";
    const BROKEN: &str = "10.0.0.1:11211\t100\n10.0.0.2:11211\tl00\n";
    const GROWN: &str = "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n";

    #[test]
    fn an_in_place_change_is_not_read_until_it_settles() {
        let dir = ScratchDir::new("file-ring-settle");
        let path = dir.join("servers");
        rewrite(&path, GOOD, an_hour(SystemTime::now(), false));
        let ring = FileRing::open(
            &path,
            RingConfig::default(),
            ParseMode::Strict,
            ReloadPolicy::Strict,
        )
        .unwrap();
        let first = ring.current().unwrap().ring;
        // A broken rewrite, modified after now by the real clock (it never
        // settles during the test): not read, so neither its problem nor a
        // wait; the last good ring answers.
        rewrite(&path, BROKEN, an_hour(SystemTime::now(), true));
        let pending = ring.current().unwrap();
        assert!(Arc::ptr_eq(&pending.ring, &first));
        assert!(pending.problem.is_none());
        // Settled: read, and refused (strict policy).
        rewrite(&path, BROKEN, an_hour(SystemTime::now(), false));
        let error = ring.current().unwrap_err().to_string();
        assert!(error.starts_with("Invalid weight 'l00'"), "{error}");
        // Settled and good: taken.
        rewrite(&path, GROWN, an_hour(SystemTime::now(), false));
        assert_eq!(ring.current().unwrap().ring.servers().len(), 3);
    }

    #[test]
    fn while_one_thread_looks_at_the_file_the_others_answer_without_looking() {
        let dir = ScratchDir::new("file-ring-looking");
        let path = dir.join("servers");
        rewrite(&path, GOOD, an_hour(SystemTime::now(), false));
        let followed = Followed::open(&path, ParseMode::Strict, server_count).unwrap();
        rewrite(&path, GROWN, an_hour(SystemTime::now(), false));
        let looking = followed.looking.lock().unwrap();
        let refreshed = followed.look(|_, _| panic!("looked at the file"));
        let Refresh::Pending(good) = refreshed else {
            panic!("{refreshed:?}");
        };
        assert_eq!(*good.value, 2);
        drop(looking);
        let refreshed = followed.look(server_count);
        assert!(matches!(&refreshed, Refresh::Changed(good) if *good.value == 3));
        assert_eq!(*followed.last_good().value, 3);
        assert!(matches!(followed.look(server_count), Refresh::Unchanged(_)));
    }

    #[test]
    fn a_build_that_panics_while_looking_does_not_stop_later_looks() {
        let dir = ScratchDir::new("file-ring-panic");
        let path = dir.join("servers");
        rewrite(&path, GOOD, an_hour(SystemTime::now(), false));
        let followed = Followed::open(&path, ParseMode::Strict, server_count).unwrap();
        rewrite(&path, GROWN, an_hour(SystemTime::now(), false));
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            followed.look(|_, _| panic!("a bug in a build"))
        }));
        assert!(panicked.is_err());
        assert!(followed.looking.is_poisoned());
        assert_eq!(*followed.last_good().value, 2);
        assert!(matches!(followed.look(server_count), Refresh::Changed(good) if *good.value == 3));
    }
}
