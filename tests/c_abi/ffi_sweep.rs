//! An argument sweep generated from `include/ketama.h`: every exported
//! function is called with NULL in each pointer parameter in turn, with zero
//! lengths, out-of-range enum values and indices, each call in its own child
//! process. A status-returning function must answer a NULL pointer or an
//! out-of-range id with an error status and a message; nothing may crash or
//! hang. The sweep is generated, so a function added to the header is swept
//! without editing this test; a parameter type the generator does not know
//! fails the test with the function's name.

use ketama_testkit as common;

use std::fmt::Write as _;
use std::time::Duration;

/// A prototype read from the header.
#[derive(Debug)]
struct Function {
    ret: String,
    name: String,
    params: Vec<(String, String)>,
}

/// The prototypes of the header, comments and preprocessor lines removed.
fn prototypes(header: &str) -> Vec<Function> {
    let mut text = String::new();
    let mut rest = header;
    while let Some(start) = rest.find("/*") {
        text.push_str(&rest[..start]);
        rest = rest[start..]
            .find("*/")
            .map_or("", |end| &rest[start + end + 2..]);
    }
    text.push_str(rest);
    let text: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.contains("extern \"C\""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut functions = Vec::new();
    for statement in text.split(';') {
        let statement = statement
            .rsplit(['{', '}'])
            .next()
            .unwrap_or_default()
            .trim();
        if statement.starts_with("typedef") || !statement.ends_with(')') {
            continue;
        }
        let Some(open) = statement.find('(') else {
            continue;
        };
        let head = statement[..open].trim();
        let Some(name_at) = head.rfind(|c: char| !(c.is_alphanumeric() || c == '_')) else {
            continue;
        };
        let name = head[name_at + 1..].to_string();
        if !name.starts_with("ketama_") {
            continue;
        }
        let ret = head[..=name_at]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let inner = &statement[open + 1..statement.len() - 1];
        let params = inner
            .split(',')
            .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|p| !p.is_empty() && p != "void")
            .map(|p| {
                let at = p
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .expect("a named parameter");
                (p[..=at].trim().to_string(), p[at + 1..].to_string())
            })
            .collect();
        functions.push(Function { ret, name, params });
    }
    functions
}

/// A plausible value for a parameter, as a C expression; `slot` numbers
/// output buffers so that no two outputs of one call alias.
fn plausible(ty: &str, name: &str, slot: usize) -> Option<String> {
    let out = |cast: &str| format!("({cast})out_buf[{slot}]");
    let value = match ty {
        "const ketama_ring *" => "ring".into(),
        "const ketama_file_ring *" => "file_ring".into(),
        "const ketama_set *" | "ketama_set *" => "set".into(),
        "ketama_set_writer *" => "writer".into(),
        "const ketama_key_groups *" | "ketama_key_groups *" => "groups".into(),
        "const ketama_migration *" => "migration".into(),
        "const ketama_migration_op *" | "ketama_migration_op *" => "migration_op".into(),
        "const ketama_migration_plan *" | "ketama_migration_plan *" => "migration_plan".into(),
        "const ketama_set *const *" => "set_list".into(),
        "ketama_continuum" => "cont".into(),
        "ketama_continuum *" => "&cont_slot".into(),
        "mcs *" => "(mcs *)mcs_records".into(),
        "const ketama_server *" => "servers".into(),
        "const ketama_set_member_ref *" => "member_refs".into(),
        "const ketama_set_policy *" => "&policy".into(),
        "ketama_set_buffer" => "empty_buffer".into(),
        "const char *const *" => "key_ptrs".into(),
        "const size_t *" => "key_lens".into(),
        "const uint32_t *" => "u32_values".into(),
        "char *" | "const char *" if name == "filename" || name == "path" => "servers_path".into(),
        "const char *" if name == "c_type" => "\"ketama_migration_mode\"".into(),
        "char *" | "const char *" => "key_text".into(),
        "const uint8_t *" => "(const uint8_t *)set_value".into(),
        "unsigned char *"
        | "bool *"
        | "size_t *"
        | "uint32_t *"
        | "const uint8_t **"
        | "const ketama_ring **"
        | "const ketama_file_ring **"
        | "ketama_set **"
        | "ketama_set_writer **"
        | "ketama_key_groups **"
        | "const uint32_t **"
        | "ketama_server_ref *"
        | "ketama_server_info *"
        | "ketama_set_stats *"
        | "ketama_ring_cache_stats *"
        | "ketama_ring_cache_sharing *"
        | "ketama_set_error *"
        | "ketama_set_compaction *"
        | "ketama_set_policy *"
        | "ketama_set_buffer *"
        | "const ketama_migration **"
        | "ketama_migration_op **"
        | "ketama_migration_plan **"
        | "ketama_migration_owners *"
        | "ketama_migration_step *"
        | "ketama_migration_totals *"
        | "ketama_migration_flow *"
        | "ketama_migration_old_server *"
        | "ketama_migration_gaining *" => out(ty),
        "size_t" => match name {
            "value_len" => "6".into(),
            "max_member_len" => "250".into(),
            "capacity" => "16".into(),
            "packed_len" => "16".into(),
            n if n.contains("index") => "0".into(),
            n if n.ends_with("count") => "2".into(),
            _ => "1".into(),
        },
        "uint32_t" => match name {
            "hash" | "hash_id" | "encoding" | "from" | "to" | "parse_mode" => "1".into(),
            "shard_count" | "max_retries" => "4".into(),
            _ => "0".into(),
        },
        "int64_t" => "1".into(),
        "double" => "0.5".into(),
        "uint64_t" | "bool" | "int" | "unsigned int" => "0".into(),
        _ => return None,
    };
    Some(value)
}

/// Pointer parameters whose documentation gives NULL a meaning, with the
/// words of the header that say so (checked to be in the function's doc).
const NULL_ALLOWED: &[(&str, &str, &str)] = &[
    (
        "ketama_set_decode",
        "error_out",
        "`*error_out` (if not NULL)",
    ),
    ("ketama_set_contains", "set", "a NULL set is a missing key"),
    (
        "ketama_set_contains_many",
        "set",
        "a NULL set is a missing key",
    ),
    (
        "ketama_set_should_compact",
        "policy",
        "`policy` NULL = defaults",
    ),
    ("ketama_set_plan_read", "policy", "`policy` NULL or valid"),
    (
        "ketama_set_plan_read_sampled",
        "policy",
        "As `ketama_set_plan_read`",
    ),
    ("ketama_set_srandmember", "set", "`set` is NULL or live"),
    ("ketama_set_spop", "set", "As `ketama_set_srandmember`"),
    ("ketama_set_smove", "source", "`source` NULL or live"),
    (
        "ketama_ring_new_with_options",
        "options",
        "`options` is NULL (none)",
    ),
    (
        "ketama_ring_new_from_file_with_options",
        "options",
        "(NULL: none",
    ),
    (
        "ketama_ring_new_packed",
        "weights",
        "`weights` is NULL (no weights given)",
    ),
    (
        "ketama_ring_new_packed",
        "names",
        "`names` is NULL (no names)",
    ),
    (
        "ketama_ring_new_packed",
        "options",
        "`options` is NULL or a NUL-terminated string",
    ),
    (
        "ketama_ring_new_from_file_named",
        "hash",
        "(NULL: the flavour's own)",
    ),
    (
        "ketama_ring_new_from_file_named",
        "parse_mode",
        "NULL: strict",
    ),
    (
        "ketama_ring_new_from_file_named",
        "options",
        "`options` NULL (none)",
    ),
    (
        "ketama_ring_new_serialized",
        "hash",
        "`hash` and `options` are NULL or NUL-terminated strings",
    ),
    (
        "ketama_ring_new_serialized",
        "options",
        "`hash` and `options` are NULL or NUL-terminated strings",
    ),
    (
        "ketama_file_ring_open_with_options",
        "options",
        "(NULL: none",
    ),
    (
        "ketama_migration_new",
        "options",
        "`options` is NULL or text",
    ),
];

/// True when NULL has a documented meaning for `function`'s `param`.
fn null_allowed(function: &str, param: &str) -> bool {
    NULL_ALLOWED
        .iter()
        .any(|(f, p, _)| *f == function && *p == param)
}

/// The doc comment above `name`'s prototype, as one line of words.
fn doc_of(header: &str, name: &str) -> String {
    let at = header
        .find(&format!(" {name}("))
        .or_else(|| header.find(&format!("*{name}(")))
        .expect("prototype");
    let start = header[..at].rfind("/**").expect("doc comment");
    header[start..at]
        .split_whitespace()
        .filter(|w| *w != "*" && *w != "/**" && *w != "*/")
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a swept call must do.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Not crash (any answer).
    NoCrash,
    /// A status other than KETAMA_OK, with a message (or 0 / NULL from a
    /// compat function returning `int` or a pointer).
    Refused,
}

/// The C fixture every case starts from (forked per case).
const FIXTURE: &str = r#"
#define _DEFAULT_SOURCE
#include <ketama.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned char out_buf[16][1 << 16] __attribute__((aligned(16)));
static char key_text[] = "key:42";
static const char *key_ptrs[16];
static size_t key_lens[16];
static uint32_t u32_values[16];
static char set_value[] = "+a +b ";
static char servers_path[4096];
static const ketama_ring *ring;
static const ketama_file_ring *file_ring;
static ketama_set *set;
static const ketama_set *set_list[2];
static ketama_set_writer *writer;
static ketama_key_groups *groups;
static ketama_continuum cont, cont_slot;
static mcs mcs_records[2];
static ketama_server servers[16];
static ketama_set_member_ref member_refs[16];
static ketama_set_policy policy;
static ketama_set_buffer empty_buffer;
static const ketama_migration *migration;
static ketama_migration_op *migration_op;
static ketama_migration_plan *migration_plan;

static void fixture(const char *path)
{
    snprintf(servers_path, sizeof servers_path, "%s", path);
    for (int i = 0; i < 16; i++) {
        key_ptrs[i] = key_text;
        key_lens[i] = 6;
        u32_values[i] = 1;
        servers[i].address = "10.0.0.1:11211";
        servers[i].address_len = 14;
        servers[i].weight = 100;
        member_refs[i].data = (const uint8_t *)"a";
        member_refs[i].len = 1;
    }
    ketama_set_error error;
    uint32_t action;
    if (ketama_ring_new_from_file(path, 0, 0, 0, &ring) != KETAMA_OK
        || ketama_file_ring_open(path, 0, 0, 0, 0, &file_ring) != KETAMA_OK
        || ketama_set_decode((const uint8_t *)set_value, 6, 1, 250, &set, &error) != KETAMA_OK
        || ketama_set_writer_new(0, 4, &writer, &action) != KETAMA_OK
        || ketama_group_keys(ring, key_text, 6, u32_values, 2, &groups) != KETAMA_OK
        || !ketama_roll(&cont, servers_path)
        || ketama_migration_new(ring, ring, 0, 0, NULL, &migration) != KETAMA_OK
        || ketama_migration_begin(migration, 0, key_text, 6, 0, &migration_op) != KETAMA_OK
        || ketama_migration_plan_new(migration, &migration_plan) != KETAMA_OK) {
        printf("fixture failed: %s\n", ketama_error());
        exit(2);
    }
    set_list[0] = set_list[1] = set;
}

/* Runs one case in a child: exit 0 when it met its expectation, 1 when not
 * (with the reason on stdout), a signal when it crashed. */
static int run_case(const char *label, int (*body)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(10);
        exit(body());
    }
    int status;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        printf("CRASH %s: signal %d\n", label, WTERMSIG(status));
        return 1;
    }
    if (WEXITSTATUS(status) != 0) {
        printf("FAIL %s\n", label);
        return 1;
    }
    return 0;
}

static int refused_status(ketama_status s)
{
    if (s == KETAMA_OK) { printf("returned KETAMA_OK\n"); return 1; }
    if (ketama_error()[0] == '\0') { printf("status %d without a message\n", (int)s); return 1; }
    return 0;
}

static int any_status(ketama_status s)
{
    if (s != KETAMA_OK && ketama_error()[0] == '\0') {
        printf("status %d without a message\n", (int)s);
        return 1;
    }
    return 0;
}

/* NULL, with the status in ketama_last_status() and a message (the
 * functions that return a handle or NULL: ketama_ring_from_file_named). */
static int refused_null(const void *handle)
{
    if (handle != NULL) { printf("returned a handle\n"); return 1; }
    return refused_status(ketama_last_status());
}

/* An index or a negated status (ketama_find_server_index). */
static int refused_index(int64_t i)
{
    if (i >= 0) { printf("returned index %lld\n", (long long)i); return 1; }
    return refused_status((ketama_status)-i);
}

static int any_index(int64_t i)
{
    return i >= 0 ? 0 : any_status((ketama_status)-i);
}
"#;

/// The C statement that calls `f` with `args` and returns the verdict;
/// `reports_null`: `f` returns NULL on failure with the status in
/// `ketama_last_status()` (its documentation says so).
fn verdict(f: &Function, args: &[String], expect: Expect, reports_null: bool) -> Option<String> {
    let call = format!("{}({})", f.name, args.join(", "));
    Some(match (f.ret.as_str(), expect) {
        (_, Expect::Refused) if reports_null => format!("return refused_null({call});"),
        ("ketama_status", Expect::Refused) => format!("return refused_status({call});"),
        ("ketama_status", Expect::NoCrash) => format!("return any_status({call});"),
        ("int64_t", Expect::Refused) => format!("return refused_index({call});"),
        ("int64_t", Expect::NoCrash) => format!("return any_index({call});"),
        ("int", Expect::Refused) if f.name == "ketama_roll" => format!("return {call} != 0;"),
        ("mcs *", Expect::Refused) => format!("return {call} != NULL;"),
        ("void", _) => format!("{call}; return 0;"),
        (
            "int"
            | "int32_t"
            | "unsigned int"
            | "size_t"
            | "bool"
            | "mcs *"
            | "char *"
            | "const char *"
            | "const ketama_ring *"
            | "ketama_continuum",
            _,
        ) => format!("(void){call}; return 0;"),
        _ => return None,
    })
}

#[test]
fn every_exported_function_survives_null_zero_and_out_of_range_arguments() {
    let header = std::fs::read_to_string(common::repo_root().join("include/ketama.h")).unwrap();
    let functions = prototypes(&header);
    assert!(
        functions.len() >= 50,
        "only {} prototypes read",
        functions.len()
    );
    let mut unknown = Vec::new();
    let mut bodies = String::new();
    let mut cases = Vec::new();
    for f in &functions {
        let Some(base) = f
            .params
            .iter()
            .enumerate()
            .map(|(i, (ty, name))| plausible(ty, name, i))
            .collect::<Option<Vec<String>>>()
        else {
            unknown.push(format!("{}: {:?}", f.name, f.params));
            continue;
        };
        let mut variants = vec![("plausible".to_string(), base.clone(), Expect::NoCrash)];
        for (i, (ty, name)) in f.params.iter().enumerate() {
            let mut args = base.clone();
            if ty.contains('*') || ty == "ketama_continuum" {
                args[i] = "NULL".into();
                let allowed = NULL_ALLOWED
                    .iter()
                    .find(|(f_name, param, _)| *f_name == f.name && param == name);
                let expect = match allowed {
                    Some((_, _, words)) => {
                        let doc = doc_of(&header, &f.name);
                        assert!(
                            doc.contains(words),
                            "{}: NULL `{name}` is allowed because the doc says {words:?}, \
                             but the doc reads: {doc}",
                            f.name
                        );
                        Expect::NoCrash
                    }
                    None => Expect::Refused,
                };
                variants.push((format!("{name}=NULL"), args, expect));
            } else if ty == "size_t" {
                if let Some((ptr_ty, ptr_name)) = i.checked_sub(1).map(|p| &f.params[p]) {
                    // A huge length for a NULL buffer is refused, never read.
                    if ptr_ty.contains('*') && !null_allowed(&f.name, ptr_name) {
                        let mut huge = base.clone();
                        huge[i - 1] = "NULL".into();
                        huge[i] = "(size_t)-1".into();
                        let label = format!("{ptr_name}=NULL,{name}=SIZE_MAX");
                        variants.push((label, huge, Expect::Refused));
                    }
                }
                args[i] = "0".into();
                variants.push((format!("{name}=0"), args.clone(), Expect::NoCrash));
                if name.contains("index") {
                    args[i] = "(size_t)-1".into();
                    variants.push((format!("{name}=SIZE_MAX"), args, Expect::Refused));
                }
            } else if ty == "uint32_t" {
                args[i] = "0xFFFFFFFFu".into();
                let enum_like = [
                    "flavour",
                    "hash",
                    "hash_id",
                    "parse_mode",
                    "policy",
                    "encoding",
                    "op",
                    "from",
                    "to",
                    "reply",
                    "mode",
                ];
                let expect = if enum_like.contains(&name.as_str()) {
                    Expect::Refused
                } else {
                    Expect::NoCrash
                };
                variants.push((format!("{name}=0xFFFFFFFF"), args, expect));
            }
        }
        let reports_null = (f.ret.contains('*') || f.ret == "ketama_continuum")
            && doc_of(&header, &f.name).contains("`ketama_last_status()`");
        for (label, args, expect) in variants {
            let Some(statement) = verdict(f, &args, expect, reports_null) else {
                unknown.push(format!("{}: return type {}", f.name, f.ret));
                break;
            };
            let id = cases.len();
            writeln!(bodies, "static int case_{id}(void) {{ {statement} }}").unwrap();
            cases.push(format!("{}({label})", f.name));
        }
    }
    assert!(
        unknown.is_empty(),
        "the sweep cannot classify these (teach `plausible`/`verdict` about them): {unknown:#?}"
    );
    let mut main = String::from(
        "int main(int argc, char **argv)\n{\n    (void)argc;\n    fixture(argv[1]);\n    int failed = 0;\n",
    );
    for (id, label) in cases.iter().enumerate() {
        writeln!(main, "    failed += run_case(\"{label}\", case_{id});").unwrap();
    }
    main.push_str("    printf(\"%d cases, %d failed\\n\", ");
    writeln!(
        main,
        "{}, failed);\n    return failed != 0;\n}}",
        cases.len()
    )
    .unwrap();

    let dir = common::scratch_dir("ffi-sweep");
    let source = dir.join("sweep.c");
    std::fs::write(&source, format!("{FIXTURE}\n{bodies}\n{main}")).unwrap();
    let servers = dir.join("servers");
    std::fs::write(&servers, "10.0.0.1:11211\t100\n10.0.0.2:11211\t200\n").unwrap();
    // Old enough that no read waits for the file to settle.
    std::fs::File::options()
        .write(true)
        .open(&servers)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    let program = common::compile_c(&[&source], "ffi_sweep", &[]);
    let _guard = common::sysv::SysvGuard::new(&[&servers]);
    let out = common::run_with_timeout(
        std::process::Command::new(&program).arg(&servers),
        Duration::from_secs(300),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let params: usize = functions.iter().map(|f| f.params.len()).sum();
    eprintln!(
        "swept {} functions with {params} parameters in {} cases",
        functions.len(),
        cases.len()
    );
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains(&format!("{} cases, 0 failed", cases.len())),
        "{stdout}"
    );
}
