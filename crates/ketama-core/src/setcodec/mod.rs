//! The set codec: sets stored inside memcached values.
//!
//! memcached has no set type. The recipe of Dustin Sallings' "Maintaining a
//! Set in Memcached" keeps a set as a log of records: every change APPENDs
//! `+member ` or `-member `, the set is created with ADD, and a read decodes
//! the log and, when it is dirty enough, compacts it back with CAS. This
//! module is that recipe written once, with the rules set out in
//! `docs/setcodec.md`:
//!
//! * [`text`] (T1, byte-compatible with the post, strict member validation)
//!   and [`binary`] (B1, members of any bytes) encodings, [`detect`]ion, and
//!   [`encode`] of add/remove payloads for one or many members;
//! * strict [`decode()`] with a typed [`SetError`] (kind, byte offset, record
//!   index) and a separate [`decode_salvage`];
//! * [`compact`]ion: the decision ([`CompactionPolicy`]) and the canonical
//!   encoding (members sorted bytewise, empty set → empty value);
//! * [`ops`]: Redis set queries and algebra on decoded sets;
//! * [`membase`]: the Membase list formats, converted with [`convert`];
//! * [`shard`]: a set spread over N keys, placed on servers through a ring;
//! * [`recipe`]: the client-driven state machine for writes and reads
//!   (the library does no network I/O).
//!
//! ```
//! use ketama_core::setcodec::{DecodeOptions, Format, Op, decode, encode};
//! // Two APPEND payloads, as two clients would write them.
//! let mut value = encode(Op::Add, &["a", "b", "c"], Format::T1, 250).unwrap();
//! value.extend(encode(Op::Remove, &["b", "x"], Format::T1, 250).unwrap());
//! assert_eq!(value, b"+a +b +c -b -x ");
//! let set = decode(&value, &DecodeOptions::default()).unwrap();
//! assert_eq!(set.members.to_vec(), [b"a".to_vec(), b"c".to_vec()]);
//! assert_eq!((set.stats.records, set.stats.removals, set.stats.redundant), (5, 2, 3));
//! ```
//!
//! Where the code departs from the plain recipe, and why, is listed at the
//! end of `docs/setcodec.md`.

pub mod binary;
pub mod compact;
pub mod decode;
pub mod decoded;
pub mod error;
pub mod flip;
pub mod membase;
pub mod members;
pub mod ops;
pub mod paired;
pub mod prefix;
pub mod recipe;
mod replay;
pub mod shard;
pub mod text;

pub use compact::{CompactionPolicy, DEFAULT_VALUE_BUDGET, compacted, should_compact};
pub use decode::{
    DEFAULT_MAX_MEMBER_LEN, DecodeOptions, DecodedSet, Salvaged, SetStats, decode, decode_salvage,
    detect,
};
pub use error::{SetError, SetErrorKind};
pub use members::MemberSet;

use members::Span;

crate::named_enum! {
    /// A record's operation (`ketama_set_op`).
    pub enum Op: "ketama_set_op" {
        /// Insert the member.
        Add = 0, KETAMA_SET_ADD, "add", [];
        /// Delete the member (a no-op when absent).
        Remove = 1, KETAMA_SET_REMOVE, "remove", [];
    }
}

crate::named_enum! {
    /// A value format (`ketama_set_encoding`). T1 and B1 are written and
    /// read; the Membase formats are read only (convert them with [`convert`]).
    pub enum Format: "ketama_set_encoding", extra 0 KETAMA_SET_ENCODING_AUTO "auto" "Detect T1 or B1 from the bytes (decode only)." {
        /// Text records `+m ` / `-m ` (the original post).
        T1 = 1, KETAMA_SET_ENCODING_T1, "t1", [];
        /// Binary records `0xA1|0xA2, LEB128 length, bytes`.
        B1 = 2, KETAMA_SET_ENCODING_B1, "b1", [];
        /// Membase comma list `a,b,c,` (adds only; read only).
        MembaseComma = 3, KETAMA_SET_ENCODING_MEMBASE_COMMA, "membase-comma", [];
        /// Membase tombstone list `deleted,|added,added,` (counted; read only).
        MembaseTombstone = 4, KETAMA_SET_ENCODING_MEMBASE_TOMBSTONE, "membase-tombstone", [];
        /// Membase plus-minus list `+1234+222-222` (counted; read only).
        MembasePlusMinus = 5, KETAMA_SET_ENCODING_MEMBASE_PLUSMINUS, "membase-plusminus", [];
    }
}

impl Format {
    /// Whether members are counted (Membase) rather than replayed in order.
    pub fn counts(self) -> bool {
        matches!(self, Format::MembaseTombstone | Format::MembasePlusMinus)
    }

    /// Whether this library writes the format.
    pub fn writable(self) -> bool {
        matches!(self, Format::T1 | Format::B1)
    }

    /// `format` when this library writes it; for detection (`None`) and
    /// the read-only Membase formats the registry's answer to an id not
    /// taken here ([`Named::refused_id`](crate::registry::Named::refused_id)).
    pub fn require_writable(format: Option<Format>) -> Result<Format, crate::Error> {
        use crate::registry::Named;
        match format {
            Some(format) if format.writable() => Ok(format),
            _ => Err(Format::refused_id(
                format.map_or(0, Format::id),
                &format!("cannot be written (use {})", Format::writable_names()),
            )),
        }
    }

    /// The names of the formats this library writes: `t1 or b1`.
    pub fn writable_names() -> String {
        let names: Vec<&str> = Format::ALL
            .iter()
            .filter(|format| format.writable())
            .map(|format| format.name())
            .collect();
        names.join(" or ")
    }
}

/// One parsed record: its op and where its member lies in the value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawRecord {
    pub(crate) op: Op,
    pub(crate) span: Span,
}

/// Encodes one APPEND payload: an `op` record for every member, in order.
/// One payload is one round trip whatever the batch size. Every member is
/// validated first (T1: 1..=`max_member_len` bytes, no whitespace, control
/// or DEL; B1: at most `max_member_len` bytes); the error names the member
/// index and the byte offset inside it.
pub fn encode<M: AsRef<[u8]>>(
    op: Op,
    members: &[M],
    format: Format,
    max_member_len: usize,
) -> Result<Vec<u8>, SetError> {
    let validate = match format {
        Format::T1 => text::validate_member,
        Format::B1 => binary::validate_member,
        other => {
            return Err(SetError::invalid(format!(
                "format {} is read-only; write t1 or b1",
                other.name()
            )));
        }
    };
    let mut size = 0usize;
    for (index, member) in members.iter().enumerate() {
        validate(member.as_ref(), index, max_member_len)?;
        size += member.as_ref().len() + 5;
    }
    let mut out = Vec::with_capacity(size);
    for member in members {
        push_record(&mut out, op, member.as_ref(), format);
    }
    Ok(out)
}

/// Appends one record of a writable format (validated by the caller).
pub(crate) fn push_record(out: &mut Vec<u8>, op: Op, member: &[u8], format: Format) {
    if format == Format::B1 {
        binary::push_record(out, op, member);
    } else {
        text::push_record(out, op, member);
    }
}

/// Decodes a value in any format and writes its live set canonically in
/// `to` (T1 or B1): converts Membase lists, or T1 to B1 and back.
pub fn convert(value: &[u8], options: &DecodeOptions, to: Format) -> Result<Vec<u8>, SetError> {
    let set = decode(value, options)?;
    compacted(&set.members, to, options.max_member_len)
}
