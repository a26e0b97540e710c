//! What a migration moves and what it asks of the servers: the share of
//! the keyspace that moves between each pair of servers, the extra reads
//! each old server takes while the new owners warm up, the servers that
//! must be flushed before they serve reads, and the keys a server holds
//! that would be read stale (from a `lru_crawler metadump` listing).

use std::collections::BTreeMap;

use super::Migration;
use crate::Error;
use crate::analysis::{self, Measure, Movement};

/// One old server's part in a migration.
#[derive(Debug, Clone, PartialEq)]
pub struct OldServer {
    /// Its address.
    pub address: Vec<u8>,
    /// Its share of the keyspace before the migration.
    pub share: f64,
    /// The share of the keyspace that leaves it.
    pub moving_away: f64,
    /// The share of all reads it answers for the new owners at the start of
    /// the warm-up (each moved key's first read misses on its new owner and
    /// reads here; it falls as copies land): equal to `moving_away`.
    pub warmup_reads: f64,
    /// `warmup_reads / share`: its extra load against its own reads before.
    pub warmup_load: f64,
}

/// One new server that receives keys it did not own.
#[derive(Debug, Clone, PartialEq)]
pub struct GainingServer {
    /// Its address.
    pub address: Vec<u8>,
    /// The share of the keyspace it receives from other servers.
    pub gained: f64,
    /// True when the old ring does not have it: a server that returns
    /// after an interval without it may hold values written before it left
    /// for keys rewritten elsewhere since. It must be flushed (or the keys
    /// [`Migration::at_risk`] names deleted) before it serves reads.
    pub returning: bool,
}

/// A migration's plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// What moves: the moved share, the least any placement must move, the
    /// flows between servers, and how it was measured.
    pub movement: Movement,
    /// Each server of the old ring, in its order.
    pub old_servers: Vec<OldServer>,
    /// Each server of the new ring that receives keys, in its order.
    pub gaining: Vec<GainingServer>,
}

impl Plan {
    /// The servers that must be flushed before the migration starts (the
    /// returning ones).
    pub fn must_flush(&self) -> impl Iterator<Item = &[u8]> {
        self.gaining
            .iter()
            .filter(|g| g.returning)
            .map(|g| g.address.as_slice())
    }

    /// How the figures were measured (exactly, or on a key sample).
    pub fn measure(&self) -> Measure {
        self.movement.measure
    }
}

impl Migration {
    /// The plan of this migration: exact when both rings are continuums
    /// hashing keys alike, else on the caller's `keys` or the default
    /// sample ([`analysis::default_sample`]).
    pub fn plan<K: AsRef<[u8]>>(&self, keys: Option<impl IntoIterator<Item = K>>) -> Plan {
        let (old, new) = (&**self.old(), &**self.new_ring());
        let movement = analysis::plan_migration(old, new, keys);
        let old_shares = match movement.measure {
            Measure::Exact => analysis::keyspace_shares(old),
            Measure::Sampled(_) => analysis::keyspace_shares_measured(old).0,
        };
        let mut away: BTreeMap<&[u8], f64> = BTreeMap::new();
        let mut gained: BTreeMap<&[u8], f64> = BTreeMap::new();
        for (from, to, share) in &movement.flows {
            *away.entry(from).or_default() += share;
            *gained.entry(to).or_default() += share;
        }
        let old_servers = old
            .servers()
            .iter()
            .zip(&old_shares)
            .map(|(server, &share)| {
                let moving_away = away.get(server.address()).copied().unwrap_or(0.0);
                OldServer {
                    address: server.address().to_vec(),
                    share,
                    moving_away,
                    warmup_reads: moving_away,
                    warmup_load: if share > 0.0 {
                        moving_away / share
                    } else {
                        0.0
                    },
                }
            })
            .collect();
        let in_old = |address: &[u8]| old.servers().iter().any(|s| s.address() == address);
        let mut gaining: Vec<GainingServer> = Vec::new();
        for server in new.servers() {
            let address = server.address();
            let returning = !in_old(address);
            let share = gained.get(address).copied().unwrap_or(0.0);
            if (share > 0.0 || returning) && !gaining.iter().any(|g| g.address == address) {
                gaining.push(GainingServer {
                    address: address.to_vec(),
                    gained: share,
                    returning,
                });
            }
        }
        Plan {
            movement,
            old_servers,
            gaining,
        }
    }

    /// The keys among `keys` (what `server` holds, e.g. from
    /// [`metadump_keys`]) that the new ring places on `server` while the old
    /// one does not: values the server may hold from an earlier time, which
    /// the migration would serve as current. Delete them on `server` before
    /// it serves reads (or flush it). A key neither ring can place is not
    /// listed.
    pub fn at_risk<'k>(
        &self,
        server: &[u8],
        keys: impl IntoIterator<Item = &'k [u8]>,
    ) -> Vec<&'k [u8]> {
        keys.into_iter()
            .filter(|key| {
                self.route(key).is_ok_and(|route| {
                    self.new_ring().servers()[route.new].address() == server
                        && self.old().servers()[route.old].address() != server
                })
            })
            .collect()
    }
}

/// The keys of a `lru_crawler metadump` listing (`key=<escaped> exp=…`
/// lines, `END` last), with memcached's `%XX` escapes decoded. A line that
/// is not a metadump line is an error naming it.
pub fn metadump_keys(listing: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
    let mut keys = Vec::new();
    for (number, line) in listing.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || line == b"END" {
            continue;
        }
        let bad = |why: &str| {
            Error::InvalidArgument(format!(
                "metadump line {}: {why}: {}",
                number + 1,
                crate::escape::escape_bytes(&line[..line.len().min(80)])
            ))
        };
        let field = line
            .split(|&b| b == b' ')
            .next()
            .and_then(|f| f.strip_prefix(b"key="))
            .ok_or_else(|| bad("does not begin with key="))?;
        keys.push(uri_decode(field).ok_or_else(|| bad("a bad %XX escape"))?);
    }
    Ok(keys)
}

/// `%XX` escapes decoded; `None` for a `%` not followed by two hex digits.
fn uri_decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            let digit = |c: u8| (c as char).to_digit(16);
            out.push((digit(hex[0])? * 16 + digit(hex[1])?) as u8);
            i += 3;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    Some(out)
}
