//! Server specifications: what a server list says about each server.

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
}
