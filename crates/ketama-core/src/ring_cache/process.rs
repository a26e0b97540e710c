//! The process's ring cache: the one every constructor of the C ABI and
//! the Python module shares, its bounds and its sharing between processes
//! read from the environment at first use and set at run time.

use std::sync::OnceLock;

use super::{Bounds, RingCache, Sharing, shared};

/// The bounds of the process's cache unless set: 64 rings, 256 MiB (a
/// libketama ring of 10,000 servers holds 1.6 M points, 13 MB).
pub const DEFAULT_BOUNDS: Bounds = Bounds {
    entries: 64,
    weight: 256 << 20,
};

/// The process's cache, its bounds read from the environment at first use.
pub fn global() -> &'static RingCache {
    static CACHE: OnceLock<RingCache> = OnceLock::new();
    CACHE.get_or_init(|| {
        let var = |name: &str| std::env::var(name).ok();
        let cache = RingCache::new(bounds_from_env(var));
        cache.set_sharing(Sharing::from_env(var), shared::DEFAULT_THRESHOLD);
        cache
    })
}

/// Sets whether, and where, the process's cache ([`global`]) shares large
/// continua with other processes ([`shared`]); overrides
/// `KETAMA_SHARED_RINGS`. Rings built before keep what they have.
pub fn set_sharing(sharing: Sharing) {
    global().set_sharing(sharing, shared::DEFAULT_THRESHOLD);
}

/// Changes the bounds of the process's cache ([`global`]).
pub fn set_bounds(bounds: Bounds) {
    global().set_bounds(bounds);
}

/// [`DEFAULT_BOUNDS`] with what `KETAMA_RING_CACHE_RINGS` and
/// `KETAMA_RING_CACHE_BYTES` say (`var` reads a variable); a value that is
/// not a whole number is ignored, with a line on standard error naming it.
fn bounds_from_env(var: impl Fn(&str) -> Option<String>) -> Bounds {
    let read = |name: &str, default: usize| match var(name) {
        None => default,
        Some(text) => text.trim().parse().unwrap_or_else(|_| {
            eprintln!(
                "libketama: {name}='{}' is not a whole number; the default {default} is used",
                crate::escape::escape_bytes(text.as_bytes())
            );
            default
        }),
    };
    Bounds {
        entries: read("KETAMA_RING_CACHE_RINGS", DEFAULT_BOUNDS.entries),
        weight: read("KETAMA_RING_CACHE_BYTES", DEFAULT_BOUNDS.weight),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_come_from_the_environment_or_the_defaults() {
        let env = |rings: Option<&str>, bytes: Option<&str>| {
            bounds_from_env(|name| match name {
                "KETAMA_RING_CACHE_RINGS" => rings.map(str::to_string),
                "KETAMA_RING_CACHE_BYTES" => bytes.map(str::to_string),
                other => panic!("{other}"),
            })
        };
        assert_eq!(env(None, None), DEFAULT_BOUNDS);
        assert_eq!(
            env(Some("0"), Some(" 1048576 ")),
            Bounds {
                entries: 0,
                weight: 1 << 20
            }
        );
        assert_eq!(env(Some("many"), Some("-1")), DEFAULT_BOUNDS);
    }
}
