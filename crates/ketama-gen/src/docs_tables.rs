//! The hand-written flavour tables, checked against the registry: the
//! README's "I use → flavour" table and the table of `docs/flavours.md`
//! carry prose a generator cannot write (who uses the flavour, how its
//! servers are written, the evidence), so they stay hand-written, and this
//! check keeps them from drifting. Each flavour of the registry is listed
//! exactly once, under its canonical name; no table names a flavour the
//! registry does not know; the aliases `docs/flavours.md` gives are the
//! registry's, in its order; and "*not a continuum*" is written exactly for
//! the flavours that are not one.

use ketama_core::Flavour;
use ketama_core::registry::Named;
use std::collections::BTreeMap;
use std::path::Path;

/// The README's table: its header line starts with this.
pub const README: &str = "README.md";
const README_HEADER: &str = "| I use | flavour |";
/// The flavours document's table: its header line starts with this.
pub const FLAVOURS_MD: &str = "docs/flavours.md";
const FLAVOURS_HEADER: &str = "| I share the pool with";
const NOT_A_CONTINUUM: &str = "*not a continuum*";

/// Every disagreement between the two tables and the registry, each naming
/// the file, the line and what is wrong; empty when they agree.
pub fn check(root: &Path) -> Result<Vec<String>, String> {
    let readme = read(root, README)?;
    let flavours = read(root, FLAVOURS_MD)?;
    let mut problems = check_readme(&readme);
    problems.extend(check_flavours_md(&flavours));
    Ok(problems)
}

fn read(root: &Path, path: &str) -> Result<String, String> {
    std::fs::read_to_string(root.join(path)).map_err(|e| format!("{path}: {e}"))
}

/// The rows of the table whose header line starts with `header`, each with
/// its line number (from 1) and its cells (the separator row skipped).
fn table<'a>(text: &'a str, header: &str) -> Option<Vec<(usize, Vec<&'a str>)>> {
    let mut lines = text.lines().enumerate();
    lines.find(|(_, line)| line.starts_with(header))?;
    let rows = lines
        .take_while(|(_, line)| line.starts_with('|'))
        .filter(|(_, line)| !line.starts_with("|---") && !line.starts_with("| ---"))
        .map(|(n, line)| {
            let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
            (n + 1, inner.split('|').map(str::trim).collect())
        })
        .collect();
    Some(rows)
}

/// The names written in backticks in `cell`, in order.
fn backticked(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// Where each canonical name was listed, then the problems: unknown names,
/// aliases used instead of canonical names, flavours listed twice or never.
fn tally(
    file: &str,
    listed: impl IntoIterator<Item = (usize, String)>,
    problems: &mut Vec<String>,
) {
    let mut seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (line, name) in listed {
        match Flavour::from_name(&name) {
            None => problems.push(format!(
                "{file}:{line}: `{name}` is not a flavour of the registry"
            )),
            Some(flavour) if flavour.name() != name => problems.push(format!(
                "{file}:{line}: `{name}` is an alias; list the flavour as `{}`",
                flavour.name()
            )),
            Some(flavour) => {
                if let Some(first) = seen.insert(flavour.name(), line) {
                    problems.push(format!(
                        "{file}:{line}: `{name}` is listed again (first on line {first})"
                    ));
                }
            }
        }
    }
    for flavour in Flavour::ALL {
        if !seen.contains_key(flavour.name()) {
            problems.push(format!(
                "{file}: flavour `{}` (id {}) has no row; add one",
                flavour.name(),
                flavour.id()
            ));
        }
    }
}

/// README: every backticked name of the flavour columns (the second and
/// fourth) is a canonical flavour name, each flavour once.
fn check_readme(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(rows) = table(text, README_HEADER) else {
        return vec![format!("{README}: no table starting `{README_HEADER}`")];
    };
    let listed = rows.iter().flat_map(|(line, cells)| {
        cells
            .iter()
            .skip(1)
            .step_by(2)
            .flat_map(|cell| backticked(cell))
            .map(move |name| (*line, name.to_string()))
    });
    tally(README, listed, &mut problems);
    problems
}

/// docs/flavours.md: the second column of each row starts with the
/// flavour's canonical name, then its aliases in parentheses when it has
/// any, then "*not a continuum*" when it is not one.
fn check_flavours_md(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(rows) = table(text, FLAVOURS_HEADER) else {
        return vec![format!(
            "{FLAVOURS_MD}: no table starting `{FLAVOURS_HEADER}`"
        )];
    };
    let mut listed = Vec::new();
    for (line, cells) in &rows {
        let Some(cell) = cells.get(1) else {
            problems.push(format!(
                "{FLAVOURS_MD}:{line}: a row without a flavour column"
            ));
            continue;
        };
        let Some(name) = backticked(cell).first().map(|s| s.to_string()) else {
            problems.push(format!(
                "{FLAVOURS_MD}:{line}: no `flavour` in the second column"
            ));
            continue;
        };
        listed.push((*line, name.clone()));
        let Some(flavour) = Flavour::from_name(&name) else {
            continue;
        };
        let rest = cell[name.len() + 2..].trim_start();
        let written: Vec<&str> = match rest.strip_prefix('(') {
            Some(inner) => backticked(&inner[..inner.find(')').unwrap_or(inner.len())]),
            None => Vec::new(),
        };
        if written != flavour.aliases() {
            problems.push(format!(
                "{FLAVOURS_MD}:{line}: `{name}`'s aliases are written {written:?}; the registry's are {:?}",
                flavour.aliases()
            ));
        }
        let marked = cell.contains(NOT_A_CONTINUUM);
        if marked == flavour.is_continuum() {
            problems.push(format!(
                "{FLAVOURS_MD}:{line}: `{name}` {} a continuum; {} `{NOT_A_CONTINUUM}`",
                if marked { "is" } else { "is not" },
                if marked { "remove" } else { "add" },
            ));
        }
    }
    tally(FLAVOURS_MD, listed, &mut problems);
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository's tables agree with the registry.
    #[test]
    fn the_tables_of_the_repository_agree_with_the_registry() {
        let problems = check(&crate::repo_root()).unwrap();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// A drifted table is caught, naming the line and the fault.
    #[test]
    fn drift_is_named() {
        let good = std::fs::read_to_string(crate::repo_root().join(FLAVOURS_MD)).unwrap();
        let renamed = good.replacen("| `dalli` (`ruby`, ", "| `dalli` (`rubyx`, ", 1);
        assert_ne!(renamed, good, "the dalli row moved; update this test");
        let problems = check_flavours_md(&renamed);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("`dalli`'s aliases are written"),
            "{problems:?}"
        );

        let dropped: String = good
            .lines()
            .filter(|l| !l.contains("| `memjs` ("))
            .map(|l| format!("{l}\n"))
            .collect();
        let problems = check_flavours_md(&dropped);
        assert_eq!(
            problems,
            vec![format!(
                "{FLAVOURS_MD}: flavour `memjs` (id {}) has no row; add one",
                Flavour::from_name("memjs").unwrap().id()
            )]
        );

        let readme = std::fs::read_to_string(crate::repo_root().join(README)).unwrap();
        let aliased = readme.replacen("| `dalli` |", "| `ruby` |", 1);
        assert_ne!(
            aliased, readme,
            "the README's dalli cell moved; update this test"
        );
        let problems = check_readme(&aliased);
        assert!(
            problems
                .iter()
                .any(|p| p.contains("`ruby` is an alias; list the flavour as `dalli`")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("flavour `dalli`")),
            "{problems:?}"
        );
    }
}
