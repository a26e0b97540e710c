//! What precedes a list's records: the seal `^` of a retired list and the
//! copy header `=<generation>:<length> ` a flip writes (see [`super::flip`]).
//! Every decode reads it first.

use super::error::{SetError, SetErrorKind};

/// The seal marker: a list whose value starts with it is retired.
pub const SEAL: u8 = b'^';

/// What precedes the records of a list value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Prefix {
    /// The value starts with `^`.
    pub sealed: bool,
    /// The copy header `=gen:len`, if any: (generation, bytes of the other
    /// list's body this list already holds).
    pub header: Option<(u64, usize)>,
    /// Where the body starts (after every `^`); header lengths count from here.
    pub body_start: usize,
    /// Where the records start (after the header).
    pub records_start: usize,
}

fn digits(value: &[u8], at: usize, what: &str) -> Result<(u64, usize), SetError> {
    let run = value[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if run == 0 || run > 19 {
        return Err(SetError::new(
            SetErrorKind::BadOp,
            at,
            0,
            format!("the copy header's {what} must be 1 to 19 digits"),
        ));
    }
    let text = std::str::from_utf8(&value[at..at + run]).unwrap_or("0");
    let number = text.parse::<u64>().map_err(|_| {
        SetError::new(
            SetErrorKind::BadOp,
            at,
            0,
            format!("the copy header's {what} is too large"),
        )
    })?;
    Ok((number, at + run))
}

/// Reads the seal and the copy header at the start of `value`.
pub fn parse_prefix(value: &[u8]) -> Result<Prefix, SetError> {
    let body_start = value.iter().take_while(|&&b| b == SEAL).count();
    let mut prefix = Prefix {
        sealed: body_start > 0,
        header: None,
        body_start,
        records_start: body_start,
    };
    if value.get(body_start) == Some(&b'=') {
        let (generation, at) = digits(value, body_start + 1, "generation")?;
        if value.get(at) != Some(&b':') {
            return Err(SetError::new(
                SetErrorKind::BadOp,
                at,
                0,
                "the copy header needs ':' after its generation",
            ));
        }
        let (length, at) = digits(value, at + 1, "length")?;
        if value.get(at) != Some(&b' ') {
            return Err(SetError::new(
                SetErrorKind::BadOp,
                at,
                0,
                "the copy header ends with one space",
            ));
        }
        let length = usize::try_from(length).map_err(|_| {
            SetError::new(SetErrorKind::BadOp, at, 0, "the copy length is too large")
        })?;
        prefix.header = Some((generation, length));
        prefix.records_start = at + 1;
    }
    Ok(prefix)
}
