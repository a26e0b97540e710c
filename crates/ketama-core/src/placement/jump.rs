//! Jump consistent hash (Lamping & Veach, "A Fast, Minimal Memory,
//! Consistent Hash Algorithm", 2014): a 64-bit key hash to one of `n`
//! buckets, moving `1/n` of the keys when a bucket is added at the end.
//! Grafana dskit's and Thanos' `jumpHash` (`cache/jump_hash.go`,
//! `pkg/cacheutil/jump_hash.go`) and memcached's proxy
//! (`mcplib_dist_jump_hash_get_server`, `proxy_jump_hash.c`) compute it in
//! the paper's floating-point form, which is the form here:
//! `j = (b + 1) × (2³¹ / ((key >> 33) + 1))`, each step a double.
//! (Guava's `Hashing.consistentHash` divides `b + 1` by `((key >> 33) + 1)
//! / 2³¹` instead, and reads `(key >> 33) + 1 = 2³¹` as a negative int;
//! the peer tests compare both on the same hashes.)

/// The bucket in `0..buckets` of the 64-bit `key` (0 for `buckets` 0 or 1).
#[inline]
pub fn jump(mut key: u64, buckets: u32) -> u32 {
    let mut b: i64 = -1;
    let mut j: i64 = 0;
    while j < i64::from(buckets) {
        b = j;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b.max(0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_values() {
        // dgryski/go-jump `jump_test.go` (ba001c3), "generated from the
        // reference C++ code" and Guava's golden values; the same values
        // are read from crates/ketama-core/tests/peers/published/ by the
        // peer test, this is the short form.
        let one: [u32; 19] = [0, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 17, 17];
        for (n, &want) in one.iter().enumerate() {
            assert_eq!(jump(1, n as u32 + 1), want, "jump(1, {})", n + 1);
        }
        assert_eq!(jump(2, 100_001), 80_343);
        assert_eq!(jump(10_863_919_174_838_991, 11), 6);
        assert_eq!(jump(0, 0), 0);
        assert_eq!(jump(u64::MAX, 1), 0);
    }

    #[test]
    fn a_bucket_added_at_the_end_takes_keys_only_from_the_others() {
        for key in 0..5_000u64 {
            let k = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            for n in 1..40 {
                let (before, after) = (jump(k, n), jump(k, n + 1));
                assert!(before < n && after <= n);
                assert!(
                    after == before || after == n,
                    "key {k}: {before} -> {after}"
                );
            }
        }
    }
}
