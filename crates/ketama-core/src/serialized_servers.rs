//! A server list as PHP's `serialize()` writes an array of servers: PHP's
//! binding hands a list over as one string made by one C-level call
//! (`serialize($servers)`), not walked entry by entry in PHP, and the ring
//! cache finds the ring of an equal string without reading it
//! ([`crate::ring_cache::RingCache::from_serialized`]).
//!
//! Two entry forms are read, each exactly as PHP writes it: an integer key
//! with a string value (`i:0;s:14:"10.0.0.1:11211";`, an address, no
//! weight) and a string key with an integer value
//! (`s:14:"10.0.0.1:11211";i:100;`, an address and its weight; 0 is "not
//! given"). Anything else (a nested array, a float, a negative weight) is
//! refused with [`Error::InvalidArgument`] saying where, and the binding
//! then reads the list its slower way, which takes every form and gives
//! each mistake its own message. Each server is checked as every server a
//! caller hands over is ([`ServerSpec::checked`]).

use crate::{Error, ServerSpec};

/// One serialized value: an integer or a byte string.
enum Value<'a> {
    Int(i64),
    Bytes(&'a [u8]),
}

/// A reader over the bytes, its position for messages.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn refuse(&self, what: &str) -> Error {
        Error::InvalidArgument(format!(
            "serialized server list: {what} at byte {} (an array of address strings, or of \
             address => integer weight, is read)",
            self.at
        ))
    }

    fn expect(&mut self, text: &[u8]) -> Result<(), Error> {
        if self.bytes[self.at..].starts_with(text) {
            self.at += text.len();
            Ok(())
        } else {
            Err(self.refuse(&format!("expected '{}'", String::from_utf8_lossy(text))))
        }
    }

    /// Decimal digits (an optional leading '-') up to `end`, consumed.
    fn integer(&mut self, end: u8) -> Result<i64, Error> {
        let rest = &self.bytes[self.at..];
        let len = rest
            .iter()
            .position(|&b| b == end)
            .ok_or_else(|| self.refuse("an unterminated integer"))?;
        let text = &rest[..len];
        let digits = text.strip_prefix(b"-").unwrap_or(text);
        let value = (!digits.is_empty() && digits.iter().all(u8::is_ascii_digit))
            .then(|| std::str::from_utf8(text).ok()?.parse::<i64>().ok())
            .flatten()
            .ok_or_else(|| self.refuse("an integer out of range or malformed"))?;
        self.at += len + 1;
        Ok(value)
    }

    fn value(&mut self) -> Result<Value<'a>, Error> {
        match self.bytes.get(self.at..self.at + 2) {
            Some(b"i:") => {
                self.at += 2;
                Ok(Value::Int(self.integer(b';')?))
            }
            Some(b"s:") => {
                self.at += 2;
                let len = usize::try_from(self.integer(b':')?)
                    .map_err(|_| self.refuse("a negative string length"))?;
                self.expect(b"\"")?;
                let end = self
                    .at
                    .checked_add(len)
                    .filter(|&end| end <= self.bytes.len())
                    .ok_or_else(|| self.refuse("a string past the end"))?;
                let bytes = &self.bytes[self.at..end];
                self.at = end;
                self.expect(b"\";")?;
                Ok(Value::Bytes(bytes))
            }
            _ => Err(self.refuse("a value that is neither an integer nor a string")),
        }
    }
}

/// The servers of `bytes`, PHP's `serialize()` of an array (see the module
/// docs), in order.
pub fn specs(bytes: &[u8]) -> Result<Vec<ServerSpec>, Error> {
    let mut reader = Reader { bytes, at: 0 };
    reader.expect(b"a:")?;
    let count = usize::try_from(reader.integer(b':')?)
        .map_err(|_| reader.refuse("a negative entry count"))?;
    reader.expect(b"{")?;
    // Every entry takes at least 8 bytes: no count may reserve more than the bytes hold.
    let mut servers = Vec::with_capacity(count.min(bytes.len() / 8));
    for index in 0..count {
        let entry_at = reader.at;
        let server = match (reader.value()?, reader.value()?) {
            (Value::Int(_), Value::Bytes(address)) => ServerSpec::checked(address, None, None)?,
            (Value::Bytes(address), Value::Int(weight)) => {
                let weight = u64::try_from(weight).map_err(|_| {
                    Error::InvalidArgument(format!(
                        "serialized server list: server {index}: weight {weight} is negative"
                    ))
                })?;
                ServerSpec::checked(address, Some(weight), None)?
            }
            _ => {
                reader.at = entry_at;
                return Err(reader.refuse(&format!("server {index} is of no form read")));
            }
        };
        servers.push(server);
    }
    reader.expect(b"}")?;
    if reader.at != bytes.len() {
        return Err(reader.refuse("bytes after the array"));
    }
    Ok(servers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_read_as_php_writes_them() {
        // What PHP 8.2's serialize() wrote for ['10.0.0.1:11211', '10.0.0.2:11211']
        // and for ['10.0.0.1:11211' => 100, 'b:2' => 0].
        let list = br#"a:2:{i:0;s:14:"10.0.0.1:11211";i:1;s:14:"10.0.0.2:11211";}"#;
        assert_eq!(
            specs(list).unwrap(),
            vec![
                ServerSpec::unweighted("10.0.0.1:11211"),
                ServerSpec::unweighted("10.0.0.2:11211")
            ]
        );
        let map = br#"a:2:{s:14:"10.0.0.1:11211";i:100;s:3:"b:2";i:0;}"#;
        assert_eq!(
            specs(map).unwrap(),
            vec![
                ServerSpec::new("10.0.0.1:11211", 100),
                ServerSpec::unweighted("b:2")
            ]
        );
        // Bytes are taken as they are, quotes and semicolons included.
        let odd = b"a:1:{i:5;s:5:\"a\";b\xff\";}";
        assert_eq!(specs(odd).unwrap()[0].address, b"a\";b\xff");
        assert_eq!(specs(b"a:0:{}").unwrap(), vec![]);
    }

    #[test]
    fn other_forms_and_damage_are_refused_saying_where() {
        let err = |bytes: &[u8]| specs(bytes).unwrap_err().to_string();
        let nested = br#"a:1:{i:0;a:1:{s:7:"address";s:3:"a:1";}}"#;
        assert!(
            err(nested).contains("neither an integer nor a string at byte 9"),
            "{}",
            err(nested)
        );
        let two_ints = br#"a:1:{i:0;i:1;}"#;
        assert!(err(two_ints).contains("server 0 is of no form read at byte 5"));
        assert!(err(br#"a:1:{s:3:"a:1";i:-1;}"#).contains("weight -1 is negative"));
        assert!(err(br#"a:1:{s:3:"a:1";d:1.5;}"#).contains("neither an integer nor a string"));
        assert!(err(br#"a:1:{s:99:"a:1";i:1;}"#).contains("past the end"));
        assert!(err(br#"a:2:{s:3:"a:1";i:1;}"#).contains("neither an integer nor a string"));
        assert!(err(br#"a:1:{s:3:"a:1";i:1;}x"#).contains("bytes after the array"));
        assert!(err(b"a:99999999999999999999:{}").contains("out of range"));
        assert!(err(b"s:3:\"a:1\";").contains("expected 'a:'"));
        // A server refused as any caller's would be: a NUL in the address.
        assert!(err(b"a:1:{i:0;s:3:\"a\0b\";}").contains("address"));
        // A huge count reserves nothing it cannot hold.
        assert!(err(b"a:4000000000:{}").contains("neither an integer nor a string"));
    }
}
