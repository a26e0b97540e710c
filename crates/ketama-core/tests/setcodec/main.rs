//! The set codec: without a server (adversarial inputs, encoders,
//! compaction, sharding, property tests), against a model of memcached's
//! storage commands, and against real memcached servers on loopback (round
//! trips, concurrent writers, faults of the server).

mod codec;
mod faults;
mod memcached;
mod model;
