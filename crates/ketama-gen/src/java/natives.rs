//! Every native method of the hand-written `KetamaNative.java` against its
//! prototype in cbindgen's parse of the C API: the same parameter count,
//! each Java type one that carries the C type under JNA direct mapping on
//! LP64 ([`java_accepts`]). `make generate` and its `--check` fail on a
//! mismatch.

use std::collections::BTreeMap;

use crate::api::{Api, CType};

/// A method of KetamaNative.java: `static native RET NAME(TYPE NAME, ...);`.
#[derive(Debug)]
pub struct JavaNative {
    pub name: String,
    pub ret: String,
    pub params: Vec<String>,
}

/// The Java source without comments.
fn strip_java_comments(source: &str) -> String {
    let mut out = String::new();
    let mut rest = source;
    while let Some(at) = rest.find('/') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("//") {
            rest = tail.find('\n').map_or("", |n| &tail[n..]);
        } else if tail.starts_with("/*") {
            rest = tail.find("*/").map_or("", |n| &tail[n + 2..]);
        } else {
            out.push('/');
            rest = &tail[1..];
        }
    }
    out + rest
}

/// The `static native` methods of a Java source.
pub fn java_natives(source: &str) -> Vec<JavaNative> {
    strip_java_comments(source)
        .split(';')
        .filter_map(|statement| {
            let at = statement.find("static native ")?;
            let decl = statement[at + "static native ".len()..]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let (head, params) = decl.split_once('(')?;
            let (ret, name) = head.trim().rsplit_once(' ')?;
            let params = params
                .trim_end_matches(')')
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| {
                    p.rsplit_once(' ')
                        .map_or(p, |(ty, _)| ty)
                        .trim()
                        .to_string()
                })
                .collect();
            Some(JavaNative {
                name: name.into(),
                ret: ret.into(),
                params,
            })
        })
        .collect()
}

/// JNA structures declared in KetamaNative.java: class -> [(Java type, field)].
pub fn java_structures(source: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let source = strip_java_comments(source);
    let mut found = BTreeMap::new();
    for chunk in source.split("@com.sun.jna.Structure.FieldOrder").skip(1) {
        let Some(declaration) = chunk.find("class ").map(|at| &chunk[at..]) else {
            continue;
        };
        let Some(class) = declaration.split_whitespace().nth(1) else {
            continue;
        };
        let Some(body) = declaration
            .find('{')
            .and_then(|open| declaration[open + 1..].split('}').next())
        else {
            continue;
        };
        let fields = body
            .split(';')
            .filter_map(|f| {
                let words: Vec<&str> = f.split_whitespace().filter(|w| *w != "public").collect();
                (words.len() == 2).then(|| (words[0].to_string(), words[1].to_string()))
            })
            .collect();
        found.insert(class.to_string(), fields);
    }
    found
}

/// Whether a Java type of a JNA direct-mapped method (LP64) carries C type
/// `c`. The mapping:
///
/// | C | Java |
/// |---|---|
/// | `void` (return) | `void` |
/// | `bool` | `byte` (one byte; 0 is false) |
/// | `int`, `uint32_t`, `int32_t`, `unsigned int`, an enum | `int` |
/// | `size_t`, `uint64_t`, `int64_t`, `unsigned long` | `long` |
/// | `double` | `double` |
/// | a struct by value | a `Structure.ByValue` whose fields match the struct's, in order |
/// | any pointer | `Pointer` (native memory, structs read through `NativeStructs`) |
/// | a handle pointer, `char *`, `uint8_t *` (parameter) | `long` (the native address) |
/// | `char *` (parameter) | `String` (NUL-terminated) |
/// | `char *`, `uint8_t *`, `bool *` (parameter) | `byte[]` |
/// | `uint32_t *` (parameter) | `int[]` |
/// | `size_t *`, `uint64_t *`, `int64_t *`, `T **` (parameter) | `long[]` |
pub fn java_accepts(
    java: &str,
    c: &CType,
    api: &Api,
    structures: &BTreeMap<String, Vec<(String, String)>>,
) -> bool {
    let scalar = |base: &str| -> Option<&'static str> {
        Some(match base {
            "void" => "void",
            "bool" | "char" | "uint8_t" | "unsigned char" => "byte",
            "int" | "uint32_t" | "int32_t" | "unsigned int" => "int",
            "size_t" | "uint64_t" | "int64_t" | "unsigned long" | "long" => "long",
            "double" => "double",
            b if api.is_enum(b) => "int",
            _ => return None,
        })
    };
    let bytes = matches!(c.base.as_str(), "char" | "uint8_t" | "unsigned char");
    match (c.pointers, java) {
        (0, java) if scalar(&c.base).is_some() => scalar(&c.base) == Some(java),
        (0, java) => match (api.structure(&c.base), structures.get(java)) {
            (Some(s), Some(fields)) => {
                s.fields.len() == fields.len()
                    && s.fields.iter().zip(fields).all(|(f, (jt, jn))| {
                        f.name == *jn
                            && f.array.is_none()
                            && java_accepts(jt, &f.ty, api, structures)
                    })
            }
            _ => false,
        },
        (_, "Pointer") => true,
        (1, "long") => bytes || api.is_opaque(&c.base),
        (1, "String") => c.base == "char",
        (1, "byte[]") => bytes || c.base == "bool",
        (1, "int[]") => scalar(&c.base) == Some("int"),
        (1, "long[]") => scalar(&c.base) == Some("long") && c.base != "double",
        (2, "long[]") => true,
        _ => false,
    }
}

/// Every native method of `source` (KetamaNative.java) is a prototype of
/// the C API with as many parameters, each of a type that carries the C
/// one; the error lists every disagreement. Returns how many were checked.
pub fn check(source: &str, api: &Api) -> Result<usize, String> {
    let natives = java_natives(source);
    let structures = java_structures(source);
    let mut wrong = Vec::new();
    if natives.len() < 40 || !structures.contains_key("SetBuffer") {
        wrong.push(format!(
            "only {} natives and the structures {:?} found",
            natives.len(),
            structures.keys().collect::<Vec<_>>()
        ));
    }
    for native in &natives {
        let Some(c) = api.function(&native.name) else {
            wrong.push(format!("{}: not in include/ketama.h", native.name));
            continue;
        };
        if native.params.len() != c.params.len() {
            wrong.push(format!(
                "{}: {} parameters, the header has {}",
                native.name,
                native.params.len(),
                c.params.len()
            ));
            continue;
        }
        if !java_accepts(&native.ret, &c.ret, api, &structures) || native.ret.ends_with("[]") {
            wrong.push(format!(
                "{}: returns {} for C {}",
                native.name, native.ret, c.ret
            ));
        }
        for (i, (java, (ty, name))) in native.params.iter().zip(&c.params).enumerate() {
            if !java_accepts(java, ty, api, &structures) {
                wrong.push(format!(
                    "{}: parameter {i} ({name}) is {java} for C {ty}",
                    native.name
                ));
            }
        }
    }
    if wrong.is_empty() {
        Ok(natives.len())
    } else {
        Err(format!(
            "bindings/java/src/main/java/net/ketama/KetamaNative.java disagrees with include/ketama.h:\n  {}",
            wrong.join("\n  ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java::JAVA_DIR;

    fn ketama_native() -> String {
        let root = crate::repo_root();
        std::fs::read_to_string(root.join(JAVA_DIR).join("KetamaNative.java")).unwrap()
    }

    /// Every native method of KetamaNative.java is a prototype of the
    /// header with as many parameters, each of a type that carries the C one.
    #[test]
    fn java_native_declarations_match_the_header_prototypes() {
        let checked = check(&ketama_native(), crate::tests::api()).unwrap();
        assert!(checked >= 40, "{checked}");
        eprintln!("{checked} Java natives checked against include/ketama.h");
    }

    /// A native the C API lacks, a parameter too many or of another width
    /// is named in the error.
    #[test]
    fn a_wrong_native_is_named() {
        let source = ketama_native().replace(
            "static native Pointer ketama_status_name(int status);",
            "static native Pointer ketama_status_name(long status);\n    static native int ketama_nothing();",
        );
        let error = check(&source, crate::tests::api()).unwrap_err();
        assert!(
            error.contains("ketama_status_name: parameter 0 (status) is long for C uint32_t")
                && error.contains("ketama_nothing: not in include/ketama.h"),
            "{error}"
        );
    }

    /// The mapping refuses what it must: a wrong width, a struct with another
    /// field order, an array for a by-value struct.
    #[test]
    fn java_type_mapping_refuses_mismatches() {
        let api = crate::tests::api();
        let mut structures = BTreeMap::new();
        structures.insert(
            "Good".to_string(),
            vec![
                ("Pointer".into(), "data".into()),
                ("long".into(), "len".into()),
            ],
        );
        structures.insert(
            "Swapped".to_string(),
            vec![
                ("long".into(), "len".into()),
                ("Pointer".into(), "data".into()),
            ],
        );
        let ty = |base: &str, pointers| CType {
            base: base.into(),
            pointers,
        };
        let accepts = |java, c: &CType| java_accepts(java, c, api, &structures);
        assert!(accepts("int", &ty("uint32_t", 0)) && !accepts("long", &ty("uint32_t", 0)));
        assert!(accepts("long", &ty("size_t", 0)) && !accepts("int", &ty("size_t", 0)));
        assert!(accepts("byte", &ty("bool", 0)) && !accepts("boolean", &ty("bool", 0)));
        assert!(accepts("int", &ty("ketama_status", 0)));
        assert!(
            accepts("Good", &ty("ketama_set_buffer", 0))
                && !accepts("Swapped", &ty("ketama_set_buffer", 0))
        );
        assert!(!accepts("long[]", &ty("ketama_set_buffer", 0)));
        assert!(
            accepts("long", &ty("ketama_ring", 1)) && !accepts("long", &ty("ketama_server_ref", 1))
        );
        assert!(!accepts("int[]", &ty("size_t", 1)) && !accepts("long[]", &ty("uint32_t", 1)));
        assert!(
            accepts("long[]", &ty("ketama_ring", 2))
                && accepts("Pointer", &ty("ketama_server_ref", 1))
        );
        assert!(!accepts("Pointer", &ty("uint32_t", 0)));
    }
}
