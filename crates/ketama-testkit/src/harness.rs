//! The comparison every peer suite makes. A suite writes a table of cases
//! (a server list as the real client and the library are given it, and the
//! keys), asks the real client about every case in one run, and [`compare`]
//! asks the library about the same keys: one line per case, `flavour |
//! case | keys compared | differing keys`, and any difference fails the
//! test with the first differing keys. Suites whose peer runs live (a proxy
//! in front of real servers) drive it themselves and report through
//! [`report`].

use std::fmt::Debug;

use ketama_core::Ring;

/// How the library answers a case's keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// `Ring::locate`: every server up.
    Locate,
    /// `Ring::locate_live` with these servers down (none: the live lookup
    /// with every server up).
    Live(Vec<usize>),
}

/// One row of a suite's case table.
#[derive(Debug, Clone)]
pub struct Case<I> {
    /// The row as reported (`10 servers, Unequal weights`).
    pub name: String,
    /// What the suite builds the client's question and the library's ring from.
    pub input: I,
    /// The keys both are asked about.
    pub keys: Vec<Vec<u8>>,
    /// How the library answers.
    pub lookup: Lookup,
    /// The client's number for the library's server `i` is `same[i]`
    /// (a client that names servers by their string counts a server listed
    /// twice as its first entry); empty: the same numbering.
    pub same: Vec<usize>,
}

impl<I> Case<I> {
    /// A case answered with `Ring::locate`, numbered as the library numbers.
    pub fn new(name: impl Into<String>, input: I, keys: Vec<Vec<u8>>) -> Self {
        Case {
            name: name.into(),
            input,
            keys,
            lookup: Lookup::Locate,
            same: Vec::new(),
        }
    }

    /// The case answered with `Ring::locate_live`, `down` marked down.
    pub fn down(mut self, down: Vec<usize>) -> Self {
        self.lookup = Lookup::Live(down);
        self
    }

    /// The case for a client that names each server by `names[i]`: a name
    /// listed twice is its first entry.
    pub fn named<T: PartialEq>(mut self, names: &[T]) -> Self {
        self.same = names
            .iter()
            .map(|name| names.iter().position(|n| n == name).expect("listed"))
            .collect();
        self
    }

    fn number(&self, server: usize) -> usize {
        if self.same.is_empty() {
            server
        } else {
            self.same[server]
        }
    }
}

/// What the real client answered for one case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// Each key's server, `None` where the client found none.
    pub servers: Vec<Option<usize>>,
    /// The client's whole continuum as (point, server) in order, when it
    /// shows it.
    pub continuum: Option<Vec<(u32, u32)>>,
}

/// The questions of a case table as the peer runners take them: each
/// case's text for the client (`text` of its input) and its keys.
pub fn questions<I>(table: &[Case<I>], text: impl Fn(&I) -> String) -> Vec<(String, &[Vec<u8>])> {
    table
        .iter()
        .map(|case| (text(&case.input), case.keys.as_slice()))
        .collect()
}

/// Asks the real client (`ask`, once for the whole table) and the library
/// (`ring`, per case) about every case of `cases`, and reports each case
/// through [`report`] (after the continuum, when the client showed it).
/// Returns the number of keys compared; any difference fails the test.
pub fn compare<I>(
    flavour: &str,
    cases: &[Case<I>],
    ask: impl FnOnce(&[Case<I>]) -> Vec<Answer>,
    ring: impl Fn(&Case<I>) -> Ring,
) -> usize {
    let answers = ask(cases);
    assert_eq!(
        answers.len(),
        cases.len(),
        "{flavour}: the client answered {} of {} cases",
        answers.len(),
        cases.len()
    );
    let mut compared = 0;
    for (case, answer) in cases.iter().zip(&answers) {
        let ring = ring(case);
        if let Some(theirs) = &answer.continuum {
            let c = ring.continuum();
            let ours: Vec<(u32, u32)> = c
                .points()
                .iter()
                .zip(c.owners())
                .map(|(&point, &owner)| (point, case.number(owner as usize) as u32))
                .collect();
            assert_same_continuum(flavour, &case.name, &ours, theirs);
        }
        let ours: Vec<Option<usize>> = case
            .keys
            .iter()
            .map(|key| {
                let at = match &case.lookup {
                    Lookup::Locate => ring.locate(key),
                    Lookup::Live(down) => ring.locate_live(key, |s| down.contains(&s)).ok(),
                };
                at.map(|at| case.number(at.server_index))
            })
            .collect();
        compared += report(flavour, &case.name, &case.keys, &ours, &answer.servers);
    }
    println!(
        "{flavour} | {} cases | {compared} keys compared | 0 differing",
        cases.len()
    );
    compared
}

/// Fails unless the library's continuum `ours` equals the client's, naming
/// the first entry that differs.
pub fn assert_same_continuum(
    flavour: &str,
    case: &str,
    ours: &[(u32, u32)],
    theirs: &[(u32, u32)],
) {
    let differing = ours.iter().zip(theirs).filter(|(a, b)| a != b).count();
    let first = ours.iter().zip(theirs).position(|(a, b)| a != b);
    assert!(
        ours.len() == theirs.len() && differing == 0,
        "{flavour} | {case} | the continuum differs: {} points here, {} in the client, \
         {differing} of them differ, the first at entry {first:?}: library {:?}, client {:?}",
        ours.len(),
        theirs.len(),
        first.map(|i| ours[i]),
        first.map(|i| theirs[i]),
    );
}

/// Reports one comparison, `flavour | case | keys compared | differing
/// keys`, and fails listing the first differing keys unless the library's
/// answers `ours` equal the client's `theirs` for every key. Returns the
/// number of keys compared.
pub fn report<T: PartialEq + Debug>(
    flavour: &str,
    case: &str,
    keys: &[Vec<u8>],
    ours: &[T],
    theirs: &[T],
) -> usize {
    assert_eq!(
        ours.len(),
        keys.len(),
        "{flavour} | {case} | the library answered {} of {} keys",
        ours.len(),
        keys.len()
    );
    assert_eq!(
        theirs.len(),
        keys.len(),
        "{flavour} | {case} | the client answered {} of {} keys",
        theirs.len(),
        keys.len()
    );
    let differing: Vec<String> = keys
        .iter()
        .zip(ours.iter().zip(theirs))
        .filter(|(_, (a, b))| a != b)
        .map(|(key, (a, b))| {
            format!(
                "{:?}: library {a:?}, client {b:?}",
                String::from_utf8_lossy(key)
            )
        })
        .collect();
    println!(
        "{flavour} | {case} | {} keys compared | {} differing",
        keys.len(),
        differing.len()
    );
    assert!(
        differing.is_empty(),
        "{flavour} | {case} | {} of {} keys differ, the first:\n{}",
        differing.len(),
        keys.len(),
        differing[..differing.len().min(8)].join("\n")
    );
    keys.len()
}
