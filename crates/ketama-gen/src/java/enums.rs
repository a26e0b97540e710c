//! Java's enums, rendered from the core's registry
//! (`ketama_core::abi::ENUMS`): each a whole file, or a marked region of a
//! hand-written class (`SetWriter.Action`, `SetWriter.Reply`). Constants are
//! sorted by id, with the C constant and the documentation of the header.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use ketama_core::registry::AbiEnum;

use super::{GENERATED, JAVA_DIR, javadoc};

/// How the Java binding shows one C enum: the Java constant is the C
/// constant without the first of `prefixes` it starts with.
pub struct JavaEnum {
    pub c_type: &'static str,
    pub class: &'static str,
    /// The class it is nested in (a marked region of that file), if any.
    pub outer: Option<&'static str>,
    pub prefixes: &'static [&'static str],
    /// Members added to the enum body (Java source, one level of indent).
    pub extra: &'static str,
}

/// The enums Java declares, in the order they are rendered.
pub const JAVA_ENUMS: &[JavaEnum] = &[
    JavaEnum {
        c_type: "ketama_flavour",
        class: "Flavour",
        outer: None,
        prefixes: &["KETAMA_FLAVOUR_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_hash",
        class: "Hash",
        outer: None,
        prefixes: &["KETAMA_HASH_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_parse_mode",
        class: "ParseMode",
        outer: None,
        prefixes: &["KETAMA_PARSE_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_set_encoding",
        class: "SetEncoding",
        outer: None,
        prefixes: &["KETAMA_SET_ENCODING_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_set_op",
        class: "SetOp",
        outer: None,
        prefixes: &["KETAMA_SET_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_set_side",
        class: "SetSide",
        outer: None,
        prefixes: &["KETAMA_SET_SIDE_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_set_action",
        class: "Action",
        outer: Some("SetWriter"),
        prefixes: &["KETAMA_SET_DO_", "KETAMA_SET_DONE_"],
        extra: "    /** Whether this is an outcome rather than a command (a {@code KETAMA_SET_DONE_} constant). */\n    public boolean isDone() {\n        return cName.startsWith(\"KETAMA_SET_DONE_\");\n    }\n",
    },
    JavaEnum {
        c_type: "ketama_set_reply",
        class: "Reply",
        outer: Some("SetWriter"),
        prefixes: &["KETAMA_SET_REPLY_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_migration_mode",
        class: "MigrationMode",
        outer: None,
        prefixes: &["KETAMA_MIGRATION_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_migration_phase",
        class: "MigrationPhase",
        outer: None,
        prefixes: &["KETAMA_MIGRATION_PHASE_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_migration_op_kind",
        class: "MigrationOp",
        outer: None,
        prefixes: &["KETAMA_MIGRATION_OP_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_migration_side",
        class: "MigrationSide",
        outer: None,
        prefixes: &["KETAMA_MIGRATION_SIDE_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_migration_command",
        class: "MigrationCommand",
        outer: None,
        prefixes: &["KETAMA_MIGRATION_DO_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_migration_reply",
        class: "MigrationReply",
        outer: None,
        prefixes: &["KETAMA_MIGRATION_REPLY_"],
        extra: "",
    },
    JavaEnum {
        c_type: "ketama_migration_outcome",
        class: "MigrationOutcome",
        outer: None,
        prefixes: &["KETAMA_MIGRATION_DONE_"],
        extra: "",
    },
];

/// The C enums Java has no enum for: a status becomes a `KetamaException`
/// carrying the library's name for it (`ketama_status_name`), and the
/// binding has no file ring nor set error kinds. An enum added to the
/// registry must be added here or to [`JAVA_ENUMS`].
pub const NOT_IN_JAVA: &[&str] = &[
    "ketama_status",
    "ketama_reload_policy",
    "ketama_set_error_kind",
];

/// Java's decision for every enum of the registry: its [`JavaEnum`], or
/// none; an error naming an enum of neither list (or of both).
fn specs() -> Result<Vec<(&'static AbiEnum, &'static JavaEnum)>, String> {
    for abi in ketama_core::abi::ENUMS {
        let java = JAVA_ENUMS.iter().any(|j| j.c_type == abi.c_type);
        if java == NOT_IN_JAVA.contains(&abi.c_type) {
            return Err(format!(
                "{}: list it in JAVA_ENUMS or NOT_IN_JAVA (crates/ketama-gen/src/java/enums.rs), once",
                abi.c_type
            ));
        }
    }
    JAVA_ENUMS
        .iter()
        .map(|spec| {
            ketama_core::abi::find(spec.c_type)
                .map(|abi| (abi, spec))
                .ok_or_else(|| format!("{}: not an enum of the registry", spec.c_type))
        })
        .collect()
}

/// Doc lines as the header shows them.
fn lines(doc: &str) -> Vec<String> {
    doc.lines().map(|l| l.trim().to_string()).collect()
}

/// The Java enum for `spec`, indented by `indent`.
fn render_enum(spec: &JavaEnum, abi: &AbiEnum, indent: &str) -> Result<String, String> {
    let class = spec.class;
    let mut out = javadoc(
        indent,
        &lines(abi.doc),
        &[format!(
            "<p>The C enum {{@code {}}} of include/ketama.h.",
            abi.c_type
        )],
    )?;
    let _ = writeln!(out, "{indent}public enum {class} {{");
    let inner = format!("{indent}    ");
    let constants = abi.constants();
    for (i, constant) in constants.iter().enumerate() {
        let java = spec
            .prefixes
            .iter()
            .find_map(|p| constant.c_name.strip_prefix(p))
            .ok_or_else(|| format!("{}: no prefix of {:?}", constant.c_name, spec.prefixes))?;
        out += &javadoc(
            &inner,
            &lines(constant.doc),
            &[format!(
                "<p>C: {{@code {} = {}}}.",
                constant.c_name, constant.id
            )],
        )?;
        let end = if i + 1 == constants.len() { ";" } else { "," };
        let _ = writeln!(
            out,
            "{inner}{java}({}, \"{}\"){end}",
            constant.id, constant.c_name
        );
    }
    let example = constants[0].c_name;
    let body = format!(
        "
    private final int id;
    private final String cName;

    {class}(int id, String cName) {{
        this.id = id;
        this.cName = cName;
    }}

    /** The C enum value. */
    public int id() {{
        return id;
    }}

    /** The C constant, e.g. {{@code {example}}}. */
    public String cName() {{
        return cName;
    }}

    /** The constant whose C value is {{@code id}}. @throws KetamaException for an id include/ketama.h does not declare */
    static {class} of(int id) {{
        for ({class} value : values()) {{
            if (value.id == id) {{
                return value;
            }}
        }}
        throw new KetamaException(\"unknown {} id \" + id);
    }}
",
        abi.c_type
    );
    let extra = if spec.extra.is_empty() {
        String::new()
    } else {
        format!("\n{}", spec.extra)
    };
    for line in (body + &extra).lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{indent}{line}");
        }
    }
    Ok(out + &format!("{indent}}}\n"))
}

/// The first and last line of a generated region inside a hand-written file.
fn region_markers(c_type: &str) -> (String, String) {
    (
        format!("    // {GENERATED}: {c_type}"),
        format!("    // end of the generated {c_type}"),
    )
}

/// `file` with the region of `c_type` replaced by `region`.
fn splice(path: &str, file: &str, c_type: &str, region: &str) -> Result<String, String> {
    let (start, end) = region_markers(c_type);
    let from = file
        .find(&format!("{start}\n"))
        .ok_or_else(|| format!("{path}: no line {start:?}"))?;
    let to = file[from..]
        .find(&format!("{end}\n"))
        .map(|at| from + at + end.len() + 1)
        .ok_or_else(|| format!("{path}: no line {end:?} after {start:?}"))?;
    Ok(format!(
        "{}{start}\n{region}{end}\n{}",
        &file[..from],
        &file[to..]
    ))
}

/// Every file holding a generated enum, as (path, text).
pub fn render(root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for (abi, spec) in specs()? {
        match spec.outer {
            None => {
                let text = format!(
                    "// {GENERATED}\npackage net.ketama;\n\n{}",
                    render_enum(spec, abi, "")?
                );
                files.insert(format!("{JAVA_DIR}/{}.java", spec.class), text);
            }
            Some(outer) => {
                let path = format!("{JAVA_DIR}/{outer}.java");
                let current = match files.get(&path) {
                    Some(text) => text.clone(),
                    None => std::fs::read_to_string(root.join(&path))
                        .map_err(|e| format!("{path}: {e}"))?,
                };
                let region = render_enum(spec, abi, "    ")?;
                files.insert(path.clone(), splice(&path, &current, spec.c_type, &region)?);
            }
        }
    }
    Ok(files.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_enum_of_the_registry_has_a_java_decision() {
        let specs = specs().unwrap();
        assert_eq!(specs.len(), JAVA_ENUMS.len());
        assert_eq!(
            JAVA_ENUMS.len() + NOT_IN_JAVA.len(),
            ketama_core::abi::ENUMS.len()
        );
    }

    #[test]
    fn a_region_is_replaced_between_its_markers() {
        let (start, end) = region_markers("ketama_x");
        let file = format!("a\n{start}\nold\n{end}\nb\n");
        assert_eq!(
            splice("X.java", &file, "ketama_x", "new\n").unwrap(),
            format!("a\n{start}\nnew\n{end}\nb\n")
        );
        let error = splice("X.java", "a\n", "ketama_x", "new\n").unwrap_err();
        assert!(error.starts_with("X.java: no line"), "{error}");
    }

    #[test]
    fn java_constants_are_sorted_by_id() {
        let flavour = JAVA_ENUMS.iter().find(|j| j.class == "Flavour").unwrap();
        let abi = ketama_core::abi::find("ketama_flavour").unwrap();
        let text = render_enum(flavour, abi, "").unwrap();
        let ids: Vec<u32> = text
            .lines()
            .filter_map(|l| {
                l.strip_prefix("    ")?
                    .split_once('(')?
                    .1
                    .split_once(',')?
                    .0
                    .parse()
                    .ok()
            })
            .collect();
        assert!(ids.len() > 30 && ids.is_sorted(), "{ids:?}");
    }
}
