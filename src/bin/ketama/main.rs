//! `ketama`: the command-line tool of the ketama library.
//!
//! It maps keys to servers (`find`), prints continuums (`dump`) and checks
//! server files (`check`) with exactly the library's engine.

mod args;
mod plan_commands;
mod ring_commands;
mod set_commands;

use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "\
usage: ketama <command> [options]

commands:
  find  [RING OPTIONS] [--down H:P,...] (SERVERS_FILE | --servers H:P,...) [KEY...]
        print KEY<TAB>SERVER for each key (keys from stdin, one per line, when none given);
        with --down, servers listed there are skipped (failover to the next live one);
        with --group-by-server, the multi-GET plan instead: SERVER<TAB>KEY<TAB>KEY... for each
        server holding keys (servers in list order, keys in input order)
  dump  [RING OPTIONS] (SERVERS_FILE | --servers H:P,...)
        print POINT<TAB>SERVER for every point in continuum order
  check SERVERS_FILE
        validate a server file strictly; exit 1 with line-precise errors
  dist  [RING OPTIONS] (SERVERS_FILE | --servers H:P,...) [--keys FILE]
        each server's share of the keyspace (exact) against its weight share;
        --keys measures the share of a sample of real keys instead
  diff  [RING OPTIONS] [--from-flavor F --to-flavor F] [--from-hash H --to-hash H]
        [--keys FILE] OLD_FILE [NEW_FILE]
        the fraction of the keyspace that moves between two server lists, two flavours
        or two key hashes (one list serves both sides when NEW_FILE is left out, or with
        --servers); exact for two continuums hashing keys alike, otherwise measured on
        the keys of --keys FILE or on 100,000 generated keys key:0..key:99999
  set decode [--encoding auto|t1|b1|membase-comma|membase-tombstone|membase-plusminus]
        read a set value on stdin; print its members and a '# records=...' line
  set encode (add|remove) [--binary] MEMBER...
        write the APPEND payload for the members to stdout
  set compact [--encoding E] [--to t1|b1]
        read a set value on stdin and write its compacted form

ring options:
  --flavor NAME        placement flavour (default: libketama): libketama, spymemcached (java),
                       spymemcached-libmemcached, libmemcached (php-memcached),
                       libmemcached-consistent, libmemcached-spy, twemproxy, pecl-memcache,
                       libketama-java (sockiopool: files are SERVER<TAB>WEIGHT lines read
                       as SockIOPool reads them, a bad weight read as 1), dalli (ruby),
                       nginx (--servers-file: an upstream block's server directives),
                       node-memcached (node), memcached-fast (Perl, ketama_points 150),
                       pymemcache (HashClient's rendezvous hashing), python-memcached,
                       cache-memcached (Perl Cache::Memcached): the last three are not
                       continuums (dump refuses them)
  --hash NAME          key hash in the peer's own spelling (default: the flavour's own)
  --servers LIST       comma-separated HOST:PORT[:WEIGHT] entries ([IPV6]:PORT) instead of a file
  --servers-file FILE  a list of HOST:PORT[:WEIGHT] [NAME] lines (NAME: twemproxy's name column)
  --weights LIST       comma-separated weights for --servers, in list order
  --libketama-parser   read the server file exactly like the original libketama
                       (default: strict, rejecting lines the original misreads)
";

/// A command's failure: the message and the exit code.
pub struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    /// A usage error (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: 2,
        }
    }

    /// A runtime failure (exit code 1).
    pub fn failed(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: 1,
        }
    }
}

impl From<ketama::Error> for Failure {
    fn from(error: ketama::Error) -> Self {
        Failure::failed(error.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Self {
        Failure::failed(format!("I/O error: {error}"))
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = match argv.first().map(String::as_str) {
        Some("find") => ring_commands::find(&argv[1..]),
        Some("dump") => ring_commands::dump(&argv[1..]),
        Some("check") => ring_commands::check(&argv[1..]),
        Some("dist") => plan_commands::dist(&argv[1..]),
        Some("diff") => plan_commands::diff(&argv[1..]),
        Some("set") => set_commands::run(&argv[1..]),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        Some("--version" | "-V") => {
            println!("ketama {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some(other) => Err(Failure::usage(format!("unknown command '{other}'"))),
        None => Err(Failure::usage("no command given")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) if failure.message.contains("Broken pipe") => ExitCode::SUCCESS,
        Err(failure) => {
            let _ = writeln!(std::io::stderr(), "ketama: {}", failure.message);
            if failure.code == 2 {
                let _ = write!(std::io::stderr(), "{USAGE}");
            }
            ExitCode::from(failure.code)
        }
    }
}
