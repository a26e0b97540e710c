//! Which flavour takes which placement option ([`Options`]): points per
//! server, a hash tag, Envoy's sizes; the check that refuses the others,
//! naming the flavours that take them.

use super::Flavour;
use crate::Error;
use crate::placement::options::{Options, PointsOption};

impl Flavour {
    /// The points per server its users may set, with the peer's default;
    /// `None` when the flavour's points are fixed.
    pub fn points_option(self) -> Option<PointsOption> {
        self.placement().points
    }

    /// True when its users may set a hash tag (twemproxy `hash_tag`).
    pub fn takes_hash_tag(self) -> bool {
        self.placement().hash_tag
    }

    /// The further options its users set (Envoy's ring and table sizes):
    /// names from [`SETTINGS`](crate::placement::options::SETTINGS).
    pub fn settings(self) -> &'static [&'static str] {
        self.placement().settings
    }

    /// Fails, naming the flavour and the flavours that take it, when an
    /// option is set that the flavour's peer does not offer or out of range.
    pub fn check_options(self, options: &Options) -> Result<(), Error> {
        let takers = |takes: fn(Flavour) -> bool| -> String {
            let names: Vec<&str> = Flavour::ALL
                .iter()
                .filter(|f| takes(**f))
                .map(|f| f.name())
                .collect();
            names.join(", ")
        };
        if let Some(points) = options.points {
            match self.points_option() {
                None => {
                    return Err(Error::InvalidArgument(format!(
                        "flavour {} has a fixed number of points per server; points are set \
                         for: {}",
                        self.name(),
                        takers(|f| f.points_option().is_some())
                    )));
                }
                Some(rule) if points > rule.max => {
                    return Err(Error::InvalidArgument(format!(
                        "flavour {}: points={points} is more than its peer's {} allows ({})",
                        self.name(),
                        rule.peer_name,
                        rule.max
                    )));
                }
                Some(_) => {}
            }
        }
        if options.hash_tag.is_some() && !self.takes_hash_tag() {
            return Err(Error::InvalidArgument(format!(
                "flavour {} takes no hash tag; hash tags are set for: {}",
                self.name(),
                takers(Flavour::takes_hash_tag)
            )));
        }
        for setting in options.settings() {
            if !self.settings().contains(&setting) {
                let names: Vec<&str> = Flavour::ALL
                    .iter()
                    .filter(|f| f.settings().contains(&setting))
                    .map(|f| f.name())
                    .collect();
                return Err(Error::InvalidArgument(format!(
                    "flavour {} takes no option {setting}; it is set for: {}",
                    self.name(),
                    names.join(", ")
                )));
            }
        }
        Ok(())
    }
}
