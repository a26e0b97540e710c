//! Argument parsing shared by the ring commands.

use std::path::PathBuf;

use ketama::parser::{ParseMode, nginx, peers, sockiopool};
use ketama::{Flavour, Ring, RingConfig, ServerSpec};

use crate::Failure;

/// Where the servers come from and how to build the ring.
pub struct RingArgs {
    pub config: RingConfig,
    pub file: Option<PathBuf>,
    pub servers: Option<String>,
    pub weights: Option<String>,
    /// `--servers-file`: a peer-style list (`host:port[:weight] [name]` lines).
    pub servers_file: Option<PathBuf>,
    /// `--down H:P,...`: servers to skip (failover lookup).
    pub down: Option<String>,
    pub parse_mode: ParseMode,
    /// `--group-by-server` (find): the multi-GET plan instead of one line per key.
    pub group_by_server: bool,
    /// Arguments that were not options (after the file, if any).
    pub rest: Vec<String>,
}

impl RingArgs {
    /// Parses ring options; the first positional argument is the server
    /// file unless `--servers` is given.
    pub fn parse(args: &[String]) -> Result<RingArgs, Failure> {
        let mut parsed = RingArgs {
            config: RingConfig::default(),
            file: None,
            servers: None,
            weights: None,
            servers_file: None,
            down: None,
            parse_mode: ParseMode::Strict,
            group_by_server: false,
            rest: Vec::new(),
        };
        let mut positional = Vec::new();
        let mut hash_name = None;
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let mut value = |name: &str| {
                iter.next()
                    .cloned()
                    .ok_or_else(|| Failure::usage(format!("{name} needs a value")))
            };
            match arg.as_str() {
                "--flavor" | "--flavour" => {
                    let name = value(arg)?;
                    parsed.config.flavour = Flavour::from_name(&name)
                        .ok_or_else(|| Failure::usage(format!("unknown flavour '{name}'")))?;
                }
                "--hash" => hash_name = Some(value(arg)?),
                "--servers" => parsed.servers = Some(value(arg)?),
                "--servers-file" => parsed.servers_file = Some(PathBuf::from(value(arg)?)),
                "--down" => parsed.down = Some(value(arg)?),
                "--weights" => parsed.weights = Some(value(arg)?),
                "--libketama-parser" => parsed.parse_mode = ParseMode::Libketama,
                "--group-by-server" => parsed.group_by_server = true,
                "--" => positional.extend(iter.by_ref().cloned()),
                option if option.starts_with("--") => {
                    return Err(Failure::usage(format!("unknown option '{option}'")));
                }
                _ => positional.push(arg.clone()),
            }
        }
        if let Some(name) = hash_name {
            let flavour = parsed.config.flavour;
            parsed.config.hash = Some(flavour.hash_from_name(&name).ok_or_else(|| {
                let offered: Vec<&str> = flavour.hashes().iter().map(|h| h.name()).collect();
                Failure::usage(format!(
                    "unknown hash '{name}' for flavour {} (it offers: {})",
                    flavour.name(),
                    offered.join(", ")
                ))
            })?);
        }
        if parsed.servers.is_some() && parsed.servers_file.is_some() {
            return Err(Failure::usage(
                "give either --servers or --servers-file, not both",
            ));
        }
        let mut positional = positional.into_iter();
        if parsed.servers.is_none() && parsed.servers_file.is_none() {
            let file = positional
                .next()
                .ok_or_else(|| Failure::usage("give a SERVERS_FILE or --servers H:P,..."))?;
            parsed.file = Some(PathBuf::from(file));
            if parsed.weights.is_some() {
                return Err(Failure::usage(
                    "--weights needs --servers or --servers-file",
                ));
            }
        }
        parsed.rest = positional.collect();
        Ok(parsed)
    }

    /// The same ring options, without the server source.
    pub fn clone_options(&self) -> RingArgs {
        RingArgs {
            config: self.config,
            file: None,
            servers: None,
            weights: None,
            servers_file: None,
            down: None,
            parse_mode: self.parse_mode,
            group_by_server: false,
            rest: Vec::new(),
        }
    }

    /// The same options and server source (not the positional rest).
    pub fn clone_source(&self) -> RingArgs {
        RingArgs {
            file: self.file.clone(),
            servers: self.servers.clone(),
            weights: self.weights.clone(),
            servers_file: self.servers_file.clone(),
            ..self.clone_options()
        }
    }

    /// How the server source is named in messages.
    pub fn source_name(&self) -> String {
        match (&self.file, &self.servers_file) {
            (Some(file), _) | (None, Some(file)) => file.display().to_string(),
            (None, None) => "--servers".to_string(),
        }
    }

    /// Builds the ring.
    pub fn ring(&self) -> Result<Ring, Failure> {
        // libketama's Java port reads its own `SERVER<TAB>WEIGHT` lines.
        let sockiopool = self.config.flavour == Flavour::LibketamaJava;
        if let Some(file) = &self.file {
            let mode = match self.parse_mode {
                ParseMode::Strict if sockiopool => ParseMode::SockIoPool,
                mode => mode,
            };
            return Ok(Ring::from_file(file, self.config, mode)?);
        }
        let servers = match &self.servers_file {
            Some(path) => {
                let content = ketama::ring::read_server_file(path)?;
                let shown = path.display().to_string();
                match self.config.flavour {
                    Flavour::LibketamaJava => sockiopool::parse(&content, &shown)?,
                    Flavour::Nginx => nginx::parse(&content, &shown)?,
                    _ => peers::parse(&content, &shown)?,
                }
            }
            None => server_list(self.servers.as_deref().unwrap_or_default())?,
        };
        Ok(Ring::new(
            with_weights(servers, self.weights.as_deref())?,
            self.config,
        )?)
    }

    /// The indices of the `--down` servers, matched by address or name.
    pub fn down_servers(&self, ring: &Ring) -> Result<Vec<bool>, Failure> {
        let mut down = vec![false; ring.servers().len()];
        for entry in self
            .down
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
