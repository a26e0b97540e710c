//! The C `typedef enum` blocks of the header, rendered from the core's
//! registry (`ketama_core::abi::ENUMS`): every constant sorted by id,
//! documented as declared.

use ketama_core::registry::AbiEnum;

/// Every enum of the C ABI as `typedef enum` blocks, in the order of the list.
pub fn all() -> String {
    ketama_core::abi::ENUMS
        .iter()
        .map(typedef)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `typedef enum` block of one enum.
pub fn typedef(abi: &AbiEnum) -> String {
    let mut text = format!("/**\n{} */\ntypedef enum {{\n", doc_lines(abi.doc, ""));
    for constant in abi.constants() {
        text.push_str(&format!(
            "  /**\n{}   */\n  {} = {},\n",
            doc_lines(constant.doc, "  "),
            constant.c_name,
            constant.id
        ));
    }
    text.push_str(&format!("}} {};\n", abi.c_type));
    text
}

/// `doc` as the lines of a doc comment at `indent`, each line trimmed.
fn doc_lines(doc: &str, indent: &str) -> String {
    doc.lines()
        .map(|line| {
            format!(
                "{indent} *{}{}\n",
                if line.is_empty() { "" } else { " " },
                line.trim()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    ketama_core::named_enum! {
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
    fn one_declaration_gives_the_c_enum() {
        let c = typedef(&AbiEnum::of::<Colour>("Colours."));
        assert!(
            c.starts_with("/**\n * Colours.\n */\ntypedef enum {\n"),
            "{c}"
        );
        let any = c.find("KETAMA_COLOUR_ANY = 0,").unwrap();
        let red = c.find("KETAMA_COLOUR_RED = 1,").unwrap();
        let blue = c.find("KETAMA_COLOUR_DARK_BLUE = 5,").unwrap();
        assert!(any < red && red < blue, "{c}");
        assert!(c.contains("   * Dark\n   * blue.\n"), "{c}");
        assert!(c.ends_with("} ketama_colour;\n"));
    }

    #[test]
    fn every_enum_of_the_list_is_rendered_by_id() {
        let text = all();
        for abi in ketama_core::abi::ENUMS {
            assert!(
                text.contains(&format!("}} {};\n", abi.c_type)),
                "{}",
                abi.c_type
            );
        }
        let flavours = typedef(ketama_core::abi::find("ketama_flavour").unwrap());
        let ids: Vec<u32> = flavours
            .lines()
            .filter_map(|l| l.trim().trim_end_matches(',').split_once(" = "))
            .map(|(_, id)| id.parse().unwrap())
            .collect();
        assert!(ids.len() > 30 && ids.is_sorted(), "{ids:?}");
    }
}
