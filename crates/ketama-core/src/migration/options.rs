//! A migration's settings, and reading them from option text
//! (`interval=60s,warmup=1h,copy_ttl=1h,lease_ttl=10s`) for every front end.

use super::schedule::{Mode, Schedule};
use crate::Error;

/// Default TTL of a value copied forward during warm-up, in seconds: the
/// copy's original TTL is not known, so it is capped.
pub const DEFAULT_COPY_TTL: u32 = 3600;

/// Default TTL of a warm-up reader's lease, in seconds: how long other
/// readers of the key read the old side without copying, should the reader
/// die between its lease and its copy.
pub const DEFAULT_LEASE_TTL: u32 = 10;

/// Longest relative TTL memcached takes (30 days); longer is a date.
const MAX_TTL: u64 = 60 * 60 * 24 * 30;

/// The names [`parse`] accepts, in the order help texts list them.
pub const OPTION_NAMES: &[&str] = &["interval", "warmup", "copy_ttl", "lease_ttl"];

/// TTLs of what a migration stores itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Settings {
    /// TTL of a value copied from the old side to the new one (seconds).
    pub copy_ttl: u32,
    /// TTL of a lease (seconds).
    pub lease_ttl: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            copy_ttl: DEFAULT_COPY_TTL,
            lease_ttl: DEFAULT_LEASE_TTL,
        }
    }
}

/// The schedule and settings of a migration of `mode` starting at
/// `start_ms`, from option text (`None` or empty: the defaults).
///
/// Names: `interval` and `warmup` (durations: a number and a unit, `ms`,
/// `s`, `m` or `h`; a bare number is seconds), `copy_ttl` and `lease_ttl`
/// (seconds, or a duration of whole seconds, 1 s to 30 days). A name given
/// twice, an unknown name or a bad value is an error naming it.
pub fn parse(mode: Mode, start_ms: u64, text: Option<&str>) -> Result<(Schedule, Settings), Error> {
    let mut items = Vec::new();
    for item in text.unwrap_or("").split(',').map(str::trim) {
        if item.is_empty() {
            continue;
        }
        let (name, value) = item.split_once('=').ok_or_else(|| {
            Error::InvalidArgument(format!(
                "migration option {item:?} is not NAME=VALUE (names: {})",
                OPTION_NAMES.join(", ")
            ))
        })?;
        items.push((name, value));
    }
    parse_items(mode, start_ms, items)
}

/// [`parse`] for options already given one by one as `(name, value)`
/// pairs (keyword arguments of a binding): the same names, values and
/// errors, with no text to split.
pub fn parse_items<'a>(
    mode: Mode,
    start_ms: u64,
    items: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<(Schedule, Settings), Error> {
    let mut schedule = Schedule::new(mode, start_ms);
    let mut settings = Settings::default();
    let mut seen: Vec<&str> = Vec::new();
    for (name, value) in items {
        let (name, value) = (name.trim(), value.trim());
        let name = OPTION_NAMES
            .iter()
            .copied()
            .find(|known| known.eq_ignore_ascii_case(&name.replace('-', "_")))
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown migration option {name:?} (names: {})",
                    OPTION_NAMES.join(", ")
                ))
            })?;
        if seen.contains(&name) {
            return Err(Error::InvalidArgument(format!(
                "migration option {name} is given twice"
            )));
        }
        seen.push(name);
        let ms = duration_ms(name, value)?;
        match name {
            "interval" => schedule.interval_ms = ms,
            "warmup" => schedule.warmup_ms = ms,
            ttl => {
                if ms % 1000 != 0 || !(1..=MAX_TTL).contains(&(ms / 1000)) {
                    return Err(Error::InvalidArgument(format!(
                        "migration option {ttl}={value}: a TTL is whole seconds from 1 s to 30 days"
                    )));
                }
                let seconds = (ms / 1000) as u32;
                if ttl == "copy_ttl" {
                    settings.copy_ttl = seconds;
                } else {
                    settings.lease_ttl = seconds;
                }
            }
        }
    }
    schedule.check()?;
    Ok((schedule, settings))
}

/// A duration in milliseconds: a number and a unit (`ms`, `s`, `m`, `h`),
/// a bare number being seconds.
fn duration_ms(name: &str, value: &str) -> Result<u64, Error> {
    let split = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    let (number, unit) = value.split_at(split);
    let scale: u64 = match unit.trim() {
        "ms" => 1,
        "" | "s" => 1000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        _ => 0,
    };
    number
        .parse::<u64>()
        .ok()
        .filter(|_| scale != 0)
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "migration option {name}={value:?}: expected a number and a unit (ms, s, m, h)"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_set_the_schedule_and_the_ttls() {
        let (s, t) = parse(
            Mode::Warmup,
            5,
            Some("interval=90s, warmup=2h,copy_ttl=10m,lease-ttl=3"),
        )
        .unwrap();
        assert_eq!(
            (s.start_ms, s.interval_ms, s.warmup_ms),
            (5, 90_000, 7_200_000)
        );
        assert_eq!((t.copy_ttl, t.lease_ttl), (600, 3));
        let (s, t) = parse(Mode::Phased, 0, None).unwrap();
        assert_eq!(s, Schedule::new(Mode::Phased, 0));
        assert_eq!(t, Settings::default());
        assert_eq!(
            parse(Mode::Gradual, 0, Some("interval=250ms"))
                .unwrap()
                .0
                .interval_ms,
            250
        );
    }

    #[test]
    fn bad_options_are_named() {
        let err = |text| parse(Mode::Warmup, 0, Some(text)).unwrap_err().to_string();
        assert_eq!(
            err("speed=3"),
            "unknown migration option \"speed\" (names: interval, warmup, copy_ttl, lease_ttl)"
        );
        assert!(
            err("interval").contains("is not NAME=VALUE"),
            "{}",
            err("interval")
        );
        assert!(err("interval=3d").contains("expected a number and a unit"));
        assert!(err("copy_ttl=0").contains("whole seconds from 1 s to 30 days"));
        assert!(err("lease_ttl=1500ms").contains("whole seconds"));
        assert!(err("copy_ttl=31d").contains("expected a number"));
        assert_eq!(
            err("warmup=1s,warmup=2s"),
            "migration option warmup is given twice"
        );
        assert!(err("warmup=0").contains("warm-up length above 0"));
        // Items one by one: a value is never split into more options.
        let items = |pairs: &[(&str, &str)]| {
            parse_items(Mode::Warmup, 0, pairs.iter().copied()).map_err(|e| e.to_string())
        };
        assert_eq!(
            items(&[("interval", "90s"), ("lease_ttl", "3")])
                .unwrap()
                .0
                .interval_ms,
            90_000
        );
        assert!(
            items(&[("interval", "1s,warmup=0")])
                .unwrap_err()
                .contains("interval=\"1s,warmup=0\": expected a number and a unit")
        );
    }
}
