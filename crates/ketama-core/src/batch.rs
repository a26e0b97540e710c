//! Batch lookup: many keys in one call, so a client routing a multi-get pays
//! one FFI crossing, and MD5 key hashes are computed several at a time.

use crate::{Error, Ring};

/// Keys are hashed in chunks of this many (stack buffers, no allocation).
const CHUNK: usize = 64;

impl Ring {
    /// Writes the index of the server holding each key into `out`.
    /// Same answers as [`Ring::locate`] key by key.
    pub fn find_server_indices(&self, keys: &[&[u8]], out: &mut [u32]) -> Result<(), Error> {
        if out.len() < keys.len() {
            return Err(Error::BufferTooSmall { needed: keys.len() });
        }
        if !self.can_place() {
            return Err(Error::no_points());
        }
        let Some(search) = self.search() else {
            // A per-key placement: key by key.
            for (index, key) in out.iter_mut().zip(keys) {
                *index = self
                    .locate(key)
                    .map_or(u32::MAX, |at| at.server_index as u32);
            }
            return Ok(());
        };
        let continuum = self.continuum();
        let mut hashes = [0u32; CHUNK];
        for (chunk, indices) in keys.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
            let hashes = &mut hashes[..chunk.len()];
            self.hash_keys(chunk, hashes);
            // In a ring larger than the caches every key is a miss to
            // memory: request all of the chunk's points first.
            for &hash in hashes.iter() {
                continuum.prefetch(search.position(hash));
            }
            for (index, &hash) in indices.iter_mut().zip(hashes.iter()) {
                // Non-empty continuum: locate_hash always finds a point.
                *index = self
                    .locate_hash(hash)
                    .map_or(u32::MAX, |at| at.server_index as u32);
            }
        }
        Ok(())
    }

    /// The multi-GET planner: groups keys by the server that holds them,
    /// so a client sends one multi-get per server. Servers come in the
    /// ring's input order, each listing the indices of its keys in input
    /// order; servers that hold none of the keys are left out.
    pub fn group_keys(&self, keys: &[&[u8]]) -> Result<Vec<KeyGroup>, Error> {
        let mut servers = vec![0u32; keys.len()];
        self.find_server_indices(keys, &mut servers)?;
        let mut by_server: Vec<Vec<usize>> = vec![Vec::new(); self.servers().len()];
        for (key_index, &server) in servers.iter().enumerate() {
            by_server
                .get_mut(server as usize)
                .ok_or_else(|| {
                    Error::NoServerAvailable(format!("no server can take key {key_index}"))
                })?
                .push(key_index);
        }
        Ok(by_server
            .into_iter()
            .enumerate()
            .filter(|(_, keys)| !keys.is_empty())
            .map(|(server_index, key_indices)| KeyGroup {
                server_index,
                key_indices,
            })
            .collect())
    }
}

/// Splits `packed` into keys stored back to back, key `i` being
/// `lengths[i]` bytes (the packed form of the batch calls); a length that
/// runs past the end is an error naming it and the offset.
pub fn split_packed<'a>(packed: &'a [u8], lengths: &[u32]) -> Result<Vec<&'a [u8]>, Error> {
    let mut keys = Vec::with_capacity(lengths.len());
    let mut offset = 0usize;
    for (i, &len) in lengths.iter().enumerate() {
        let end = offset
            .checked_add(len as usize)
            .filter(|&end| end <= packed.len())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "lengths[{i}] = {len} runs past the end of packed ({} bytes) at offset {offset}",
                    packed.len()
                ))
            })?;
        keys.push(&packed[offset..end]);
        offset = end;
    }
    Ok(keys)
}

/// The keys one server holds, as planned by [`Ring::group_keys`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyGroup {
    /// Index of the server (the ring's input order).
    pub server_index: usize,
    /// Indices of its keys in the input, ascending.
    pub key_indices: Vec<usize>,
}

#[cfg(test)]
mod tests {
    use crate::{Ring, RingConfig, ServerSpec};

    #[test]
    fn batch_answers_equal_single_lookups() {
        let servers = (0..37)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211"), 1 + i % 5))
            .collect();
        let ring = Ring::new(servers, RingConfig::default()).unwrap();
        let owned: Vec<Vec<u8>> = (0..1000)
            .map(|i| {
                if i % 97 == 0 {
                    vec![b'x'; 60 + i % 200]
                } else {
                    format!("key:{i}").into_bytes()
                }
            })
            .collect();
        let keys: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let mut out = vec![0u32; keys.len()];
        ring.find_server_indices(&keys, &mut out).unwrap();
        for (key, &index) in keys.iter().zip(&out) {
            assert_eq!(index as usize, ring.locate(key).unwrap().server_index);
        }
        assert!(ring.find_server_indices(&keys, &mut out[..10]).is_err());
    }
}
