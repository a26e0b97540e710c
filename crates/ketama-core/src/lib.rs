//! # ketama-core
//!
//! A drop-in replacement for Last.fm's libketama and a consistent-hashing
//! library for memcached clients.
//!
//! * [`ring`]: the immutable, thread-safe ring (servers + continuum) that
//!   maps keys to servers, built for a placement [`flavour`] (one file per
//!   client, and the registry); the building blocks the flavours share are
//!   in [`placement`].
//! * [`continuum`]: the sorted point array and its constant-time lookup
//!   index; [`search`]: how a key's hash becomes a point (first at or
//!   after, nearest, …), one module per search.
//! * [`hash`]: MD5 and the key hashes used by the peers.
//! * [`parser`]: server files, read exactly like libketama (compat) or
//!   strictly (modern API and CLI).
//! * [`server_file`]: reading server files with bounds, and only when no
//!   writer is at work; [`file_ring`]: following a file, keeping the last
//!   good ring when a change cannot be used; [`key_file`]: keys read one per
//!   line from a file or a stream, bounded; [`ring_cache`]: the rings
//!   already built in this process, by file or server list, bounded, the
//!   large continua shared with the user's other processes as mapped files.
//! * [`RingConfig::from_names`], [`RingConfig::from_ids`] and
//!   [`ServerSpec::checked`]: what the C ABI, the Python module and the CLI
//!   build rings from, so that a name or a server means the same in each.
//! * [`setcodec`]: sets stored inside memcached values (encodings,
//!   compaction, Redis set algebra, Membase lists, sharding, the recipe).
//! * [`migration`]: moving a pool from one ring to another without a cold
//!   cache or a stale read (routes, the step protocols, the plan).
//! * [`registry`]: the enums that cross the C ABI, each declared once
//!   ([`named_enum!`]); [`abi`] lists them.
//!
//! This crate is safe Rust but for four spots, each with SAFETY
//! comments: the multi-lane MD5 ([`hash::md5_lanes`]), the page hints of
//! [`prefault`], the cache prefetch of the point search ([`continuum`])
//! and the continuum's arrays, owned or mapped from an image other
//! processes share ([`words`]). The C ABI (`libketama.so`) is the `ketama` crate at the root
//! of the workspace; the `ketama` command is the `ketama-cli` crate.
//!
//! ```
//! use ketama_core::{Ring, RingConfig, ServerSpec};
//! let servers = vec![
//!     ServerSpec::new("10.0.1.1:11211", 600),
//!     ServerSpec::new("10.0.1.2:11211", 400),
//! ];
//! let ring = Ring::new(servers, RingConfig::default()).unwrap();
//! let server = ring.find_server(b"user:42").unwrap();
//! assert!(server.address() == b"10.0.1.1:11211" || server.address() == b"10.0.1.2:11211");
//! ```

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod abi;
pub mod analysis;
mod batch;
mod config;
pub mod continuum;
pub mod cow_map;
pub mod error;
pub mod escape;
pub mod file_ring;
pub mod file_stamp;
pub mod flavour;
pub mod hash;
pub mod key_file;
pub mod migration;
pub mod packed_servers;
pub mod parser;
pub mod placement;
pub mod prefault;
pub mod registry;
mod replicas;
pub mod ring;
pub mod ring_cache;
#[cfg(test)]
mod scratch;
pub mod search;
pub mod serialized_servers;
pub mod server;
pub mod server_file;
pub mod setcodec;
pub mod status;
pub mod words;

pub use batch::{KeyGroup, split_packed};
pub use error::Error;
pub use flavour::{Flavour, Options};
pub use ring::{Ring, RingConfig, Server};
pub use server::ServerSpec;
pub use status::Status;
