//! The compat roll's registry of live continuum handles: `ketama_roll`
//! adds each handle it hands out, `ketama_smoke` takes it out (once: a
//! second smoke finds nothing and frees nothing), and `ketama_get_server`
//! asks whether a continuum is a live handle before it reads past the
//! C-visible struct.
//!
//! None of them takes a lock a reader can wait on: the handles live in a
//! table of atomic words, open addressing with linear probing over at most
//! [`PROBES`] slots from the address's hash. A slot goes from empty to a
//! handle, and from a handle to gone (reusable by a later handle), never
//! back to empty, so a handle is always found before the first empty slot
//! of its probe. Only when every slot of a probe is taken does a handle go
//! to the overflow set, behind a mutex; that set is looked at only while it
//! holds something (tens of thousands of handles live at once).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Slots of the table (512 KiB of zeroed memory, mapped as it is touched).
const SLOTS: usize = 1 << 16;
/// Fibonacci hashing's multiplier: heap addresses differ mostly in their
/// middle bits, and the product's top bits mix them all.
const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;
/// The most slots looked at from a handle's first one.
const PROBES: usize = 32;
/// A slot never used.
const EMPTY: usize = 0;
/// A slot whose handle was smoked (handles are aligned: never 0 or 1).
const GONE: usize = 1;

static TABLE: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(EMPTY) }; SLOTS];
/// Handles that found no free slot in their probe. (A B-tree: valgrind
/// sees its allocations as reachable at exit, not as leaks.)
static OVERFLOW: Mutex<Option<BTreeSet<usize>>> = Mutex::new(None);
/// How many handles `OVERFLOW` holds: readers skip it while 0.
static OVERFLOWED: AtomicUsize = AtomicUsize::new(0);

/// The slots of `address`'s probe, in order.
fn probe(address: usize) -> impl Iterator<Item = &'static AtomicUsize> {
    let first = (address as u64).wrapping_mul(MULTIPLIER) >> (64 - SLOTS.trailing_zeros());
    (0..PROBES).map(move |i| &TABLE[(first as usize + i) % SLOTS])
}

fn overflow() -> MutexGuard<'static, Option<BTreeSet<usize>>> {
    OVERFLOW.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records the live handle at `address` (not already recorded).
pub(crate) fn insert(address: usize) {
    debug_assert!(address > GONE);
    for slot in probe(address) {
        let seen = slot.load(Ordering::Acquire);
        if (seen == EMPTY || seen == GONE)
            && slot
                .compare_exchange(seen, address, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            return;
        }
    }
    overflow().get_or_insert_with(BTreeSet::new).insert(address);
    OVERFLOWED.fetch_add(1, Ordering::AcqRel);
}

/// Takes the handle at `address` out; true when it was live (the caller
/// then frees it, and no other call can).
pub(crate) fn remove(address: usize) -> bool {
    if address <= GONE {
        return false;
    }
    for slot in probe(address) {
        match slot.load(Ordering::Acquire) {
            EMPTY => break,
            seen if seen == address => {
                return slot
                    .compare_exchange(address, GONE, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok();
            }
            _ => {}
        }
    }
    if OVERFLOWED.load(Ordering::Acquire) == 0 {
        return false;
    }
    let removed = overflow().as_mut().is_some_and(|set| set.remove(&address));
    if removed {
        OVERFLOWED.fetch_sub(1, Ordering::AcqRel);
    }
    removed
}

/// True when the handle at `address` is live. Waits for nothing while the
/// overflow set is empty.
pub(crate) fn contains(address: usize) -> bool {
    if address <= GONE {
        return false;
    }
    for slot in probe(address) {
        match slot.load(Ordering::Acquire) {
            EMPTY => break,
            seen if seen == address => return true,
            _ => {}
        }
    }
    OVERFLOWED.load(Ordering::Acquire) > 0
        && overflow()
            .as_ref()
            .is_some_and(|set| set.contains(&address))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Addresses no allocation of the tests has (odd, so no handle either),
    /// all with the same first slot: the hash multiplies by an odd constant,
    /// so each address is made from the product it should have (the first
    /// slot of `0x7777_0001` in the top bits, an odd count below) times the
    /// constant's inverse, with no search (a search takes minutes in Miri).
    fn colliding(count: usize) -> Vec<usize> {
        const K: u64 = MULTIPLIER;
        let mut inverse = K;
        for _ in 0..6 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(K.wrapping_mul(inverse)));
        }
        assert_eq!(K.wrapping_mul(inverse), 1);
        let bits = SLOTS.trailing_zeros();
        let top = 0x7777_0001u64.wrapping_mul(K) >> (64 - bits) << (64 - bits);
        let first = |a: usize| probe(a).next().unwrap() as *const AtomicUsize;
        let made: Vec<usize> = (0..count as u64)
            .map(|i| (top | (2 * i + 1)).wrapping_mul(inverse) as usize)
            .collect();
        assert!(
            made.iter()
                .all(|&a| a % 2 == 1 && first(a) == first(0x7777_0001))
        );
        made
    }

    #[test]
    fn handles_are_found_until_removed_once_even_past_a_full_probe() {
        // More than a probe holds, all on one first slot: the last go to the
        // overflow set.
        let handles = colliding(PROBES + 3);
        for &h in &handles {
            assert!(!contains(h));
            insert(h);
        }
        assert!(handles.iter().all(|&h| contains(h)));
        assert!(OVERFLOWED.load(Ordering::Acquire) >= 3);
        // Removing one in the middle of the probe leaves the rest findable.
        assert!(remove(handles[1]));
        assert!(!remove(handles[1]), "a second removal finds nothing");
        assert!(!contains(handles[1]));
        assert!(
            handles
                .iter()
                .enumerate()
                .all(|(i, &h)| i == 1 || contains(h))
        );
        // Its slot is reused.
        insert(handles[1]);
        assert!(contains(handles[1]));
        for &h in &handles {
            assert!(remove(h));
            assert!(!contains(h));
        }
        assert!(!remove(0) && !contains(1));
    }
}
