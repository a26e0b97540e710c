//! The contended-list patterns: the `^` seal and the copy header in
//! decoding (and the CLI's `sealed=1`), flipped lists (pure planners, then
//! real memcached with concurrent writers and compactors), paired lists,
//! randomised piggy-back compaction, and their C ABI.

use ketama_testkit as common;
use ketama_testkit::set_clients;

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::Memcached;
use ketama::set::*;
use ketama::status::ketama_status;
use ketama_core::setcodec::flip::{self, Fetched, FlipStep, ListId};
use ketama_core::setcodec::paired::{self, Side};
use ketama_core::setcodec::recipe::{self, Sampler};
use ketama_core::setcodec::{
    CompactionPolicy, DecodeOptions, Format, MemberSet, Op, SetErrorKind, decode, encode,
};
use set_clients::flip_client::{Compaction, FlipClient};

fn members(set: &MemberSet) -> Vec<String> {
    set.iter()
        .map(|m| String::from_utf8_lossy(m).into_owned())
        .collect()
}

#[test]
fn a_leading_seal_is_reported_and_its_records_still_count() {
    let options = DecodeOptions::default();
    let set = decode(b"^+a +b -a ", &options).unwrap();
    assert!(set.stats.sealed);
    assert_eq!(members(&set.members), ["b"]);
    assert_eq!(set.stats.records, 3);
    let plain = decode(b"+a ", &options).unwrap();
    assert!(!plain.stats.sealed);
    let only = decode(b"^", &options).unwrap();
    assert!(only.stats.sealed && only.members.is_empty());
    let twice = decode(b"^^+a ", &options).unwrap();
    assert!(twice.stats.sealed && members(&twice.members) == ["a"]);
    // The manual's own example: topic-X.b => ^+1234 (a plus-minus list).
    let manual = decode(
        b"^+1234",
        &DecodeOptions::format(Some(Format::MembasePlusMinus)),
    )
    .unwrap();
    assert!(manual.stats.sealed);
    assert_eq!(members(&manual.members), ["1234"]);
    // B1 after a seal.
    let mut b1 = b"^".to_vec();
    b1.extend(encode(Op::Add, &["x"], Format::B1, 250).unwrap());
    let set = decode(&b1, &options).unwrap();
    assert_eq!(
        (set.stats.sealed, set.stats.format),
        (true, Some(Format::B1))
    );
    // '^' anywhere else is still a bad op, at its offset.
    let error = decode(b"+a ^+b ", &options).unwrap_err();
    assert_eq!((error.kind, error.offset), (SetErrorKind::BadOp, 3));
}

#[test]
fn the_copy_header_is_read_and_checked() {
    let options = DecodeOptions::default();
    let set = decode(b"=3:120 +a +b ", &options).unwrap();
    assert_eq!(members(&set.members), ["a", "b"]);
    let set = decode(b"^=3:120 +a ", &options).unwrap();
    assert!(set.stats.sealed);
    for (value, offset) in [
        (&b"=x:1 +a "[..], 1),
        (b"=3 +a ", 2),
        (b"=3:+a ", 3),
        (b"=3:12+a ", 5),
        (b"=99999999999999999999:1 +a ", 1),
    ] {
        let error = decode(value, &options).unwrap_err();
        assert_eq!(
            (error.kind, error.offset),
            (SetErrorKind::BadOp, offset),
            "{:?}",
            String::from_utf8_lossy(value)
        );
    }
    // A record error after a header names its offset in the whole value.
    let error = decode(b"=1:0 +a *b ", &options).unwrap_err();
    assert_eq!((error.kind, error.offset), (SetErrorKind::BadOp, 8));
}

fn cli_decode(value: &[u8]) -> String {
    let mut child = Command::new(common::cli())
        .args(["set", "decode"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(value).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn cli_stats_line_says_sealed() {
    assert_eq!(
        cli_decode(b"^+a +b "),
        "a\nb\n# records=2 removals=0 redundant=0 encoding=t1 sealed=1\n"
    );
    assert_eq!(
        cli_decode(b"+a "),
        "a\n# records=1 removals=0 redundant=0 encoding=t1\n"
    );
}

fn fetched(value: &Option<Vec<u8>>, cas: u64) -> Fetched<'_> {
    match value {
        Some(v) => Fetched::hit(v, cas),
        None => Fetched::miss(),
    }
}

/// The pure planners through two flips, with a late record in the sealed
/// list and a compactor that dies between its copy and its seal.
#[test]
fn flips_fold_late_records_and_a_half_done_flip_reads_right() {
    let options = DecodeOptions::default();
    let mut a: Option<Vec<u8>> = Some(b"+u1 +u2 +u3 -u2 +u4 ".to_vec());
    let mut b: Option<Vec<u8>> = None;
    let read = flip::read(fetched(&a, 1), fetched(&b, 0), &options).unwrap();
    assert_eq!(members(&read.members), ["u1", "u3", "u4"]);
    assert_eq!((read.active, read.generation), (ListId::A, 0));
    // Not due below the threshold; due when forced.
    assert_eq!(
        flip::plan_flip(
            fetched(&a, 1),
            fetched(&b, 0),
            &options,
            Format::T1,
            5,
            false
        )
        .unwrap(),
        FlipStep::Nothing
    );
    let step = flip::plan_flip(
        fetched(&a, 1),
        fetched(&b, 0),
        &options,
        Format::T1,
        4,
        false,
    )
    .unwrap();
    let FlipStep::Flip {
        target,
        value,
        cas,
        source,
    } = step
    else {
        panic!("a flip is due: {step:?}")
    };
    assert_eq!((target, cas, source), (ListId::B, None, ListId::A));
    assert_eq!(value, b"=1:20 +u1 +u3 +u4 ");
    b = Some(value);
    // Between the copy and the seal (or after a crash there): no double count.
    let read = flip::read(fetched(&a, 1), fetched(&b, 2), &options).unwrap();
    assert_eq!(members(&read.members), ["u1", "u3", "u4"]);
    assert_eq!((read.active, read.over_counted), (ListId::B, 0));
    // A late remove lands in A; the next compactor finishes the seal first.
    a.as_mut().unwrap().extend_from_slice(b"-u3 ");
    assert_eq!(
        flip::plan_flip(
            fetched(&a, 3),
            fetched(&b, 2),
            &options,
            Format::T1,
            0,
            true
        )
        .unwrap(),
        FlipStep::Seal(ListId::A)
    );
    a.as_mut().unwrap().insert(0, b'^');
    let read = flip::read(fetched(&a, 4), fetched(&b, 2), &options).unwrap();
    assert_eq!(
        members(&read.members),
        ["u1", "u4"],
        "the late remove counts"
    );
    assert_eq!((read.sealed, read.counted), ([true, false], [1, 3]));
    // Writers append to B; the second flip folds A's late record into A.
    b.as_mut().unwrap().extend_from_slice(b"+u5 ");
    let FlipStep::Flip {
        target,
        value,
        cas,
        source,
    } = flip::plan_flip(
        fetched(&a, 4),
        fetched(&b, 5),
        &options,
        Format::T1,
        0,
        true,
    )
    .unwrap()
    else {
        panic!("a flip back to A is due")
    };
    assert_eq!((target, cas, source), (ListId::A, Some(4), ListId::B));
    assert_eq!(value, b"=2:22 +u1 +u4 +u5 ");
    a = Some(value);
    b.as_mut().unwrap().insert(0, b'^');
    let read = flip::read(fetched(&a, 6), fetched(&b, 7), &options).unwrap();
    assert_eq!(members(&read.members), ["u1", "u4", "u5"]);
    assert_eq!((read.active, read.generation), (ListId::A, 2));
}

#[test]
fn paired_lists_are_counted() {
    let options = DecodeOptions::default();
    // follow-X: 222 followed twice (a double click), 1234 once, 987 once;
    // unfollow-X: 222 once, 987 once.
    let follows = paired::encode_paired(&["1234", "222", "987", "222"], Format::T1, 250).unwrap();
    let unfollows = paired::encode_paired(&["222", "987"], Format::T1, 250).unwrap();
    let set = paired::decode_paired(&follows, &unfollows, &options).unwrap();
    assert_eq!(members(&set.members), ["1234", "222"]);
    assert_eq!((set.stats.records, set.stats.removals), (6, 2));
    assert_eq!(paired::key(b"X", Side::Add), b"follow-X");
    assert_eq!(paired::key(b"X", Side::Remove), b"unfollow-X");
    let empty = paired::decode_paired(b"", b"", &options).unwrap();
    assert!(empty.members.is_empty());
    let error = paired::decode_paired(b"+a ", b"*b ", &options).unwrap_err();
    assert_eq!(error.kind, SetErrorKind::UnknownEncoding);
}

#[test]
fn piggy_back_compaction_is_randomised_and_seedable() {
    let dirty = b"+a -a +a -a +b ";
    let policy = CompactionPolicy {
        threshold: 1,
        ..CompactionPolicy::default()
    };
    let options = DecodeOptions::default();
    let decide = |p: f64, sampler: &mut Sampler| {
        recipe::plan_read_sampled(dirty, 7, Some(-1), &options, &policy, false, p, sampler)
            .unwrap()
            .compaction
            .is_some()
    };
    let mut sampler = Sampler::new(42);
    assert!((0..100).all(|_| !decide(0.0, &mut sampler)));
    assert!((0..100).all(|_| decide(1.0, &mut sampler)));
    let draws = |seed| {
        let mut sampler = Sampler::new(seed);
        (0..10_000)
            .map(|_| decide(0.25, &mut sampler))
            .collect::<Vec<_>>()
    };
    let first = draws(42);
    assert_eq!(first, draws(42), "the same seed decides the same way");
    assert_ne!(first, draws(43));
    let kept = first.iter().filter(|&&d| d).count();
    assert!(
        (2_200..2_800).contains(&kept),
        "{kept} of 10,000 at p = 0.25"
    );
    // force compacts whatever the draw; a clean set never compacts.
    let forced = recipe::plan_read_sampled(
        dirty,
        7,
        Some(-1),
        &options,
        &policy,
        true,
        0.0,
        &mut sampler,
    )
    .unwrap();
    assert!(forced.compaction.is_some());
    let clean = recipe::plan_read_sampled(
        b"+a ",
        7,
        Some(-1),
        &options,
        &policy,
        false,
        1.0,
        &mut sampler,
    )
    .unwrap();
    assert!(clean.compaction.is_none());
}

fn take(buffer: ketama_set_buffer) -> Vec<u8> {
    let bytes = if buffer.data.is_null() {
        Vec::new()
    } else {
        // SAFETY: the pointers come from live locals and the library's own handles.
        unsafe { std::slice::from_raw_parts(buffer.data, buffer.len) }.to_vec()
    };
    // SAFETY: the pointers come from live locals and the library's own handles.
    unsafe { ketama_set_buffer_free(buffer) };
    bytes
}

#[test]
fn c_abi_paired_lists_seal_and_sampled_reads() {
    let refs: Vec<ketama_set_member_ref> = ["1234", "222", "222"]
        .iter()
        .map(|m| ketama_set_member_ref {
            data: m.as_ptr(),
            len: m.len(),
        })
        .collect();
    let mut out = ketama_set_buffer {
        data: std::ptr::null_mut(),
        len: 0,
    };
    // SAFETY: the pointers come from live locals and the library's own handles.
    let status = unsafe { ketama_set_encode_paired(refs.as_ptr(), 3, 1, 0, &mut out) };
    assert_eq!(status, ketama_status::KETAMA_OK);
    let follows = take(out);
    assert_eq!(follows, b"+1234 +222 +222 ");
    let mut key = ketama_set_buffer {
        data: std::ptr::null_mut(),
        len: 0,
    };
    assert_eq!(
        // SAFETY: the pointers come from live locals and the library's own handles.
        unsafe { ketama_set_paired_key(b"X".as_ptr(), 1, 1, &mut key) },
        ketama_status::KETAMA_OK
    );
    assert_eq!(take(key), b"unfollow-X");
    let mut key = ketama_set_buffer {
        data: std::ptr::null_mut(),
        len: 0,
    };
    assert_eq!(
        // SAFETY: the pointers come from live locals and the library's own handles.
        unsafe { ketama_set_paired_key(b"X".as_ptr(), 1, 2, &mut key) },
        ketama_status::KETAMA_ERR_INVALID_ARGUMENT
    );
    let unfollows = b"+222 ";
    let mut set = std::ptr::null_mut();
    // SAFETY: the pointers come from live locals and the library's own handles.
    let status = unsafe {
        ketama_set_decode_paired(
            follows.as_ptr(),
            follows.len(),
            unfollows.as_ptr(),
            unfollows.len(),
            0,
            &mut set,
        )
    };
    assert_eq!(status, ketama_status::KETAMA_OK);
    // SAFETY: the pointers come from live locals and the library's own handles.
    assert_eq!(unsafe { ketama_set_card(set) }, 2, "1234 and 222 (2 - 1)");
    // SAFETY: the pointers come from live locals and the library's own handles.
    assert!(!unsafe { ketama_set_is_sealed(set) });
    // SAFETY: the pointers come from live locals and the library's own handles.
    unsafe { ketama_set_free(set) };
    let sealed = b"^+a ";
    let mut error = ketama_set_error::default();
    assert_eq!(
        // SAFETY: the pointers come from live locals and the library's own handles.
        unsafe { ketama_set_decode(sealed.as_ptr(), 4, 0, 0, &mut set, &mut error) },
        ketama_status::KETAMA_OK
    );
    // SAFETY: the pointers come from live locals and the library's own handles.
    assert!(unsafe { ketama_set_is_sealed(set) });
    // SAFETY: the pointers come from live locals and the library's own handles.
    unsafe { ketama_set_free(set) };
    // SAFETY: the pointers come from live locals and the library's own handles.
    assert!(!unsafe { ketama_set_is_sealed(std::ptr::null()) });
    // Sampled read plans: probability 0 never, 1 always, out of range refused.
    let dirty = b"+a -a +a -a +b ";
    let policy = ketama_set_policy {
        threshold: 1,
        soft_limit: 1 << 20,
        ratio: false,
    };
    for (probability, needed) in [(0.0, false), (1.0, true)] {
        let mut compaction = std::mem::MaybeUninit::<ketama_set_compaction>::uninit();
        // SAFETY: the pointers come from live locals and the library's own handles.
        let status = unsafe {
            ketama_set_plan_read_sampled(
                dirty.as_ptr(),
                dirty.len(),
                0,
                9,
                -1,
                true,
                &policy,
                false,
                probability,
                1,
                &mut set,
                compaction.as_mut_ptr(),
            )
        };
        assert_eq!(status, ketama_status::KETAMA_OK);
        // SAFETY: the pointers come from live locals and the library's own handles.
        let compaction = unsafe { compaction.assume_init() };
        assert_eq!(compaction.needed, needed);
        if needed {
            assert_eq!(take(compaction.value), b"+b ");
        } else {
            assert!(compaction.value.data.is_null());
        }
        // SAFETY: the pointers come from live locals and the library's own handles.
        unsafe { ketama_set_free(set) };
    }
    let mut compaction = std::mem::MaybeUninit::<ketama_set_compaction>::uninit();
    // SAFETY: the pointers come from live locals and the library's own handles.
    let status = unsafe {
        ketama_set_plan_read_sampled(
            dirty.as_ptr(),
            dirty.len(),
            0,
            9,
            -1,
            true,
            &policy,
            false,
            1.5,
            1,
            &mut set,
            compaction.as_mut_ptr(),
        )
    };
    assert_eq!(status, ketama_status::KETAMA_ERR_INVALID_ARGUMENT);
    assert!(ketama::status::last_error().contains("probability 1.5"));
}

/// Against a real memcached: 6 writers add and remove their own members
/// while 2 compactors flip the lists as fast as they can; afterwards the
/// set holds exactly what the writers were told, and flips happened.
#[test]
fn concurrent_writers_and_flipping_compactors_on_real_memcached() {
    let server = Memcached::start();
    let address = server.address();
    let base: &[u8] = b"topic-X";
    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(AtomicUsize::new(0));
    let compactors: Vec<_> = (0..2)
        .map(|_| {
            let (address, stop, flips) = (address.clone(), stop.clone(), flips.clone());
            std::thread::spawn(move || {
                let client = FlipClient::connect(&address, base);
                let mut rounds = 0;
                while !stop.load(Ordering::Relaxed) && rounds < 100_000 {
                    if client.compact(8, false) == Compaction::Flipped {
                        flips.fetch_add(1, Ordering::Relaxed);
                    }
                    rounds += 1;
                }
            })
        })
        .collect();
    let writers: Vec<_> = (0..6)
        .map(|w| {
            let address = address.clone();
            std::thread::spawn(move || {
                let client = FlipClient::connect(&address, base);
                let mut kept = BTreeSet::new();
                for i in 0..150 {
                    let member = format!("w{w}-{i}");
                    client
                        .write(Op::Add, &[member.as_bytes()], None)
                        .expect("add");
                    if i % 3 == 0 {
                        client
                            .write(Op::Remove, &[member.as_bytes()], None)
                            .expect("remove");
                    } else {
                        kept.insert(member);
                    }
                }
                kept
            })
        })
        .collect();
    let mut expected = BTreeSet::new();
    for writer in writers {
        expected.extend(writer.join().unwrap());
    }
    stop.store(true, Ordering::Relaxed);
    for compactor in compactors {
        compactor.join().unwrap();
    }
    let client = FlipClient::connect(&address, base);
    let read = client.read();
    assert_eq!(
        members(&read.members).into_iter().collect::<BTreeSet<_>>(),
        expected
    );
    assert_eq!(read.over_counted, 0);
    assert!(
        flips.load(Ordering::Relaxed) > 0,
        "the compactors flipped the lists"
    );
    // Settle: one more forced flip (after a seal, if one is pending) keeps the set.
    for _ in 0..2 {
        client.compact(0, true);
    }
    let settled = client.read();
    assert_eq!(settled.members, read.members);
    eprintln!(
        "flip on memcached: {} members, {} flips, generation {}, values {:?} bytes",
        settled.members.len(),
        flips.load(Ordering::Relaxed),
        settled.generation,
        settled.value_len
    );
}
