//! The multi-GET planner: keys grouped by server for one multi-get per
//! server, through Rust (`Ring::group_keys`) and the C ABI
//! (`ketama_group_keys`), checked key by key against `Ring::locate`.

use ketama::batch::*;
use ketama::ring::ketama_ring;
use ketama::status::ketama_status;
use ketama_core::{Ring, RingConfig, ServerSpec};

fn ring(servers: usize) -> Ring {
    let specs = (0..servers)
        .map(|i| ServerSpec::new(format!("10.0.{}.{}:11211", i / 200, i % 200).as_str(), 1))
        .collect();
    Ring::new(specs, RingConfig::default()).unwrap()
}

fn keys(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("user:{i}").into_bytes()).collect()
}

/// Checks a plan against per-key lookups: every key once, under its own
/// server; servers ascending; keys ascending; no empty group.
fn check_plan(ring: &Ring, keys: &[Vec<u8>], plan: &[(usize, Vec<usize>)]) {
    let mut seen = vec![false; keys.len()];
    let mut last_server = None;
    for (server, indices) in plan {
        assert!(!indices.is_empty(), "server {server} listed without keys");
        assert!(last_server < Some(*server), "servers in input order");
        last_server = Some(*server);
        assert!(
            indices.windows(2).all(|w| w[0] < w[1]),
            "keys in input order"
        );
        for &i in indices {
            assert_eq!(ring.locate(&keys[i]).unwrap().server_index, *server);
            assert!(!seen[i], "key {i} planned twice");
            seen[i] = true;
        }
    }
    assert!(seen.iter().all(|&s| s), "every key planned");
}

#[test]
fn rust_plan_groups_every_key_under_its_server() {
    for (servers, n) in [(1, 10), (5, 1000), (50, 10), (200, 5000)] {
        let ring = ring(servers);
        let keys = keys(n);
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let plan: Vec<(usize, Vec<usize>)> = ring
            .group_keys(&refs)
            .unwrap()
            .into_iter()
            .map(|g| (g.server_index, g.key_indices))
            .collect();
        check_plan(&ring, &keys, &plan);
        if servers == 50 {
            assert!(plan.len() <= 10, "servers without keys are left out");
        }
    }
    assert!(ring(3).group_keys(&[]).unwrap().is_empty());
}

/// Runs `ketama_group_keys` on `keys` and reads the plan back.
fn c_plan(ring: &Ring, keys: &[Vec<u8>]) -> Vec<(usize, Vec<usize>)> {
    let handle = std::sync::Arc::into_raw(std::sync::Arc::new(ring.clone())) as *const ketama_ring;
    let packed: Vec<u8> = keys.concat();
    let lengths: Vec<u32> = keys.iter().map(|k| k.len() as u32).collect();
    let mut groups = std::ptr::null_mut();
    // SAFETY: the pointers come from live locals and the library's own handles.
    let status = unsafe {
        ketama_group_keys(
            handle,
            packed.as_ptr().cast(),
            packed.len(),
            lengths.as_ptr(),
            keys.len(),
            &mut groups,
        )
    };
    assert_eq!(status, ketama_status::KETAMA_OK);
    // SAFETY: the pointers come from live locals and the library's own handles.
    let count = unsafe { ketama_key_groups_count(groups) };
    let mut plan = Vec::new();
    for g in 0..count {
        let (mut server, mut indices, mut n) = (0u32, std::ptr::null(), 0usize);
        // SAFETY: the pointers come from live locals and the library's own handles.
        let status = unsafe { ketama_key_groups_get(groups, g, &mut server, &mut indices, &mut n) };
        assert_eq!(status, ketama_status::KETAMA_OK);
        // SAFETY: the pointers come from live locals and the library's own handles.
        let indices = unsafe { std::slice::from_raw_parts(indices, n) };
        plan.push((
            server as usize,
            indices.iter().map(|&i| i as usize).collect(),
        ));
    }
    let (mut server, mut indices, mut n) = (0u32, std::ptr::null(), 0usize);
    // SAFETY: the pointers come from live locals and the library's own handles.
    let past_end =
        unsafe { ketama_key_groups_get(groups, count, &mut server, &mut indices, &mut n) };
    assert_eq!(past_end, ketama_status::KETAMA_ERR_OUT_OF_RANGE);
    // SAFETY: the pointers come from live locals and the library's own handles.
    unsafe { ketama_key_groups_free(groups) };
    // SAFETY: the pointers come from live locals and the library's own handles.
    unsafe { ketama::ring::ketama_ring_free(handle) };
    plan
}

#[test]
fn c_plan_equals_the_rust_plan() {
    for (servers, n) in [(3, 100), (10, 2000)] {
        let ring = ring(servers);
        let keys = keys(n);
        let plan = c_plan(&ring, &keys);
        check_plan(&ring, &keys, &plan);
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let rust: Vec<(usize, Vec<usize>)> = ring
            .group_keys(&refs)
            .unwrap()
            .into_iter()
            .map(|g| (g.server_index, g.key_indices))
            .collect();
        assert_eq!(plan, rust);
    }
}

#[test]
fn c_plan_refuses_lengths_past_the_packed_keys() {
    let ring = ring(3);
    let handle = std::sync::Arc::into_raw(std::sync::Arc::new(ring)) as *const ketama_ring;
    let packed = b"abcdef";
    let lengths = [3u32, 4];
    let mut groups = std::ptr::null_mut();
    // SAFETY: the pointers come from live locals and the library's own handles.
    let status = unsafe {
        ketama_group_keys(
            handle,
            packed.as_ptr().cast(),
            6,
            lengths.as_ptr(),
            2,
            &mut groups,
        )
    };
    assert_eq!(status, ketama_status::KETAMA_ERR_INVALID_ARGUMENT);
    assert!(ketama::status::last_error().contains("lengths[1] = 4"));
    assert!(groups.is_null(), "no plan written on failure");
    // SAFETY: the pointers come from live locals and the library's own handles.
    unsafe { ketama_key_groups_free(std::ptr::null_mut()) };
    // SAFETY: the pointers come from live locals and the library's own handles.
    assert_eq!(unsafe { ketama_key_groups_count(std::ptr::null()) }, 0);
    // SAFETY: the pointers come from live locals and the library's own handles.
    unsafe { ketama::ring::ketama_ring_free(handle) };
}
