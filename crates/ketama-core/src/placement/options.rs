//! The settings a peer's users choose for a placement beyond its key hash:
//! points per server (Cache::Memcached::Fast `ketama_points`, groupcache
//! replicas, uhashring vnodes, Varnish replicas), hash tags (twemproxy
//! `hash_tag`), and the sizes and ring hash of Envoy's balancers
//! (`minimum_ring_size`, `maximum_ring_size`, `hash_function`,
//! maglev's `table_size`).
//!
//! Every language passes them the same way, as one text the library reads:
//! `points=150,hash_tag={}` ([`Options::parse`]); the CLI's `--points` and
//! `--hash-tag` fill the same struct. Which flavour takes which option, and
//! its default, is declared in the flavour's [`Placement`](super::Placement).

use crate::Error;

/// The options' names as every language spells them, each with its
/// aliases (the peers' own words for it).
pub const OPTION_NAMES: &[(&str, &[&str])] = &[
    ("points", &["replicas", "vnodes", "ketama_points"]),
    ("hash_tag", &["hash-tag"]),
    ("min_ring_size", &["minimum_ring_size"]),
    ("max_ring_size", &["maximum_ring_size"]),
    ("hash_function", &[]),
    ("table_size", &[]),
];

/// The options a flavour may take beyond `points` and `hash_tag` (declared
/// per flavour, [`Placement::settings`](super::Placement)), each
/// with an example value: the CLI's `--options` help shows it.
pub const SETTINGS: &[(&str, &str)] = &[
    ("min_ring_size", "12"),
    ("max_ring_size", "100000"),
    ("hash_function", "murmur_hash_2"),
    ("table_size", "17"),
];

/// How Envoy's ring_hash hashes hosts onto its ring (`hash_function`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RingHashFunction {
    /// `XX_HASH` (the default): xxHash64.
    #[default]
    XxHash64,
    /// `MURMUR_HASH_2`: libstdc++'s `std::hash<std::string>` (MurmurHash2-64).
    MurmurHash2,
}

impl RingHashFunction {
    /// Envoy's spelling, as [`Options::parse`] reads it back.
    pub fn name(self) -> &'static str {
        match self {
            RingHashFunction::XxHash64 => "xx_hash",
            RingHashFunction::MurmurHash2 => "murmur_hash_2",
        }
    }
}

/// Options set on a placement; `None` leaves the peer's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Options {
    /// Points (replicas, vnodes) per server, or per unit of weight where
    /// the peer multiplies by the weight.
    pub points: Option<u32>,
    /// Two bytes: when the key holds the first and, after it, the second
    /// with at least one byte between, only the bytes between are hashed
    /// (twemproxy's rule). `{}` is the common choice.
    pub hash_tag: Option<[u8; 2]>,
    /// Envoy ring_hash `minimum_ring_size`.
    pub min_ring_size: Option<u64>,
    /// Envoy ring_hash `maximum_ring_size`.
    pub max_ring_size: Option<u64>,
    /// Envoy ring_hash `hash_function`.
    pub hash_function: Option<RingHashFunction>,
    /// Envoy maglev `table_size`.
    pub table_size: Option<u64>,
}

/// How a flavour takes `points`: its peer's default and the range it allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointsOption {
    /// What the peer calls it (`ketama_points`, `replicas`, `vnodes`).
    pub peer_name: &'static str,
    /// The peer's default.
    pub default: u32,
    /// The largest value accepted (the build also caps the ring's total).
    pub max: u32,
}

impl Options {
    /// Reads `name=value` settings separated by `,` (spaces around them
    /// ignored; an empty text is no option). Names are those of
    /// [`OPTION_NAMES`], case and `-`/`_` ignored.
    pub fn parse(text: &str) -> Result<Options, Error> {
        let mut options = Options::default();
        for setting in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = setting.split_once('=').ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "placement option '{setting}' has no value (write NAME=VALUE, e.g. points=150)"
                ))
            })?;
            match canonical_name(name.trim()) {
                Some("points") => options.points = Some(parse_points(value.trim())?),
                Some("hash_tag") => options.hash_tag = Some(parse_hash_tag(value.trim())?),
                Some("min_ring_size") => {
                    options.min_ring_size = Some(parse_size("min_ring_size", value.trim())?)
                }
                Some("max_ring_size") => {
                    options.max_ring_size = Some(parse_size("max_ring_size", value.trim())?)
                }
                Some("table_size") => {
                    options.table_size = Some(parse_size("table_size", value.trim())?)
                }
                Some("hash_function") => {
                    options.hash_function = Some(parse_ring_hash_function(value.trim())?)
                }
                _ => {
                    let known: Vec<&str> = OPTION_NAMES.iter().map(|(n, _)| *n).collect();
                    return Err(Error::InvalidArgument(format!(
                        "unknown placement option '{}' (options: {})",
                        name.trim(),
                        known.join(", ")
                    )));
                }
            }
        }
        Ok(options)
    }

    /// True when no option is set.
    pub fn is_empty(&self) -> bool {
        *self == Options::default()
    }

    /// The names of the options set among [`SETTINGS`].
    pub fn settings(&self) -> Vec<&'static str> {
        let set = [
            ("min_ring_size", self.min_ring_size.is_some()),
            ("max_ring_size", self.max_ring_size.is_some()),
            ("hash_function", self.hash_function.is_some()),
            ("table_size", self.table_size.is_some()),
        ];
        set.iter().filter(|(_, on)| *on).map(|(n, _)| *n).collect()
    }

    /// The key as hashed under the hash tag: the bytes between the tag's
    /// first byte and the next second byte, when at least one lies between;
    /// otherwise the whole key.
    #[inline]
    pub fn tagged<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        match self.hash_tag {
            None => key,
            Some(tag) => hash_tag_of(key, tag),
        }
    }
}

impl std::fmt::Display for Options {
    /// The canonical text [`Options::parse`] reads back (`points=150,hash_tag={}`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut settings = Vec::new();
        if let Some(points) = self.points {
            settings.push(format!("points={points}"));
        }
        if let Some([open, close]) = self.hash_tag {
            settings.push(format!("hash_tag={}{}", open as char, close as char));
        }
        if let Some(size) = self.min_ring_size {
            settings.push(format!("min_ring_size={size}"));
        }
        if let Some(size) = self.max_ring_size {
            settings.push(format!("max_ring_size={size}"));
        }
        if let Some(function) = self.hash_function {
            settings.push(format!("hash_function={}", function.name()));
        }
        if let Some(size) = self.table_size {
            settings.push(format!("table_size={size}"));
        }
        f.write_str(&settings.join(","))
    }
}

fn canonical_name(name: &str) -> Option<&'static str> {
    let name = name.to_ascii_lowercase().replace('-', "_");
    OPTION_NAMES
        .iter()
        .find(|(canonical, aliases)| {
            *canonical == name || aliases.iter().any(|a| a.replace('-', "_") == name)
        })
        .map(|(canonical, _)| *canonical)
}

fn parse_points(value: &str) -> Result<u32, Error> {
    match value.parse::<u32>() {
        Ok(points) if points > 0 => Ok(points),
        _ => Err(Error::InvalidArgument(format!(
            "placement option points={value}: expected a whole number from 1 to {}",
            u32::MAX
        ))),
    }
}

fn parse_size(name: &str, value: &str) -> Result<u64, Error> {
    match value.parse::<u64>() {
        Ok(size) if size > 0 => Ok(size),
        _ => Err(Error::InvalidArgument(format!(
            "placement option {name}={value}: expected a whole number of at least 1"
        ))),
    }
}

fn parse_ring_hash_function(value: &str) -> Result<RingHashFunction, Error> {
    match value.to_ascii_lowercase().replace('-', "_").as_str() {
        "xx_hash" | "xxhash" | "xxhash64" => Ok(RingHashFunction::XxHash64),
        "murmur_hash_2" | "murmurhash2" | "murmur2" => Ok(RingHashFunction::MurmurHash2),
        _ => Err(Error::InvalidArgument(format!(
            "placement option hash_function={value}: expected xx_hash or murmur_hash_2 \
             (Envoy's ring_hash hash_function)"
        ))),
    }
}

/// A hash tag is two printable ASCII bytes, as twemproxy's `hash_tag: "{}"`.
pub fn parse_hash_tag(value: &str) -> Result<[u8; 2], Error> {
    match value.as_bytes() {
        &[open, close] if open.is_ascii_graphic() && close.is_ascii_graphic() => Ok([open, close]),
        _ => Err(Error::InvalidArgument(format!(
            "hash tag '{value}': expected two printable ASCII characters, such as {{}}"
        ))),
    }
}

/// twemproxy's `hash_tag` rule (`nc_request.c`): the first `open`, then the
/// first `close` after it; used when at least one byte lies between.
fn hash_tag_of(key: &[u8], [open, close]: [u8; 2]) -> &[u8] {
    let Some(start) = key.iter().position(|&b| b == open) else {
        return key;
    };
    match key[start + 1..].iter().position(|&b| b == close) {
        Some(len) if len > 0 => &key[start + 1..start + 1 + len],
        _ => key,
    }
}

impl PointsOption {
    /// The points to build with: the option's value, or the peer's default.
    pub fn value(&self, options: &Options) -> u32 {
        options.points.unwrap_or(self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_back() {
        let o = Options::parse(" points = 100 , hash-tag={} ").unwrap();
        assert_eq!(o.points, Some(100));
        assert_eq!(o.hash_tag, Some(*b"{}"));
        assert_eq!(o.to_string(), "points=100,hash_tag={}");
        assert_eq!(Options::parse(&o.to_string()).unwrap(), o);
        assert_eq!(Options::parse("").unwrap(), Options::default());
        assert_eq!(Options::parse("vnodes=3").unwrap().points, Some(3));
        assert_eq!(Options::parse("KETAMA_POINTS=7").unwrap().points, Some(7));
        let envoy =
            Options::parse("minimum_ring_size=12,max-ring-size=24,hash_function=MURMUR_HASH_2")
                .unwrap();
        assert_eq!(envoy.min_ring_size, Some(12));
        assert_eq!(envoy.max_ring_size, Some(24));
        assert_eq!(envoy.hash_function, Some(RingHashFunction::MurmurHash2));
        assert_eq!(
            envoy.to_string(),
            "min_ring_size=12,max_ring_size=24,hash_function=murmur_hash_2"
        );
        assert_eq!(
            envoy.settings(),
            ["min_ring_size", "max_ring_size", "hash_function"]
        );
        let maglev = Options::parse("table_size=17").unwrap();
        assert_eq!(Options::parse(&maglev.to_string()).unwrap(), maglev);
        for (name, example) in SETTINGS {
            let one = Options::parse(&format!("{name}={example}")).unwrap();
            assert_eq!(one.settings(), [*name]);
        }
    }

    #[test]
    fn bad_options_are_named() {
        let err = |t: &str| Options::parse(t).unwrap_err().to_string();
        assert!(err("points").contains("'points' has no value"));
        assert!(err("points=0").contains("points=0"));
        assert!(err("points=-1").contains("points=-1"));
        assert!(err("colour=red").contains("unknown placement option 'colour'"));
        assert!(err("hash_tag={").contains("hash tag '{'"));
        assert!(err("hash_tag={ }").contains("two printable"));
        assert!(err("table_size=0").contains("table_size=0"));
        assert!(err("hash_function=md5").contains("xx_hash or murmur_hash_2"));
    }

    #[test]
    fn hash_tags_follow_twemproxy() {
        let o = Options::parse("hash_tag={}").unwrap();
        assert_eq!(o.tagged(b"user:{42}:name"), b"42");
        assert_eq!(o.tagged(b"{a}{b}"), b"a");
        assert_eq!(o.tagged(b"x{}y{z}"), b"x{}y{z}", "empty tag: whole key");
        assert_eq!(o.tagged(b"x{yz"), b"x{yz", "no closing byte");
        assert_eq!(o.tagged(b"x}y{z}"), b"z");
        assert_eq!(o.tagged(b"{{a}}"), b"{a");
        let dollars = Options::parse("hash_tag=$$").unwrap();
        assert_eq!(dollars.tagged(b"a$bc$d"), b"bc");
        assert_eq!(Options::default().tagged(b"{a}"), b"{a}");
    }
}
