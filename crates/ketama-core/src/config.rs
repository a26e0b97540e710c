//! A [`RingConfig`] from what a front end is given: a flavour's name or id,
//! a key hash's name (in the flavour's peer's spelling) or id, and the
//! placement options as text. The C ABI, the Python module and the CLI all
//! build their configurations here, so a name means the same everywhere and
//! a bad one gets the same message: an unknown flavour lists the known ones,
//! a hash the flavour's peer lacks lists what it offers, and `default` (any
//! case; C's `KETAMA_HASH_DEFAULT`) is the flavour's own hash.

use crate::flavour::{Flavour, Options};
use crate::hash::HashAlgorithm;
use crate::registry::Named;
use crate::{Error, RingConfig};

impl RingConfig {
    /// The configuration `flavour` (a name or alias: `"php-memcached"`),
    /// `hash` (the peer's spelling, or `"default"`; `None` is the default)
    /// and `options` (`"points=100,hash_tag={}"`; `None` is none) name.
    pub fn from_names(
        flavour: &str,
        hash: Option<&str>,
        options: Option<&str>,
    ) -> Result<RingConfig, Error> {
        let flavour = Flavour::named_variant(flavour)?;
        RingConfig::named(flavour, hash, parse_options(options)?)
    }

    /// [`RingConfig::from_names`] for C ids: `flavour` a `ketama_flavour`,
    /// `hash` a `ketama_hash` (`KETAMA_HASH_DEFAULT`: the flavour's own).
    pub fn from_ids(flavour: u32, hash: u32, options: Option<&str>) -> Result<RingConfig, Error> {
        RingConfig::checked(
            Flavour::with_id(flavour)?,
            HashAlgorithm::with_id_or_extra(hash)?,
            parse_options(options)?,
        )
    }

    /// [`RingConfig::from_names`] for a flavour already resolved (Python
    /// takes names and ids) and options already read (the CLI's `--points`
    /// and `--hash-tag` over `--options`).
    pub fn named(
        flavour: Flavour,
        hash: Option<&str>,
        options: Options,
    ) -> Result<RingConfig, Error> {
        let hash = match hash {
            Some(name) => flavour.hash_named(name)?,
            None => None,
        };
        RingConfig::checked(flavour, hash, options)
    }

    /// A configuration checked as [`Ring::new`](crate::Ring::new) checks
    /// it: the hash is one the flavour's peer offers, the options are ones
    /// it takes, in range.
    pub fn checked(
        flavour: Flavour,
        hash: Option<HashAlgorithm>,
        options: Options,
    ) -> Result<RingConfig, Error> {
        if let Some(hash) = hash {
            flavour.check_hash(hash)?;
        }
        flavour.check_options(&options)?;
        Ok(RingConfig {
            flavour,
            hash,
            options,
        })
    }
}

fn parse_options(text: Option<&str>) -> Result<Options, Error> {
    text.map_or_else(|| Ok(Options::default()), Options::parse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ids_and_default_give_one_configuration() {
        let by_name = RingConfig::from_names("PHP_Memcached", Some("md5"), None).unwrap();
        assert_eq!(by_name.flavour, Flavour::Libmemcached);
        assert_eq!(by_name.hash, Some(HashAlgorithm::Md5));
        let by_id = RingConfig::from_ids(Flavour::Libmemcached.id(), HashAlgorithm::Md5.id(), None);
        assert_eq!(by_id.unwrap(), by_name);
        for default in ["default", "DEFAULT", "Default"] {
            for &flavour in Flavour::ALL {
                let config = RingConfig::from_names(flavour.name(), Some(default), None).unwrap();
                assert_eq!(
                    config,
                    RingConfig::flavour(flavour),
                    "{flavour:?} {default}"
                );
                assert_eq!(RingConfig::from_ids(flavour.id(), 0, None).unwrap(), config);
            }
        }
        let twemproxy = RingConfig::from_names("nutcracker", Some("crc32"), Some("hash_tag={}"));
        let twemproxy = twemproxy.unwrap();
        assert_eq!(twemproxy.hash, Some(HashAlgorithm::Crc));
        assert_eq!(twemproxy.options.hash_tag, Some(*b"{}"));
    }

    #[test]
    fn bad_names_and_ids_say_what_is_known() {
        let err = |result: Result<RingConfig, Error>| result.unwrap_err().to_string();
        let flavour = err(RingConfig::from_names("nope", None, None));
        assert!(
            flavour.starts_with("unknown flavour \"nope\" (known: libketama, spymemcached,"),
            "{flavour}"
        );
        assert_eq!(
            err(RingConfig::from_names("pecl", Some("md5"), None)),
            "flavour pecl-memcache has no key hash \"md5\" (it offers: crc32, fnv1a_32)"
        );
        assert_eq!(
            err(RingConfig::from_ids(
                Flavour::PeclMemcache.id(),
                HashAlgorithm::Md5.id(),
                None
            )),
            "flavour pecl-memcache has no key hash md5 (it offers: crc32, fnv1a_32)"
        );
        assert_eq!(
            err(RingConfig::from_ids(4000, 0, None)),
            "unknown ketama_flavour id 4000"
        );
        assert_eq!(
            err(RingConfig::from_ids(0, 4000, None)),
            "unknown ketama_hash id 4000"
        );
        assert!(
            err(RingConfig::from_names("libketama", None, Some("points=3")))
                .contains("has a fixed number of points per server")
        );
        assert!(
            err(RingConfig::from_names(
                "libketama",
                None,
                Some("colour=red")
            ))
            .contains("unknown placement option 'colour'")
        );
    }
}
