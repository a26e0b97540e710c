//! Following a server file: re-read it when it changes, and keep the last
//! good result when a change cannot be read or parsed.
//!
//! An operator saving the file in place, a deploy script writing it in
//! several steps, or a typo must not take a pool down: [`refresh`] returns
//! the value built from the last good state of the file, with the problem,
//! until the file is good again. A file that was never good still fails.
//! [`FileRing`] applies this to a [`Ring`]; the compat `ketama_roll` applies
//! it to its continuums.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::parser::ParseMode;
use crate::server_file::{self, FileStamp};
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
    /// The file is as it was (same inode, size, mtime and content).
    Unchanged(LastGood<T>),
    /// The file is new or changed, and a value was built from it.
    Changed(LastGood<T>),
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
            Refresh::Unchanged(good) | Refresh::Changed(good) => good,
            Refresh::KeptLastGood { last_good, .. } => last_good,
        }
    }
}

/// Looks at the server file at `path` again: reads it (see
/// [`server_file::load`]), and builds a new value with `build` (given the
/// servers and the file state) when its state differs from `last`. Fails only when there is no `last` to keep.
pub fn refresh<T>(
    path: &Path,
    mode: ParseMode,
    last: Option<&LastGood<T>>,
    build: impl FnOnce(Vec<ServerSpec>, &FileStamp) -> Result<T, Error>,
) -> Result<Refresh<T>, Error> {
    let built = server_file::load_since(path, mode, last.map(|l| &l.stamp)).and_then(|file| {
        if let Some(last) = last.filter(|last| last.stamp == file.stamp) {
            return Ok(Refresh::Unchanged(last.clone()));
        }
        Ok(Refresh::Changed(LastGood {
            value: Arc::new(build(file.servers, &file.stamp)?),
            stamp: file.stamp,
        }))
    });
    match (built, last) {
        (Ok(refresh), _) => Ok(refresh),
        (Err(problem), Some(last)) => Ok(Refresh::KeptLastGood {
            last_good: last.clone(),
            problem,
        }),
        (Err(problem), None) => Err(problem),
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

/// A ring that follows its server file.
#[derive(Debug)]
pub struct FileRing {
    path: PathBuf,
    config: RingConfig,
    mode: ParseMode,
    policy: ReloadPolicy,
    last_good: Mutex<LastGood<Ring>>,
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
    /// good now.
    pub fn open(
        path: &Path,
        config: RingConfig,
        mode: ParseMode,
        policy: ReloadPolicy,
    ) -> Result<FileRing, Error> {
        let mode = mode.for_flavour(config.flavour);
        let first = refresh(path, mode, None, |servers, _| Ring::new(servers, config))?;
        Ok(FileRing {
            path: path.to_path_buf(),
            config,
            mode,
            policy,
            last_good: Mutex::new(first.current().clone()),
        })
    }

    /// The ring for the file as it is now: rebuilt when the file changed,
    /// the last good one (with the problem) when the change cannot be used,
    /// or under [`ReloadPolicy::Strict`] the problem as an error.
    pub fn current(&self) -> Result<Current, Error> {
        let mut last_good = self
            .last_good
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let config = self.config;
        match refresh(&self.path, self.mode, Some(&last_good), |servers, _| {
            Ring::new(servers, config)
        })? {
            Refresh::Unchanged(good) => Ok(Current {
                ring: good.value,
                problem: None,
            }),
            Refresh::Changed(good) => {
                let ring = Arc::clone(&good.value);
                *last_good = good;
                Ok(Current {
                    ring,
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
        &self.path
    }
}
