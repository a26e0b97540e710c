//! What names a shared image: the exact input of the build, as bytes. The
//! library's version, the [`RingConfig`] (flavour, key hash, options) and
//! the server list as parsed (address, weight, name, in order); never file
//! stamps, so every process that parses the same list finds the same
//! image. The image stores these bytes whole and an attach compares them
//! exactly; their SHA-256 only names the file.

use crate::hash::sha256::sha256;
use crate::{RingConfig, ServerSpec};

/// The first bytes of every key (the key format's own version).
const PREFIX: &[u8] = b"ketama shared ring key 1\n";

/// The canonical bytes of a build of `servers` with `config`.
pub(super) fn key_bytes(servers: &[ServerSpec], config: RingConfig) -> Vec<u8> {
    let mut key = Vec::with_capacity(64 + servers.len() * 32);
    key.extend_from_slice(PREFIX);
    // The version: another version may place keys otherwise (a fixed bug).
    key.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
    key.push(b'\n');
    // Debug spells every field of the configuration, options included, so
    // a field added later is part of the key without a change here.
    key.extend_from_slice(format!("{config:?}").as_bytes());
    key.push(b'\n');
    push_len(&mut key, servers.len());
    for server in servers {
        push_bytes(&mut key, &server.address);
        match server.weight {
            Some(weight) => {
                key.push(1);
                key.extend_from_slice(&weight.to_le_bytes());
            }
            None => key.push(0),
        }
        match &server.name {
            Some(name) => {
                key.push(1);
                push_bytes(&mut key, name);
            }
            None => key.push(0),
        }
    }
    key
}

/// The image's file name for `key`: `ring-` and the hex of its SHA-256.
pub(super) fn file_name(key: &[u8]) -> String {
    let digest = sha256(&[key]);
    let mut name = String::with_capacity(5 + 64);
    name.push_str(IMAGE_PREFIX);
    for byte in digest {
        name.push_str(&format!("{byte:02x}"));
    }
    name
}

/// How every image's file name starts (housekeeping looks at these only).
pub(super) const IMAGE_PREFIX: &str = "ring-";

fn push_len(key: &mut Vec<u8>, len: usize) {
    key.extend_from_slice(&(len as u64).to_le_bytes());
}

fn push_bytes(key: &mut Vec<u8>, bytes: &[u8]) {
    push_len(key, bytes.len());
    key.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_of_the_input_changes_the_key() {
        let servers = vec![
            ServerSpec::new("10.0.0.1:11211", 100),
            ServerSpec::new("10.0.0.2:11211", 100),
        ];
        let config = RingConfig::default();
        let base = key_bytes(&servers, config);
        assert_eq!(base, key_bytes(&servers.clone(), config));
        let mut variants = Vec::new();
        let mut reweighed = servers.clone();
        reweighed[1].weight = None;
        variants.push(key_bytes(&reweighed, config));
        let mut named = servers.clone();
        named[0].name = Some(b"a".to_vec());
        variants.push(key_bytes(&named, config));
        let mut swapped = servers.clone();
        swapped.swap(0, 1);
        variants.push(key_bytes(&swapped, config));
        // An address that swallows the next server's bytes is not the same list.
        let merged = vec![ServerSpec::new("10.0.0.1:1121110.0.0.2:11211", 100)];
        variants.push(key_bytes(&merged, config));
        let other = RingConfig::from_names("php-memcached", None, None).unwrap();
        variants.push(key_bytes(&servers, other));
        let hashed = RingConfig::from_names("php-memcached", Some("md5"), None);
        variants.push(key_bytes(&servers, hashed.unwrap()));
        let tagged = RingConfig::from_names("twemproxy", None, Some("hash_tag={}")).unwrap();
        let untagged = RingConfig::from_names("twemproxy", None, None).unwrap();
        assert_ne!(key_bytes(&servers, tagged), key_bytes(&servers, untagged));
        for variant in &variants {
            assert_ne!(variant, &base);
            assert_ne!(file_name(variant), file_name(&base));
        }
        let name = file_name(&base);
        assert!(name.starts_with("ring-") && name.len() == 5 + 64, "{name}");
    }
}
