//! [`MemberSet`]: sorted, unique byte-string members stored in one arena.

use std::cmp::Ordering;

/// Where one member lives in the arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

/// A set of byte strings, sorted bytewise (memcmp order, a shorter prefix
/// first) and without duplicates. Members live in one byte arena, so a
/// decoded set costs one copy of the value plus 8 bytes per member.
#[derive(Clone, Default)]
pub struct MemberSet {
    arena: Vec<u8>,
    spans: Vec<Span>,
}

impl MemberSet {
    /// The empty set.
    pub fn new() -> Self {
        MemberSet::default()
    }

    /// Builds a set from members in any order, with duplicates.
    pub fn from_members<I, M>(members: I) -> Self
    where
        I: IntoIterator<Item = M>,
        M: AsRef<[u8]>,
    {
        let mut sorted: Vec<Vec<u8>> = members.into_iter().map(|m| m.as_ref().to_vec()).collect();
        sorted.sort_unstable();
        sorted.dedup();
        MemberSet::from_sorted_unique(sorted.iter().map(Vec::as_slice))
    }

    /// Builds a set from members already sorted and unique (not checked
    /// beyond a debug assertion).
    pub(crate) fn from_sorted_unique<'a>(members: impl IntoIterator<Item = &'a [u8]>) -> Self {
        let mut set = MemberSet::new();
        for member in members {
            set.push_sorted(member);
        }
        set
    }

    /// Wraps an arena and spans known to be sorted and unique.
    pub(crate) fn from_parts(arena: Vec<u8>, spans: Vec<Span>) -> Self {
        MemberSet { arena, spans }
    }

    /// Appends a member greater than every member already present.
    pub(crate) fn push_sorted(&mut self, member: &[u8]) {
        debug_assert!(self.last().is_none_or(|last| last < member));
        let start = self.arena.len() as u32;
        self.arena.extend_from_slice(member);
        self.spans.push(Span {
            start,
            len: member.len() as u32,
        });
    }

    /// Number of members (SCARD).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Member `index` in sorted order.
    pub fn get(&self, index: usize) -> Option<&[u8]> {
        self.spans.get(index).map(|span| self.slice(*span))
    }

    /// The largest member.
    pub fn last(&self) -> Option<&[u8]> {
        self.spans.last().map(|span| self.slice(*span))
    }

    fn slice(&self, span: Span) -> &[u8] {
        &self.arena[span.start as usize..(span.start + span.len) as usize]
    }

    /// Iterates the members in sorted order (SMEMBERS).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + DoubleEndedIterator + Clone + '_ {
        self.spans.iter().map(|span| self.slice(*span))
    }

    /// Index of `member`, or where it would be inserted.
    pub fn search(&self, member: &[u8]) -> Result<usize, usize> {
        self.spans
            .binary_search_by(|span| self.slice(*span).cmp(member))
    }

    /// Whether `member` is in the set (SISMEMBER).
    pub fn contains(&self, member: &[u8]) -> bool {
        self.search(member).is_ok()
    }

    /// First index at or after `from` whose member is `>= target`, found by
    /// galloping: probe `first_step` ahead, double the step until passing
    /// the target, then binary-search the last step. O(log distance);
    /// a `first_step` near the expected gap (large/small) saves the
    /// doubling rounds.
    pub(crate) fn gallop(&self, from: usize, target: &[u8], first_step: usize) -> usize {
        let len = self.len();
        if from >= len || self.slice(self.spans[from]) >= target {
            return from;
        }
        // Invariant: member[low] < target.
        let mut low = from;
        let mut step = first_step.max(1);
        let mut high = loop {
            let probe = low + step;
            if probe >= len {
                break len;
            }
            if self.slice(self.spans[probe]) >= target {
                break probe;
            }
            low = probe;
            step *= 2;
        };
        // member[low] < target <= member[high] (or high == len).
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            match self.slice(self.spans[mid]).cmp(target) {
                Ordering::Less => low = mid,
                _ => high = mid,
            }
        }
        high
    }

    /// Total bytes of all members.
    pub fn member_bytes(&self) -> usize {
        self.spans.iter().map(|s| s.len as usize).sum()
    }

    /// The members as owned vectors (for tests and callers that want them).
    pub fn to_vec(&self) -> Vec<Vec<u8>> {
        self.iter().map(<[u8]>::to_vec).collect()
    }
}

impl PartialEq for MemberSet {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for MemberSet {}

impl std::fmt::Debug for MemberSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|m| String::from_utf8_lossy(m)))
            .finish()
    }
}
