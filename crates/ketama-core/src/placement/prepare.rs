//! Key preparation: what a client does to a key before it hashes it
//! (cuts it, rewrites bytes, digests a long key, hashes only its hash tag).
//! Each rule is a [`Preparation`] declared as a `static` beside the rule
//! itself, in the client's file or among the hash tags, and a placement
//! picks it. Two rings prepare keys alike exactly when they hold the same
//! static.

use std::borrow::Cow;

/// A client's rule for the bytes it hashes of a key.
pub struct Preparation {
    /// What it does, as messages and debug output name it.
    pub name: &'static str,
    /// The rule: the key as the client hashes it.
    pub rule: fn(&[u8]) -> Cow<'_, [u8]>,
}

impl Preparation {
    /// `key` as the client hashes it.
    #[inline]
    pub fn apply<'k>(&self, key: &'k [u8]) -> Cow<'k, [u8]> {
        (self.rule)(key)
    }
}

/// The same rule only when the same static: preparations are compared by
/// identity, never by what their functions do.
impl PartialEq for Preparation {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Preparation {}

impl std::fmt::Debug for Preparation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static CUT: Preparation = Preparation {
        name: "the first byte",
        rule: |key| Cow::Borrowed(&key[..key.len().min(1)]),
    };
    static ALSO_CUT: Preparation = Preparation {
        name: "the first byte",
        rule: |key| Cow::Borrowed(&key[..key.len().min(1)]),
    };

    #[test]
    fn rules_apply_and_compare_by_identity() {
        assert_eq!(&*CUT.apply(b"abc"), b"a");
        assert_eq!(Some(&CUT), Some(&CUT));
        assert_ne!(
            Some(&CUT),
            Some(&ALSO_CUT),
            "another static is another rule"
        );
        assert_ne!(Some(&CUT), None);
        assert_eq!(format!("{CUT:?}"), "the first byte");
    }
}
