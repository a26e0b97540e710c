//! Round trips through the exported C functions, called from Rust as a C
//! client calls them: every handle made is freed, every buffer handed out
//! is released, every out-pointer is read back.
//!
//! Small on purpose: `make test-sanitizers` runs these under Miri (which
//! checks every pointer the `unsafe` code of the boundary dereferences) and
//! under AddressSanitizer. The set codec's are in [`sets`].

mod sets;

use super::batch::*;
use super::compat::*;
use super::file_ring::*;
use super::ring::*;
use super::ring_named::*;
use super::status::ketama_last_status;
use super::status::ketama_status::{self, *};
use std::ffi::{CStr, CString, c_char};
use std::ptr;

fn server(address: &'static str, weight: u64) -> ketama_server {
    ketama_server {
        address: address.as_ptr().cast(),
        address_len: address.len(),
        weight,
        name: ptr::null(),
        name_len: 0,
    }
}

/// A ring of three servers (libketama flavour, default hash): the one the
/// ring cache keeps, as a new reference.
fn three_server_ring() -> *const ketama_ring {
    let servers = [
        server("10.0.0.1:11211", 100),
        server("10.0.0.2:11211", 200),
        server("10.0.0.3:11211", 100),
    ];
    let mut ring = ptr::null();
    // SAFETY: `servers` holds 3 records whose addresses outlive the call.
    let status = unsafe { ketama_ring_new(servers.as_ptr(), 3, 0, 0, &mut ring) };
    assert_eq!(status, KETAMA_OK);
    assert!(!ring.is_null());
    ring
}

#[test]
fn the_same_list_given_packed_or_as_structs_is_the_same_ring() {
    let by_structs = three_server_ring();
    let addresses = "10.0.0.1:11211\x0010.0.0.2:11211\x0010.0.0.3:11211";
    let weights = "100\x00200\x00100";
    let mut packed = ptr::null();
    // SAFETY: the columns are valid for their lengths; no names or options.
    let status = unsafe {
        ketama_ring_new_packed(
            3,
            addresses.as_ptr().cast(),
            addresses.len(),
            weights.as_ptr().cast(),
            weights.len(),
            ptr::null(),
            0,
            0,
            0,
            ptr::null(),
            &mut packed,
        )
    };
    assert_eq!(status, KETAMA_OK);
    assert_eq!(
        packed, by_structs,
        "the ring cache hands out the ring already built"
    );
    assert_eq!(
        find(packed, b"user:1").server_index,
        find(by_structs, b"user:1").server_index
    );
    let serialized = br#"a:3:{s:14:"10.0.0.1:11211";i:100;s:14:"10.0.0.2:11211";i:200;s:14:"10.0.0.3:11211";i:100;}"#;
    // SAFETY: the text is valid for its length; the names are NUL-terminated.
    let returned = unsafe {
        ketama_ring_from_serialized(
            serialized.as_ptr().cast(),
            serialized.len(),
            c"libketama".as_ptr(),
            ptr::null(),
            ptr::null(),
        )
    };
    assert_eq!(returned, by_structs, "returned rather than written");
    // SAFETY: as above, with a text of no form the reader takes.
    let refused = unsafe {
        ketama_ring_from_serialized(
            c"a:1:{i:0;d:1.5;}".as_ptr(),
            16,
            c"libketama".as_ptr(),
            ptr::null(),
            ptr::null(),
        )
    };
    assert!(refused.is_null());
    assert_eq!(ketama_last_status(), KETAMA_ERR_INVALID_ARGUMENT);
    // SAFETY: three references, each released once.
    unsafe {
        ketama_ring_free(packed);
        ketama_ring_free(by_structs);
        ketama_ring_free(returned);
    }
}

fn find(ring: *const ketama_ring, key: &[u8]) -> ketama_server_ref {
    let mut out = ketama_server_ref {
        server_index: u32::MAX,
        point: 0,
        point_index: 0,
        address: ptr::null(),
        address_len: 0,
    };
    // SAFETY: `ring` is live; `key` is valid for its length.
    let status = unsafe { ketama_find_server(ring, key.as_ptr().cast(), key.len(), &mut out) };
    assert_eq!(status, KETAMA_OK);
    out
}

#[test]
fn a_ring_is_built_queried_cloned_and_freed() {
    let ring = three_server_ring();
    // SAFETY: `ring` is live for every call below until it is freed.
    unsafe {
        assert_eq!(ketama_ring_server_count(ring), 3);
        let points = ketama_ring_point_count(ring);
        assert_eq!(points, 3 * 160);
        let hit = find(ring, b"user:42");
        let address = CStr::from_ptr(hit.address).to_bytes();
        assert_eq!(address.len(), hit.address_len);
        let mut info = std::mem::zeroed::<ketama_server_info>();
        assert_eq!(
            ketama_ring_server(ring, hit.server_index as usize, &mut info),
            KETAMA_OK
        );
        assert_eq!(CStr::from_ptr(info.address).to_bytes(), address);
        let (mut point, mut owner) = (0u32, u32::MAX);
        assert_eq!(
            ketama_ring_point(ring, hit.point_index, &mut point, &mut owner),
            KETAMA_OK
        );
        assert_eq!((point, owner), (hit.point, hit.server_index));
        assert_eq!(
            ketama_ring_point(ring, points, &mut point, &mut owner),
            KETAMA_ERR_OUT_OF_RANGE
        );

        let down = [hit.server_index];
        let mut avoided = find(ring, b"other");
        assert_eq!(
            ketama_find_server_avoiding(
                ring,
                b"user:42".as_ptr().cast(),
                7,
                down.as_ptr(),
                1,
                &mut avoided
            ),
            KETAMA_OK
        );
        assert_ne!(avoided.server_index, hit.server_index);

        let keys = [b"a".as_slice(), b"bb", b"user:42"];
        let pointers: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr().cast()).collect();
        let lengths: Vec<usize> = keys.iter().map(|k| k.len()).collect();
        let mut indices = [u32::MAX; 3];
        assert_eq!(
            ketama_find_servers(
                ring,
                pointers.as_ptr(),
                lengths.as_ptr(),
                3,
                indices.as_mut_ptr()
            ),
            KETAMA_OK
        );
        let packed = keys.concat();
        let packed_lengths: Vec<u32> = keys.iter().map(|k| k.len() as u32).collect();
        let mut packed_indices = [u32::MAX; 3];
        assert_eq!(
            ketama_find_servers_packed(
                ring,
                packed.as_ptr().cast(),
                packed.len(),
                packed_lengths.as_ptr(),
                3,
                packed_indices.as_mut_ptr()
            ),
            KETAMA_OK
        );
        assert_eq!(indices, packed_indices);
        assert_eq!(indices[2], hit.server_index);

        let mut groups = ptr::null_mut();
        assert_eq!(
            ketama_group_keys(
                ring,
                packed.as_ptr().cast(),
                packed.len(),
                packed_lengths.as_ptr(),
                3,
                &mut groups
            ),
            KETAMA_OK
        );
        let mut grouped = [u32::MAX; 3];
        for group in 0..ketama_key_groups_count(groups) {
            let (mut server, mut keys, mut len) = (u32::MAX, ptr::null(), 0);
            assert_eq!(
                ketama_key_groups_get(groups, group, &mut server, &mut keys, &mut len),
                KETAMA_OK
            );
            for &key in std::slice::from_raw_parts(keys, len) {
                grouped[key as usize] = server;
            }
        }
        assert_eq!(grouped, indices);
        ketama_key_groups_free(groups);

        let clone = ketama_ring_clone(ring);
        ketama_ring_free(ring);
        assert_eq!(find(clone, b"user:42").server_index, hit.server_index);
        ketama_ring_free(clone);
        ketama_ring_free(ptr::null());
    }
}

#[test]
fn the_compat_functions_roll_look_up_and_smoke() {
    let dir = std::env::temp_dir().join(format!("ketama-abi-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("servers");
    std::fs::write(&path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t200\n").unwrap();
    let name = CString::new(path.to_str().unwrap()).unwrap();
    let mut key = *b"user:42\0";
    // SAFETY: NUL-terminated strings and a writable continuum handle; the
    // continuum is released with ketama_smoke.
    unsafe {
        let mut cont: ketama_continuum = ptr::null_mut();
        assert_eq!(ketama_roll(&mut cont, name.as_ptr().cast_mut()), 1);
        // Weights 1:2 give 26 and 53 groups of four points.
        assert_eq!((*cont).numpoints, 316);
        let hit = ketama_get_server(key.as_mut_ptr().cast(), cont);
        let array = (*cont).array.cast::<mcs>();
        let offset = hit.offset_from(array);
        assert!((0..316).contains(&offset), "{offset}");
        let hash = ketama_hashi(key.as_mut_ptr().cast());
        let previous = if offset == 0 { 0 } else { (*hit.sub(1)).point };
        assert!(offset == 0 || (previous < hash && hash <= (*hit).point));
        assert_eq!(CStr::from_ptr(ketama_error()).to_bytes(), b"");
        let mut digest = [0u8; 16];
        ketama_md5_digest(key.as_mut_ptr().cast(), digest.as_mut_ptr());
        assert_eq!(
            ketama_hashi(key.as_mut_ptr().cast()),
            u32::from_le_bytes(digest[..4].try_into().unwrap())
        );
        ketama_smoke(cont);

        let missing = CString::new(dir.join("missing").to_str().unwrap()).unwrap();
        let mut untouched: ketama_continuum = ptr::null_mut();
        assert_eq!(ketama_roll(&mut untouched, missing.as_ptr().cast_mut()), 0);
        assert!(untouched.is_null());
        assert!(!CStr::from_ptr(ketama_error()).to_bytes().is_empty());
        assert_eq!(ketama_last_status(), KETAMA_ERR_IO);

        assert!(ketama_roll_file(missing.as_ptr()).is_null());
        let returned = ketama_roll_file(name.as_ptr());
        assert!(!returned.is_null());
        assert_eq!((*returned).numpoints, 316);
        assert_eq!(
            ketama_last_status(),
            KETAMA_OK,
            "a good roll clears the status"
        );
        ketama_smoke(returned);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_ring_hands_out_rings_that_outlive_it() {
    let dir = std::env::temp_dir().join(format!("ketama-abi-file-ring-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("servers");
    std::fs::write(&path, "10.0.0.1:11211 1\n10.0.0.2:11211 1\n").unwrap();
    let name = CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path and writable out-pointers; every handle
    // is freed once.
    unsafe {
        let mut file_ring = ptr::null();
        assert_eq!(
            ketama_file_ring_open(name.as_ptr(), 0, 0, 0, 0, &mut file_ring),
            KETAMA_OK
        );
        let mut ring = ptr::null();
        assert_eq!(ketama_file_ring_current(file_ring, &mut ring), KETAMA_OK);
        ketama_file_ring_free(file_ring);
        assert_eq!(ketama_ring_server_count(ring), 2);
        find(ring, b"k");
        ketama_ring_free(ring);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn find_server_index_equals_find_server_or_returns_a_negated_status() {
    let ring = three_server_ring();
    // SAFETY: `ring` is live until freed; keys are valid for their lengths;
    // NULL only where the function checks for it.
    unsafe {
        for i in 0..2000 {
            let key = format!("key:{i}");
            let index = ketama_find_server_index(ring, key.as_ptr().cast(), key.len());
            assert_eq!(index, i64::from(find(ring, key.as_bytes()).server_index));
        }
        let with_nul = b"a\0b";
        assert_eq!(
            ketama_find_server_index(ring, with_nul.as_ptr().cast(), 3),
            i64::from(find(ring, with_nul).server_index)
        );
        assert_eq!(
            ketama_find_server_index(ring, ptr::null(), 0),
            i64::from(find(ring, b"").server_index)
        );
        let null_key = ketama_find_server_index(ring, ptr::null(), 1);
        assert_eq!(null_key, -(KETAMA_ERR_NULL_ARGUMENT as i64));
        assert!(!CStr::from_ptr(ketama_error()).to_bytes().is_empty());
        assert_eq!(
            ketama_find_server_index(ptr::null(), b"k".as_ptr().cast(), 1),
            -(KETAMA_ERR_NULL_ARGUMENT as i64)
        );
        ketama_ring_free(ring);
    }
}

#[test]
fn find_replicas_lists_what_the_ring_lists_or_fails_whole() {
    let ring = three_server_ring();
    // SAFETY: `ring` is live until freed; keys, `indices` and `count` are
    // valid for what is passed; NULL only where the function checks for it.
    unsafe {
        let mut indices = [u32::MAX; 8];
        let mut count = usize::MAX;
        for i in 0..500 {
            let key = format!("key:{i}");
            for n in [0, 1, 2, 3, 7] {
                let status = ketama_find_replicas(
                    ring,
                    key.as_ptr().cast(),
                    key.len(),
                    n,
                    indices.as_mut_ptr(),
                    indices.len(),
                    &mut count,
                );
                assert_eq!(status, KETAMA_OK);
                assert_eq!(count, n.min(3));
                let first = find(ring, key.as_bytes()).server_index;
                if n > 0 {
                    assert_eq!(indices[0], first, "{key} {n}");
                }
                let listed = &mut indices[..count];
                listed.sort_unstable();
                assert!(listed.windows(2).all(|w| w[0] < w[1]), "{key}: distinct");
            }
        }
        let mut small = [u32::MAX; 2];
        count = 99;
        let status = ketama_find_replicas(
            ring,
            b"k".as_ptr().cast(),
            1,
            3,
            small.as_mut_ptr(),
            2,
            &mut count,
        );
        assert_eq!(status, KETAMA_ERR_INVALID_ARGUMENT);
        assert_eq!((small, count), ([u32::MAX; 2], 99), "nothing written");
        let message = CStr::from_ptr(ketama_error()).to_string_lossy();
        assert!(message.contains("capacity 2"), "{message}");
        let status = ketama_find_replicas(ring, ptr::null(), 0, 0, ptr::null_mut(), 0, &mut count);
        assert_eq!((status, count), (KETAMA_OK, 0));
        let status = ketama_find_replicas(ring, ptr::null(), 0, 1, ptr::null_mut(), 1, &mut count);
        assert_eq!(status, KETAMA_ERR_NULL_ARGUMENT);
        ketama_ring_free(ring);
    }
}

#[test]
fn errors_come_back_as_statuses_not_crashes() {
    let ring = three_server_ring();
    // SAFETY: NULL where the functions document that they check for it.
    unsafe {
        let mut out = find(ring, b"k");
        let status: ketama_status = ketama_find_server(ring, ptr::null(), 1, &mut out);
        assert_eq!(status, KETAMA_ERR_NULL_ARGUMENT);
        assert!(!CStr::from_ptr(ketama_error()).to_bytes().is_empty());
        assert_eq!(
            ketama_last_status(),
            status,
            "the status goes with the message"
        );
        assert_eq!(
            ketama_find_server(ptr::null(), b"k".as_ptr().cast(), 1, &mut out),
            KETAMA_ERR_NULL_ARGUMENT
        );
        ketama_ring_free(ring);
    }
}

/// The ring of `servers` (libketama's test pool) for a flavour and hash id,
/// or the failed status with `ketama_error()`'s text.
fn ring_of(
    servers: &[ketama_server],
    flavour: u32,
    hash: u32,
) -> Result<*const ketama_ring, (ketama_status, String)> {
    let mut ring = ptr::null();
    // SAFETY: `servers` holds valid records; `ring` is writable.
    let status =
        unsafe { ketama_ring_new(servers.as_ptr(), servers.len(), flavour, hash, &mut ring) };
    if status == KETAMA_OK {
        return Ok(ring);
    }
    // SAFETY: `ketama_error()` is NUL-terminated until the next failure.
    let message = unsafe { CStr::from_ptr(ketama_error()) };
    Err((status, message.to_string_lossy().into_owned()))
}

#[test]
fn hash_default_by_id_or_by_name_is_the_flavours_own() {
    use super::names::ketama_hash_from_name;
    use ketama_core::flavour::Flavour;
    let servers = [server("10.0.0.1:11211", 0), server("10.0.0.2:11211", 0)];
    // Under Miri (which checks the boundary's pointers, slowly) one small
    // ring is enough.
    let flavours: &[Flavour] = if cfg!(miri) {
        &[Flavour::Groupcache]
    } else {
        &[
            Flavour::Libketama,
            Flavour::Twemproxy,
            Flavour::Dalli,
            Flavour::Groupcache,
        ]
    };
    for &flavour in flavours {
        let mut id = u32::MAX;
        for name in [c"default", c"DEFAULT"] {
            // SAFETY: a NUL-terminated name and a writable id.
            let status = unsafe { ketama_hash_from_name(flavour.id(), name.as_ptr(), &mut id) };
            assert_eq!((status, id), (KETAMA_OK, 0), "{flavour:?} {name:?}");
        }
        let default = ring_of(&servers, flavour.id(), 0).unwrap();
        let own = ring_of(&servers, flavour.id(), flavour.default_hash().id()).unwrap();
        for key in [&b"a"[..], b"user:42", b"session:9"] {
            let (a, b) = (find(default, key), find(own, key));
            assert_eq!((a.server_index, a.point), (b.server_index, b.point));
        }
        // SAFETY: each ring is live and released once.
        unsafe {
            ketama_ring_free(default);
            ketama_ring_free(own);
        }
    }
}

#[test]
fn bad_servers_and_ids_get_the_cores_one_message() {
    let nul = server("10.0.0.1\0:11211", 0);
    let (status, message) = ring_of(&[nul], 0, 0).unwrap_err();
    assert_eq!(status, KETAMA_ERR_INVALID_ARGUMENT);
    assert!(message.starts_with("server address '10.0.0.1\\x00:11211' has a NUL byte at offset 8"));
    let (status, message) = ring_of(&[server("", 0)], 0, 0).unwrap_err();
    assert_eq!(status, KETAMA_ERR_INVALID_ARGUMENT);
    assert!(
        message.starts_with("server address '' is empty"),
        "{message}"
    );
    let good = [server("10.0.0.1:11211", 0)];
    let (status, message) = ring_of(&good, 4000, 0).unwrap_err();
    assert_eq!(
        (status, message.as_str()),
        (
            KETAMA_ERR_INVALID_ARGUMENT,
            "unknown ketama_flavour id 4000"
        )
    );
    let (status, message) = ring_of(&good, 0, 4000).unwrap_err();
    assert_eq!(
        (status, message.as_str()),
        (KETAMA_ERR_INVALID_ARGUMENT, "unknown ketama_hash id 4000")
    );
}
