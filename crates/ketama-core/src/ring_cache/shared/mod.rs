//! Rings shared between processes: the continuum a large ring rolls is
//! published once as an image file in a directory of the user's, and every
//! other process of the user that builds the same ring maps that file
//! read-only instead of rolling (PHP-FPM's workers, say, each of which
//! would otherwise hold and roll its own copy: 13 MB and 100-270 ms for a
//! 10,000-server libketama ring).
//!
//! * **What is looked for**: a continuum ring of a list long enough to
//!   weigh the threshold at libketama's 160 points per server
//!   ([`LOOKUP_MIN_SERVERS`] at the default), by the exact input of its
//!   build (`key.rs`: the server list as parsed and the [`RingConfig`];
//!   never file stamps). Found and valid (`image.rs` checks everything and
//!   trusts nothing), its points and owners are the mapped pages
//!   ([`crate::words`]), and the process does not roll.
//! * **What is published**: a rolled continuum whose points and owners
//!   weigh at least the threshold ([`DEFAULT_THRESHOLD`], 1 MiB: pools of
//!   some 1,000 servers and more), written whole and renamed into place
//!   (`dir.rs`); an image refused on attach is replaced so. The process
//!   that rolled then maps the image too, so that no process keeps a
//!   private copy. Small rings never touch the filesystem.
//! * **Where**: `/dev/shm/ketama-<euid>` (tmpfs: the pages are the page
//!   cache every process maps, nothing reaches a disk), or the directory
//!   `KETAMA_SHARED_RINGS` names (read at the first use; `off`, `0`, `no`
//!   or `false` turns sharing off), or [`set_sharing`](super::set_sharing).
//!   A directory that is not the user's own, or that group or others may
//!   write, is not used (`dir.rs`): rings are then built in each
//!   process, and the reason is said once on standard error. Sharing never
//!   makes a build fail.
//! * **Bounded**: publishing removes images unused (attached) for a day,
//!   then the least recently used beyond 64 images or 4 GiB (`dir.rs`).
//! * **Mirrors**: an array derived from a large ring (the compat roll's
//!   `mcs` records) is published and mapped the same way, copy-on-write
//!   (`mirror.rs`).

mod dir;
mod image;
mod key;
mod mirror;

pub use mirror::Mirror;

use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::continuum::Continuum;
use crate::placement::GeneratedPoints;
use crate::{Error, Ring, RingConfig, ServerSpec};

/// Rings whose points and owners weigh at least this many bytes are
/// published (1 MiB: a libketama pool of 820 servers).
pub const DEFAULT_THRESHOLD: usize = 1 << 20;

/// Bytes of points and owners per server by which a list is judged large
/// enough to look for its image (libketama's 160 points of 8 bytes).
const LOOKUP_BYTES_PER_SERVER: usize = 160 * 8;

/// The fewest servers whose ring is looked for at the default threshold.
pub const LOOKUP_MIN_SERVERS: usize = DEFAULT_THRESHOLD.div_ceil(LOOKUP_BYTES_PER_SERVER);

/// Whether, and where, rings are shared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sharing {
    /// Every process builds its own rings.
    Off,
    /// Images live in this directory.
    Dir(PathBuf),
}

impl Sharing {
    /// The default: `/dev/shm/ketama-<euid>`.
    pub fn default_dir() -> Sharing {
        Sharing::Dir(PathBuf::from(format!("/dev/shm/ketama-{}", dir::euid())))
    }

    /// What the text of `KETAMA_SHARED_RINGS` says: `off`, `0`, `no` or
    /// `false` (any case) is [`Sharing::Off`]; empty, `on`, `1`, `yes` or
    /// `true` the default directory; an absolute path that directory.
    /// Anything else is refused, saying why.
    pub fn parse(text: &str) -> Result<Sharing, String> {
        let word = text.trim().to_ascii_lowercase();
        match word.as_str() {
            "off" | "0" | "no" | "false" => Ok(Sharing::Off),
            "" | "on" | "1" | "yes" | "true" => Ok(Sharing::default_dir()),
            _ if text.starts_with('/') => Ok(Sharing::Dir(PathBuf::from(text))),
            _ => Err(format!(
                "'{}' is neither off/on nor an absolute directory path",
                crate::escape::escape_bytes(text.as_bytes())
            )),
        }
    }

    /// What `var("KETAMA_SHARED_RINGS")` says ([`Sharing::parse`]); unset,
    /// the default directory; refused, off, with a line on standard error.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Sharing {
        if cfg!(miri) {
            return Sharing::Off;
        }
        match var("KETAMA_SHARED_RINGS") {
            None => Sharing::default_dir(),
            Some(text) => Sharing::parse(&text).unwrap_or_else(|why| {
                eprintln!("libketama: KETAMA_SHARED_RINGS={why}; rings are not shared");
                Sharing::Off
            }),
        }
    }
}

/// The sharing of one ring cache: its setting and whether a reason not to
/// share was said already.
#[derive(Debug)]
pub(super) struct SharedRings {
    setting: RwLock<(Sharing, usize)>,
    warned: AtomicBool,
}

/// Where a built ring's continuum came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Origin {
    /// Mapped from an image another process published.
    Attached,
    /// Built here.
    Rolled,
}

impl SharedRings {
    /// Sharing off.
    pub(super) const fn off() -> SharedRings {
        SharedRings {
            setting: RwLock::new((Sharing::Off, DEFAULT_THRESHOLD)),
            warned: AtomicBool::new(false),
        }
    }

    /// Shares through `sharing`, publishing rings whose points and owners
    /// weigh at least `threshold` bytes.
    pub(super) fn set(&self, sharing: Sharing, threshold: usize) {
        *self.setting.write().unwrap_or_else(|e| e.into_inner()) = (sharing, threshold);
        self.warned.store(false, Ordering::Relaxed);
    }

    /// The setting in force.
    pub(super) fn get(&self) -> (Sharing, usize) {
        self.setting
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Says `why` on standard error, the first time only.
    fn warn(&self, why: &str) {
        if !self.warned.swap(true, Ordering::Relaxed) {
            eprintln!("libketama: shared rings: {why}; rings are built in each process");
        }
    }

    /// The ring of `servers`, as [`Ring::new`] builds it, its continuum
    /// mapped from a shared image when there is one (see the module docs).
    pub(super) fn build(
        &self,
        servers: Vec<ServerSpec>,
        config: RingConfig,
    ) -> Result<(Ring, Origin), Error> {
        let (sharing, threshold) = self.get();
        let dir = match sharing {
            Sharing::Dir(dir)
                if config.flavour.is_continuum()
                    && servers.len().saturating_mul(LOOKUP_BYTES_PER_SERVER) >= threshold =>
            {
                dir
            }
            _ => return Ring::new(servers, config).map(|ring| (ring, Origin::Rolled)),
        };
        let key_hash = Ring::check(&servers, config)?;
        // What the flavour searches with, learnt from one server's points;
        // a flavour that refuses them is built as Ring::new builds it.
        let Ok(rules) = config
            .flavour
            .generate(&servers[..1], key_hash, &config.options)
        else {
            return Ring::new(servers, config).map(|ring| (ring, Origin::Rolled));
        };
        if let Err(why) = dir::usable(&dir) {
            self.warn(&why);
            return Ring::new(servers, config).map(|ring| (ring, Origin::Rolled));
        }
        let key = key::key_bytes(&servers, config);
        let name = key::file_name(&key);
        let path = dir.join(&name);
        if let Ok(continuum) = attach(&path, &key, servers.len(), &rules) {
            let ring = Ring::with_continuum(
                servers,
                config,
                key_hash,
                continuum,
                rules.search,
                rules.prepare,
            )?;
            return Ok((ring, Origin::Attached));
        }
        let generated = config
            .flavour
            .generate(&servers, key_hash, &config.options)?;
        let same_rules = generated.ties == rules.ties
            && generated.search == rules.search
            && generated.prepare.map(|p| p.name) == rules.prepare.map(|p| p.name);
        let mut continuum = Continuum::new(generated.points, generated.ties);
        if same_rules && continuum.len().saturating_mul(8) >= threshold {
            let image = image::encode(&key, servers.len(), &continuum);
            match dir::publish(&dir, &name, &image) {
                Ok(path) => {
                    dir::sweep(&dir, &path, dir::MAX_IMAGES, dir::MAX_BYTES);
                    // The image just written, mapped: no private copy is kept.
                    if let Ok(mapped) = attach(&path, &key, servers.len(), &rules) {
                        continuum = mapped;
                    }
                }
                Err(e) => self.warn(&format!("{} cannot be written: {e}", path.display())),
            }
        }
        let ring = Ring::with_continuum(
            servers,
            config,
            key_hash,
            continuum,
            generated.search,
            generated.prepare,
        )?;
        Ok((ring, Origin::Rolled))
    }
}

/// The continuum of the image at `path` when it is the image of `key` for
/// `servers` servers with the ties of `rules` (marked used); else why not.
fn attach(
    path: &Path,
    key: &[u8],
    servers: usize,
    rules: &GeneratedPoints,
) -> Result<Continuum, String> {
    let (file, size) = dir::open_image(path)?.ok_or("no image")?;
    let continuum = image::attach(&file, size, key, servers, rules.ties)?;
    dir::touch(&file);
    Ok(continuum)
}

#[cfg(test)]
mod tests;
