//! `NativeStructs.java`: the size and field accessors of every C struct the
//! Java binding reads or writes, laid out on LP64 from cbindgen's parse of
//! the C API ([`crate::api`]).

use std::fmt::Write as _;

use super::{GENERATED, javadoc, javadoc_text};
use crate::api::Api;

/// One generated class of struct accessors: its name, what it carries
/// (for its javadoc) and its structs.
pub struct StructFile {
    /// The Java class (and file) name.
    pub class: &'static str,
    /// What its structs are for, the first line of its javadoc.
    pub about: &'static str,
    /// The C structs, in the order the class declares them.
    pub structs: &'static [&'static str],
}

/// The classes of struct accessors, one per concept of the C API.
pub const STRUCT_FILES: &[StructFile] = &[
    StructFile {
        class: "NativeStructs",
        about: "The C structs of rings and of the set codec the binding reads and writes",
        structs: &[
            "ketama_server",
            "ketama_server_ref",
            "ketama_server_info",
            "ketama_set_buffer",
            "ketama_set_member_ref",
            "ketama_set_stats",
            "ketama_set_policy",
            "ketama_set_compaction",
            "ketama_ring_cache_stats",
            "ketama_ring_cache_sharing",
        ],
    },
    StructFile {
        class: "MigrationStructs",
        about: "The C structs of migrations the binding reads",
        structs: &["ketama_migration_owners", "ketama_migration_step"],
    },
];

/// Java accessor name part for a field path: `value.data` -> `ValueData`.
fn camel(path: &[String]) -> String {
    path.iter()
        .flat_map(|p| p.split('_'))
        .map(|w| w[..1].to_uppercase() + &w[1..])
        .collect()
}

/// The text of the class `file` (`NativeStructs.java`, ...).
pub fn render(api: &Api, file: &StructFile) -> Result<String, String> {
    let class_name = file.class;
    let mut out = format!("// {GENERATED}\npackage net.ketama;\n\nimport com.sun.jna.Pointer;\n\n");
    let _ = write!(
        out,
        "/**\n * {}, laid out as include/ketama.h\n * declares them on LP64: {{@code SIZE}}, and for each field a getter and a\n * setter of the field in the native memory at {{@code p}}.\n */\nfinal class {class_name} {{\n    private {class_name}() {{}}\n",
        file.about
    );
    for name in file.structs {
        let s = api
            .structure(name)
            .ok_or_else(|| format!("{name}: not a struct of the C API"))?;
        let layout = api.layout(name)?;
        let class = camel(std::slice::from_ref(&s.name));
        out.push('\n');
        out += &javadoc(
            "    ",
            &s.doc,
            &[format!(
                "<p>The C struct {{@code {}}} of include/ketama.h.",
                s.name
            )],
        )?;
        let _ = write!(
            out,
            "    static final class {class} {{\n        private {class}() {{}}\n\n        /** {{@code sizeof({name})}}. */\n        static final int SIZE = {};\n",
            layout.size
        );
        for slot in &layout.slots {
            let (java, get, set) = match (slot.ty.pointers, slot.size) {
                (1.., _) => ("Pointer", "p.getPointer(O)", "p.setPointer(O, value)"),
                (0, 8) if slot.ty.base == "double" => {
                    ("double", "p.getDouble(O)", "p.setDouble(O, value)")
                }
                (0, 8) => ("long", "p.getLong(O)", "p.setLong(O, value)"),
                (0, 4) => ("int", "p.getInt(O)", "p.setInt(O, value)"),
                (0, 1) if slot.ty.base == "bool" => (
                    "boolean",
                    "p.getByte(O) != 0",
                    "p.setByte(O, (byte) (value ? 1 : 0))",
                ),
                (0, 1) => ("byte", "p.getByte(O)", "p.setByte(O, value)"),
                _ => return Err(format!("{name}: no Java accessor for {slot:?}")),
            };
            let offset = slot.offset.to_string();
            let field = camel(&slot.path);
            let doc = slot
                .doc
                .iter()
                .map(|l| javadoc_text(l))
                .collect::<Result<Vec<_>, _>>()?;
            let _ = write!(
                out,
                "\n        /** {{@code {}{}}} at offset {offset}: {} */\n        static {java} get{field}(Pointer p) {{\n            return {};\n        }}\n\n        static void set{field}(Pointer p, {java} value) {{\n            {};\n        }}\n",
                if slot.ty.pointers == 0 {
                    format!("{} ", slot.ty.base)
                } else {
                    format!("{} {}", slot.ty.base, "*".repeat(slot.ty.pointers))
                },
                slot.path.join("."),
                doc.join(" "),
                get.replace('O', &offset),
                set.replace('O', &offset),
            );
        }
        out += "    }\n";
    }
    Ok(out + "}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Layout;

    /// A Rust struct's size and its fields' paths and offsets.
    type RustLayout = (usize, Vec<(String, usize)>);

    /// Field paths and offsets, and the size, of a Rust struct of the library.
    macro_rules! rust_layout {
        ($ty:ty { $($field:ident $(. $inner:ident)?),+ $(,)? }) => {
            (
                std::mem::size_of::<$ty>(),
                vec![$((
                    concat!(stringify!($field) $(, ".", stringify!($inner))?).to_string(),
                    std::mem::offset_of!($ty, $field $(. $inner)?),
                )),+],
            )
        };
    }

    /// The layouts computed from the parse are the layouts the library was
    /// compiled with, for every struct a binding reads or writes.
    #[test]
    fn parsed_layouts_equal_the_rust_structs() {
        use ketama::{migration, ring, ring_cache, set};
        let api = crate::tests::api();
        let rust: Vec<(&str, RustLayout)> = vec![
            (
                "ketama_server",
                rust_layout!(ring::ketama_server {
                    address,
                    address_len,
                    weight,
                    name,
                    name_len
                }),
            ),
            (
                "ketama_server_ref",
                rust_layout!(ring::ketama_server_ref {
                    server_index,
                    point,
                    point_index,
                    address,
                    address_len
                }),
            ),
            (
                "ketama_server_info",
                rust_layout!(ring::ketama_server_info {
                    address,
                    address_len,
                    name,
                    name_len,
                    weight,
                    point_count
                }),
            ),
            (
                "ketama_ring_cache_stats",
                rust_layout!(ring_cache::ketama_ring_cache_stats {
                    rings,
                    bytes,
                    max_rings,
                    max_bytes,
                    hits,
                    misses,
                    evictions
                }),
            ),
            (
                "ketama_ring_cache_sharing",
                rust_layout!(ring_cache::ketama_ring_cache_sharing {
                    attached,
                    rolled,
                    threshold_bytes,
                    enabled
                }),
            ),
            (
                "ketama_set_buffer",
                rust_layout!(set::ketama_set_buffer { data, len }),
            ),
            (
                "ketama_set_member_ref",
                rust_layout!(set::ketama_set_member_ref { data, len }),
            ),
            (
                "ketama_set_error",
                rust_layout!(set::ketama_set_error {
                    kind,
                    offset,
                    record
                }),
            ),
            (
                "ketama_set_stats",
                rust_layout!(set::ketama_set_stats {
                    members,
                    records,
                    removals,
                    redundant,
                    value_len,
                    encoding
                }),
            ),
            (
                "ketama_set_policy",
                rust_layout!(set::ketama_set_policy {
                    threshold,
                    soft_limit,
                    ratio
                }),
            ),
            (
                "ketama_set_compaction",
                rust_layout!(set::ketama_set_compaction { needed, value.data, value.len, cas, exptime, exptime_known }),
            ),
            (
                "ketama_migration_owners",
                rust_layout!(migration::ketama_migration_owners {
                    new_server,
                    old_server,
                    moved,
                    new_address,
                    new_address_len,
                    old_address,
                    old_address_len
                }),
            ),
            (
                "ketama_migration_step",
                rust_layout!(migration::ketama_migration_step {
                    done,
                    outcome,
                    command,
                    side,
                    server,
                    cas,
                    exptime,
                    address,
                    address_len,
                    lease,
                    lease_len
                }),
            ),
        ];
        for name in STRUCT_FILES.iter().flat_map(|f| f.structs.iter()) {
            assert!(
                rust.iter().any(|(n, _)| n == name),
                "{name}: add it to this test"
            );
        }
        for (name, (size, fields)) in rust {
            let Layout {
                size: c_size,
                slots,
                ..
            } = api.layout(name).unwrap();
            let c_fields: Vec<(String, usize)> =
                slots.iter().map(|s| (s.path.join("."), s.offset)).collect();
            assert_eq!(
                (c_size, &c_fields),
                (size, &fields),
                "{name}: parsed layout vs Rust"
            );
        }
    }

    #[test]
    fn field_paths_become_accessor_names() {
        assert_eq!(camel(&["value".into(), "data".into()]), "ValueData");
        assert_eq!(camel(&["exptime_known".into()]), "ExptimeKnown");
    }
}
