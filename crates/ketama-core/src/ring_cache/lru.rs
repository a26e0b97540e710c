//! A small set of values by key, the least recently used dropped first:
//! at most so many entries, and fewer while their weights add up to more
//! than a bound (the most recently inserted is always kept). The ring cache
//! keeps its rings in one, the compat roll its continuums in another.
//!
//! Finding a value takes the read side of a lock and stamps the entry with
//! an atomic; a value's weight changes with an atomic too. The write side
//! is taken only to insert an entry and to drop entries over the bounds,
//! so readers of the values already kept wait for nothing in the steady
//! state.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The bounds of an [`Lru`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The most entries kept (0: none; every insert is dropped at once).
    pub entries: usize,
    /// The most weight kept in all, but for the most recent entry, which
    /// stays even alone over it.
    pub weight: usize,
}

/// Values by key, bounded (see the module docs).
#[derive(Debug)]
pub struct Lru<K, V> {
    slots: RwLock<Vec<Slot<K, V>>>,
    /// Uses so far: the recency stamp.
    uses: AtomicU64,
    max_entries: AtomicUsize,
    max_weight: AtomicUsize,
    /// The weight of the entries kept, kept up to date with each change.
    weight: AtomicUsize,
    evictions: AtomicU64,
}

#[derive(Debug)]
struct Slot<K, V> {
    key: K,
    value: V,
    /// [`Lru::uses`] at its last use.
    used: AtomicU64,
    weight: AtomicUsize,
}

impl<K, V: Clone> Lru<K, V> {
    /// An empty set with these bounds.
    pub const fn new(bounds: Bounds) -> Lru<K, V> {
        Lru {
            slots: RwLock::new(Vec::new()),
            uses: AtomicU64::new(0),
            max_entries: AtomicUsize::new(bounds.entries),
            max_weight: AtomicUsize::new(bounds.weight),
            weight: AtomicUsize::new(0),
            evictions: AtomicU64::new(0),
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, Vec<Slot<K, V>>> {
        self.slots.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Vec<Slot<K, V>>> {
        self.slots.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// The value of the first entry whose key `matches`, now the most
    /// recently used.
    pub fn find(&self, matches: impl Fn(&K) -> bool) -> Option<V> {
        let slots = self.read();
        let slot = slots.iter().find(|slot| matches(&slot.key))?;
        slot.used
            .store(self.uses.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        Some(slot.value.clone())
    }

    /// Makes `value`, weighing `weight`, the entry of `key` (the most
    /// recently used; an entry of an equal key is replaced), and drops the
    /// least recently used entries while the set is over its bounds. With
    /// bounds of 0 entries nothing is kept.
    pub fn insert(&self, key: K, value: V, weight: usize)
    where
        K: PartialEq,
    {
        let mut slots = self.write();
        if let Some(i) = slots.iter().position(|slot| slot.key == key) {
            let old = slots.remove(i);
            self.weight
                .fetch_sub(old.weight.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        slots.push(Slot {
            key,
            value,
            used: AtomicU64::new(self.uses.fetch_add(1, Ordering::Relaxed)),
            weight: AtomicUsize::new(weight),
        });
        self.weight.fetch_add(weight, Ordering::Relaxed);
        self.trim(&mut slots);
    }

    /// Sets the weight of the entry whose key `matches` (its value was
    /// rebuilt), dropping entries when the set is now over its bounds.
    pub fn reweigh(&self, matches: impl Fn(&K) -> bool, weight: usize) {
        {
            let slots = self.read();
            let Some(slot) = slots.iter().find(|slot| matches(&slot.key)) else {
                return;
            };
            let old = slot.weight.swap(weight, Ordering::Relaxed);
            self.weight.fetch_add(weight, Ordering::Relaxed);
            self.weight.fetch_sub(old, Ordering::Relaxed);
        }
        if self.over(self.len()) {
            self.trim(&mut self.write());
        }
    }

    /// Changes the bounds, dropping the least recently used entries over
    /// the new ones.
    pub fn set_bounds(&self, bounds: Bounds) {
        let mut slots = self.write();
        self.max_entries.store(bounds.entries, Ordering::Relaxed);
        self.max_weight.store(bounds.weight, Ordering::Relaxed);
        self.trim(&mut slots);
    }

    /// The bounds in force.
    pub fn bounds(&self) -> Bounds {
        Bounds {
            entries: self.max_entries.load(Ordering::Relaxed),
            weight: self.max_weight.load(Ordering::Relaxed),
        }
    }

    /// Drops every entry (values handed out stay valid: they are shared).
    pub fn clear(&self) {
        let mut slots = self.write();
        slots.clear();
        self.weight.store(0, Ordering::Relaxed);
    }

    /// How many entries are kept.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// True when no entry is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The weight of the entries kept.
    pub fn weight(&self) -> usize {
        self.weight.load(Ordering::Relaxed)
    }

    /// How many entries were dropped to keep within the bounds.
    pub fn evictions(&self) -> u64 {
        self.evictions.load(Ordering::Relaxed)
    }

    /// Calls `visit` with each entry's key and value.
    pub fn for_each(&self, mut visit: impl FnMut(&K, &V)) {
        for slot in self.read().iter() {
            visit(&slot.key, &slot.value);
        }
    }

    fn over(&self, len: usize) -> bool {
        len > self.max_entries.load(Ordering::Relaxed)
            || (len > 1 && self.weight() > self.max_weight.load(Ordering::Relaxed))
    }

    /// Drops the least recently used entries, the newest last of all,
    /// while over the bounds.
    fn trim(&self, slots: &mut Vec<Slot<K, V>>) {
        while !slots.is_empty() && self.over(slots.len()) {
            // The last entry is the newest: dropped only when no entry may stay.
            let oldest = if slots.len() == 1 {
                0
            } else {
                (0..slots.len() - 1)
                    .min_by_key(|&i| slots[i].used.load(Ordering::Relaxed))
                    .unwrap_or(0)
            };
            let dropped = slots.remove(oldest);
            self.weight
                .fetch_sub(dropped.weight.load(Ordering::Relaxed), Ordering::Relaxed);
            self.evictions.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn names(lru: &Lru<&'static str, Arc<u32>>) -> String {
        ["a", "b", "c", "d", "e"]
            .into_iter()
            .filter(|name| lru.find(|k| k == name).is_some())
            .collect()
    }

    fn put(lru: &Lru<&'static str, Arc<u32>>, name: &'static str, weight: usize) {
        lru.insert(name, Arc::new(weight as u32), weight);
    }

    #[test]
    fn the_least_recently_used_are_dropped_within_the_bounds() {
        let lru = Lru::new(Bounds {
            entries: 3,
            weight: 100,
        });
        for name in ["a", "b", "c"] {
            put(&lru, name, 10);
        }
        // `a` used again: `b` is now the least recently used.
        assert!(lru.find(|k| *k == "a").is_some());
        put(&lru, "d", 10);
        assert_eq!(names(&lru), "acd");
        // Over the weight: the least recently used go (`a`, then `c`)...
        put(&lru, "e", 85);
        assert_eq!(names(&lru), "de");
        assert_eq!(lru.weight(), 95);
        // ...and the newest stays, even alone over the bound.
        put(&lru, "e", 500);
        assert_eq!(names(&lru), "e");
        assert_eq!(lru.weight(), 500);
        assert_eq!(lru.evictions(), 4);
        // A value handed out outlives its entry.
        let held = lru.find(|k| *k == "e").unwrap();
        lru.clear();
        assert!(lru.is_empty());
        assert_eq!((*held, lru.weight()), (500, 0));
    }

    #[test]
    fn a_reweighed_entry_or_new_bounds_drop_what_no_longer_fits() {
        let lru = Lru::new(Bounds {
            entries: 4,
            weight: 100,
        });
        for name in ["a", "b", "c"] {
            put(&lru, name, 20);
        }
        lru.reweigh(|k| *k == "c", 70);
        assert_eq!((names(&lru), lru.weight()), ("bc".to_string(), 90));
        lru.set_bounds(Bounds {
            entries: 1,
            weight: 100,
        });
        assert_eq!(names(&lru), "c");
        lru.set_bounds(Bounds {
            entries: 0,
            weight: 100,
        });
        assert!(lru.is_empty());
        put(&lru, "a", 1);
        assert!(lru.is_empty(), "0 entries: nothing is kept");
    }
}
