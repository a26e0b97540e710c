//! Enums that cross the C ABI, each declared once.
//!
//! [`named_enum!`](crate::named_enum) turns one declaration into the Rust enum, its C ids, its
//! canonical names and aliases, and the C constant of every variant.
//! [`AbiEnum`] reads a declaration as data ([`crate::abi::ENUMS`] lists the
//! ones that cross the C ABI): the generator (`crates/ketama-gen`) renders
//! the C header's `typedef enum` blocks and Java's enums from it, the C ABI
//! answers `*_name`, `*_from_name` and `*_list` from the declarations, and
//! the bindings ask the library instead of keeping tables of their own.

use std::ffi::CStr;

use crate::Error;

mod data;
pub use data::{AbiEnum, Constant};

/// An enum declared with [`named_enum!`](crate::named_enum).
pub trait Named: Copy + Eq + 'static {
    /// The C type name (`ketama_flavour`).
    const C_TYPE: &'static str;
    /// A C id that no variant has (`KETAMA_HASH_DEFAULT`: the flavour's
    /// own hash), if the C enum has one.
    const C_EXTRA: Option<Extra>;
    /// Every variant, in the order of their C ids.
    const ALL: &'static [Self];
    /// The C id.
    fn id(self) -> u32;
    /// The canonical name.
    fn name(self) -> &'static str;
    /// The canonical name, NUL-terminated (for the C ABI).
    fn name_c(self) -> &'static CStr;
    /// The C constant (`KETAMA_FLAVOUR_NGINX`).
    fn c_name(self) -> &'static str;
    /// Other names accepted by [`Named::from_name`].
    fn aliases(self) -> &'static [&'static str];
    /// The variant's documentation.
    fn doc(self) -> &'static str;

    /// The variant with C id `id`.
    fn from_id(id: u32) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.id() == id)
    }

    /// The variant called `name`: its canonical name or an alias, in any
    /// case, with `-` and `_` taken as the same character.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|v| same_name(v.name(), name) || v.aliases().iter().any(|a| same_name(a, name)))
    }

    /// The variant with C id `id`, or [`Named::unknown_id`].
    fn with_id(id: u32) -> Result<Self, Error> {
        Self::from_id(id).ok_or_else(|| Self::unknown_id(id))
    }

    /// The one answer to an id that names no variant (an id out of range,
    /// or one that does not fit a C id at all, as a caller wrote it):
    /// `KETAMA_ERR_INVALID_ARGUMENT`, `unknown ketama_flavour id 99`.
    fn unknown_id(id: impl std::fmt::Display) -> Error {
        Error::InvalidArgument(format!("unknown {} id {id}", Self::C_TYPE))
    }

    /// The answer to a known id that a function does not take (the extra
    /// id where it means nothing, a read-only variant where one is
    /// written): `ketama_hash id 0 (KETAMA_HASH_DEFAULT) names no hash
    /// function here`, `why` saying why.
    fn refused_id(id: u32, why: &str) -> Error {
        let constant = match (Self::from_id(id), Self::C_EXTRA) {
            (Some(variant), _) => variant.c_name(),
            (None, Some(extra)) if extra.id == id => extra.c_name,
            (None, _) => return Self::unknown_id(id),
        };
        Error::InvalidArgument(format!("{} id {id} ({constant}) {why}", Self::C_TYPE))
    }

    /// The variant with C id `id`; `None` for the extra id
    /// ([`Named::C_EXTRA`]: the flavour's own hash, detect the encoding);
    /// an error naming the C type for any other id.
    fn with_id_or_extra(id: u32) -> Result<Option<Self>, Error> {
        match Self::C_EXTRA {
            Some(extra) if extra.id == id => Ok(None),
            _ => Self::with_id(id).map(Some),
        }
    }

    /// The variant called `name` ([`Named::from_name`]); `None` for the
    /// extra's name (`"default"`, `"auto"`, any case); an error listing the
    /// known names otherwise (`unknown flavour "x" (known: ...)`).
    fn named(name: &str) -> Result<Option<Self>, Error> {
        if let Some(variant) = Self::from_name(name) {
            return Ok(Some(variant));
        }
        match Self::C_EXTRA {
            Some(extra) if extra.name.to_bytes().eq_ignore_ascii_case(name.as_bytes()) => Ok(None),
            _ => Err(Error::InvalidArgument(format!(
                "unknown {} {name:?} (known: {})",
                Self::what(),
                Self::names()
            ))),
        }
    }

    /// The variant called `name` ([`Named::named`]) where the extra's name
    /// means nothing: that name is an error saying it is not allowed here.
    fn named_variant(name: &str) -> Result<Self, Error> {
        Self::named(name)?.ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{} {name:?} is not allowed here (known: {})",
                Self::what(),
                Self::names()
            ))
        })
    }

    /// What a value of the enum is called in messages (`flavour`, `set
    /// encoding`): the C type without `ketama_`.
    fn what() -> String {
        Self::C_TYPE.trim_start_matches("ketama_").replace('_', " ")
    }

    /// The name of the extra id (`"default"`, `"auto"`), if the enum has one.
    fn extra_name() -> Option<&'static str> {
        Self::C_EXTRA.map(|extra| extra.name.to_str().unwrap_or_default())
    }

    /// Every canonical name, comma-separated (for messages).
    fn names() -> String {
        Self::ALL
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A C id beside the variants (`KETAMA_HASH_DEFAULT = 0`).
#[derive(Debug, Clone, Copy)]
pub struct Extra {
    /// The C id.
    pub id: u32,
    /// The C constant.
    pub c_name: &'static str,
    /// Its name (`"default"`), NUL-terminated.
    pub name: &'static CStr,
    /// What it means.
    pub doc: &'static str,
}

/// The extra C id of a declaration, if it has one (for [`named_enum!`]).
#[doc(hidden)]
pub const fn first(extra: &[Extra]) -> Option<Extra> {
    match extra {
        [one] => Some(*one),
        _ => None,
    }
}

/// `text` plus a NUL as a C string, at compile time (for [`named_enum!`]).
#[doc(hidden)]
pub const fn c_str(with_nul: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(with_nul.as_bytes()) {
        Ok(name) => name,
        Err(_) => panic!("a name with a NUL byte"),
    }
}

/// Whether two names are the same, ignoring case and `-`/`_`.
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes().zip(b.bytes()).all(|(x, y)| {
            let fold = |c: u8| {
                if c == b'_' {
                    b'-'
                } else {
                    c.to_ascii_lowercase()
                }
            };
            fold(x) == fold(y)
        })
}

/// Declares an enum that crosses the C ABI: each variant with its C id, C
/// constant, canonical name and aliases, documented once.
///
/// ```ignore
/// named_enum! {
///     /// How a server file is read.
///     pub enum ParseMode: "ketama_parse_mode" {
///         /// Reject every line the original would misread.
///         Strict = 0, KETAMA_PARSE_STRICT, "strict", [];
///     }
/// }
/// ```
///
/// A declaration may carry one static value per variant (a flavour's
/// placement): `pub enum Flavour: "ketama_flavour", data placement: Placement`
/// and `... => libketama::PLACEMENT;` on each row give
/// `Flavour::placement(self) -> &'static Placement`.
///
/// The rows are declared in strictly ascending order of their ids, so that
/// `ALL` and every list made from it are sorted by id; a declaration out of
/// order does not compile:
///
/// ```compile_fail
/// ketama_core::named_enum! {
///     /// Out of order.
///     pub enum Backwards: "ketama_backwards" {
///         /// Two.
///         Two = 2, KETAMA_BACKWARDS_TWO, "two", [];
///         /// One.
///         One = 1, KETAMA_BACKWARDS_ONE, "one", [];
///     }
/// }
/// ```
///
/// while the same rows in order do:
///
/// ```
/// ketama_core::named_enum! {
///     /// In order.
///     pub enum Forwards: "ketama_forwards" {
///         /// One.
///         One = 1, KETAMA_FORWARDS_ONE, "one", [];
///         /// Two.
///         Two = 2, KETAMA_FORWARDS_TWO, "two", [];
///     }
/// }
/// assert_eq!(Forwards::ALL, &[Forwards::One, Forwards::Two]);
/// ```
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident: $c_type:literal, data $method:ident: $data_ty:ty {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident = $id:literal, $c_name:ident, $canonical:literal, [$($alias:literal),* $(,)?] => $data:expr;
            )+
        }
    ) => {
        $crate::named_enum! {
            $(#[$meta])*
            pub enum $name: $c_type {
                $(
                    $(#[doc = $doc])*
                    $variant = $id, $c_name, $canonical, [$($alias),*];
                )+
            }
        }

        impl $name {
            /// The value declared with the variant.
            pub fn $method(self) -> &'static $data_ty {
                match self { $($name::$variant => &$data,)+ }
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub enum $name:ident: $c_type:literal
            $(, extra $extra_id:literal $extra_c:ident $extra_name:literal $extra_doc:literal)? {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident = $id:literal, $c_name:ident, $canonical:literal, [$($alias:literal),* $(,)?];
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum $name {
            $( $(#[doc = $doc])* $variant = $id, )+
        }

        // The rows are declared in the order of their ids, so that `ALL`
        // (and every C `*_list` made from it) lists the ids ascending.
        const _: () = {
            let ids: &[u32] = &[$($id),+];
            let mut i = 1;
            while i < ids.len() {
                assert!(
                    ids[i - 1] < ids[i],
                    concat!(
                        "named_enum! ",
                        stringify!($name),
                        ": declare the rows in strictly ascending order of their ids"
                    )
                );
                i += 1;
            }
        };

        impl $name {
            /// Every variant, in the order of their C ids.
            pub const ALL: &'static [Self] = &[$($name::$variant),+];

            /// The canonical name.
            pub fn name(self) -> &'static str {
                <Self as $crate::registry::Named>::name(self)
            }

            /// The variant called `name` (canonical name or alias, any case,
            /// `-` and `_` alike).
            pub fn from_name(name: &str) -> Option<Self> {
                <Self as $crate::registry::Named>::from_name(name)
            }

            /// The C id.
            pub fn id(self) -> u32 {
                self as u32
            }

            /// The variant with C id `id`.
            pub fn from_id(id: u32) -> Option<Self> {
                <Self as $crate::registry::Named>::from_id(id)
            }
        }

        impl $crate::registry::Named for $name {
            const C_TYPE: &'static str = $c_type;
            const C_EXTRA: Option<$crate::registry::Extra> =
                $crate::registry::first(&[$($crate::registry::Extra {
                    id: $extra_id,
                    c_name: stringify!($extra_c),
                    name: $crate::registry::c_str(concat!($extra_name, "\0")),
                    doc: $extra_doc,
                })?]);
            const ALL: &'static [Self] = $name::ALL;
            fn id(self) -> u32 {
                self as u32
            }
            fn name(self) -> &'static str {
                match self { $($name::$variant => $canonical,)+ }
            }
            fn name_c(self) -> &'static ::std::ffi::CStr {
                match self {
                    $($name::$variant => {
                        const NAME: &::std::ffi::CStr =
                            $crate::registry::c_str(concat!($canonical, "\0"));
                        NAME
                    })+
                }
            }
            fn c_name(self) -> &'static str {
                match self { $($name::$variant => stringify!($c_name),)+ }
            }
            fn aliases(self) -> &'static [&'static str] {
                match self { $($name::$variant => &[$($alias),*],)+ }
            }
            fn doc(self) -> &'static str {
                match self { $($name::$variant => concat!($($doc, "\n"),*),)+ }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    named_enum! {
        /// A test enum.
        pub enum Colour: "ketama_colour", extra 0 KETAMA_COLOUR_ANY "any" "Any colour." {
            /// Red.
            Red = 1, KETAMA_COLOUR_RED, "red", ["rouge", "rot_e"];
            /// Dark
            /// blue.
            DarkBlue = 5, KETAMA_COLOUR_DARK_BLUE, "dark-blue", [];
        }
    }

    #[test]
    fn one_declaration_gives_ids_names_aliases_and_the_c_constants() {
        assert_eq!(Colour::ALL, &[Colour::Red, Colour::DarkBlue]);
        assert_eq!(Colour::from_id(5), Some(Colour::DarkBlue));
        assert_eq!((Colour::Red.name(), Colour::DarkBlue.id()), ("red", 5));
        assert_eq!(Colour::from_id(0), None);
        assert_eq!(Colour::from_name("DARK_BLUE"), Some(Colour::DarkBlue));
        assert_eq!(Colour::from_name("Rot-E"), Some(Colour::Red));
        assert_eq!(Colour::from_name("dark blue"), None);
        assert_eq!(Colour::DarkBlue.name_c().to_bytes(), b"dark-blue");
        assert_eq!(Colour::names(), "red, dark-blue");
        let colours = AbiEnum::of::<Colour>("Colours.");
        assert_eq!((colours.c_type, colours.doc), ("ketama_colour", "Colours."));
        let constant = |id, c_name, name, aliases, doc| Constant {
            id,
            c_name,
            name,
            aliases,
            doc,
        };
        assert_eq!(
            colours.constants(),
            vec![
                constant(0, "KETAMA_COLOUR_ANY", "any", &[], "Any colour."),
                constant(
                    1,
                    "KETAMA_COLOUR_RED",
                    "red",
                    &["rouge", "rot_e"],
                    " Red.\n"
                ),
                constant(
                    5,
                    "KETAMA_COLOUR_DARK_BLUE",
                    "dark-blue",
                    &[],
                    " Dark\n blue.\n"
                ),
            ]
        );
    }

    /// Declared by hand, ids out of order: the data lists them by id.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Shuffled {
        Late,
        Early,
    }

    impl Named for Shuffled {
        const C_TYPE: &'static str = "ketama_shuffled";
        const C_EXTRA: Option<Extra> = None;
        const ALL: &'static [Self] = &[Shuffled::Late, Shuffled::Early];
        fn id(self) -> u32 {
            match self {
                Shuffled::Late => 9,
                Shuffled::Early => 2,
            }
        }
        fn name(self) -> &'static str {
            ["late", "early"][self as usize]
        }
        fn name_c(self) -> &'static CStr {
            [c"late", c"early"][self as usize]
        }
        fn c_name(self) -> &'static str {
            ["KETAMA_LATE", "KETAMA_EARLY"][self as usize]
        }
        fn aliases(self) -> &'static [&'static str] {
            &[]
        }
        fn doc(self) -> &'static str {
            ""
        }
    }

    #[test]
    fn constants_are_sorted_by_id_whatever_the_declaration_order() {
        let ids: Vec<(u32, &str)> = AbiEnum::of::<Shuffled>("")
            .constants()
            .iter()
            .map(|c| (c.id, c.c_name))
            .collect();
        assert_eq!(ids, [(2, "KETAMA_EARLY"), (9, "KETAMA_LATE")]);
    }

    #[test]
    fn names_and_ids_resolve_or_say_what_is_known() {
        assert_eq!(Colour::named("ROUGE"), Ok(Some(Colour::Red)));
        assert_eq!(Colour::named("Any"), Ok(None));
        assert_eq!(Colour::extra_name(), Some("any"));
        assert_eq!(
            Colour::named("green").unwrap_err().to_string(),
            "unknown colour \"green\" (known: red, dark-blue)"
        );
        assert_eq!(Colour::with_id(5), Ok(Colour::DarkBlue));
        assert_eq!(Colour::with_id_or_extra(0), Ok(None));
        assert_eq!(
            Colour::with_id(0).unwrap_err().to_string(),
            "unknown ketama_colour id 0"
        );
        assert_eq!(
            Colour::unknown_id(-1).to_string(),
            "unknown ketama_colour id -1"
        );
        assert_eq!(
            Colour::refused_id(0, "is not a colour here").to_string(),
            "ketama_colour id 0 (KETAMA_COLOUR_ANY) is not a colour here"
        );
        assert_eq!(
            Colour::refused_id(5, "is too dark").to_string(),
            "ketama_colour id 5 (KETAMA_COLOUR_DARK_BLUE) is too dark"
        );
        assert_eq!(
            Colour::refused_id(7, "x"),
            Colour::with_id(7).map(|_| ()).unwrap_err()
        );
        assert_eq!(Colour::named_variant("rouge"), Ok(Colour::Red));
        assert_eq!(
            Colour::named_variant("ANY").unwrap_err().to_string(),
            "colour \"ANY\" is not allowed here (known: red, dark-blue)"
        );
    }

    /// Whether `T::ALL` lists its ids in strictly ascending order.
    fn sorted<T: Named>() -> bool {
        T::ALL.windows(2).all(|pair| pair[0].id() < pair[1].id())
    }

    #[test]
    fn every_enum_lists_its_ids_in_order() {
        use crate::setcodec::{self, recipe};
        assert!(sorted::<crate::Flavour>());
        assert!(sorted::<crate::hash::HashAlgorithm>());
        assert!(sorted::<crate::parser::ParseMode>());
        assert!(sorted::<crate::file_ring::ReloadPolicy>());
        assert!(sorted::<crate::Status>());
        assert!(sorted::<setcodec::Format>());
        assert!(sorted::<setcodec::Op>());
        assert!(sorted::<setcodec::SetErrorKind>());
        assert!(sorted::<recipe::Reply>());
        assert!(sorted::<recipe::SetAction>());
        assert!(sorted::<setcodec::paired::Side>());
        assert!(sorted::<Colour>());
        // The flavours' ids have no gap either: each new one takes the next.
        let ids: Vec<u32> = crate::Flavour::ALL.iter().map(|f| f.id()).collect();
        assert_eq!(ids, (0..ids.len() as u32).collect::<Vec<_>>());
    }
}
