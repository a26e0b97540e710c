//! Key hashes by name, for each flavour: the hashes its client offers,
//! the client's own spellings of them, and the checks that refuse a hash
//! the client does not have.

use super::Flavour;
use crate::Error;
use crate::hash::HashAlgorithm;

impl Flavour {
    /// The key hash the flavour's peer uses unless told otherwise.
    pub fn default_hash(self) -> HashAlgorithm {
        self.hashes()[0]
    }

    /// The key hashes the flavour's peer offers, its default first.
    pub fn hashes(self) -> &'static [HashAlgorithm] {
        self.placement().hashes
    }

    /// The spellings of key hashes that mean something particular to this
    /// flavour's peer (twemproxy `crc32` is the 15-bit crc; python-memcached
    /// `crc32` is binascii's; spymemcached `fnv1_64` runs over UTF-16).
    pub fn hash_spellings(self) -> &'static [(&'static str, HashAlgorithm)] {
        self.placement().hash_spellings
    }

    /// Every spelling of a key hash this flavour accepts: its peer's own
    /// ([`Flavour::hash_spellings`]), then the canonical names and aliases
    /// of the hashes it offers that no peer spelling shadows.
    pub fn hash_names(self) -> Vec<&'static str> {
        use crate::registry::Named;
        let mut names: Vec<&'static str> = self.hash_spellings().iter().map(|s| s.0).collect();
        for hash in self.hashes() {
            for name in std::iter::once(hash.name()).chain(hash.aliases().iter().copied()) {
                if self.hash_from_name(name) == Some(*hash) && !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Looks a key hash up by the flavour's peer's own spelling
    /// ([`Flavour::hash_spellings`]; a `_hash` suffix and `-`/`_` do not
    /// matter), falling back to the canonical names and aliases. `None`
    /// when the peer has no such hash.
    pub fn hash_from_name(self, name: &str) -> Option<HashAlgorithm> {
        let lower = name.to_ascii_lowercase().replace('-', "_");
        let lower = lower.strip_suffix("_hash").unwrap_or(&lower);
        let peer = self
            .hash_spellings()
            .iter()
            .find(|(spelling, _)| *spelling == lower)
            .map(|(_, hash)| *hash);
        peer.or_else(|| HashAlgorithm::from_name(lower))
            .filter(|h| self.hashes().contains(h))
    }

    /// [`Flavour::hash_from_name`] for a caller's argument: `"default"` (any
    /// case) is `None`, the flavour's own hash; a name the peer does not
    /// offer is an error naming the flavour and the hashes it offers.
    pub fn hash_named(self, name: &str) -> Result<Option<HashAlgorithm>, Error> {
        if name.eq_ignore_ascii_case("default") {
            return Ok(None);
        }
        self.hash_from_name(name).map(Some).ok_or_else(|| {
            let offered: Vec<&str> = self.hashes().iter().map(|h| h.name()).collect();
            Error::InvalidArgument(format!(
                "flavour {} has no key hash {name:?} (it offers: {})",
                self.name(),
                offered.join(", ")
            ))
        })
    }

    /// Fails, naming the flavour and what it offers, when its peer has no `hash`.
    pub fn check_hash(self, hash: HashAlgorithm) -> Result<(), Error> {
        if self.hashes().contains(&hash) {
            return Ok(());
        }
        let offered: Vec<&str> = self.hashes().iter().map(|h| h.name()).collect();
        Err(Error::InvalidArgument(format!(
            "flavour {} has no key hash {} (it offers: {})",
            self.name(),
            hash.name(),
            offered.join(", ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use HashAlgorithm as H;

    #[test]
    fn peer_spellings_of_hashes() {
        assert_eq!(Flavour::Twemproxy.hash_from_name("crc32"), Some(H::Crc));
        assert_eq!(Flavour::Twemproxy.hash_from_name("crc32a"), Some(H::Crc32));
        assert_eq!(
            Flavour::PeclMemcache.hash_from_name("crc32"),
            Some(H::Crc32)
        );
        assert_eq!(
            Flavour::PeclMemcache.hash_from_name("fnv"),
            Some(H::Fnv1a32)
        );
        assert_eq!(
            Flavour::Spymemcached.hash_from_name("FNV1_64_HASH"),
            Some(H::SpyFnv1_64)
        );
        assert_eq!(
            Flavour::Spymemcached.hash_from_name("native"),
            Some(H::SpyNative)
        );
        assert_eq!(
            Flavour::Libmemcached.hash_from_name("fnv1_64"),
            Some(H::Fnv1_64)
        );
        assert_eq!(Flavour::Libmemcached.hash_from_name("crc"), Some(H::Crc));
        assert_eq!(Flavour::PeclMemcache.hash_from_name("md5"), None);
        assert_eq!(
            Flavour::PythonMemcached.hash_from_name("crc32"),
            Some(H::Crc32)
        );
        assert_eq!(Flavour::PythonMemcached.default_hash(), H::Cmemcache);
        assert_eq!(
            Flavour::Pymemcache.hash_from_name("murmur3_32"),
            Some(H::Murmur3Seed0)
        );
        assert_eq!(Flavour::CacheMemcached.hash_from_name("murmur3"), None);
        assert_eq!(Flavour::Twemproxy.default_hash(), H::Fnv1a64);
        assert_eq!(
            Flavour::LibmemcachedConsistent.default_hash(),
            H::OneAtATime
        );
        let err = Flavour::Libketama
            .check_hash(H::Crc)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "flavour libketama has no key hash crc (it offers: md5)"
        );
    }
}
