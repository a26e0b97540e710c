//! Server specifications: what a server list says about each server.

use crate::Error;
use crate::escape::escape_bytes;

/// One server as given by the user: its address string, an optional weight
/// and an optional name (twemproxy's name column).
///
/// The address is an opaque byte string (`10.0.0.1:11211`, a hostname,
/// `[::1]:11211`): it is hashed exactly as written and never resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerSpec {
    /// The address exactly as written in the input.
    pub address: Vec<u8>,
    /// The weight, when the input gives one.
    pub weight: Option<u64>,
    /// An explicit server name, when the input gives one (twemproxy).
    pub name: Option<Vec<u8>>,
}

impl ServerSpec {
    /// A server with an explicit weight.
    pub fn new(address: impl Into<Vec<u8>>, weight: u64) -> Self {
        ServerSpec {
            address: address.into(),
            weight: Some(weight),
            name: None,
        }
    }

    /// A server without a weight (the flavour's default applies).
    pub fn unweighted(address: impl Into<Vec<u8>>) -> Self {
        ServerSpec {
            address: address.into(),
            weight: None,
            name: None,
        }
    }

    /// A server as a caller hands it over (the C ABI's `ketama_server`, a
    /// Python tuple): the address bytes, a weight where `None` and 0 both
    /// mean "not given", and an optional name. An address or a name that is
    /// empty or holds a NUL byte is refused, naming it and the byte.
    pub fn checked(
        address: &[u8],
        weight: Option<u64>,
        name: Option<&[u8]>,
    ) -> Result<Self, Error> {
        check_bytes("address", address)?;
        if let Some(name) = name {
            check_bytes("name", name)?;
        }
        Ok(ServerSpec {
            address: address.to_vec(),
            weight: weight.filter(|&weight| weight != 0),
            name: name.map(<[u8]>::to_vec),
        })
    }
}

/// The rule of [`ServerSpec::checked`] for an address or a name: one or
/// more bytes, none of them NUL (the ring keeps both as C strings).
fn check_bytes(what: &str, bytes: &[u8]) -> Result<(), Error> {
    let problem = match bytes.iter().position(|&b| b == 0) {
        _ if bytes.is_empty() => "is empty".to_string(),
        Some(offset) => format!("has a NUL byte at offset {offset}"),
        None => return Ok(()),
    };
    Err(Error::InvalidArgument(format!(
        "server {what} '{}' {problem}; a server {what} is one or more bytes, none of them NUL",
        escape_bytes(bytes)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_servers_refuse_empty_and_nul_bytes_with_one_message() {
        let server = ServerSpec::checked(b"a:1", Some(0), Some(b"web")).unwrap();
        assert_eq!(server.weight, None, "0 is no weight");
        assert_eq!(server.name.as_deref(), Some(&b"web"[..]));
        assert_eq!(ServerSpec::checked(b"a:1", Some(5), None).unwrap(), {
            ServerSpec::new("a:1", 5)
        });
        let err = |address: &[u8], name: Option<&[u8]>| {
            ServerSpec::checked(address, None, name)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(b"", None),
            "server address '' is empty; a server address is one or more bytes, none of them NUL"
        );
        assert_eq!(
            err(b"a\0b", None),
            "server address 'a\\x00b' has a NUL byte at offset 1; a server address is one or \
             more bytes, none of them NUL"
        );
        assert!(err(b"a:1", Some(b"")).starts_with("server name '' is empty"));
        assert!(
            err(b"a:1", Some(b"\0")).starts_with("server name '\\x00' has a NUL byte at offset 0")
        );
    }
}
