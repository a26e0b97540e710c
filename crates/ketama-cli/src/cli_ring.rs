//! The options that say how a ring is built, shared by the commands of
//! `cli.rs` and `cli_migrate.rs`: the placement (flavour, hash, points,
//! options, the server file's reading), the server list given inline, and
//! what differs between the two sides of a change (`diff`, `migrate`).
//! Help texts are built from the library's lists.

use std::path::PathBuf;

use clap::Args;

/// `--flavor`'s help, from the library's list of flavours: each name with
/// its aliases, and which flavours are not continuums.
fn flavour_help() -> String {
    use ketama_core::Flavour;
    use ketama_core::registry::Named;
    let names: Vec<String> = Flavour::ALL
        .iter()
        .map(|f| match f.aliases() {
            [] => f.name().to_string(),
            aliases => format!("{} ({})", f.name(), aliases.join(", ")),
        })
        .collect();
    let per_key: Vec<&str> = Flavour::ALL
        .iter()
        .filter(|f| !f.is_continuum())
        .map(|f| f.name())
        .collect();
    format!(
        "Placement flavour (default: libketama): {}. Not continuums (dump refuses them): {}. \
         A SERVERS_FILE is read strictly (libketama-java: SockIOPool lines, a bad weight read \
         as 1); --servers-file in the syntax the flavour's users write (nginx: an upstream \
         block's server directives)",
        names.join(", "),
        per_key.join(", ")
    )
}

/// `--hash`'s help: the name of the flavour's own hash, from the library.
fn hash_help() -> String {
    use ketama_core::hash::HashAlgorithm;
    use ketama_core::registry::Named;
    format!(
        "Key hash in the peer's own spelling; {} (also when not given): the flavour's own",
        HashAlgorithm::extra_name().unwrap_or_default()
    )
}

/// `--points`' help: what the peers that take it call it, from the library.
fn points_help() -> String {
    use ketama_core::Flavour;
    let mut peer_names: Vec<&str> = Vec::new();
    for points in Flavour::ALL.iter().filter_map(|f| f.points_option()) {
        if !peer_names.contains(&points.peer_name) {
            peer_names.push(points.peer_name);
        }
    }
    let takers: Vec<&str> = Flavour::ALL
        .iter()
        .filter(|f| f.points_option().is_some())
        .map(|f| f.name())
        .collect();
    format!(
        "Points per server (per unit of weight where the peer multiplies; the peers' {}) for {} \
         (default: the peer's)",
        peer_names.join(", "),
        takers.join(", ")
    )
}

/// `--hash-tag`'s help, with the flavours that take a hash tag.
fn hash_tag_help() -> String {
    use ketama_core::Flavour;
    let takers: Vec<&str> = Flavour::ALL
        .iter()
        .filter(|f| f.takes_hash_tag())
        .map(|f| f.name())
        .collect();
    format!(
        "Hash only the part of each key between these two characters, e.g. '{{}}' (twemproxy \
         hash_tag), for {}",
        takers.join(", ")
    )
}

/// `--options`' help: the option names the library reads, with the
/// flavours that take the ones only some take and an example value.
fn options_help() -> String {
    use ketama_core::Flavour;
    use ketama_core::flavour::options::{OPTION_NAMES, SETTINGS};
    let names: Vec<String> = OPTION_NAMES
        .iter()
        .map(|(name, _)| {
            let takers: Vec<&str> = Flavour::ALL
                .iter()
                .filter(|f| f.settings().contains(name))
                .map(|f| f.name())
                .collect();
            let example = SETTINGS.iter().find(|(setting, _)| setting == name);
            match (takers.as_slice(), example) {
                ([], _) => name.to_string(),
                (takers, None) => format!("{name} ({})", takers.join(", ")),
                (takers, Some((_, value))) => {
                    format!("{name} ({}; e.g. {name}={value})", takers.join(", "))
                }
            }
        })
        .collect();
    format!(
        "Placement options as the library reads them: NAME=VALUE,... ({})",
        names.join(", ")
    )
}

/// How the ring is built: flavour, hash and the server file's reading.
#[derive(Debug, Clone, Args)]
pub struct PlacementArgs {
    #[arg(
        long = "flavor",
        visible_alias = "flavour",
        value_name = "NAME",
        help = flavour_help()
    )]
    pub flavor: Option<String>,
    #[arg(long, value_name = "NAME", help = hash_help())]
    pub hash: Option<String>,
    #[arg(long, value_name = "N", help = points_help())]
    pub points: Option<String>,
    #[arg(long = "hash-tag", value_name = "XY", help = hash_tag_help())]
    pub hash_tag: Option<String>,
    #[arg(long, value_name = "LIST", help = options_help())]
    pub options: Option<String>,
    /// Read the server file exactly like the original libketama (default: strict, rejecting
    /// lines the original misreads)
    #[arg(long = "libketama-parser")]
    pub libketama_parser: bool,
}

/// Where the servers come from when they are not in a SERVERS_FILE.
#[derive(Debug, Args)]
pub struct ServerListArgs {
    /// Comma-separated HOST:PORT[:WEIGHT] entries ([IPV6]:PORT) instead of a file
    #[arg(long, value_name = "LIST")]
    pub servers: Option<String>,
    /// A list of HOST:PORT[:WEIGHT] [NAME] lines (NAME: twemproxy's name column)
    #[arg(long = "servers-file", value_name = "FILE", conflicts_with = "servers")]
    pub servers_file: Option<PathBuf>,
    /// Comma-separated weights for --servers or --servers-file, in list order
    #[arg(long, value_name = "LIST")]
    pub weights: Option<String>,
}

/// What differs between the two sides of a change (`diff`, `migrate`):
/// each defaults to the option without `from-`/`to-`.
#[derive(Debug, Clone, Args)]
pub struct SidesArgs {
    /// The flavour before the change (default: --flavor's)
    #[arg(
        long = "from-flavor",
        visible_alias = "from-flavour",
        value_name = "NAME"
    )]
    pub from_flavor: Option<String>,
    /// The flavour after the change (default: --flavor's)
    #[arg(long = "to-flavor", visible_alias = "to-flavour", value_name = "NAME")]
    pub to_flavor: Option<String>,
    /// The key hash before the change (default: --hash, else the flavour's own)
    #[arg(long = "from-hash", value_name = "NAME")]
    pub from_hash: Option<String>,
    /// The key hash after the change (default: --hash, else the flavour's own)
    #[arg(long = "to-hash", value_name = "NAME")]
    pub to_hash: Option<String>,
    /// Placement options before the change, NAME=VALUE,... (default: --options, --points,
    /// --hash-tag)
    #[arg(long = "from-options", value_name = "LIST")]
    pub from_options: Option<String>,
    /// Placement options after the change (default: --options, --points, --hash-tag)
    #[arg(long = "to-options", value_name = "LIST")]
    pub to_options: Option<String>,
}

/// A change between two sides, as `ketama diff` and `ketama migrate plan`
/// take it: the placement, the server lists and what differs per side.
#[derive(Debug, Args)]
pub struct ChangeArgs {
    #[command(flatten)]
    pub placement: PlacementArgs,
    #[command(flatten)]
    pub list: ServerListArgs,
    #[command(flatten)]
    pub sides: SidesArgs,
    /// Measure on the keys of FILE (one per line) instead of exactly (two continuums hashing
    /// keys alike) or on 100,000 generated keys key:0..key:99999 (otherwise)
    #[arg(long, value_name = "FILE")]
    pub keys: Option<std::ffi::OsString>,
    /// Write one JSON document (shares as fractions of 1)
    #[arg(long)]
    pub json: bool,
    /// OLD_FILE NEW_FILE (each read as `find` reads it under its side's flavour), or one
    /// server file for both sides (then --from-/--to- options tell the sides apart); none with
    /// --servers or --servers-file
    #[arg(value_name = "FILE")]
    pub files: Vec<std::ffi::OsString>,
}
