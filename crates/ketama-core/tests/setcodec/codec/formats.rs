//! Decoding and encoding: the research's examples of T1 and B1 values, their
//! errors (kind, offset, record), format detection and forcing, salvage,
//! the encoder's checks and the members' order.

use ketama_core::setcodec::{
    DecodeOptions, Format, Op, SetErrorKind, decode, decode_salvage, detect, encode,
};

use super::*;

#[test]
fn t1_examples_from_the_research() {
    assert_eq!(members(b""), set(&[]));
    assert_eq!(members(b"   \t\r\n"), set(&[]));
    assert_eq!(members(b"+a"), set(&["a"]));
    let flood = decode(b"+a +a +a", &auto()).unwrap();
    assert_eq!(flood.members.to_vec(), set(&["a"]));
    assert_eq!(
        (
            flood.stats.records,
            flood.stats.removals,
            flood.stats.redundant
        ),
        (3, 0, 2)
    );
    assert_eq!(members(b"+a -a +a"), set(&["a"]));
    assert_eq!(members(b"-a +a"), set(&["a"]));
    assert_eq!(members(b"+a -a"), set(&[]));
    let x = decode(b"-x", &auto()).unwrap();
    assert!(x.members.is_empty());
    assert_eq!(x.stats.removals, 1);
    // The post's doctest: dirtiness 2, {a, c}.
    let post = decode(b"+a +b +c -b -x", &auto()).unwrap();
    assert_eq!(post.members.to_vec(), set(&["a", "c"]));
    assert_eq!(post.stats.removals, 2);
    assert_eq!(post.stats.format, Some(Format::T1));
    assert_eq!(members(b"+\xff\xfe"), vec![vec![0xff, 0xfe]]);
    assert_eq!(members(b"+a\xc2\xa0b"), vec![b"a\xc2\xa0b".to_vec()]);
    assert_eq!(members(b"++a"), set(&["+a"]));
    assert_eq!(members(b"+-a -+a"), set(&["-a"]));
    assert_eq!(members(b"+a\r\n+b\x0b+c\x0c"), set(&["a", "b", "c"]));
    assert_eq!(members(&b" ".repeat(1 << 20)), set(&[]));
}

#[test]
fn t1_errors_name_kind_offset_and_record() {
    assert_eq!(error(b"+"), (SetErrorKind::EmptyMember, 0, 0));
    assert_eq!(error(b"+a +"), (SetErrorKind::EmptyMember, 3, 1));
    assert_eq!(error(b"a").0, SetErrorKind::UnknownEncoding);
    assert_eq!(error(b"*a").0, SetErrorKind::UnknownEncoding);
    assert_eq!(error(b"a,b,").0, SetErrorKind::UnknownEncoding);
    assert_eq!(error(b"[1]2").0, SetErrorKind::UnknownEncoding);
    assert_eq!(error(b"+a *b"), (SetErrorKind::BadOp, 3, 1));
    assert_eq!(error(b"+a\0b"), (SetErrorKind::InvalidByte, 2, 0));
    assert_eq!(error(b"+a\x7f"), (SetErrorKind::InvalidByte, 2, 0));
    assert_eq!(error(b"+x +a\x1fb"), (SetErrorKind::InvalidByte, 5, 1));
    let long = [b"+a +".as_slice(), &[b'm'; 251]].concat();
    assert_eq!(error(&long), (SetErrorKind::MemberTooLong, 3, 1));
    let ok = [b"+".as_slice(), &[b'm'; 250]].concat();
    assert_eq!(members(&ok).len(), 1);
    let huge = [b"+".as_slice(), &vec![b'm'; 1 << 20]].concat();
    assert_eq!(error(&huge).0, SetErrorKind::MemberTooLong);
    // A binary record appended to a text value.
    assert_eq!(error(b"+a \xa1\x01b"), (SetErrorKind::MixedEncoding, 3, 1));
}

#[test]
fn b1_examples_from_the_research() {
    assert_eq!(members(b"\xa1\x00"), vec![Vec::<u8>::new()]);
    assert_eq!(error(b"\xa1"), (SetErrorKind::Truncated, 0, 0));
    assert_eq!(error(b"\xa1\x80"), (SetErrorKind::Truncated, 0, 0));
    assert_eq!(error(b"\xa1\x05\x61\x62"), (SetErrorKind::Truncated, 0, 0));
    assert_eq!(error(b"\xa1\x80\x00"), (SetErrorKind::OverlongLength, 0, 0));
    assert_eq!(
        error(b"\xa1\xff\xff\xff\xff\x0f"),
        (SetErrorKind::LengthTooLarge, 0, 0)
    );
    assert_eq!(
        error(b"\xa1\xff\xff\xff\x7fabc"),
        (SetErrorKind::LengthTooLarge, 0, 0)
    );
    assert_eq!(error(b"\xa7\x00"), (SetErrorKind::UnsupportedOp, 0, 0));
    assert_eq!(error(b"\xa0\x00"), (SetErrorKind::UnsupportedOp, 0, 0));
    assert_eq!(
        error(b"\xa1\x01\x61\x2b\x61\x20"),
        (SetErrorKind::MixedEncoding, 3, 1)
    );
    // Large lengths are fine when allowed and present.
    let big = vec![b'z'; 300];
    let payload = encode(Op::Add, &[&big], Format::B1, 1000).unwrap();
    assert_eq!(&payload[..3], b"\xa1\xac\x02");
    let wide = DecodeOptions {
        max_member_len: 1000,
        ..auto()
    };
    assert_eq!(decode(&payload, &wide).unwrap().members.to_vec(), vec![big]);
    assert_eq!(
        decode(&payload, &auto()).unwrap_err().kind,
        SetErrorKind::LengthTooLarge
    );
    // 10^6 zero-length adds, and 10^5 alternating add/remove.
    let zeros = b"\xa1\x00".repeat(1_000_000);
    let flood = decode(&zeros, &auto()).unwrap();
    assert_eq!((flood.members.len(), flood.stats.redundant), (1, 999_999));
    let mut alternating = Vec::new();
    for _ in 0..50_000 {
        alternating.extend(encode(Op::Add, &[b"m"], Format::B1, 250).unwrap());
        alternating.extend(encode(Op::Remove, &[b"m"], Format::B1, 250).unwrap());
    }
    let alt = decode(&alternating, &auto()).unwrap();
    assert!(alt.members.is_empty());
    assert_eq!((alt.stats.records, alt.stats.removals), (100_000, 50_000));
}

#[test]
fn detection_and_forced_formats() {
    assert_eq!(detect(b"").unwrap(), None);
    assert_eq!(detect(b" \n").unwrap(), None);
    assert_eq!(detect(b"  +a").unwrap(), Some(Format::T1));
    assert_eq!(detect(b"\xa2\x00").unwrap(), Some(Format::B1));
    let unknown = detect(b"  {\"a\":1}").unwrap_err();
    assert_eq!(
        (unknown.kind, unknown.offset),
        (SetErrorKind::UnknownEncoding, 2)
    );
    let t1_as_b1 = decode(b"+a ", &DecodeOptions::format(Some(Format::B1))).unwrap_err();
    assert_eq!(t1_as_b1.kind, SetErrorKind::MixedEncoding);
    let b1_as_t1 = decode(b"\xa1\x01a", &DecodeOptions::format(Some(Format::T1))).unwrap_err();
    assert_eq!(b1_as_t1.kind, SetErrorKind::MixedEncoding);
}

#[test]
fn salvage_returns_the_valid_prefix_and_the_error() {
    let salvaged = decode_salvage(b"+a +b -a +c \x01", &auto());
    assert_eq!(salvaged.set.members.to_vec(), set(&["b", "c"]));
    let e = salvaged.error.unwrap();
    assert_eq!((e.kind, e.offset, e.record), (SetErrorKind::BadOp, 12, 4));
    assert_eq!(salvaged.set.stats.records, 4);
    let whole = decode_salvage(b"+a", &auto());
    assert!(whole.error.is_none());
    let unknown = decode_salvage(b"xyz", &auto());
    assert!(unknown.set.members.is_empty());
    assert_eq!(unknown.error.unwrap().kind, SetErrorKind::UnknownEncoding);
}

#[test]
fn encoder_validates_members() {
    assert_eq!(
        encode(Op::Add, &["a", "b", "c"], Format::T1, 250).unwrap(),
        b"+a +b +c "
    );
    assert_eq!(encode(Op::Remove, &["a"], Format::T1, 250).unwrap(), b"-a ");
    let e = encode(Op::Add, &["ok", "has space"], Format::T1, 250).unwrap_err();
    assert_eq!(
        (e.kind, e.offset, e.record, e.in_member),
        (SetErrorKind::MemberHasWhitespace, 3, 1, true)
    );
    assert_eq!(
        encode(Op::Add, &[""], Format::T1, 250).unwrap_err().kind,
        SetErrorKind::EmptyMember
    );
    assert_eq!(
        encode(Op::Add, &["a\x01"], Format::T1, 250)
            .unwrap_err()
            .kind,
        SetErrorKind::InvalidByte
    );
    assert_eq!(
        encode(Op::Add, &["abc"], Format::T1, 2).unwrap_err().kind,
        SetErrorKind::MemberTooLong
    );
    assert_eq!(
        encode(Op::Add, &[""], Format::B1, 250).unwrap(),
        b"\xa1\x00"
    );
    assert_eq!(
        encode(Op::Add, &["a b"], Format::B1, 250).unwrap(),
        b"\xa1\x03a b"
    );
    assert_eq!(
        encode(Op::Add, &["x"], Format::MembaseComma, 250)
            .unwrap_err()
            .kind,
        SetErrorKind::InvalidArgument
    );
}

#[test]
fn members_sort_bytewise_with_prefixes_first() {
    let value = encode(Op::Add, &[&b"ab"[..], b"a\x00", b"a"], Format::B1, 250).unwrap();
    assert_eq!(
        members(&value),
        vec![b"a".to_vec(), b"a\x00".to_vec(), b"ab".to_vec()]
    );
}
