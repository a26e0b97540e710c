//! What `--check` prints for a stale file: a diff-like excerpt from the
//! first to the last differing line, with context.

use std::fmt::Write as _;

/// Lines of context around the changed lines.
const CONTEXT: usize = 3;
/// Changed lines shown on each side before the rest is counted.
const SHOWN: usize = 20;

/// The difference between `path` as checked in (`None`: missing) and as
/// generated, as `--- / +++ / @@` lines.
pub fn report(path: &str, checked_in: Option<&str>, generated: &str) -> String {
    let Some(checked_in) = checked_in else {
        return format!(
            "--- {path} (missing)\n+++ {path} (generated, {} lines)\n",
            generated.lines().count()
        );
    };
    let old: Vec<&str> = checked_in.split_inclusive('\n').collect();
    let new: Vec<&str> = generated.split_inclusive('\n').collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_changed, new_changed) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let start = prefix.saturating_sub(CONTEXT);
    let mut out = format!(
        "--- {path} (checked in)\n+++ {path} (generated)\n@@ -{},{} +{},{} @@\n",
        prefix + 1,
        old_changed.len(),
        prefix + 1,
        new_changed.len()
    );
    for line in &old[start..prefix] {
        push(&mut out, ' ', line);
    }
    for (sign, lines) in [('-', old_changed), ('+', new_changed)] {
        for line in lines.iter().take(SHOWN) {
            push(&mut out, sign, line);
        }
        if lines.len() > SHOWN {
            let _ = writeln!(out, "{sign} ... {} more lines", lines.len() - SHOWN);
        }
    }
    let after = old.len() - suffix;
    for line in &old[after..(after + CONTEXT).min(old.len())] {
        push(&mut out, ' ', line);
    }
    out
}

fn push(out: &mut String, sign: char, line: &str) {
    out.push(sign);
    out.push_str(line.strip_suffix('\n').unwrap_or(line));
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file");
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_changed_lines_are_shown_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            report("x.h", Some(old), new),
            "--- x.h (checked in)\n+++ x.h (generated)\n@@ -5,1 +5,1 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert_eq!(
            report("x.h", Some("a\nb\n"), "a\n"),
            "--- x.h (checked in)\n+++ x.h (generated)\n@@ -2,1 +2,0 @@\n a\n-b\n"
        );
        assert_eq!(
            report("x.h", None, "a\n"),
            "--- x.h (missing)\n+++ x.h (generated, 1 lines)\n"
        );
    }

    #[test]
    fn a_long_change_is_cut() {
        let new: String = (0..30).map(|i| format!("{i}\n")).collect();
        let text = report("x.h", Some(""), &new);
        assert!(text.contains("+19\n+ ... 10 more lines\n"), "{text}");
    }
}
