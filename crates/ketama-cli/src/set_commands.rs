//! `ketama set decode|encode|compact`: inspect and build set values
//! dumped from memcached.

use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;

use ketama_core::escape::{escape_bytes, json_text};
use ketama_core::registry::Named;
use ketama_core::setcodec::{self, DecodeOptions, Format, Op};
use serde::Serialize;

use crate::Failure;
use crate::cli::{SetCompactArgs, SetDecodeArgs, SetEncodeArgs, SetReadArgs};

/// `set decode --json`.
#[derive(Serialize)]
struct DecodedJson<'a> {
    members: Vec<std::borrow::Cow<'a, str>>,
    records: usize,
    removals: usize,
    redundant: usize,
    encoding: &'static str,
    /// The value carries the seal of a flipped list.
    sealed: bool,
}

/// The decoding options `args` name.
fn decode_options(args: &SetReadArgs) -> Result<DecodeOptions, Failure> {
    let mut options = DecodeOptions::default();
    if let Some(name) = &args.encoding {
        options.format = Format::named(name).map_err(crate::args::usage)?;
    }
    if let Some(len) = args.max_member_len {
        options.max_member_len = usize::try_from(len).unwrap_or(usize::MAX);
    }
    Ok(options)
}

fn read_stdin() -> Result<Vec<u8>, Failure> {
    let mut value = Vec::new();
    std::io::stdin().lock().read_to_end(&mut value)?;
    Ok(value)
}

fn decode_failure(error: setcodec::SetError) -> Failure {
    Failure::failed(format!("set: {error}"))
}

/// `ketama set decode`: members, one per line, then a summary line.
pub fn decode(args: SetDecodeArgs) -> Result<(), Failure> {
    let options = decode_options(&args.read)?;
    let value = read_stdin()?;
    let set = setcodec::decode(&value, &options).map_err(decode_failure)?;
    let stats = set.stats;
    let encoding = stats.format.map_or("empty", Format::name);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        let document = DecodedJson {
            members: set.members.iter().map(json_text).collect(),
            records: stats.records,
            removals: stats.removals,
            redundant: stats.redundant,
            encoding,
            sealed: stats.sealed,
        };
        serde_json::to_writer(&mut out, &document).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
    } else {
        for member in set.members.iter() {
            out.write_all(escape_bytes(member).as_bytes())?;
            out.write_all(b"\n")?;
        }
        writeln!(
            out,
            "# records={} removals={} redundant={} encoding={encoding}{}",
            stats.records,
            stats.removals,
            stats.redundant,
            if stats.sealed { " sealed=1" } else { "" }
        )?;
    }
    out.flush()?;
    Ok(())
}

/// `ketama set encode (add|remove) [--binary] MEMBER...`: one payload.
pub fn encode(args: SetEncodeArgs) -> Result<(), Failure> {
    let op = Op::named_variant(&args.op).map_err(crate::args::usage)?;
    let format = if args.binary { Format::B1 } else { Format::T1 };
    let members: Vec<&[u8]> = args.members.iter().map(|m| m.as_bytes()).collect();
    let payload = setcodec::encode(op, &members, format, setcodec::DEFAULT_MAX_MEMBER_LEN)
        .map_err(|e| Failure::failed(format!("set: {e}")))?;
    std::io::stdout().lock().write_all(&payload)?;
    Ok(())
}

/// `ketama set compact [--encoding E] [--to t1|b1]`: the canonical value.
pub fn compact(args: SetCompactArgs) -> Result<(), Failure> {
    let options = decode_options(&args.read)?;
    let to = match &args.to {
        None => None,
        Some(name) => Some(
            Format::from_name(name)
                .filter(|f| f.writable())
                .ok_or_else(|| {
                    Failure::usage(format!(
                        "--to '{name}' must be {}",
                        Format::writable_names()
                    ))
                })?,
        ),
    };
    let value = read_stdin()?;
    let set = setcodec::decode(&value, &options).map_err(decode_failure)?;
    let to = to.unwrap_or_else(|| setcodec::recipe::write_format(&set, Format::T1));
    let compacted =
        setcodec::compacted(&set.members, to, options.max_member_len).map_err(decode_failure)?;
    std::io::stdout().lock().write_all(&compacted)?;
    Ok(())
}
