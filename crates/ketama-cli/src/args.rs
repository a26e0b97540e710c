//! The ring inputs shared by `find`, `dump`, `dist`, `diff` and `migrate`:
//! clap's parsed options turned into a ring, or two.

use std::ffi::OsString;
use std::path::PathBuf;

use ketama_core::parser::{ParseMode, parse_server_file, peers};
use ketama_core::registry::Named;
use ketama_core::{Flavour, Options, Ring, RingConfig, ServerSpec};

use crate::Failure;
use crate::cli::{PlacementArgs, ServerListArgs};
use ketama_cli::cli_ring::SidesArgs;

/// Where the servers come from and how to build the ring.
#[derive(Clone)]
pub struct RingArgs {
    pub config: RingConfig,
    pub file: Option<PathBuf>,
    pub servers: Option<String>,
    pub weights: Option<String>,
    /// `--servers-file`: a peer-style list (`host:port[:weight] [name]` lines).
    pub servers_file: Option<PathBuf>,
    pub parse_mode: ParseMode,
}

impl RingArgs {
    /// The ring of `--servers`/`--servers-file`, or else of the server file
    /// `file`. When an option gives the servers, `file` is handed back: the
    /// first positional argument is then not a file (for `find`, a key).
    pub fn from_options(
        placement: &PlacementArgs,
        list: &ServerListArgs,
        file: Option<OsString>,
    ) -> Result<(RingArgs, Option<OsString>), Failure> {
        let config = ring_config(placement)?;
        let mut parsed = RingArgs {
            config,
            file: None,
            servers: list.servers.clone(),
            weights: list.weights.clone(),
            servers_file: list.servers_file.clone(),
            parse_mode: if placement.libketama_parser {
                ParseMode::Libketama
            } else {
                config.flavour.file_syntax()
            },
        };
        if parsed.servers.is_some() || parsed.servers_file.is_some() {
            return Ok((parsed, file));
        }
        let file =
            file.ok_or_else(|| Failure::usage("give a SERVERS_FILE or --servers H:P,..."))?;
        if parsed.weights.is_some() {
            return Err(Failure::usage(
                "--weights needs --servers or --servers-file",
            ));
        }
        parsed.file = Some(PathBuf::from(file));
        Ok((parsed, None))
    }

    /// How the server source is named in messages.
    pub fn source_name(&self) -> String {
        match (&self.file, &self.servers_file) {
            (Some(file), _) | (None, Some(file)) => file.display().to_string(),
            (None, None) => "--servers".to_string(),
        }
    }

    /// Builds the ring: a SERVERS_FILE is read in the flavour's file syntax
    /// (or as libketama reads it), a `--servers-file` in the syntax the
    /// flavour's users write lists in (`ParseMode::Flavour`).
    pub fn ring(&self) -> Result<Ring, Failure> {
        if let Some(file) = &self.file {
            return Ok(Ring::from_file(file, self.config, self.parse_mode)?);
        }
        let servers = match &self.servers_file {
            Some(path) => {
                let mode = ParseMode::Flavour.for_flavour(self.config.flavour);
                let content = ketama_core::ring::read_server_file(path)?;
                parse_server_file(&content, &path.display().to_string(), mode)?
            }
            None => server_list(self.servers.as_deref().unwrap_or_default())?,
        };
        Ok(Ring::new(
            with_weights(servers, self.weights.as_deref())?,
            self.config,
        )?)
    }

    /// The indices of the `--down` servers, matched by address or name.
    pub fn down_servers(ring: &Ring, list: Option<&str>) -> Result<Vec<bool>, Failure> {
        let mut down = vec![false; ring.servers().len()];
        for entry in list
            .iter()
            .flat_map(|d| d.split(','))
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            let mut found = false;
            for (i, server) in ring.servers().iter().enumerate() {
                if server.address() == entry.as_bytes() || server.name() == Some(entry.as_bytes()) {
                    down[i] = true;
                    found = true;
                }
            }
            if !found {
                return Err(Failure::usage(format!(
                    "--down: '{entry}' is not a server of the ring"
                )));
            }
        }
        Ok(down)
    }
}

/// The two rings of a change (`diff`, `migrate`), and how their sources
/// are named in messages.
pub struct TwoRings {
    pub old: Ring,
    pub new: Ring,
    pub old_name: String,
    pub new_name: String,
}

impl TwoRings {
    /// The rings of `files` (OLD NEW, or one file, or none with
    /// `--servers`/`--servers-file`, for both sides), each side's flavour,
    /// hash and options from `sides` over `placement`. `command` names the
    /// command in usage errors.
    pub fn from_args(
        placement: &PlacementArgs,
        list: &ServerListArgs,
        sides: &SidesArgs,
        files: Vec<OsString>,
        command: &str,
    ) -> Result<TwoRings, Failure> {
        let base = flavour_named(placement.flavor.as_deref())?;
        let options = placement_options(placement)?;
        // One side of the change, built by the core; its errors say which side.
        let side = |chosen: Option<&str>, hash: Option<&str>, what: &str, text: Option<&str>| {
            let config = || -> Result<RingConfig, ketama_core::Error> {
                let flavour = chosen.map_or(Ok(base), Flavour::named_variant)?;
                let options = text.map_or(Ok(options), Options::parse)?;
                RingConfig::named(flavour, hash, options)
            };
            config().map_err(|e| Failure::usage(format!("{what} side: {e}")))
        };
        let hash = placement.hash.as_deref();
        let old_config = side(
            sides.from_flavor.as_deref(),
            sides.from_hash.as_deref().or(hash),
            "--from",
            sides.from_options.as_deref(),
        )?;
        let new_config = side(
            sides.to_flavor.as_deref(),
            sides.to_hash.as_deref().or(hash),
            "--to",
            sides.to_options.as_deref(),
        )?;
        let two_sides = || {
            Failure::usage(format!(
                "{command} takes two server files OLD NEW, or one list for both sides (with \
                 --from-flavor/--to-flavor)"
            ))
        };
        if files.len() > 2 {
            return Err(two_sides());
        }
        // The sides' flavours and hashes are set below: the source is read
        // with the base flavour's reading of server files.
        let placement = PlacementArgs {
            hash: None,
            ..placement.clone()
        };
        let mut files = files.into_iter();
        let (source, unused) = RingArgs::from_options(&placement, list, files.next())?;
        let new_file = files.next();
        if unused.is_some() || (source.file.is_none() && new_file.is_some()) {
            return Err(two_sides());
        }
        // Two files OLD NEW: each is read as `find` reads a file under its
        // side's flavour (a CLUSTER NODES file for redis-cluster), unless
        // --libketama-parser says otherwise; one file for both sides is
        // read in the base flavour's syntax.
        let syntax = |config: RingConfig| match new_file.is_some() && !placement.libketama_parser {
            true => config.flavour.file_syntax(),
            false => source.parse_mode,
        };
        let old_args = RingArgs {
            config: old_config,
            parse_mode: syntax(old_config),
            ..source.clone()
        };
        let new_args = RingArgs {
            config: new_config,
            parse_mode: syntax(new_config),
            file: new_file.map(Into::into).or(source.file.clone()),
            ..source.clone()
        };
        Ok(TwoRings {
            old: old_args.ring()?,
            new: new_args.ring()?,
            old_name: source.source_name(),
            new_name: new_args.source_name(),
        })
    }
}

/// Calls `answer` with each key given as an argument or, when none is,
/// with each line of standard input as the core reads keys (a line of at
/// most 1 MiB, a CR before the newline dropped): `find` and `migrate find`.
pub fn for_each_key_argument(
    keys: &[OsString],
    mut answer: impl FnMut(&[u8]) -> Result<(), Failure>,
) -> Result<(), Failure> {
    use std::os::unix::ffi::OsStrExt;
    if keys.is_empty() {
        let mut lines = stdin_keys();
        while let Some(key) = lines.next_key()? {
            answer(key)?;
        }
        return Ok(());
    }
    keys.iter().try_for_each(|key| answer(key.as_bytes()))
}

/// The keys on standard input, one per line, read as the core reads keys.
pub fn stdin_keys() -> ketama_core::key_file::KeyLines<std::io::StdinLock<'static>> {
    ketama_core::key_file::KeyLines::new(std::io::stdin().lock(), "standard input")
}

/// The configuration `placement` names, built by the core
/// ([`RingConfig::named`]): `--flavor`, `--hash` (`default`: the
/// flavour's own) and the options.
pub fn ring_config(placement: &PlacementArgs) -> Result<RingConfig, Failure> {
    let flavour = flavour_named(placement.flavor.as_deref())?;
    let options = placement_options(placement)?;
    RingConfig::named(flavour, placement.hash.as_deref(), options).map_err(usage)
}

/// The flavour `--flavor` (or another option) names; the default when none
/// is given. An unknown name is a usage error listing the known ones.
pub fn flavour_named(name: Option<&str>) -> Result<Flavour, Failure> {
    name.map_or(Ok(Flavour::default()), Flavour::named_variant)
        .map_err(usage)
}

/// `--options`, then `--points` and `--hash-tag` over it.
pub fn placement_options(placement: &PlacementArgs) -> Result<Options, Failure> {
    let mut options = match &placement.options {
        Some(text) => Options::parse(text).map_err(usage)?,
        None => Options::default(),
    };
    if let Some(points) = &placement.points {
        options.points = Options::parse(&format!("points={points}"))
            .map_err(usage)?
            .points;
    }
    if let Some(tag) = &placement.hash_tag {
        let tag = ketama_core::flavour::options::parse_hash_tag(tag).map_err(usage)?;
        options.hash_tag = Some(tag);
    }
    Ok(options)
}

/// A bad option is a usage error (exit 2), as clap's own are.
pub fn usage(error: ketama_core::Error) -> Failure {
    Failure::usage(error.to_string())
}

/// `--servers a:1,b:2:5,[::1]:3` (peer list syntax, comma-separated).
fn server_list(list: &str) -> Result<Vec<ServerSpec>, Failure> {
    if let Some(empty) = list.split(',').position(|a| a.trim().is_empty()) {
        return Err(Failure::usage(format!(
            "--servers entry {} is empty",
            empty + 1
        )));
    }
    Ok(peers::parse(list.as_bytes(), "--servers")?)
}

/// Applies `--weights 1,2,3` (in list order) to servers without weights.
fn with_weights(
    servers: Vec<ServerSpec>,
    weights: Option<&str>,
) -> Result<Vec<ServerSpec>, Failure> {
    let Some(weights) = weights else {
        return Ok(servers);
    };
    if servers.iter().any(|s| s.weight.is_some()) {
        return Err(Failure::usage(
            "--weights cannot be combined with weights in the server list",
        ));
    }
    let weights: Vec<Option<u64>> = weights
        .split(',')
        .enumerate()
        .map(|(i, w)| match w.trim().parse::<u64>() {
            Ok(v) if v > 0 => Ok(Some(v)),
            _ => Err(Failure::usage(format!(
                "--weights entry {} ('{w}') is not a positive integer",
                i + 1
            ))),
        })
        .collect::<Result<_, _>>()?;
    if weights.len() != servers.len() {
        return Err(Failure::usage(format!(
            "--weights has {} entries but --servers has {}",
            weights.len(),
            servers.len()
        )));
    }
    Ok(servers
        .into_iter()
        .zip(weights)
        .map(|(server, weight)| ServerSpec { weight, ..server })
        .collect())
}
