//! The set codec's round trips through its exported C functions: a value
//! decoded, combined, encoded, compacted and freed; the writer's state
//! machine run to its end.

use crate::set::*;
use crate::status::ketama_status::*;
use ketama_core::setcodec::recipe::{Reply, SetAction};
use std::ptr;

const T1: u32 = ketama_core::setcodec::Format::T1 as u32;

/// Decodes `value` (T1, auto-detected) into a set the caller frees.
fn decode(value: &[u8]) -> *mut ketama_set {
    let mut set = ptr::null_mut();
    let mut error = ketama_set_error {
        kind: 0,
        offset: 0,
        record: 0,
    };
    // SAFETY: `value` is valid for its length; out-pointers are writable.
    let status =
        unsafe { ketama_set_decode(value.as_ptr(), value.len(), 0, 0, &mut set, &mut error) };
    assert_eq!(status, KETAMA_OK, "{error:?}");
    set
}

fn members(set: *const ketama_set) -> Vec<Vec<u8>> {
    // SAFETY: `set` is live; member pointers are valid while it is.
    unsafe {
        (0..ketama_set_card(set))
            .map(|i| {
                let (mut data, mut len) = (ptr::null(), 0);
                assert_eq!(ketama_set_member(set, i, &mut data, &mut len), KETAMA_OK);
                std::slice::from_raw_parts(data, len).to_vec()
            })
            .collect()
    }
}

#[test]
fn sets_are_encoded_decoded_combined_and_freed() {
    let refs = |items: &[&'static [u8]]| -> Vec<ketama_set_member_ref> {
        items
            .iter()
            .map(|m| ketama_set_member_ref {
                data: m.as_ptr(),
                len: m.len(),
            })
            .collect()
    };
    let encode = |op: u32, items: &[&'static [u8]]| -> Vec<u8> {
        let items = refs(items);
        let mut buffer = ketama_set_buffer {
            data: ptr::null_mut(),
            len: 0,
        };
        // SAFETY: `items` point at static bytes; the buffer is freed below.
        unsafe {
            assert_eq!(
                ketama_set_encode(op, T1, items.as_ptr(), items.len(), 0, &mut buffer),
                KETAMA_OK
            );
            let bytes = std::slice::from_raw_parts(buffer.data, buffer.len).to_vec();
            ketama_set_buffer_free(buffer);
            bytes
        }
    };
    let mut value = encode(0, &[b"a", b"b", b"c"]);
    value.extend(encode(1, &[b"b"]));
    let left = decode(&value);
    let right = decode(&encode(0, &[b"c", b"d"]));
    assert_eq!(members(left), [b"a".to_vec(), b"c".to_vec()]);
    // SAFETY: live sets, writable out-pointers; each result freed once.
    unsafe {
        let mut contained = [false; 2];
        let probes = refs(&[b"a", b"b"]);
        assert_eq!(
            ketama_set_contains_many(left, probes.as_ptr(), 2, contained.as_mut_ptr()),
            KETAMA_OK
        );
        assert_eq!(contained, [true, false]);
        let both = [left.cast_const(), right.cast_const()];
        for (combine, expected) in [
            (ketama_set_union as unsafe extern "C" fn(_, _, _) -> _, 3),
            (ketama_set_inter, 1),
            (ketama_set_diff, 1),
        ] {
            let mut result = ptr::null_mut();
            assert_eq!(combine(both.as_ptr(), 2, &mut result), KETAMA_OK);
            assert_eq!(ketama_set_card(result), expected);
            ketama_set_free(result);
        }
        let mut compacted = ketama_set_buffer {
            data: ptr::null_mut(),
            len: 0,
        };
        assert_eq!(ketama_set_compacted(left, T1, &mut compacted), KETAMA_OK);
        let again = decode(std::slice::from_raw_parts(compacted.data, compacted.len));
        assert_eq!(members(again), members(left));
        ketama_set_buffer_free(compacted);
        ketama_set_free(again);
        ketama_set_free(left);
        ketama_set_free(right);
        ketama_set_free(ptr::null_mut());
    }
}

#[test]
fn the_writer_state_machine_runs_to_done_and_is_freed() {
    // SAFETY: writable out-pointers; the writer is freed once.
    unsafe {
        let (mut writer, mut action) = (ptr::null_mut(), 0u32);
        assert_eq!(
            ketama_set_writer_new(0, 0, &mut writer, &mut action),
            KETAMA_OK
        );
        assert_eq!(action, SetAction::DoAppend as u32);
        let not_stored = Reply::NotStored as u32;
        assert_eq!(
            ketama_set_writer_step(writer, not_stored, &mut action),
            KETAMA_OK
        );
        assert_eq!(action, SetAction::DoAdd as u32);
        let stored = Reply::Stored as u32;
        assert_eq!(
            ketama_set_writer_step(writer, stored, &mut action),
            KETAMA_OK
        );
        assert_eq!(action, SetAction::DoneCreated as u32);
        ketama_set_writer_free(writer);
    }
}
