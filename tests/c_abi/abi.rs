//! The C ABI as C programs see it: the generated header (kept current by
//! `make generate-check` and crates/ketama-gen's tests), the SONAME and
//! exported symbols of the shared library, the modern API from C under
//! valgrind, the header from C++, and the enums' `*_list` functions.

use ketama_testkit as common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::process::Command;
use std::time::Duration;

#[test]
fn header_keeps_the_original_surface() {
    let header = std::fs::read_to_string(common::repo_root().join("include/ketama.h")).unwrap();
    for needle in [
        "#ifndef KETAMA_LIBKETAMA_KETAMA_H__",
        "#include <sys/sem.h>",
        "#define MC_SHMSIZE 524288",
        "#ifndef __APPLE__\n/* Declared by the original ketama.h",
        "union semun",
        "typedef int (*compfn)( const void*, const void* );",
        "typedef continuum *ketama_continuum;",
        "int ketama_roll(ketama_continuum *contptr, char *filename);",
        "void ketama_smoke(ketama_continuum contptr);",
        "mcs *ketama_get_server(char *key, ketama_continuum cont);",
        "void ketama_print_continuum(ketama_continuum c);",
        "int ketama_compare(mcs *a, mcs *b);",
        "unsigned int ketama_hashi(char *inString);",
        "void ketama_md5_digest(char *inString, unsigned char *md5pword);",
        "char *ketama_error(void);",
        "extern \"C\" {",
    ] {
        assert!(header.contains(needle), "header lacks {needle:?}");
    }
}

#[test]
fn struct_layouts_seen_from_c_match_the_original() {
    let dir = common::scratch_dir("layout");
    let source = dir.join("layout.c");
    std::fs::write(
        &source,
        r#"#include <ketama.h>
#include <stddef.h>
#include <stdio.h>
_Static_assert(sizeof(mcs) == 28, "mcs");
_Static_assert(offsetof(mcs, ip) == 4, "mcs.ip");
_Static_assert(sizeof(serverinfo) == 32, "serverinfo");
_Static_assert(offsetof(serverinfo, memory) == 24, "serverinfo.memory");
_Static_assert(sizeof(continuum) == 24, "continuum");
_Static_assert(offsetof(continuum, modtime) == 8 && offsetof(continuum, array) == 16, "continuum fields");
_Static_assert(sizeof(union semun) == 8, "semun");
int main(void) { compfn f = (compfn)ketama_compare; printf("%d\n", f != 0); return 0; }
"#,
    )
    .unwrap();
    let program = common::compile_c(&[&source], "layout", &[]);
    let out = common::run_with_timeout(&mut Command::new(program), Duration::from_secs(10));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n");
}

#[test]
fn header_compiles_as_cpp_with_c_linkage() {
    common::require_tool("g++", "g++");
    let dir = common::scratch_dir("cpp");
    let source = dir.join("client.cpp");
    std::fs::write(
        &source,
        "#include <ketama.h>\n#include <cstdio>\nint main() { std::printf(\"%u\\n\", ketama_hashi((char*)\"test\")); }\n",
    )
    .unwrap();
    let lib = common::shared_library_dir();
    let exe = dir.join("client");
    let status = Command::new("g++")
        .arg(format!(
            "-I{}",
            common::repo_root().join("include").display()
        ))
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lketama")
        .status()
        .unwrap();
    assert!(status.success());
    let out = common::run_with_timeout(&mut Command::new(exe), Duration::from_secs(10));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "3446378249\n");
}

#[test]
fn shared_library_has_the_original_soname_and_exports() {
    common::require_tool("readelf", "binutils");
    let lib = common::shared_library_dir().join("libketama.so");
    let dynamic = Command::new("readelf")
        .arg("-d")
        .arg(&lib)
        .output()
        .unwrap();
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    assert!(
        dynamic.contains("Library soname: [libketama.so.1]"),
        "{dynamic}"
    );
    let symbols = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&lib)
        .output()
        .unwrap();
    let symbols: Vec<String> = String::from_utf8_lossy(&symbols.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect();
    for name in [
        "ketama_roll",
        "ketama_smoke",
        "ketama_get_server",
        "ketama_print_continuum",
        "ketama_compare",
        "ketama_hashi",
        "ketama_md5_digest",
        "ketama_error",
        "ketama_ring_new",
        "ketama_find_server",
    ] {
        assert!(symbols.iter().any(|s| s == name), "{name} is not exported");
    }
    let foreign: Vec<&String> = symbols
        .iter()
        .filter(|s| !s.starts_with("ketama_"))
        .collect();
    assert!(
        foreign.is_empty(),
        "symbols outside the ketama_ prefix leak: {foreign:?}"
    );
}

#[test]
fn modern_api_from_c_is_valgrind_clean() {
    let program = common::compile_c(
        &[&common::repo_root().join("tests/c/modern_client.c")],
        "modern_client",
        &[],
    );
    let dir = common::scratch_dir("modern");
    let good = dir.join("servers");
    std::fs::write(
        &good,
        "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n",
    )
    .unwrap();
    let bad = dir.join("bad");
    std::fs::write(&bad, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100 \n").unwrap();
    let out = common::assert_valgrind_clean(
        &program,
        &[good.to_str().unwrap(), bad.to_str().unwrap()],
        Duration::from_secs(120),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("OK "), "{text}");
}

#[test]
fn the_memory_checkers_catch_a_misbehaving_client() {
    let program = common::compile_c(
        &[&common::repo_root().join("tests/c/misbehaving_client.c")],
        "misbehaving_client",
        &[],
    );
    let servers = common::scratch_dir("misbehaving").join("servers");
    std::fs::write(&servers, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n").unwrap();
    for bug in ["overread", "use-after-free"] {
        let checked = std::panic::catch_unwind(|| {
            common::assert_valgrind_clean(
                &program,
                &[servers.to_str().unwrap(), bug],
                Duration::from_secs(120),
            )
        });
        let report = match checked {
            Ok(_) => panic!(
                "the checker missed the client's {bug} (sanitizers: {:?})",
                common::c_sanitizers()
            ),
            Err(payload) => payload.downcast::<String>().map(|s| *s).unwrap_or_default(),
        };
        assert!(
            report.contains("Invalid read") || report.contains("ERROR: AddressSanitizer"),
            "{bug}: not a memory error report: {report}"
        );
    }
}

/// `include/ketama.h` and the golden list of its published constants.
fn header_and_abi_constants() -> (String, String) {
    let read = |path: &str| std::fs::read_to_string(common::repo_root().join(path)).unwrap();
    (
        read("include/ketama.h"),
        read("tests/golden/abi-constants.txt"),
    )
}

/// The ABI's constants never change: every `KETAMA_* = N` of the golden
/// list (the header's enums as published) is in the header with the same
/// value. New constants may be added; none may move or go.
#[test]
fn every_published_enum_constant_keeps_its_value() {
    let (header, golden) = header_and_abi_constants();
    let missing: Vec<&str> = golden
        .lines()
        .filter(|line| {
            !header
                .lines()
                .any(|h| h.trim().trim_end_matches(',') == *line)
        })
        .collect();
    assert!(golden.lines().count() >= 90);
    assert!(missing.is_empty(), "constants moved or gone: {missing:?}");
}

/// The golden list is the whole ABI: a constant added to the header is
/// published, so it joins the list (and from then on may not move) in the
/// commit that adds it.
#[test]
fn every_enum_constant_of_the_header_is_in_the_golden_list() {
    let (header, golden) = header_and_abi_constants();
    let constants: Vec<&str> = header
        .lines()
        .map(|line| line.trim().trim_end_matches(','))
        .filter(|line| {
            line.strip_prefix("KETAMA_")
                .and_then(|rest| rest.split_once(" = "))
                .is_some_and(|(name, value)| {
                    name.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                        && value.parse::<i64>().is_ok()
                })
        })
        .collect();
    assert!(constants.len() >= 130, "{} constants", constants.len());
    let unlisted: Vec<&&str> = constants
        .iter()
        .filter(|c| !golden.lines().any(|g| g == **c))
        .collect();
    assert!(
        unlisted.is_empty(),
        "constants in include/ketama.h missing from tests/golden/abi-constants.txt: {unlisted:?}"
    );
}

/// Every `ketama_*_list` function of the header, called from C, lists its
/// enum's ids strictly ascending ("every id, in order", as the header's
/// enums declare them), and lists exactly the ids of the enum it names:
/// one such function for each enum of the core's registry.
#[test]
fn every_list_function_returns_its_ids_strictly_ascending() {
    let header = std::fs::read_to_string(common::repo_root().join("include/ketama.h")).unwrap();
    let lists: BTreeSet<&str> = header
        .lines()
        .filter_map(|line| {
            line.strip_prefix("size_t ")?
                .strip_suffix("(uint32_t *ids, size_t capacity);")
        })
        .filter(|name| name.starts_with("ketama_") && name.ends_with("_list"))
        .collect();
    let registry: BTreeMap<String, Vec<u32>> = ketama_core::abi::ENUMS
        .iter()
        .map(|e| {
            let ids = e.constants().iter().map(|c| c.id).collect();
            (format!("{}_list", e.c_type), ids)
        })
        .collect();
    let unknown: Vec<&&str> = lists
        .iter()
        .filter(|list| !registry.contains_key(**list))
        .collect();
    assert!(
        unknown.is_empty(),
        "*_list functions of no registry enum: {unknown:?}"
    );
    let mut program = String::from(
        r#"#include <ketama.h>
#include <stdio.h>
#include <stdlib.h>
static void print(const char *name, size_t (*list)(uint32_t *, size_t)) {
    size_t count = list(NULL, 0);
    uint32_t *ids = malloc((count + 1) * sizeof *ids);
    if (!ids || list(ids, count) != count) { printf("%s: failed\n", name); exit(1); }
    printf("%s", name);
    for (size_t i = 0; i < count; i++) printf(" %u", ids[i]);
    printf("\n");
    free(ids);
}
int main(void) {
"#,
    );
    for list in &lists {
        let _ = writeln!(program, "    print(\"{list}\", {list});");
    }
    // Every enum of the registry through ketama_enum_list, by its C type.
    for abi in ketama_core::abi::ENUMS {
        let c_type = abi.c_type;
        let _ = writeln!(
            program,
            "    {{ size_t n = ketama_enum_list(\"{c_type}\", NULL, 0); uint32_t ids[256];\n      \
             if (n > 256 || ketama_enum_list(\"{c_type}\", ids, n) != n) {{ printf(\"{c_type}: failed\\n\"); return 1; }}\n      \
             printf(\"{c_type}_list\"); for (size_t i = 0; i < n; i++) printf(\" %u\", ids[i]); printf(\"\\n\"); }}"
        );
    }
    program.push_str("    return 0;\n}\n");
    let source = common::scratch_dir("lists").join("lists.c");
    std::fs::write(&source, program).unwrap();
    let exe = common::compile_c(&[&source], "lists", &[]);
    let out = common::run_with_timeout(&mut Command::new(exe), Duration::from_secs(10));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut wrong = Vec::new();
    for line in stdout.lines() {
        let mut words = line.split(' ');
        let name = words.next().unwrap();
        let ids: Vec<u32> = words.map(|id| id.parse().unwrap()).collect();
        if let Some(pair) = ids.windows(2).find(|pair| pair[0] >= pair[1]) {
            wrong.push(format!("{name}: {} before {} in {ids:?}", pair[0], pair[1]));
        }
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        if registry.get(name) != Some(&sorted) {
            wrong.push(format!(
                "{name}: lists {ids:?}, the registry has {:?}",
                registry.get(name)
            ));
        }
    }
    assert_eq!(
        stdout.lines().count(),
        lists.len() + registry.len(),
        "{stdout}"
    );
    assert!(
        wrong.is_empty(),
        "ids out of order or wrong:\n  {}",
        wrong.join("\n  ")
    );
}
