//! Redis Cluster's slot maps: 16384 key slots, each served by one master.
//! A master's slots are written as Redis writes them at the end of a
//! `CLUSTER NODES` line: blank-separated fields, each a slot `N` or a
//! range `N-M` (`0-5460 10923`). The `redis-cluster` flavour reads a
//! server's slots from its name column in this syntax, and the
//! `redis-cluster-nodes` reading of a server file (`parser/cluster_nodes.rs`)
//! writes them there.

use crate::Error;

/// The number of key slots (`CLUSTER_SLOTS`).
pub const SLOTS: usize = 16384;

/// One slot field, `N` or `N-M` with `N ≤ M < 16384`, as an inclusive range.
pub fn parse_field(field: &[u8]) -> Result<(u16, u16), String> {
    let number = |text: &[u8]| -> Result<u16, String> {
        std::str::from_utf8(text)
            .ok()
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|t| t.parse::<u32>().ok())
            .filter(|&n| (n as usize) < SLOTS)
            .map(|n| n as u16)
            .ok_or_else(|| {
                format!(
                    "slot '{}' is not a number from 0 to {}",
                    String::from_utf8_lossy(text),
                    SLOTS - 1
                )
            })
    };
    let (first, last) = match field.iter().position(|&b| b == b'-') {
        Some(dash) => (number(&field[..dash])?, number(&field[dash + 1..])?),
        None => {
            let slot = number(field)?;
            (slot, slot)
        }
    };
    if first > last {
        return Err(format!(
            "slot range '{}' ends before it starts",
            String::from_utf8_lossy(field)
        ));
    }
    Ok((first, last))
}

/// A slot list: fields separated by blanks; at least one.
pub fn parse_list(text: &[u8]) -> Result<Vec<(u16, u16)>, String> {
    let ranges = text
        .split(|&b| b == b' ' || b == b'\t')
        .filter(|f| !f.is_empty())
        .map(parse_field)
        .collect::<Result<Vec<_>, _>>()?;
    if ranges.is_empty() {
        return Err("no slot is given".into());
    }
    Ok(ranges)
}

/// The master of every slot from each master's ranges (in server order):
/// a slot claimed twice or claimed by none is an error naming it (a
/// cluster that does not cover every slot answers `CLUSTERDOWN`).
pub fn owners(ranges: &[Vec<(u16, u16)>], names: &[&[u8]]) -> Result<Box<[u32]>, Error> {
    const FREE: u32 = u32::MAX;
    let mut owners = vec![FREE; SLOTS].into_boxed_slice();
    for (index, list) in ranges.iter().enumerate() {
        for &(first, last) in list {
            for slot in first..=last {
                let owner = &mut owners[usize::from(slot)];
                if *owner != FREE && *owner != index as u32 {
                    return Err(Error::InvalidArgument(format!(
                        "slot {slot} is served by both '{}' and '{}'",
                        String::from_utf8_lossy(names[*owner as usize]),
                        String::from_utf8_lossy(names[index])
                    )));
                }
                *owner = index as u32;
            }
        }
    }
    if let Some(slot) = owners.iter().position(|&o| o == FREE) {
        let end = owners[slot..]
            .iter()
            .position(|&o| o != FREE)
            .map_or(SLOTS - 1, |n| slot + n - 1);
        return Err(Error::InvalidArgument(format!(
            "slots {slot}-{end} are served by no master (a cluster must cover all {SLOTS} slots)"
        )));
    }
    Ok(owners)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_lists() {
        assert_eq!(parse_field(b"0-5460"), Ok((0, 5460)));
        assert_eq!(parse_field(b"16383"), Ok((16383, 16383)));
        assert!(
            parse_field(b"16384")
                .unwrap_err()
                .contains("from 0 to 16383")
        );
        assert!(parse_field(b"5-4").unwrap_err().contains("ends before"));
        assert!(parse_field(b"-4").is_err() && parse_field(b"1-").is_err());
        assert!(parse_field(b"[5->-abc]").is_err());
        assert_eq!(parse_list(b"0-2  7\t9-9"), Ok(vec![(0, 2), (7, 7), (9, 9)]));
        assert_eq!(parse_list(b"  ").unwrap_err(), "no slot is given");
    }

    #[test]
    fn every_slot_has_one_master() {
        let names: [&[u8]; 2] = [b"a:1", b"b:2"];
        let map = owners(&[vec![(0, 99), (200, 16383)], vec![(100, 199)]], &names).unwrap();
        assert_eq!((map[0], map[100], map[199], map[200]), (0, 1, 1, 0));
        let twice = owners(&[vec![(0, 16383)], vec![(5, 5)]], &names).unwrap_err();
        assert!(
            twice
                .to_string()
                .contains("slot 5 is served by both 'a:1' and 'b:2'")
        );
        let gap = owners(&[vec![(0, 9)], vec![(20, 16383)]], &names).unwrap_err();
        assert!(
            gap.to_string()
                .contains("slots 10-19 are served by no master")
        );
    }
}
