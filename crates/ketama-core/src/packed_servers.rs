//! A server list handed over as packed columns: the addresses in one byte
//! buffer, and optionally the weights and the names in one buffer each,
//! the fields of a column separated by NUL bytes (which no address or name
//! holds). A caller that pays per element crossed (PHP's FFI) hands a list
//! over in one call (`implode("\0", $addresses)`), not field by field
//! (`ketama_ring_new_packed`).
//!
//! A column holds exactly `count` fields (none when `count` is 0). A weight
//! is decimal digits, or empty for "not given" (as is `0`); a name is bytes,
//! or empty for none. Each server is then checked as every server a caller
//! hands over is ([`ServerSpec::checked`]).

use crate::{Error, ServerSpec};

/// A server list as packed columns, borrowed (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedView<'a> {
    /// How many servers.
    pub count: usize,
    /// The addresses, NUL between two.
    pub addresses: &'a [u8],
    /// The weights in decimal, NUL between two; `None`: none given.
    pub weights: Option<&'a [u8]>,
    /// The names, NUL between two; `None`: none given.
    pub names: Option<&'a [u8]>,
}

impl PackedView<'_> {
    /// The servers, in order, each checked by [`ServerSpec::checked`]; a
    /// column with more or fewer than `count` fields, or a weight that is
    /// not decimal digits, is refused naming it.
    pub fn specs(&self) -> Result<Vec<ServerSpec>, Error> {
        let addresses = fields(self.addresses, self.count, "addresses")?;
        let weights = self
            .weights
            .map(|column| fields(column, self.count, "weights"))
            .transpose()?;
        let names = self
            .names
            .map(|column| fields(column, self.count, "names"))
            .transpose()?;
        addresses
            .iter()
            .enumerate()
            .map(|(i, address)| {
                let weight = match weights.as_ref().map(|w| w[i]) {
                    None | Some(b"") => None,
                    Some(text) => Some(weight(text, i)?),
                };
                let name = names.as_ref().map(|n| n[i]).filter(|n| !n.is_empty());
                ServerSpec::checked(address, weight, name)
            })
            .collect()
    }
}

/// The `count` fields of `column`, or an error naming the column.
fn fields<'a>(column: &'a [u8], count: usize, what: &str) -> Result<Vec<&'a [u8]>, Error> {
    let found: Vec<&[u8]> = if count == 0 && column.is_empty() {
        Vec::new()
    } else {
        column.split(|&b| b == 0).collect()
    };
    if found.len() != count {
        return Err(Error::InvalidArgument(format!(
            "the packed {what} hold {} field(s) for {count} server(s) (fields are separated by \
             NUL bytes, which no address or name may hold)",
            found.len()
        )));
    }
    Ok(found)
}

/// A weight field: decimal digits that fit in 64 bits.
fn weight(text: &[u8], index: usize) -> Result<u64, Error> {
    let parsed = std::str::from_utf8(text)
        .ok()
        .filter(|t| t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse::<u64>().ok());
    parsed.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "server {index}: weight '{}' is not a whole number from 0 to {}",
            crate::escape::escape_bytes(text),
            u64::MAX
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(
        count: usize,
        addresses: &'a [u8],
        weights: Option<&'a [u8]>,
        names: Option<&'a [u8]>,
    ) -> PackedView<'a> {
        PackedView {
            count,
            addresses,
            weights,
            names,
        }
    }

    #[test]
    fn columns_unpack_into_checked_servers() {
        // Weights "100", "" (not given) and "0" (not given either); names
        // "", "web" and "".
        let weights = [&b"100"[..], b"", b"0"].join(&0);
        let names = [&b""[..], b"web", b""].join(&0);
        let packed = view(3, b"a:1\0b:2\0c:3", Some(&weights), Some(&names));
        assert_eq!(
            packed.specs().unwrap(),
            vec![
                ServerSpec::new("a:1", 100),
                ServerSpec {
                    address: b"b:2".to_vec(),
                    weight: None,
                    name: Some(b"web".to_vec())
                },
                ServerSpec::unweighted("c:3"),
            ]
        );
        // The same servers as ServerSpec::checked gives them.
        let checked = ServerSpec::checked(b"b:2", Some(0), Some(b"web")).unwrap();
        assert_eq!(packed.specs().unwrap()[1], checked);
        let plain = view(1, b"x:1", None, None);
        assert_eq!(plain.specs().unwrap(), vec![ServerSpec::unweighted("x:1")]);
        assert_eq!(view(0, b"", None, None).specs().unwrap(), vec![]);
    }

    #[test]
    fn bad_columns_are_refused_naming_them() {
        let err = |v: PackedView<'_>| v.specs().unwrap_err().to_string();
        assert_eq!(
            err(view(2, b"a:1\0b:2\0c:3", None, None)),
            "the packed addresses hold 3 field(s) for 2 server(s) (fields are separated by NUL \
             bytes, which no address or name may hold)"
        );
        assert!(
            err(view(2, b"a:1\0b:2", Some(b"1"), None)).starts_with("the packed weights hold 1")
        );
        assert!(err(view(1, b"a:1", None, Some(b"x\0y"))).starts_with("the packed names hold 2"));
        assert_eq!(
            err(view(2, b"a:1\0b:2", Some(b"1\0-5"), None)),
            format!(
                "server 1: weight '-5' is not a whole number from 0 to {}",
                u64::MAX
            )
        );
        assert!(err(view(1, b"", None, None)).starts_with("server address '' is empty"));
        assert!(err(view(0, b"a", None, None)).starts_with("the packed addresses hold 1"));
    }
}
