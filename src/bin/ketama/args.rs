//! Argument parsing shared by the ring commands.

use std::path::PathBuf;

use ketama::hash::HashAlgorithm;
use ketama::parser::ParseMode;
use ketama::{Flavour, Ring, RingConfig, ServerSpec};

use crate::Failure;

/// Where the servers come from and how to build the ring.
pub struct RingArgs {
    pub config: RingConfig,
    pub file: Option<PathBuf>,
    pub servers: Option<String>,
    pub weights: Option<String>,
    pub parse_mode: ParseMode,
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
            parse_mode: ParseMode::Strict,
            rest: Vec::new(),
        };
        let mut positional = Vec::new();
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
                "--hash" => {
                    let name = value(arg)?;
                    parsed.config.hash = Some(
                        HashAlgorithm::from_name(&name)
                            .ok_or_else(|| Failure::usage(format!("unknown hash '{name}'")))?,
                    );
                }
                "--servers" => parsed.servers = Some(value(arg)?),
                "--weights" => parsed.weights = Some(value(arg)?),
                "--libketama-parser" => parsed.parse_mode = ParseMode::Libketama,
                "--" => positional.extend(iter.by_ref().cloned()),
                option if option.starts_with("--") => {
                    return Err(Failure::usage(format!("unknown option '{option}'")));
                }
                _ => positional.push(arg.clone()),
            }
        }
        let mut positional = positional.into_iter();
        if parsed.servers.is_none() {
            let file = positional
                .next()
                .ok_or_else(|| Failure::usage("give a SERVERS_FILE or --servers H:P,..."))?;
            parsed.file = Some(PathBuf::from(file));
        } else if parsed.weights.is_some() && parsed.servers.is_none() {
            return Err(Failure::usage("--weights needs --servers"));
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
            parse_mode: self.parse_mode,
            rest: Vec::new(),
        }
    }

    /// Builds the ring.
    pub fn ring(&self) -> Result<Ring, Failure> {
        if let Some(file) = &self.file {
            return Ok(Ring::from_file(file, self.config, self.parse_mode)?);
        }
        let list = self.servers.as_deref().unwrap_or_default();
        Ok(Ring::new(
            server_list(list, self.weights.as_deref())?,
            self.config,
        )?)
    }
}

/// `--servers a,b,c` with optional `--weights 1,2,3`.
fn server_list(list: &str, weights: Option<&str>) -> Result<Vec<ServerSpec>, Failure> {
    let addresses: Vec<&str> = list.split(',').map(str::trim).collect();
    if let Some(empty) = addresses.iter().position(|a| a.is_empty()) {
        return Err(Failure::usage(format!(
            "--servers entry {} is empty",
            empty + 1
        )));
    }
    let weights: Vec<Option<u64>> = match weights {
        None => vec![None; addresses.len()],
        Some(w) => w
            .split(',')
            .enumerate()
            .map(|(i, w)| match w.trim().parse::<u64>() {
                Ok(v) if v > 0 => Ok(Some(v)),
                _ => Err(Failure::usage(format!(
                    "--weights entry {} ('{w}') is not a positive integer",
                    i + 1
                ))),
            })
            .collect::<Result<_, _>>()?,
    };
    if weights.len() != addresses.len() {
        return Err(Failure::usage(format!(
            "--weights has {} entries but --servers has {}",
            weights.len(),
            addresses.len()
        )));
    }
    Ok(addresses
        .into_iter()
        .zip(weights)
        .map(|(address, weight)| ServerSpec {
            address: address.as_bytes().to_vec(),
            weight,
            name: None,
        })
        .collect())
}
