//! A reader of `include/ketama.h` as cbindgen writes it, for the tests that
//! generate binding sources from the header or check bindings against it:
//! the `typedef enum` blocks (constants, values, doc comments), the
//! `typedef struct` blocks (fields, doc comments, LP64 layout), the opaque
//! handle types and every `ketama_*` prototype.

use std::path::Path;

/// A C type with `const` dropped: its base (`uint32_t`, `ketama_ring`,
/// `unsigned int`) and how many `*` follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CType {
    pub base: String,
    pub pointers: usize,
}

impl CType {
    fn parse(text: &str) -> CType {
        let pointers = text.matches('*').count();
        let base = text
            .replace('*', " ")
            .split_whitespace()
            .filter(|w| *w != "const")
            .collect::<Vec<_>>()
            .join(" ");
        CType { base, pointers }
    }
}

impl std::fmt::Display for CType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.base, "*".repeat(self.pointers))
    }
}

/// One constant of a `typedef enum`.
#[derive(Debug, Clone)]
pub struct CConstant {
    pub name: String,
    pub value: i64,
    pub doc: Vec<String>,
}

/// A `typedef enum { ... } name;` block with the doc comment above it.
#[derive(Debug, Clone)]
pub struct CEnum {
    pub name: String,
    pub doc: Vec<String>,
    pub constants: Vec<CConstant>,
}

/// A field of a `typedef struct`: `array` is `Some(n)` for `char ip[22]`.
#[derive(Debug, Clone)]
pub struct CField {
    pub name: String,
    pub ty: CType,
    pub array: Option<usize>,
    pub doc: Vec<String>,
}

/// A `typedef struct { ... } name;` block.
#[derive(Debug, Clone)]
pub struct CStruct {
    pub name: String,
    pub doc: Vec<String>,
    pub fields: Vec<CField>,
}

/// A prototype: `ret name(params)`.
#[derive(Debug, Clone)]
pub struct CFunction {
    pub name: String,
    pub ret: CType,
    pub params: Vec<(CType, String)>,
}

/// What the header declares.
#[derive(Debug, Default)]
pub struct Header {
    pub enums: Vec<CEnum>,
    pub structs: Vec<CStruct>,
    /// `typedef struct X X;`: handles the caller only holds pointers to.
    pub opaque: Vec<String>,
    pub functions: Vec<CFunction>,
}

/// A struct field at its byte offset, nested structs flattened
/// (`value.data` of `ketama_set_compaction`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub path: Vec<String>,
    pub ty: CType,
    pub offset: usize,
    pub size: usize,
    pub doc: Vec<String>,
}

/// A struct's size, alignment and flattened fields on LP64.
#[derive(Debug, Clone)]
pub struct Layout {
    pub size: usize,
    pub align: usize,
    pub slots: Vec<Slot>,
}

/// Reads `include/ketama.h` of this checkout.
pub fn read(repo: &Path) -> (String, Header) {
    let path = repo.join("include/ketama.h");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let header = parse(&text);
    (text, header)
}

/// Splits `TYPE NAME` or `TYPE NAME[N]` into its parts.
fn declaration(text: &str) -> (CType, String, Option<usize>) {
    let text = text.trim();
    let (text, array) = match text.strip_suffix(']').and_then(|t| t.rsplit_once('[')) {
        Some((head, n)) => (head, Some(n.trim().parse().expect("an array length"))),
        None => (text, None),
    };
    let at = text
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or_else(|| panic!("no type in {text:?}"));
    (
        CType::parse(&text[..=at]),
        text[at + 1..].to_string(),
        array,
    )
}

/// A `typedef enum` (`true`) or `typedef struct` block being read: its doc
/// comment and its body lines, each with the doc comment above it.
type Block = (bool, Vec<String>, Vec<(String, Vec<String>)>);

/// The header's declarations, in order.
pub fn parse(text: &str) -> Header {
    let mut header = Header::default();
    let mut doc: Vec<String> = Vec::new();
    let mut in_doc: Option<Vec<String>> = None;
    let mut in_comment = false;
    let mut block: Option<Block> = None;
    for raw in text.lines() {
        let line = raw.trim();
        if in_comment {
            in_comment = !line.contains("*/");
            continue;
        }
        if let Some(lines) = in_doc.as_mut() {
            if line == "*/" {
                doc = in_doc.take().unwrap();
            } else {
                let l = line.strip_prefix('*').unwrap_or(line);
                lines.push(l.strip_prefix(' ').unwrap_or(l).to_string());
            }
            continue;
        }
        if line == "/**" {
            in_doc = Some(Vec::new());
            continue;
        }
        if line.starts_with("/*") {
            in_comment = !line.contains("*/");
            continue;
        }
        if let Some((_, _, body)) = block.as_mut() {
            if let Some(name) = line.strip_prefix('}') {
                let name = name.trim().trim_end_matches(';').trim().to_string();
                let (is_enum, block_doc, body) = block.take().unwrap();
                if is_enum {
                    let constants = body
                        .into_iter()
                        .map(|(l, doc)| {
                            let (name, value) = l
                                .trim_end_matches(',')
                                .split_once('=')
                                .unwrap_or_else(|| panic!("{name}: {l:?} has no value"));
                            CConstant {
                                name: name.trim().to_string(),
                                value: value.trim().parse().expect("an enum value"),
                                doc,
                            }
                        })
                        .collect();
                    header.enums.push(CEnum {
                        name,
                        doc: block_doc,
                        constants,
                    });
                } else {
                    let fields = body
                        .into_iter()
                        .map(|(l, doc)| {
                            let (ty, name, array) = declaration(l.trim_end_matches(';'));
                            CField {
                                name,
                                ty,
                                array,
                                doc,
                            }
                        })
                        .collect();
                    header.structs.push(CStruct {
                        name,
                        doc: block_doc,
                        fields,
                    });
                }
            } else if !line.is_empty() {
                body.push((line.to_string(), std::mem::take(&mut doc)));
            }
            continue;
        }
        match line {
            "typedef enum {" => block = Some((true, std::mem::take(&mut doc), Vec::new())),
            "typedef struct {" => block = Some((false, std::mem::take(&mut doc), Vec::new())),
            _ => {
                if let Some(rest) = line.strip_prefix("typedef struct ") {
                    let words: Vec<&str> = rest.trim_end_matches(';').split_whitespace().collect();
                    if words.len() == 2 && words[0] == words[1] {
                        header.opaque.push(words[0].to_string());
                    }
                } else if !line.starts_with("typedef") && line.ends_with(");") {
                    if let Some(function) = prototype(line) {
                        header.functions.push(function);
                    }
                }
                if !line.is_empty() {
                    doc.clear();
                }
            }
        }
    }
    header
}

/// `RET NAME(PARAMS);` when NAME starts with `ketama_`.
fn prototype(line: &str) -> Option<CFunction> {
    let open = line.find('(')?;
    let head = &line[..open];
    let at = head.rfind(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let name = head[at + 1..].to_string();
    if !name.starts_with("ketama_") {
        return None;
    }
    let inner = line[open + 1..].strip_suffix(");")?;
    let params = inner
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty() && *p != "void")
        .map(|p| {
            let (ty, name, _) = declaration(p);
            (ty, name)
        })
        .collect();
    Some(CFunction {
        name,
        ret: CType::parse(&head[..=at]),
        params,
    })
}

impl Header {
    pub fn enumeration(&self, name: &str) -> &CEnum {
        self.enums
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("include/ketama.h declares no enum {name}"))
    }

    pub fn structure(&self, name: &str) -> Option<&CStruct> {
        self.structs.iter().find(|s| s.name == name)
    }

    pub fn function(&self, name: &str) -> Option<&CFunction> {
        self.functions.iter().find(|f| f.name == name)
    }

    pub fn is_enum(&self, name: &str) -> bool {
        self.enums.iter().any(|e| e.name == name)
    }

    pub fn is_opaque(&self, name: &str) -> bool {
        self.opaque.iter().any(|o| o == name)
    }

    /// Size and alignment of a value of type `ty` on LP64 (x86-64, aarch64).
    pub fn size_align(&self, ty: &CType) -> (usize, usize) {
        if ty.pointers > 0 {
            return (8, 8);
        }
        match ty.base.as_str() {
            "bool" | "char" | "unsigned char" | "uint8_t" | "int8_t" => (1, 1),
            "uint16_t" | "int16_t" => (2, 2),
            "int" | "unsigned int" | "uint32_t" | "int32_t" => (4, 4),
            "size_t" | "uint64_t" | "int64_t" | "unsigned long" | "long" | "double" => (8, 8),
            base if self.is_enum(base) => (4, 4),
            base => {
                let layout = self.layout(base);
                (layout.size, layout.align)
            }
        }
    }

    /// The C layout of struct `name` on LP64: fields in order, each at the
    /// next multiple of its alignment; the size rounded up to the largest.
    pub fn layout(&self, name: &str) -> Layout {
        let s = self
            .structure(name)
            .unwrap_or_else(|| panic!("include/ketama.h declares no struct {name}"));
        let (mut offset, mut align) = (0usize, 1usize);
        let mut slots = Vec::new();
        for field in &s.fields {
            let (size, field_align) = self.size_align(&field.ty);
            let size = size * field.array.unwrap_or(1);
            offset = offset.next_multiple_of(field_align);
            align = align.max(field_align);
            if field.ty.pointers == 0 && self.structure(&field.ty.base).is_some() {
                for inner in self.layout(&field.ty.base).slots {
                    let mut path = vec![field.name.clone()];
                    path.extend(inner.path);
                    slots.push(Slot {
                        path,
                        offset: offset + inner.offset,
                        ..inner
                    });
                }
            } else {
                slots.push(Slot {
                    path: vec![field.name.clone()],
                    ty: field.ty.clone(),
                    offset,
                    size,
                    doc: field.doc.clone(),
                });
            }
            offset += size;
        }
        Layout {
            size: offset.next_multiple_of(align),
            align,
            slots,
        }
    }
}
