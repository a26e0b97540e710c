//! The checks every input of the set decoders goes through, shared by the
//! cargo-fuzz target `fuzz/fuzz_targets/decoders.rs` and the bounded
//! stable-toolchain run (`setcodec.rs`).

use ketama_core::setcodec::{DecodeOptions, Format, compacted, decode, decode_salvage};

/// Decodes `data[1..]` with the decoder chosen by `data[0]` (0 detect,
/// 1 T1, 2 B1, 3-5 Membase) and checks the invariants: strict and salvage
/// agree, members are sorted and unique and fit in the input, counters
/// add up, errors point inside the input, and a canonical re-encoding
/// decodes to the same set.
pub fn check_decoders(data: &[u8]) {
    let Some((&selector, value)) = data.split_first() else {
        return;
    };
    let format = match selector % 6 {
        0 => None,
        n => Some(Format::ALL[n as usize - 1]),
    };
    let options = DecodeOptions::format(format);
    let strict = decode(value, &options);
    let salvaged = decode_salvage(value, &options);
    let set = &salvaged.set;
    assert!(set.members.member_bytes() <= value.len());
    assert!(
        set.members
            .iter()
            .zip(set.members.iter().skip(1))
            .all(|(a, b)| a < b),
        "sorted and unique"
    );
    assert!(set.stats.removals <= set.stats.records);
    assert_eq!(set.stats.redundant + set.members.len(), set.stats.records);
    match strict {
        Ok(decoded) => {
            assert!(salvaged.error.is_none());
            assert_eq!(&decoded, set);
            for target in [Format::T1, Format::B1] {
                if let Ok(value) = compacted(&decoded.members, target, options.max_member_len) {
                    let again =
                        decode(&value, &DecodeOptions::default()).expect("canonical values decode");
                    assert_eq!(again.members, decoded.members);
                    assert_eq!(again.stats.redundant, 0);
                }
            }
        }
        Err(error) => {
            assert_eq!(Some(&error), salvaged.error.as_ref());
            assert!(
                error.offset <= value.len(),
                "offset {} past the end {}",
                error.offset,
                value.len()
            );
            assert_eq!(error.record, set.stats.records);
        }
    }
}
