//! The Python binding (bindings/python), installed with `pip install` into a
//! fresh venv of Debian's python3: the python_ketama drop-in checked against
//! the PyPI `ketama==0.1.1` oracle module (the original libketama C code) on
//! the same server lists and keys as tests/libketama_oracle.rs, the binding's
//! own unittest suite, the library search message and the bench script; its
//! ctypes declarations against include/ketama.h.

mod common;
#[path = "common/oracle_lists.rs"]
mod oracle_lists;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::c_header::{self, CType, Header};
use common::{
    assert_bench_rows, python_binding, python_command, repo_root, run_with_timeout, scratch_dir,
    shared_library_dir,
};
use oracle_lists::{MALFORMED_FILES, hex_encode, oracle_python, oracle_server_lists, test_keys};

fn script(name: &str) -> std::path::PathBuf {
    repo_root().join("bindings/python/tests").join(name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn succeeded(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// What the oracle module and this binding answer for one server file.
fn dumps(path: &Path, keys: Option<&Path>) -> (String, String) {
    let mut oracle = Command::new(oracle_python());
    oracle
        .arg(script("continuum_dump.py"))
        .arg("oracle")
        .arg(path);
    let mut ours = python_command(&script("continuum_dump.py"));
    ours.arg("ours").arg(path);
    if let Some(keys) = keys {
        oracle.arg(keys);
        ours.arg(keys);
    }
    (
        succeeded(
            run_with_timeout(&mut oracle, Duration::from_secs(300)),
            "oracle dump",
        ),
        succeeded(
            run_with_timeout(&mut ours, Duration::from_secs(300)),
            "our dump",
        ),
    )
}

/// The original's ketama_error text from "(line " on, when it names a line.
fn line_of(message: &str) -> Option<&str> {
    message.rfind("(line ").map(|at| &message[at..])
}

/// Compares one valid file; returns (keys compared, answers the oracle module could not decode).
fn compare_valid(name: &str, content: &[u8]) -> (usize, usize) {
    let dir = scratch_dir("python-oracle");
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    let lines: Vec<String> = text(content).lines().map(str::to_string).collect();
    let keys = test_keys(&lines);
    let keys_path = dir.join(format!("{name}.keys"));
    let hex: String = keys.iter().map(|k| hex_encode(k) + "\n").collect();
    std::fs::write(&keys_path, hex).unwrap();
    let (oracle, ours) = dumps(&path, Some(&keys_path));
    let oracle: Vec<&str> = oracle.lines().collect();
    let ours: Vec<&str> = ours.lines().collect();
    let our_points: Vec<&str> = ours
        .iter()
        .copied()
        .filter(|l| l.starts_with("P\t"))
        .collect();
    let our_keys: Vec<&str> = ours
        .iter()
        .copied()
        .filter(|l| l.starts_with("K\t"))
        .collect();
    let oracle_keys: Vec<&str> = oracle
        .iter()
        .copied()
        .filter(|l| l.starts_with("K\t"))
        .collect();
    assert!(
        ours[0].starts_with("points\t"),
        "{name}: ours failed: {}",
        ours[0]
    );
    assert_eq!(our_keys.len(), keys.len(), "{name}: keys answered");
    assert_eq!(
        oracle_keys.len(),
        keys.len(),
        "{name}: keys answered by the oracle"
    );
    let mut undecodable = 0;
    if oracle[0] == "points\t?" {
        // The oracle module cannot build the list (an address of 22+ bytes):
        // the continuum itself is compared by tests/libketama_oracle.rs; here
        // the count must still agree with the original C code.
        undecodable += 1;
        assert!(
            our_points
                .iter()
                .any(|l| l.split('\t').nth(2).unwrap().len() == 44),
            "{name}: the oracle could not decode an address, but none of ours is 22+ bytes"
        );
    } else {
        assert_eq!(ours[0], oracle[0], "{name}: point count");
        let oracle_points: Vec<&str> = oracle
            .iter()
            .copied()
            .filter(|l| l.starts_with("P\t"))
            .collect();
        if let Some(i) = (0..our_points.len()).find(|&i| our_points[i] != oracle_points[i]) {
            panic!(
                "{name}: point {i}: ours {:?}, oracle {:?}",
                our_points[i], oracle_points[i]
            );
        }
    }
    for (i, (ours, theirs)) in our_keys.iter().zip(&oracle_keys).enumerate() {
        if ours == theirs {
            continue;
        }
        let a: Vec<&str> = ours.split('\t').collect();
        let b: Vec<&str> = theirs.split('\t').collect();
        // "?": the oracle could not decode the address; point and hashi must still agree.
        assert!(
            b[2] == "?" && a[1] == b[1] && a[3] == b[3] && a[2].len() == 44,
            "{name}: key {i} ({}): ours {ours:?}, oracle {theirs:?}",
            hex_encode(&keys[i])
        );
        undecodable += 1;
    }
    (keys.len(), undecodable)
}

#[test]
fn python_continuum_and_hashi_match_the_pypi_oracle_module() {
    let mut compared = 0;
    let mut undecodable = 0;
    let lists = oracle_server_lists();
    for (name, content) in &lists {
        let (keys, odd) = compare_valid(name, content);
        compared += keys;
        undecodable += odd;
    }
    // Rejected files: KetamaError with the original's message (the line it names).
    let dir = scratch_dir("python-oracle-bad");
    let mut rejected = 0;
    let mut bad: Vec<(String, std::path::PathBuf)> = MALFORMED_FILES
        .iter()
        .map(|(name, content)| {
            let path = dir.join(name);
            std::fs::write(&path, content).unwrap();
            (name.to_string(), path)
        })
        .collect();
    bad.push(("dev_null".into(), "/dev/null".into()));
    for (name, path) in &bad {
        let (oracle, ours) = dumps(path, None);
        let oracle = oracle
            .trim_end()
            .strip_prefix("error\t")
            .unwrap_or_else(|| panic!("{name}: the oracle accepted it"));
        let ours = ours
            .trim_end()
            .strip_prefix("error\t")
            .unwrap_or_else(|| panic!("{name}: we accepted it"));
        match line_of(oracle) {
            Some(line) => {
                assert_eq!(
                    line_of(ours),
                    Some(line),
                    "{name}: ours {ours:?}, oracle {oracle:?}"
                );
                assert!(
                    !ours.starts_with(" ("),
                    "{name}: our message keeps its reason: {ours:?}"
                );
            }
            None => assert_eq!(ours, oracle, "{name}"),
        }
        rejected += 1;
    }
    eprintln!(
        "python: {} server lists, {compared} keys (get_server, hashi) and get_points equal to the \
         PyPI ketama==0.1.1 module ({undecodable} answers it could not decode: 22+ byte addresses); \
         {rejected} rejected files fail alike",
        lists.len()
    );
    assert!(compared > 14 * 10_000);
}

#[test]
fn python_binding_unittest_suite() {
    let out = run_with_timeout(
        python_command(Path::new("-m"))
            .args(["unittest", "-v", "test_ketama"])
            .current_dir(repo_root().join("bindings/python/tests"))
            .env("KETAMA_CLI", common::cli().to_str().unwrap()),
        Duration::from_secs(600),
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "unittest failed:\n{stderr}");
    let ran: usize = stderr
        .lines()
        .find_map(|l| l.strip_prefix("Ran ")?.split(' ').next()?.parse().ok())
        .expect("unittest summary");
    assert!(ran >= 18, "only {ran} tests ran:\n{stderr}");
    // The package was imported from the venv, not from the source tree.
    let location = run_with_timeout(
        python_command(Path::new("-c"))
            .arg("import ketama, os; print(ketama.__file__); print(ketama.library_path())")
            .current_dir(scratch_dir("python-cwd")),
        Duration::from_secs(60),
    );
    let location = succeeded(location, "import ketama");
    let venv = python_binding().parent().unwrap().parent().unwrap();
    assert!(
        location.starts_with(venv.to_str().unwrap()),
        "ketama imported from {location}"
    );
    assert!(
        location.contains(shared_library_dir().to_str().unwrap()),
        "{location}"
    );
}

#[test]
fn python_library_search_names_every_place_it_looked() {
    let out = run_with_timeout(
        python_command(Path::new("-c"))
            .arg("import ketama; ketama.Ring(['a:1'])")
            .current_dir(scratch_dir("python-cwd"))
            .env("KETAMA_LIBRARY", "/nonexistent/libketama.so")
            .env("LD_LIBRARY_PATH", "/nonexistent"),
        Duration::from_secs(60),
    );
    let stderr = text(&out.stderr);
    let system_has_it = Path::new("/usr/lib/libketama.so.1").exists()
        || Path::new("/usr/local/lib/libketama.so.1").exists()
        || Path::new("/usr/lib/x86_64-linux-gnu/libketama.so.1").exists();
    if system_has_it {
        assert!(out.status.success(), "{stderr}");
        return;
    }
    assert!(!out.status.success());
    for part in [
        "ketama.KetamaError: libketama.so not found or not usable; looked in:",
        "KETAMA_LIBRARY: /nonexistent/libketama.so does not exist",
        "ketama repository build: this package is not inside a ketama checkout",
        "system library path: libketama.so.1:",
        "Set KETAMA_LIBRARY",
    ] {
        assert!(stderr.contains(part), "missing {part:?} in:\n{stderr}");
    }
}

#[test]
fn python_bench_prints_single_and_batch_rows() {
    let dir = scratch_dir("python-bench");
    let servers = dir.join("bench.servers");
    let list: String = (0..10)
        .map(|i| format!("10.0.0.{i}:11211\t100\n"))
        .collect();
    std::fs::write(&servers, list).unwrap();
    let keys = dir.join("keys.txt");
    let key_lines: String = (0..2000).map(|i| format!("user:{i}\n")).collect();
    std::fs::write(&keys, key_lines).unwrap();
    let out = run_with_timeout(
        python_command(&repo_root().join("bindings/python/bench.py"))
            .arg(&servers)
            .arg("10")
            .arg(&keys),
        Duration::from_secs(300),
    );
    let stdout = succeeded(out, "bench.py");
    assert_bench_rows(
        &stdout,
        "10",
        &[
            "python Ring.server_index (ctypes, single)",
            "python Ring.server_indices (ctypes, batch)",
        ],
    );
    // scripts/bench_report.py reads these rows by the same names.
    let report = std::fs::read_to_string(repo_root().join("scripts/bench_report.py")).unwrap();
    for row in stdout.lines() {
        let name = row.split('\t').next().unwrap();
        assert!(
            report.contains(&format!("\"{name}\"")),
            "bench_report.py does not know {name:?}"
        );
    }
}

/// The ctypes type names (as `bindings/python/tests/ctypes_signatures.py`
/// prints them) that carry C type `c` on LP64:
///
/// | C | ctypes |
/// |---|---|
/// | `void` (return) | `None` |
/// | `bool` | `c_bool` |
/// | `uint32_t`, `unsigned int` / `int`, `int32_t`, an enum (`ketama_status`) | `c_uint32` / `c_int` |
/// | `size_t`, `uint64_t`, `unsigned long` / `int64_t`, `long` | `c_size_t`, `c_uint64` / `c_int64` |
/// | `uint8_t` / `double` | `c_uint8` / `c_double` |
/// | a struct, by value | the `Structure` whose `_c_struct_` names it |
/// | any pointer | `c_void_p` |
/// | `char *`, `uint8_t *` | `c_char_p` (bytes in, a NUL-terminated string back) |
/// | `T *` | `POINTER(T's ctypes type)` |
fn ctypes_for(c: &CType, header: &Header) -> Vec<String> {
    if c.pointers > 0 {
        let pointee = CType {
            base: c.base.clone(),
            pointers: c.pointers - 1,
        };
        let mut names = vec!["c_void_p".to_string()];
        if c.pointers == 1 && ["char", "uint8_t", "unsigned char"].contains(&c.base.as_str()) {
            names.push("c_char_p".into());
        }
        names.extend(
            ctypes_for(&pointee, header)
                .into_iter()
                .map(|t| format!("*{t}")),
        );
        return names;
    }
    let scalar = match c.base.as_str() {
        "void" => "void",
        "bool" => "c_bool",
        "uint32_t" | "unsigned int" => "u32",
        "int" | "int32_t" => "i32",
        "size_t" | "uint64_t" | "unsigned long" => "u64",
        "int64_t" | "long" => "i64",
        "uint8_t" | "unsigned char" => "u8",
        "double" => "c_double",
        base if header.is_enum(base) => "i32",
        base if header.structure(base).is_some() => return vec![format!("struct {base}")],
        _ => return Vec::new(),
    };
    vec![scalar.to_string()]
}

/// Every ctypes declaration of `ketama/_lib.py` (restype, argtypes) is the
/// header's prototype, and every `Structure` the header's struct, field by
/// field (names, order, types: [`ctypes_for`]).
#[test]
fn python_ctypes_declarations_match_the_header() {
    let (_, header) = c_header::read(&repo_root());
    let out = run_with_timeout(
        &mut python_command(&script("ctypes_signatures.py")),
        Duration::from_secs(60),
    );
    let printed = succeeded(out, "ctypes_signatures.py");
    let mut wrong = Vec::new();
    let (mut functions, mut structs) = (0, 0);
    for line in printed.lines() {
        let mut fields = line.split('\t');
        let head = fields.next().unwrap();
        let types: Vec<&str> = fields.collect();
        if let Some(name) = head.strip_prefix("function ") {
            functions += 1;
            let Some(c) = header.function(name) else {
                wrong.push(format!("{name}: not in include/ketama.h"));
                continue;
            };
            if types.len() != c.params.len() + 1 {
                wrong.push(format!(
                    "{name}: {} argtypes, the header has {} parameters",
                    types.len() - 1,
                    c.params.len()
                ));
                continue;
            }
            let c_types = std::iter::once(&c.ret).chain(c.params.iter().map(|(t, _)| t));
            for (i, (py, c)) in types.iter().zip(c_types).enumerate() {
                if !ctypes_for(c, &header).iter().any(|t| t == py) {
                    let what = if i == 0 {
                        "restype".to_string()
                    } else {
                        format!("argument {}", i - 1)
                    };
                    wrong.push(format!("{name}: {what} is {py} for C {c}"));
                }
            }
        } else if let Some(name) = head.strip_prefix("struct ") {
            structs += 1;
            let Some(c) = header.structure(name) else {
                wrong.push(format!("struct {name}: not in include/ketama.h"));
                continue;
            };
            let py: Vec<(&str, &str)> = types.iter().map(|f| f.split_once(':').unwrap()).collect();
            let names: Vec<&str> = py.iter().map(|(n, _)| *n).collect();
            let c_names: Vec<&str> = c.fields.iter().map(|f| f.name.as_str()).collect();
            if names != c_names {
                wrong.push(format!(
                    "struct {name}: fields {names:?}, the header has {c_names:?}"
                ));
                continue;
            }
            for ((field, py), c) in py.iter().zip(&c.fields) {
                if c.array.is_some() || !ctypes_for(&c.ty, &header).iter().any(|t| t == py) {
                    wrong.push(format!("struct {name}: {field} is {py} for C {}", c.ty));
                }
            }
        }
    }
    assert!(
        functions >= 40 && structs >= 9,
        "{functions} functions, {structs} structs:\n{printed}"
    );
    assert!(
        wrong.is_empty(),
        "ketama/_lib.py disagrees with include/ketama.h:\n  {}",
        wrong.join("\n  ")
    );
    eprintln!(
        "python: {functions} ctypes functions and {structs} structures checked against include/ketama.h"
    );
}

/// The mapping refuses a wrong width, a wrong signedness and a wrong struct.
#[test]
fn ctypes_mapping_refuses_mismatches() {
    let (_, header) = c_header::read(&repo_root());
    let ty = |base: &str, pointers| CType {
        base: base.into(),
        pointers,
    };
    let accepts = |py: &str, c: &CType| ctypes_for(c, &header).iter().any(|t| t == py);
    assert!(accepts("u32", &ty("uint32_t", 0)) && !accepts("u64", &ty("uint32_t", 0)));
    assert!(accepts("i64", &ty("int64_t", 0)) && !accepts("u64", &ty("int64_t", 0)));
    assert!(accepts("i32", &ty("ketama_status", 0)));
    assert!(accepts(
        "*struct ketama_server_ref",
        &ty("ketama_server_ref", 1)
    ));
    assert!(!accepts(
        "*struct ketama_server_info",
        &ty("ketama_server_ref", 1)
    ));
    assert!(
        accepts("*c_void_p", &ty("ketama_ring", 2)) && !accepts("c_char_p", &ty("uint32_t", 1))
    );
    assert!(accepts("**u32", &ty("uint32_t", 2)) && !accepts("*u32", &ty("size_t", 1)));
    assert!(!accepts(
        "struct ketama_set_buffer",
        &ty("ketama_set_buffer", 1)
    ));
}
