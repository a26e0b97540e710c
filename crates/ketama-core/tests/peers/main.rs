//! Every placement of the core against the real client or proxy it
//! reproduces, asked in the same run about the same server lists and keys:
//! one module per client. The peer programs and the comparison harness
//! (a case table, one comparison loop, one report per case) are in
//! `ketama_testkit`; the clients that cannot run here (mcrouter, Envoy) are
//! checked against their published test expectations (`published/`).

mod apr_memcache;
mod cache_memcached;
mod dalli;
mod django_redis;
mod dskit_jump;
mod emcache;
mod envoy;
mod enyim;
mod evcache;
mod go_redis_ring;
mod go_redis_v5;
mod gomemcache;
mod groupcache;
mod haproxy;
mod harness;
mod hashring_py;
mod jedis;
mod libmc;
mod mcrouter;
mod memcached_fast;
mod memcached_proxy;
mod memjs;
mod nginx;
mod node_memcached;
mod npm_memcache;
mod pecl_memcache_standard;
mod php;
mod phpredis;
mod pingora_ketama;
mod predis;
mod pymemcache;
mod python_memcached;
mod redis_cluster;
mod redis_rb;
mod redis_shard;
mod replicas;
mod rust_memcache;
mod sockiopool;
mod spymemcached;
mod spymemcached_array;
mod twemproxy;
mod uhashring;
mod varnish;
mod xmemcached;
