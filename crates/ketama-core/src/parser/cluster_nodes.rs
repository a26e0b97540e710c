//! A Redis Cluster's slot map as `CLUSTER NODES` prints it (and as a
//! node's `nodes.conf` keeps it), for the `redis-cluster` flavour: one node
//! a line, `<id> <ip:port@cport[,hostname…]> <flags> <master> <ping-sent>
//! <pong-recv> <config-epoch> <link-state> <slot> …`.
//!
//! Every master that serves slots is a server: its address is `ip:port`
//! (`[ip]:port` for IPv6, which Redis writes without brackets), its name
//! the slot fields it serves, blank-separated (`0-5460 10923`, the syntax of
//! [`slot_map`](crate::placement::slot_map)). Replicas, and masters that
//! serve no slot, hold no key and are left out; a slot being migrated
//! (`[N->-id]`, `[N-<-id]`) stays with the master that serves it. Empty
//! lines and `nodes.conf`'s `vars` line are skipped. Anything else is an
//! error naming the line.

use super::{Piece, ServerList, peers::MAX_LINE_BYTES};
use crate::ServerSpec;
use crate::placement::slot_map;

/// The fields before the slots.
const FIXED_FIELDS: usize = 8;

/// Reads one line of `CLUSTER NODES` text.
pub(crate) fn read_line(
    list: &mut ServerList,
    line: usize,
    piece: Piece,
) -> Result<(), crate::Error> {
    let raw = match piece {
        Piece::Line(bytes) => &bytes[..bytes.len() - 1],
        Piece::Last(bytes) => bytes,
        Piece::Cut(_) => {
            return Err(list.error(line, format!("line longer than {MAX_LINE_BYTES} bytes")));
        }
    };
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let fields: Vec<&[u8]> = raw
        .split(|&b| b == b' ')
        .filter(|f| !f.is_empty())
        .collect();
    if fields.is_empty() || fields[0] == b"vars" {
        return Ok(());
    }
    if fields.len() < FIXED_FIELDS {
        return Err(list.error(
            line,
            format!(
                "a CLUSTER NODES line has at least {FIXED_FIELDS} fields (id, address, flags, \
                 master, ping-sent, pong-recv, config-epoch, link-state) before its slots; \
                 this one has {}",
                fields.len()
            ),
        ));
    }
    let flags = fields[2];
    let is_master = flags.split(|&b| b == b',').any(|f| f == b"master");
    let mut slots = Vec::new();
    for field in &fields[FIXED_FIELDS..] {
        if field.starts_with(b"[") {
            continue; // a slot being migrated or imported
        }
        slot_map::parse_field(field).map_err(|reason| list.error(line, reason))?;
        slots.push(*field);
    }
    if !is_master || slots.is_empty() {
        return Ok(());
    }
    let address = node_address(fields[1]).map_err(|reason| list.error(line, reason))?;
    list.push(ServerSpec {
        address,
        weight: None,
        name: Some(slots.join(&b' ')),
    });
    Ok(())
}

/// `ip:port` of `ip:port@cport[,hostname…]`, IPv6 put in brackets.
fn node_address(field: &[u8]) -> Result<Vec<u8>, String> {
    let end = field
        .iter()
        .position(|&b| b == b'@' || b == b',')
        .unwrap_or(field.len());
    let address = &field[..end];
    let bad = || {
        format!(
            "node address '{}' is not IP:PORT@CPORT",
            String::from_utf8_lossy(field)
        )
    };
    let colon = address.iter().rposition(|&b| b == b':').ok_or_else(bad)?;
    let (host, port) = (&address[..colon], &address[colon + 1..]);
    if host.is_empty() || port.is_empty() || !port.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    if host.contains(&b':') && !host.starts_with(b"[") {
        return Ok([b"[", host, b"]:", port].concat());
    }
    Ok(address.to_vec())
}

#[cfg(test)]
mod tests {
    use crate::parser::{ParseMode, parse_server_file};

    const NODES: &str = "\
07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,host-d slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383 [100->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]
6ec23923021cf3ffec47632106199cb7f496ce01 127.0.0.1:30005@31005 slave 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 0 1426238316232 5 connected
824fe116063bc5fcf9f4ffd895bc17aee7731ac3 127.0.0.1:30006@31006 slave 292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 0 1426238317741 6 connected
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-5460
ab12 ::1:30007@40007 master - 0 0 7 connected
vars currentEpoch 6 lastVoteEpoch 0
";

    #[test]
    fn masters_with_slots_become_servers() {
        let servers =
            parse_server_file(NODES.as_bytes(), "nodes", ParseMode::RedisClusterNodes).unwrap();
        let read: Vec<(String, String)> = servers
            .iter()
            .map(|s| {
                (
                    String::from_utf8(s.address.clone()).unwrap(),
                    String::from_utf8(s.name.clone().unwrap()).unwrap(),
                )
            })
            .collect();
        assert_eq!(
            read,
            [
                ("127.0.0.1:30002", "5461-10922"),
                ("127.0.0.1:30003", "10923-16383"),
                ("127.0.0.1:30001", "0-5460"),
            ]
            .map(|(a, n)| (a.to_string(), n.to_string()))
        );
        let v6 = "x [::1]:7@17 master - 0 0 1 connected 0-16383\n".replace("[::1]", "::1");
        let servers = parse_server_file(v6.as_bytes(), "n", ParseMode::RedisClusterNodes).unwrap();
        assert_eq!(servers[0].address, b"[::1]:7");
    }

    #[test]
    fn errors_name_the_line() {
        let err = |text: &str| {
            parse_server_file(text.as_bytes(), "nodes", ParseMode::RedisClusterNodes)
                .unwrap_err()
                .to_string()
        };
        assert!(
            err("a b c\n").contains("at least 8 fields"),
            "{}",
            err("a b c\n")
        );
        let bad_slot = "\nid 1.2.3.4:5@6 master - 0 0 1 connected 0-16384\n";
        assert!(err(bad_slot).contains("line 2"), "{}", err(bad_slot));
        assert!(err("id nohost master - 0 0 1 connected 0\n").contains("is not IP:PORT"));
        assert!(err("vars currentEpoch 1\n").contains("No valid server"));
    }
}
