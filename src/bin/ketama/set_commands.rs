//! `ketama set decode|encode|compact`: inspect and build set values
//! dumped from memcached.

use std::io::{Read, Write};

use ketama::setcodec::{self, DecodeOptions, Format, Op};

use crate::Failure;

/// Dispatches `ketama set SUBCOMMAND ...`.
pub fn run(args: &[String]) -> Result<(), Failure> {
    match args.first().map(String::as_str) {
        Some("decode") => decode(&args[1..]),
        Some("encode") => encode(&args[1..]),
        Some("compact") => compact(&args[1..]),
        Some(other) => Err(Failure::usage(format!(
            "unknown set command '{other}' (decode, encode, compact)"
        ))),
        None => Err(Failure::usage(
            "set needs a command: decode, encode or compact",
        )),
    }
}

/// Options shared by `decode` and `compact`.
struct ReadArgs {
    options: DecodeOptions,
    to: Option<Format>,
}

fn parse_read_args(args: &[String], allow_to: bool) -> Result<ReadArgs, Failure> {
    let mut parsed = ReadArgs {
        options: DecodeOptions::default(),
        to: None,
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = || {
            iter.next()
                .ok_or_else(|| Failure::usage(format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--encoding" => {
                let name = value()?;
                parsed.options.format = match name.as_str() {
                    "auto" => None,
                    other => Some(Format::from_name(other).ok_or_else(|| {
                        Failure::usage(format!(
                            "unknown encoding '{other}' (auto, t1, b1, membase-comma, membase-tombstone, membase-plusminus)"
                        ))
                    })?),
                };
            }
            "--max-member-len" => {
                let text = value()?;
                parsed.options.max_member_len =
                    text.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                        Failure::usage(format!(
                            "--max-member-len '{text}' is not a positive integer"
                        ))
                    })?;
            }
            "--to" if allow_to => {
                let name = value()?;
                parsed.to = Some(
                    Format::from_name(name)
                        .filter(|f| f.writable())
                        .ok_or_else(|| Failure::usage(format!("--to '{name}' must be t1 or b1")))?,
                );
            }
            other => return Err(Failure::usage(format!("unknown option '{other}'"))),
        }
    }
    Ok(parsed)
}

fn read_stdin() -> Result<Vec<u8>, Failure> {
    let mut value = Vec::new();
    std::io::stdin().lock().read_to_end(&mut value)?;
    Ok(value)
}

/// Writes `member` with bytes outside printable ASCII, and `\`, as `\xNN`.
fn write_escaped(out: &mut impl Write, member: &[u8]) -> std::io::Result<()> {
    for &byte in member {
        if (0x20..0x7F).contains(&byte) && byte != b'\\' {
            out.write_all(&[byte])?;
        } else {
            write!(out, "\\x{byte:02x}")?;
        }
    }
    out.write_all(b"\n")
}

fn decode_failure(error: setcodec::SetError) -> Failure {
    Failure::failed(format!("set: {error}"))
}

/// `ketama set decode`: members, one per line, then a summary line.
fn decode(args: &[String]) -> Result<(), Failure> {
    let parsed = parse_read_args(args, false)?;
    let value = read_stdin()?;
    let set = setcodec::decode(&value, &parsed.options).map_err(decode_failure)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for member in set.members.iter() {
        write_escaped(&mut out, member)?;
    }
    let stats = set.stats;
    writeln!(
        out,
        "# records={} removals={} redundant={} encoding={}{}",
        stats.records,
        stats.removals,
        stats.redundant,
        stats.format.map_or("empty", Format::name),
        if stats.sealed { " sealed=1" } else { "" }
    )?;
    out.flush()?;
    Ok(())
}

/// `ketama set encode (add|remove) [--binary] MEMBER...`: one payload.
fn encode(args: &[String]) -> Result<(), Failure> {
    let op = match args.first().map(String::as_str) {
        Some("add") => Op::Add,
        Some("remove") => Op::Remove,
        _ => return Err(Failure::usage("set encode needs 'add' or 'remove'")),
    };
    let mut format = Format::T1;
    let mut members: Vec<&[u8]> = Vec::new();
    let mut options_done = false;
    for arg in &args[1..] {
        match arg.as_str() {
            "--binary" if !options_done => format = Format::B1,
            "--" if !options_done => options_done = true,
            option if !options_done && option.starts_with("--") => {
                return Err(Failure::usage(format!("unknown option '{option}'")));
            }
            member => members.push(member.as_bytes()),
        }
    }
    if members.is_empty() {
        return Err(Failure::usage("set encode needs at least one MEMBER"));
    }
    let payload = setcodec::encode(op, &members, format, setcodec::DEFAULT_MAX_MEMBER_LEN)
        .map_err(|e| Failure::failed(format!("set: {e}")))?;
    std::io::stdout().lock().write_all(&payload)?;
    Ok(())
}

/// `ketama set compact [--encoding E] [--to t1|b1]`: the canonical value.
fn compact(args: &[String]) -> Result<(), Failure> {
    let parsed = parse_read_args(args, true)?;
    let value = read_stdin()?;
    let set = setcodec::decode(&value, &parsed.options).map_err(decode_failure)?;
    let to = parsed
        .to
        .unwrap_or_else(|| setcodec::recipe::write_format(&set, Format::T1));
    let compacted = setcodec::compacted(&set.members, to, parsed.options.max_member_len)
        .map_err(decode_failure)?;
    std::io::stdout().lock().write_all(&compacted)?;
    Ok(())
}
