//! The enums that cross the C ABI, listed once, in the order the header
//! declares them. The generator (`crates/ketama-gen`, `make generate`)
//! renders each as a C `typedef enum` of `include/ketama.h` and of PHP's
//! header, and as Java's enums; the Python module's `names()` answers from
//! this list. The documentation here is the C enum's (the Rust enum's own
//! doc comment speaks of Rust).

use crate::file_ring::ReloadPolicy;
use crate::flavour::Flavour;
use crate::hash::HashAlgorithm;
use crate::migration::{Command, Mode, OpKind, Outcome, Phase, ReplyKind, Side as MigrationSide};
use crate::parser::ParseMode;
use crate::registry::AbiEnum;
use crate::setcodec::paired::Side;
use crate::setcodec::recipe::{Reply, SetAction};
use crate::setcodec::{Format, Op, SetErrorKind};
use crate::status::Status;

/// Every enum of the C ABI, each with its C documentation.
pub const ENUMS: &[AbiEnum] = &[
    AbiEnum::of::<Status>(
        "Result of a modern API call. `KETAMA_OK` is 0; every other value comes\n\
         with a message readable through `ketama_error()` on the same thread.",
    ),
    AbiEnum::of::<Flavour>("Placement flavours (pass as `uint32_t`)."),
    AbiEnum::of::<HashAlgorithm>(
        "Key hashes (pass as `uint32_t`); `KETAMA_HASH_DEFAULT` uses the flavour's own.",
    ),
    AbiEnum::of::<ParseMode>(
        "Server file readings for `ketama_ring_new_from_file` (pass as `uint32_t`).",
    ),
    AbiEnum::of::<ReloadPolicy>(
        "What `ketama_file_ring_current` does when the file changed but cannot be\n\
         used (pass as `uint32_t`).",
    ),
    AbiEnum::of::<Format>("Value encodings (pass as `uint32_t`)."),
    AbiEnum::of::<Op>("Record operations (pass as `uint32_t`)."),
    AbiEnum::of::<SetErrorKind>(
        "Set error kinds as found in `ketama_set_error.kind` (name them with\n\
         `ketama_set_error_kind_name`).",
    ),
    AbiEnum::of::<Reply>("Server replies fed to `ketama_set_writer_step` (pass as `uint32_t`)."),
    AbiEnum::of::<SetAction>("What the client must do next in a write."),
    AbiEnum::of::<Side>("Sides of a paired list (pass as `uint32_t`)."),
    AbiEnum::of::<Mode>("How a migration moves a pool (pass as `uint32_t`)."),
    AbiEnum::of::<Phase>("Where a key stands in a migration."),
    AbiEnum::of::<OpKind>("Operations begun with `ketama_migration_begin` (pass as `uint32_t`)."),
    AbiEnum::of::<MigrationSide>("The ring whose owner of the key a step's command goes to."),
    AbiEnum::of::<Command>("The memcached command a migration step asks for."),
    AbiEnum::of::<ReplyKind>(
        "Server replies fed to `ketama_migration_op_reply` (pass as `uint32_t`).",
    ),
    AbiEnum::of::<Outcome>("How a migration operation ended."),
];

/// The enum whose C type is `c_type` (`"ketama_flavour"`).
pub fn find(c_type: &str) -> Option<&'static AbiEnum> {
    ENUMS.iter().find(|e| e.c_type == c_type)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_c_type_and_constant_is_declared_once() {
        let types: BTreeSet<&str> = ENUMS.iter().map(|e| e.c_type).collect();
        assert_eq!(types.len(), ENUMS.len());
        let mut c_names = BTreeSet::new();
        for abi in ENUMS {
            assert!(abi.c_type.starts_with("ketama_"), "{}", abi.c_type);
            let constants = abi.constants();
            assert!(!constants.is_empty(), "{}", abi.c_type);
            for pair in constants.windows(2) {
                assert!(pair[0].id < pair[1].id, "{}: {pair:?}", abi.c_type);
            }
            for constant in constants {
                assert!(constant.c_name.starts_with("KETAMA_"), "{constant:?}");
                assert!(c_names.insert(constant.c_name), "{constant:?} twice");
            }
        }
        assert_eq!(
            find("ketama_flavour").map(|e| e.c_type),
            Some("ketama_flavour")
        );
        assert!(find("ketama_colour").is_none());
    }
}
