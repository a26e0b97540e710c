//! When each phase of a migration begins, for the whole pool or for one key.
//!
//! A migration moves a pool from an old ring to a new one through phases
//! ([`Phase`]). Every client of the pool computes the phase from the same
//! schedule and its own clock, so two clients whose clocks differ by less
//! than the schedule's `interval` are at most one phase apart: that bound is
//! what the protocols in [`super::protocol`] are proven against.

use crate::hash::HashAlgorithm;

crate::named_enum! {
    /// How a pool moves from its old ring to its new one (`ketama_migration_mode`).
    pub enum Mode: "ketama_migration_mode" {
        /// Reads go to the new owner; a miss on a moved key reads the old
        /// owner and copies the value forward under a lease (mcrouter's
        /// `WarmUpRoute`, made safe against stale copies).
        /// Also named "default": the mode of a migration that names none.
        Warmup = 0, KETAMA_MIGRATION_WARMUP, "warmup", ["warm-up", "warmuproute", "default"];
        /// Reads and writes switch from the old owner to the new one after a
        /// transition in which deletes reach both (mcrouter's `MigrateRoute`),
        /// writes invalidating the other side.
        Phased = 1, KETAMA_MIGRATION_PHASED, "phased", ["migrate", "migrateroute"];
        /// Phased, each moved key switching at its own stable moment inside
        /// the interval, so that the cold misses are spread over it.
        Gradual = 2, KETAMA_MIGRATION_GRADUAL, "gradual", [];
    }
}

impl Default for Mode {
    /// The mode of a migration that names none: warm-up.
    fn default() -> Self {
        Mode::Warmup
    }
}

crate::named_enum! {
    /// Where a key stands in a migration (`ketama_migration_phase`).
    pub enum Phase: "ketama_migration_phase" {
        /// Before the start: the old ring alone.
        Old = 0, KETAMA_MIGRATION_PHASE_OLD, "old", [];
        /// Reads and writes on the old owner; writes and deletes also clear
        /// the new owner.
        Prepare = 1, KETAMA_MIGRATION_PHASE_PREPARE, "prepare", [];
        /// Warm-up: reads on the new owner, falling back to the old one and
        /// copying forward; writes and deletes clear the old owner.
        Warm = 2, KETAMA_MIGRATION_PHASE_WARM, "warm", [];
        /// Reads and writes on the new owner; writes and deletes also clear
        /// the old owner.
        Switched = 3, KETAMA_MIGRATION_PHASE_SWITCHED, "switched", [];
        /// After the end: the new ring alone.
        New = 4, KETAMA_MIGRATION_PHASE_NEW, "new", [];
    }
}

/// Default length of the transition phases: an upper bound on the clock
/// skew between clients plus the longest request.
pub const DEFAULT_INTERVAL_MS: u64 = 60_000;

/// Default length of the warm-up phase.
pub const DEFAULT_WARMUP_MS: u64 = 3_600_000;

/// The times at which a migration's phases begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// How the pool moves.
    pub mode: Mode,
    /// When the migration starts, in milliseconds since the Unix epoch.
    pub start_ms: u64,
    /// Length of each transition phase (prepare, switched); longer than the
    /// clock skew between any two clients plus the longest request.
    pub interval_ms: u64,
    /// Length of the warm phase ([`Mode::Warmup`] only).
    pub warmup_ms: u64,
}

impl Schedule {
    /// A schedule of `mode` starting at `start_ms`, with the default
    /// interval and warm-up length.
    pub fn new(mode: Mode, start_ms: u64) -> Schedule {
        Schedule {
            mode,
            start_ms,
            interval_ms: DEFAULT_INTERVAL_MS,
            warmup_ms: DEFAULT_WARMUP_MS,
        }
    }

    /// The phase of the pool at `now_ms` for a key whose moment is shifted
    /// by `offset_ms` (0 but in [`Mode::Gradual`]).
    pub fn phase_at(&self, now_ms: u64, offset_ms: u64) -> Phase {
        let start = self.start_ms.saturating_add(offset_ms);
        let warm = match self.mode {
            Mode::Warmup => self.warmup_ms,
            Mode::Phased | Mode::Gradual => 0,
        };
        // Phase boundaries in order; a zero-length phase is skipped.
        let bounds = [
            (Phase::Prepare, start),
            (Phase::Warm, start.saturating_add(self.interval_ms)),
            (
                Phase::Switched,
                start.saturating_add(self.interval_ms).saturating_add(warm),
            ),
            (
                Phase::New,
                start
                    .saturating_add(self.interval_ms.saturating_mul(2))
                    .saturating_add(warm),
            ),
        ];
        bounds
            .iter()
            .rev()
            .find(|(_, at)| now_ms >= *at)
            .map_or(Phase::Old, |(phase, _)| *phase)
    }

    /// When the last key reaches [`Phase::New`]: from then on the
    /// migration is the new ring alone.
    pub fn end_ms(&self) -> u64 {
        let warm = if self.mode == Mode::Warmup {
            self.warmup_ms
        } else {
            0
        };
        let spread = if self.mode == Mode::Gradual {
            self.interval_ms
        } else {
            0
        };
        self.start_ms
            .saturating_add(self.interval_ms.saturating_mul(2))
            .saturating_add(warm)
            .saturating_add(spread)
    }

    /// A key's own shift of the schedule: in [`Mode::Gradual`] a stable
    /// fraction of the interval taken from the key's MD5 (the same for
    /// every client and language), else 0.
    pub fn offset_ms(&self, key: &[u8]) -> u64 {
        if self.mode != Mode::Gradual {
            return 0;
        }
        ((u128::from(HashAlgorithm::Md5.hash(key)) * u128::from(self.interval_ms)) >> 32) as u64
    }

    /// The phase of `key` at `now_ms`.
    pub fn phase_of(&self, key: &[u8], now_ms: u64) -> Phase {
        self.phase_at(now_ms, self.offset_ms(key))
    }

    /// Fails, naming the field, when the schedule cannot be followed (a
    /// warm-up without a warm phase).
    pub fn check(&self) -> Result<(), crate::Error> {
        if self.mode == Mode::Warmup && self.warmup_ms == 0 {
            return Err(crate::Error::InvalidArgument(
                "migration: warm-up mode needs a warm-up length above 0 ms".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mode_named_default_is_the_default_mode() {
        assert_eq!(Mode::from_name("default"), Some(Mode::default()));
    }

    #[test]
    fn phases_follow_each_other_at_their_boundaries() {
        let s = Schedule {
            mode: Mode::Warmup,
            start_ms: 1000,
            interval_ms: 10,
            warmup_ms: 100,
        };
        let at = |t| s.phase_at(t, 0);
        assert_eq!(at(999), Phase::Old);
        assert_eq!(at(1000), Phase::Prepare);
        assert_eq!(at(1009), Phase::Prepare);
        assert_eq!(at(1010), Phase::Warm);
        assert_eq!(at(1109), Phase::Warm);
        assert_eq!(at(1110), Phase::Switched);
        assert_eq!(at(1119), Phase::Switched);
        assert_eq!(at(1120), Phase::New);
        assert_eq!(s.end_ms(), 1120);
        let phased = Schedule {
            mode: Mode::Phased,
            ..s
        };
        assert_eq!(phased.phase_at(1010, 0), Phase::Switched);
        assert_eq!(phased.phase_at(1020, 0), Phase::New);
        assert_eq!(phased.end_ms(), 1020);
    }

    #[test]
    fn a_zero_interval_skips_the_transitions() {
        let s = Schedule {
            mode: Mode::Warmup,
            start_ms: 0,
            interval_ms: 0,
            warmup_ms: 5,
        };
        assert_eq!(s.phase_at(0, 0), Phase::Warm);
        assert_eq!(s.phase_at(5, 0), Phase::New);
    }

    #[test]
    fn gradual_keys_switch_at_stable_moments_spread_over_the_interval() {
        let s = Schedule {
            mode: Mode::Gradual,
            start_ms: 0,
            interval_ms: 1000,
            warmup_ms: 0,
        };
        let offsets: Vec<u64> = (0..1000)
            .map(|i| s.offset_ms(format!("key:{i}").as_bytes()))
            .collect();
        assert!(offsets.iter().all(|&o| o < 1000));
        let early = offsets.iter().filter(|&&o| o < 500).count();
        assert!(
            (400..600).contains(&early),
            "{early} of 1000 in the first half"
        );
        assert_eq!(s.offset_ms(b"key:7"), s.offset_ms(b"key:7"));
        assert_eq!(
            Schedule {
                mode: Mode::Phased,
                ..s
            }
            .offset_ms(b"key:7"),
            0
        );
        // A key is in Switched exactly from start + interval + its offset.
        let offset = s.offset_ms(b"user:1");
        assert_eq!(s.phase_of(b"user:1", 1000 + offset - 1), Phase::Prepare);
        assert_eq!(s.phase_of(b"user:1", 1000 + offset), Phase::Switched);
        assert!(s.end_ms() >= 2000 + offset);
    }
}
