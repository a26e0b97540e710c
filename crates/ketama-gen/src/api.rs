//! The C API as cbindgen parsed it from the Rust sources: structs with
//! their fields and LP64 layouts, opaque handles and prototypes, for the
//! Java sources rendered ([`crate::java`]) and checked from it. Nothing
//! here reads the header back.

use std::collections::BTreeSet;

use cbindgen::Bindings;
use cbindgen::bindgen::ir::{ConstExpr, Documentation, ItemContainer, Type};

/// A C type with `const` dropped: its base (`uint32_t`, `ketama_ring`,
/// `unsigned int`) and how many `*` follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CType {
    pub base: String,
    pub pointers: usize,
}

impl std::fmt::Display for CType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.base, "*".repeat(self.pointers))
    }
}

/// A field of a struct: `array` is `Some(n)` for `char ip[22]`.
#[derive(Debug, Clone)]
pub struct CField {
    pub name: String,
    pub ty: CType,
    pub array: Option<usize>,
    pub doc: Vec<String>,
}

/// A struct the header declares in full.
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

/// What the header declares.
#[derive(Debug, Default)]
pub struct Api {
    pub structs: Vec<CStruct>,
    /// Handles the caller only holds pointers to (`typedef struct X X;`).
    pub opaque: Vec<String>,
    pub functions: Vec<CFunction>,
    /// The C enums (`ketama_status`, ...): the registry's, written in by the
    /// generator, so not in cbindgen's parse.
    pub enums: BTreeSet<String>,
}

/// Doc comment lines as the header shows them after ` * `.
fn doc(documentation: &Documentation) -> Vec<String> {
    documentation
        .doc_comment
        .iter()
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(line)
                .trim_end()
                .to_string()
        })
        .collect()
}

impl Api {
    /// The declarations of cbindgen's parse, and the registry's C enums.
    pub fn from_bindings(bindings: &Bindings) -> Api {
        let c_type = |ty: &Type| c_type(ty, bindings);
        let mut api = Api {
            enums: ketama_core::abi::ENUMS
                .iter()
                .map(|e| e.c_type.to_string())
                .collect(),
            ..Api::default()
        };
        for item in &bindings.items {
            match item {
                ItemContainer::Struct(s) => api.structs.push(CStruct {
                    name: s.export_name.clone(),
                    doc: doc(&s.documentation),
                    fields: s
                        .fields
                        .iter()
                        .map(|f| {
                            let (ty, array) = match &f.ty {
                                Type::Array(inner, ConstExpr::Value(n)) => {
                                    (c_type(inner), n.parse().ok())
                                }
                                ty => (c_type(ty), None),
                            };
                            CField {
                                name: f.name.clone(),
                                ty,
                                array,
                                doc: doc(&f.documentation),
                            }
                        })
                        .collect(),
                }),
                ItemContainer::OpaqueItem(o) => api.opaque.push(o.export_name.clone()),
                _ => {}
            }
        }
        api.functions = bindings
            .functions
            .iter()
            .map(|f| CFunction {
                name: f.path.name().to_string(),
                ret: c_type(&f.ret),
                params: f
                    .args
                    .iter()
                    .map(|a| (c_type(&a.ty), a.name.clone().unwrap_or_default()))
                    .collect(),
            })
            .collect();
        api
    }

    /// The struct called `name`.
    pub fn structure(&self, name: &str) -> Option<&CStruct> {
        self.structs.iter().find(|s| s.name == name)
    }

    /// The function called `name`.
    pub fn function(&self, name: &str) -> Option<&CFunction> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Whether `name` is a C enum of the registry.
    pub fn is_enum(&self, name: &str) -> bool {
        self.enums.contains(name)
    }

    /// Whether `name` is a handle type.
    pub fn is_opaque(&self, name: &str) -> bool {
        self.opaque.iter().any(|o| o == name)
    }

    /// Size and alignment of a value of type `ty` on LP64 (x86-64, aarch64).
    pub fn size_align(&self, ty: &CType) -> Result<(usize, usize), String> {
        if ty.pointers > 0 {
            return Ok((8, 8));
        }
        Ok(match ty.base.as_str() {
            "bool" | "char" | "unsigned char" | "uint8_t" | "int8_t" => (1, 1),
            "uint16_t" | "int16_t" => (2, 2),
            "int" | "unsigned int" | "uint32_t" | "int32_t" => (4, 4),
            "size_t" | "uint64_t" | "int64_t" | "unsigned long" | "long" | "double" => (8, 8),
            base if self.is_enum(base) => (4, 4),
            base => {
                let layout = self.layout(base)?;
                (layout.size, layout.align)
            }
        })
    }

    /// The C layout of struct `name` on LP64: fields in order, each at the
    /// next multiple of its alignment; the size rounded up to the largest.
    pub fn layout(&self, name: &str) -> Result<Layout, String> {
        let s = self
            .structure(name)
            .ok_or_else(|| format!("the C API declares no struct {name}"))?;
        let (mut offset, mut align) = (0usize, 1usize);
        let mut slots = Vec::new();
        for field in &s.fields {
            let (size, field_align) = self.size_align(&field.ty)?;
            let size = size * field.array.unwrap_or(1);
            offset = offset.next_multiple_of(field_align);
            align = align.max(field_align);
            if field.ty.pointers == 0 && self.structure(&field.ty.base).is_some() {
                for inner in self.layout(&field.ty.base)?.slots {
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
        Ok(Layout {
            size: offset.next_multiple_of(align),
            align,
            slots,
        })
    }
}

/// The C spelling of a parsed type, `const` dropped.
fn c_type(ty: &Type, bindings: &Bindings) -> CType {
    match ty {
        Type::Ptr { ty, .. } => {
            let inner = c_type(ty, bindings);
            CType {
                pointers: inner.pointers + 1,
                ..inner
            }
        }
        Type::Path(path) => CType {
            base: path.export_name().to_string(),
            pointers: 0,
        },
        Type::Primitive(primitive) => CType {
            base: primitive.to_repr_c(&bindings.config).to_string(),
            pointers: 0,
        },
        Type::Array(inner, _) => {
            let inner = c_type(inner, bindings);
            CType {
                pointers: inner.pointers + 1,
                ..inner
            }
        }
        Type::FuncPtr { .. } => CType {
            base: "void".to_string(),
            pointers: 1,
        },
    }
}
