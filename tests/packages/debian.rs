//! The packages users install: `make deb` (libketama1, libketama-dev, ketama,
//! libketama-java, php-ketama), `make java` (target/ketama.jar) and the PHP
//! binding through Composer.
//!
//! Each package's control fields and file list are checked with `dpkg-deb`,
//! lintian must report no errors, and the packages are unpacked with
//! `dpkg -x` into temporary roots (nothing is installed on the machine):
//! C programs built with the installed pkg-config file and the installed
//! header run on the installed library, and PHP and Java run from the
//! installed layout. Their answers are compared with the original libketama
//! C code (the oracle, PyPI `ketama==0.1.1`). The Python wheel (`maturin
//! build`) installs and answers with no compiler (`python_wheel.rs`).

use ketama_testkit as common;
use ketama_testkit::oracle_lists;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

use oracle_lists::{equal, hex_encode, lines, oracle_python};

const PACKAGES: [&str; 5] = [
    "libketama1",
    "libketama-dev",
    "ketama",
    "libketama-java",
    "php-ketama",
];

/// The version in Cargo.toml.
pub(crate) fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

fn dpkg_architecture(variable: &str) -> String {
    let out = Command::new("dpkg-architecture")
        .arg(format!("-q{variable}"))
        .output()
        .expect("dpkg-architecture (dpkg-dev)");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn arch() -> &'static str {
    static ARCH: OnceLock<String> = OnceLock::new();
    ARCH.get_or_init(|| dpkg_architecture("DEB_HOST_ARCH"))
}

fn multiarch() -> &'static str {
    static MULTIARCH: OnceLock<String> = OnceLock::new();
    MULTIARCH.get_or_init(|| dpkg_architecture("DEB_HOST_MULTIARCH"))
}

pub(crate) fn run(cmd: &mut Command, limit: Duration) -> Output {
    let out = common::run_with_timeout(cmd, limit);
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

/// Runs `make java` and `make deb` once for the whole test binary; returns
/// the directory holding the .deb files.
pub(crate) fn built() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        for (tool, package) in [
            ("dpkg-deb", "dpkg-dev"),
            ("dpkg-shlibdeps", "dpkg-dev"),
            ("javac", "openjdk-17-jdk-headless"),
            ("jar", "openjdk-17-jdk-headless"),
        ] {
            common::require_tool(tool, package);
        }
        for target in ["java", "deb"] {
            run(
                Command::new("make")
                    .current_dir(common::repo_root())
                    .args(["--no-print-directory", target]),
                Duration::from_secs(3600),
            );
        }
        common::repo_root().join("target/deb")
    })
}

/// The .deb file of `package`.
pub(crate) fn deb(package: &str) -> PathBuf {
    let package_arch = if package.ends_with("-java") || package.starts_with("php-") {
        "all"
    } else {
        arch()
    };
    let path = built().join(format!("{package}_{}_{package_arch}.deb", version()));
    assert!(path.exists(), "{path:?} not built by make deb");
    path
}

fn field(package: &str, name: &str) -> String {
    let out = run(
        Command::new("dpkg-deb")
            .arg("-f")
            .arg(deb(package))
            .arg(name),
        Duration::from_secs(30),
    );
    stdout(&out).trim().to_string()
}

/// One entry of `dpkg-deb -c`: mode string, owner/group, link target.
#[derive(Debug)]
struct Entry {
    mode: String,
    owner: String,
    link: Option<String>,
}

/// `dpkg-deb -c` as path (without the leading `./`) → entry.
fn contents(package: &str) -> BTreeMap<String, Entry> {
    let out = run(
        Command::new("dpkg-deb").arg("-c").arg(deb(package)),
        Duration::from_secs(30),
    );
    stdout(&out)
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (path, link) = match fields[5..] {
                [path] => (path, None),
                [path, "->", target] => (path, Some(target.to_string())),
                _ => panic!("unexpected dpkg-deb -c line {line:?}"),
            };
            (
                path.trim_start_matches("./")
                    .trim_end_matches('/')
                    .to_string(),
                Entry {
                    mode: fields[0].to_string(),
                    owner: fields[1].to_string(),
                    link,
                },
            )
        })
        .filter(|(path, _)| !path.is_empty())
        .collect()
}

/// Unpacks `packages` with `dpkg -x` into a fresh directory; returns it.
fn unpack(name: &str, packages: &[&str]) -> PathBuf {
    let root = common::scratch_dir(&format!("root-{name}"));
    for package in packages {
        run(
            Command::new("dpkg").arg("-x").arg(deb(package)).arg(&root),
            Duration::from_secs(60),
        );
    }
    root
}

fn libdir(root: &Path) -> PathBuf {
    root.join("usr/lib").join(multiarch())
}

/// A server file (5 servers, one weighted differently) and keys to look up.
fn sample(dir: &Path) -> (PathBuf, Vec<String>) {
    let mut entries = equal(4);
    entries.push(("10.0.9.9:11211".into(), 250));
    let path = dir.join("ketama.servers");
    std::fs::write(&path, lines(&entries)).unwrap();
    let keys = (0..200).map(|i| format!("user:{i}")).collect();
    (path, keys)
}

/// The original libketama's answer for each key: (server address, point).
fn original_answers(servers: &Path, keys: &[String]) -> Vec<(String, u32)> {
    let keys_file = servers.with_extension("keys");
    std::fs::write(
        &keys_file,
        keys.iter()
            .map(|k| hex_encode(k.as_bytes()) + "\n")
            .collect::<String>(),
    )
    .unwrap();
    let _guard = common::sysv::SysvGuard::new(&[servers]);
    let out = run(
        Command::new(oracle_python())
            .arg(common::oracle_script())
            .arg("roll")
            .arg(servers)
            .arg(&keys_file),
        Duration::from_secs(120),
    );
    let mut points = Vec::new();
    let mut answers = Vec::new();
    for line in stdout(&out).lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[0] {
            "P" => {
                let ip: Vec<u8> = (0..fields[2].len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&fields[2][i..i + 2], 16).unwrap())
                    .take_while(|&b| b != 0)
                    .collect();
                points.push(String::from_utf8(ip).unwrap());
            }
            "K" => {
                let index: usize = fields[1].parse().unwrap();
                answers.push((points[index].clone(), fields[2].parse().unwrap()));
            }
            _ => {}
        }
    }
    assert_eq!(answers.len(), keys.len(), "oracle answered every key");
    answers
}

/// Compares `KEY<TAB>ADDRESS<TAB>POINT` lines with the original's answers.
fn assert_answers_match_original(output: &str, servers: &Path, keys: &[String], who: &str) {
    let expected = original_answers(servers, keys);
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(
        lines.len(),
        keys.len(),
        "{who}: one line per key:\n{output}"
    );
    let differing: Vec<String> = lines
        .iter()
        .zip(keys.iter().zip(&expected))
        .filter(|(line, (key, (address, point)))| **line != format!("{key}\t{address}\t{point}"))
        .map(|(line, (_, (address, point)))| format!("{line} (original: {address} {point})"))
        .collect();
    assert!(
        differing.is_empty(),
        "{who}: {} of {} keys differ from the original: {:?}",
        differing.len(),
        keys.len(),
        &differing[..differing.len().min(5)]
    );
}

#[test]
fn every_package_has_its_files_with_debian_permissions() {
    let ma = multiarch();
    let v = version();
    let expected: [(&str, Vec<String>); 5] = [
        (
            "libketama1",
            vec![
                format!("usr/lib/{ma}/libketama.so.{v}"),
                format!("usr/lib/{ma}/libketama.so.1 -> libketama.so.{v}"),
            ],
        ),
        (
            "libketama-dev",
            vec![
                "usr/include/ketama.h".into(),
                format!("usr/lib/{ma}/libketama.so -> libketama.so.1"),
                format!("usr/lib/{ma}/libketama.a"),
                format!("usr/lib/{ma}/pkgconfig/ketama.pc"),
            ],
        ),
        (
            "ketama",
            vec![
                "usr/bin/ketama".into(),
                "usr/share/man/man1/ketama.1.gz".into(),
                "usr/share/bash-completion/completions/ketama".into(),
                "usr/share/zsh/vendor-completions/_ketama".into(),
                "usr/share/fish/vendor_completions.d/ketama.fish".into(),
            ],
        ),
        (
            "libketama-java",
            vec![
                format!("usr/share/java/ketama-{v}.jar"),
                format!("usr/share/java/ketama.jar -> ketama-{v}.jar"),
            ],
        ),
        (
            "php-ketama",
            [
                "autoload.php",
                "ketama.php",
                "compat.php",
                "ketama_ffi.h",
                "preload.php",
                "src/Bytes.php",
                "src/Continuum.php",
                "src/KetamaException.php",
                "src/Library.php",
                "src/Location.php",
                "src/MigratingMemcached.php",
                "src/Migration.php",
                "src/MigrationOp.php",
                "src/Ring.php",
                "src/RingCache.php",
                "src/Set.php",
                "src/SetWriter.php",
            ]
            .iter()
            .map(|f| format!("usr/share/php/Ketama/{f}"))
            .chain(["etc/php/8.2/mods-available/ketama.ini".to_string()])
            .collect(),
        ),
    ];
    for (package, files) in expected {
        let entries = contents(package);
        let mut want: BTreeSet<String> = files.into_iter().collect();
        want.insert(format!("usr/share/doc/{package}/copyright"));
        want.insert(format!("usr/share/doc/{package}/changelog.gz"));
        let got: BTreeSet<String> = entries
            .iter()
            .filter(|(_, e)| !e.mode.starts_with('d'))
            .map(|(path, e)| match &e.link {
                Some(target) => format!("{path} -> {target}"),
                None => path.clone(),
            })
            .collect();
        assert_eq!(got, want, "{package}: files");
        for (path, entry) in &entries {
            assert_eq!(entry.owner, "root/root", "{package}: {path}");
            let mode = match entry.mode.chars().next() {
                Some('d') => "drwxr-xr-x",
                Some('l') => "lrwxrwxrwx",
                _ if path == "usr/bin/ketama" => "-rwxr-xr-x",
                _ => "-rw-r--r--",
            };
            assert_eq!(entry.mode, mode, "{package}: {path}");
        }
    }
}

#[test]
fn control_fields_name_version_and_dependencies() {
    let v = version();
    for package in PACKAGES {
        assert_eq!(field(package, "Package"), package);
        assert_eq!(
            field(package, "Version"),
            v,
            "{package}: version from Cargo.toml"
        );
        assert!(!field(package, "Maintainer").is_empty(), "{package}");
        assert!(!field(package, "Description").is_empty(), "{package}");
        assert!(field(package, "Installed-Size").parse::<u64>().unwrap() > 0);
    }
    for (package, arch, section, multi_arch) in [
        ("libketama1", arch(), "libs", "same"),
        ("libketama-dev", arch(), "libdevel", "same"),
        ("ketama", arch(), "utils", "no"),
        ("libketama-java", "all", "java", "no"),
        ("php-ketama", "all", "php", "no"),
    ] {
        assert_eq!(field(package, "Architecture"), arch, "{package}");
        assert_eq!(field(package, "Section"), section, "{package}");
        assert_eq!(field(package, "Multi-Arch"), multi_arch, "{package}");
    }
    // dpkg-shlibdeps's answers for the ELF files: libc6 at least, and never
    // libketama1 for the CLI (it links the library statically).
    for package in ["libketama1", "ketama"] {
        let depends = field(package, "Depends");
        assert!(depends.contains("libc6 (>= "), "{package}: {depends}");
        assert!(!depends.contains("libketama"), "{package}: {depends}");
    }
    assert_eq!(
        field("libketama-dev", "Depends"),
        format!("libketama1 (= {v})")
    );
    assert_eq!(
        field("libketama-java", "Depends"),
        format!("libjna-java, libketama1 (>= {v})")
    );
    assert_eq!(
        field("php-ketama", "Depends"),
        format!("php-cli (>= 2:8.2) | php8.2-cli, php-ffi, libketama1 (>= {v})")
    );
}

#[test]
fn the_library_package_declares_shlibs_symbols_and_the_ldconfig_trigger() {
    let control = common::scratch_dir("libketama1-control");
    run(
        Command::new("dpkg-deb")
            .arg("-e")
            .arg(deb("libketama1"))
            .arg(&control),
        Duration::from_secs(30),
    );
    let read = |name: &str| std::fs::read_to_string(control.join(name)).unwrap();
    assert_eq!(
        read("shlibs"),
        format!("libketama 1 libketama1 (>= {})\n", version())
    );
    assert_eq!(read("triggers"), "activate-noawait ldconfig\n");
    // Every function the installed library exports is in the symbols file.
    let root = unpack("symbols", &["libketama1"]);
    let library = libdir(&root).join(format!("libketama.so.{}", version()));
    let nm = run(
        Command::new("nm")
            .args(["-D", "--defined-only"])
            .arg(&library),
        Duration::from_secs(30),
    );
    let exported: BTreeSet<String> = stdout(&nm)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(str::to_string)
        .collect();
    assert!(exported.contains("ketama_roll") && exported.len() > 50);
    let symbols = read("symbols");
    let mut lines = symbols.lines();
    assert_eq!(lines.next(), Some("libketama.so.1 libketama1 #MINVER#"));
    assert_eq!(lines.next(), Some("* Build-Depends-Package: libketama-dev"));
    let listed: BTreeSet<String> = lines
        .map(|l| l.trim().split('@').next().unwrap().to_string())
        .collect();
    assert_eq!(listed, exported);
    // SONAME, stripped (no symbol table, no debug sections).
    let elf = stdout(&run(
        Command::new("readelf")
            .args(["-d", "-S", "-W"])
            .arg(&library),
        Duration::from_secs(30),
    ));
    assert!(elf.contains("Library soname: [libketama.so.1]"), "{elf}");
    assert!(
        !elf.contains(".debug_") && !elf.contains(" .symtab"),
        "not stripped: {elf}"
    );
    let bin_root = unpack("cli", &["ketama"]);
    let elf = stdout(&run(
        Command::new("readelf")
            .args(["-S", "-W"])
            .arg(bin_root.join("usr/bin/ketama")),
        Duration::from_secs(30),
    ));
    assert!(!elf.contains(".debug_"), "CLI not stripped: {elf}");
    // md5sums match the unpacked files.
    for package in PACKAGES {
        let dir = common::scratch_dir(&format!("control-{package}"));
        run(
            Command::new("dpkg-deb")
                .arg("-e")
                .arg(deb(package))
                .arg(&dir),
            Duration::from_secs(30),
        );
        let root = unpack(&format!("md5-{package}"), &[package]);
        run(
            Command::new("md5sum")
                .args(["--check", "--quiet"])
                .arg(dir.join("md5sums"))
                .current_dir(&root),
            Duration::from_secs(30),
        );
    }
}

#[test]
fn lintian_reports_no_errors_and_only_the_documented_warnings() {
    common::require_tool("lintian", "lintian");
    let debs: Vec<PathBuf> = PACKAGES.iter().map(|p| deb(p)).collect();
    let out = common::run_with_timeout(
        Command::new("lintian").args(&debs),
        Duration::from_secs(600),
    );
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    let errors: Vec<&str> = report.lines().filter(|l| l.starts_with("E:")).collect();
    assert!(errors.is_empty(), "lintian errors:\n{report}");
    // Each warning's tag is listed, with the reason, in docs/packaging.md.
    let documented =
        std::fs::read_to_string(common::repo_root().join("docs/packaging.md")).unwrap();
    let undocumented: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("W:"))
        .filter(|l| {
            let tag = l.split_whitespace().nth(2).unwrap_or("");
            !documented.contains(&format!("`{tag}`"))
        })
        .collect();
    assert!(
        undocumented.is_empty(),
        "lintian warnings not explained in docs/packaging.md:\n{}",
        undocumented.join("\n")
    );
    // lintian's status is non-zero on an error tag and when it could not run.
    assert!(
        out.status.success(),
        "lintian failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );

    // The same check catches an error: libketama1 repacked without its copyright file.
    let broken = common::scratch_dir("lintian-broken");
    let tree = broken.join("libketama1");
    common::copy_tree(
        &common::repo_root().join("target/deb-build/stage/libketama1"),
        &tree,
    );
    std::fs::remove_file(tree.join("usr/share/doc/libketama1/copyright")).unwrap();
    let md5sums = std::fs::read_to_string(tree.join("DEBIAN/md5sums")).unwrap();
    let md5sums: String = md5sums
        .lines()
        .filter(|l| !l.ends_with("/copyright"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(tree.join("DEBIAN/md5sums"), md5sums).unwrap();
    let broken_deb = broken.join("libketama1.deb");
    run(
        Command::new("dpkg-deb")
            .args(["--root-owner-group", "--build"])
            .arg(&tree)
            .arg(&broken_deb),
        Duration::from_secs(60),
    );
    let out = common::run_with_timeout(
        Command::new("lintian").arg(&broken_deb),
        Duration::from_secs(600),
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success() && report.contains("E: libketama1: no-copyright-file"),
        "{report}"
    );
}

/// gcc flags from the installed ketama.pc, read through the temporary root.
fn pkg_config(root: &Path, args: &[&str]) -> Vec<String> {
    common::require_tool("pkg-config", "pkg-config");
    let out = run(
        Command::new("pkg-config")
            .args(args)
            .arg("ketama")
            .env("PKG_CONFIG_PATH", libdir(root).join("pkgconfig"))
            .env("PKG_CONFIG_SYSROOT_DIR", root)
            .env_remove("PKG_CONFIG_LIBDIR"),
        Duration::from_secs(30),
    );
    stdout(&out)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn gcc(source: &Path, program: &Path, flags: &[String]) {
    common::require_tool("gcc", "gcc");
    run(
        Command::new("gcc")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE"])
            .arg(source)
            .arg("-o")
            .arg(program)
            .args(flags),
        Duration::from_secs(120),
    );
}

/// The program's libketama.so.1 as the dynamic loader resolves it.
fn resolved_libketama(program: &Path, root: &Path) -> String {
    let out = run(
        Command::new(program)
            .env("LD_TRACE_LOADED_OBJECTS", "1")
            .env("LD_LIBRARY_PATH", libdir(root)),
        Duration::from_secs(30),
    );
    stdout(&out)
        .lines()
        .find(|l| l.contains("libketama"))
        .unwrap_or("")
        .trim()
        .to_string()
}

#[test]
fn c_clients_build_with_the_installed_pkg_config_file_and_run_on_the_installed_library() {
    let root = unpack("c", &["libketama1", "libketama-dev"]);
    let lib = libdir(&root);
    let pc = std::fs::read_to_string(lib.join("pkgconfig/ketama.pc")).unwrap();
    assert!(
        pc.contains(&format!("libdir=${{prefix}}/lib/{}", multiarch()))
            && pc.contains("prefix=/usr"),
        "{pc}"
    );
    let mut flags = pkg_config(&root, &["--cflags", "--libs"]);
    assert!(
        flags.contains(&format!("-I{}/usr/include", root.display())),
        "{flags:?}"
    );
    let dir = common::scratch_dir("c-clients");
    let servers = dir.join("servers");
    std::fs::write(
        &servers,
        "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n",
    )
    .unwrap();
    let bad = dir.join("bad");
    std::fs::write(&bad, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100 \n").unwrap();
    let modern = common::repo_root().join("tests/c/modern_client.c");

    // Dynamically linked: NEEDED libketama.so.1, resolved inside the root.
    let program = dir.join("modern_client");
    gcc(&modern, &program, &flags);
    let needed = stdout(&run(
        Command::new("readelf").arg("-d").arg(&program),
        Duration::from_secs(30),
    ));
    assert!(
        needed.contains("Shared library: [libketama.so.1]"),
        "{needed}"
    );
    let resolved = resolved_libketama(&program, &root);
    assert!(
        resolved.contains(&lib.join("libketama.so.1").display().to_string()),
        "{resolved}"
    );
    let out = run(
        Command::new(&program)
            .arg(&servers)
            .arg(&bad)
            .env("LD_LIBRARY_PATH", &lib),
        Duration::from_secs(60),
    );
    assert!(stdout(&out).starts_with("OK "), "{}", stdout(&out));

    // Statically linked against the installed libketama.a.
    let static_flags = pkg_config(&root, &["--cflags", "--static", "--libs"]);
    let static_flags: Vec<String> = static_flags
        .into_iter()
        .flat_map(|f| {
            if f == "-lketama" {
                vec!["-Wl,-Bstatic".into(), f, "-Wl,-Bdynamic".into()]
            } else {
                vec![f]
            }
        })
        .collect();
    let program = dir.join("modern_client_static");
    gcc(&modern, &program, &static_flags);
    let needed = stdout(&run(
        Command::new("readelf").arg("-d").arg(&program),
        Duration::from_secs(30),
    ));
    assert!(!needed.contains("libketama"), "{needed}");
    let out = run(
        Command::new(&program).arg(&servers).arg(&bad),
        Duration::from_secs(60),
    );
    assert!(stdout(&out).starts_with("OK "), "{}", stdout(&out));

    // A program written for the original libketama (its API: ketama_roll,
    // cont->array, ketama_get_server without lengths, ketama_print_continuum),
    // built with the installed header, answers as the original does.
    let (servers, keys) = sample(&dir);
    let program = dir.join("legacy_client");
    flags.push("-Wno-unused-parameter".into());
    gcc(
        &common::repo_root().join("tests/c/legacy_client.c"),
        &program,
        &flags,
    );
    let out = run(
        Command::new(&program)
            .arg(&servers)
            .args(&keys)
            .env("LD_LIBRARY_PATH", &lib),
        Duration::from_secs(60),
    );
    let text = stdout(&out);
    assert!(text.starts_with("roll 1 error ''\n"), "{text}");
    assert!(!text.contains("FAIL"), "{text}");
    // "key KEY hash H point P ip IP index I"
    let answers: String = text
        .lines()
        .filter(|l| l.starts_with("key "))
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            format!("{}\t{}\t{}\n", f[1], f[7], f[5])
        })
        .collect();
    assert_answers_match_original(&answers, &servers, &keys, "legacy C client");
    // ketama_print_continuum prints what the original prints, byte for byte.
    let print = &text[text.find("Numpoints in continuum:").expect("print section")..];
    let _guard = common::sysv::SysvGuard::new(&[&servers]);
    let original = run(
        Command::new(oracle_python())
            .arg(common::oracle_script())
            .arg("print")
            .arg(&servers),
        Duration::from_secs(60),
    );
    assert!(print.len() > 1000);
    assert_eq!(
        print.as_bytes(),
        &original.stdout[..],
        "ketama_print_continuum"
    );
}

const PHP_FIND: &str = r#"<?php
require_once 'Ketama/autoload.php';
fwrite(STDERR, Ketama\Library::path() . "\n");
$ring = Ketama\Ring::fromFile($argv[1]);
foreach (array_slice($argv, 2) as $key) {
    $location = $ring->find($key);
    echo "{$key}\t{$location->address}\t{$location->point}\n";
}
if (!function_exists('ketama_roll')) {
    exit(3);
}
"#;

#[test]
fn php_runs_from_the_installed_layout_without_environment_variables() {
    common::require_tool("php", "php8.2-cli");
    let root = unpack("php", &["libketama1", "php-ketama"]);
    let dir = common::scratch_dir("php-installed");
    let (servers, keys) = sample(&dir);
    let script = dir.join("find.php");
    std::fs::write(&script, PHP_FIND).unwrap();
    // /usr/share/php is on Debian's default include_path; the root stands
    // in for it, and LD_LIBRARY_PATH for the loader's search of /usr/lib.
    let out = run(
        Command::new("php")
            .arg("-d")
            .arg(format!(
                "include_path=.:{}",
                root.join("usr/share/php").display()
            ))
            .arg(&script)
            .arg(&servers)
            .args(&keys)
            .env_remove("KETAMA_LIBRARY")
            .env("LD_LIBRARY_PATH", libdir(&root))
            .current_dir(&dir),
        Duration::from_secs(120),
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "libketama.so.1",
        "loaded by its SONAME from the system library path"
    );
    assert_answers_match_original(&stdout(&out), &servers, &keys, "installed PHP binding");
}

/// Compiles bindings/java/examples/FindServer.java against `classpath`.
fn compile_find_server(classpath: &str, name: &str) -> PathBuf {
    let classes = common::scratch_dir(name);
    run(
        Command::new("javac")
            .arg("-cp")
            .arg(classpath)
            .arg("-d")
            .arg(&classes)
            .arg(common::repo_root().join("bindings/java/examples/FindServer.java")),
        Duration::from_secs(300),
    );
    classes
}

#[test]
fn java_runs_from_the_installed_jar_without_environment_variables() {
    common::require_tool("java", "openjdk-17-jdk-headless");
    let root = unpack("java", &["libketama1", "libketama-java"]);
    // libjna-java, a dependency, is on this machine: link it into the root as
    // it would be installed beside the jar.
    std::os::unix::fs::symlink(
        "/usr/share/java/jna.jar",
        root.join("usr/share/java/jna.jar"),
    )
    .unwrap();
    let jar = root.join("usr/share/java/ketama.jar");
    // The manifest's Class-Path brings jna.jar: only the jar on -cp.
    let classes = compile_find_server(jar.to_str().unwrap(), "java-installed-classes");
    let dir = common::scratch_dir("java-installed");
    let (servers, keys) = sample(&dir);
    let out = run(
        Command::new("java")
            .arg("-cp")
            .arg(format!("{}:{}", jar.display(), classes.display()))
            .arg("FindServer")
            .arg(&servers)
            .args(&keys)
            .env_remove("KETAMA_LIBRARY")
            .env("LD_LIBRARY_PATH", libdir(&root)),
        Duration::from_secs(120),
    );
    assert_answers_match_original(&stdout(&out), &servers, &keys, "installed Java binding");
}

#[test]
fn the_readme_java_lines_compile_and_run_against_target_ketama_jar() {
    built();
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).unwrap();
    let javac = readme
        .lines()
        .find(|l| l.starts_with("javac -cp target/ketama.jar:/usr/share/java/jna.jar"))
        .expect("README: javac line");
    let java = readme
        .lines()
        .find(|l| l.starts_with("java -cp target/ketama.jar:/usr/share/java/jna.jar"))
        .expect("README: java line");
    let _ = std::fs::remove_dir_all(common::repo_root().join("target/java-example"));
    for line in [javac, java] {
        let out = run(
            Command::new("sh")
                .args(["-c", line])
                .current_dir(common::repo_root()),
            Duration::from_secs(300),
        );
        if line == java {
            let keys: Vec<String> = line
                .split_whitespace()
                .skip_while(|w| *w != "examples/ketama.servers")
                .skip(1)
                .map(str::to_string)
                .collect();
            assert!(!keys.is_empty());
            // A copy of the sample file: the oracle's SysV objects are keyed by path.
            let dir = common::scratch_dir("readme-java");
            let servers = dir.join("ketama.servers");
            std::fs::copy(
                common::repo_root().join("examples/ketama.servers"),
                &servers,
            )
            .unwrap();
            assert_answers_match_original(&stdout(&out), &servers, &keys, "README java line");
        }
    }
    // The jar: classes, and a manifest naming the version and Debian's jars.
    let jar = common::repo_root().join("target/ketama.jar");
    let listing = stdout(&run(
        Command::new("jar").arg("--list").arg("--file").arg(&jar),
        Duration::from_secs(60),
    ));
    for class in [
        "net/ketama/Ring.class",
        "net/ketama/KetamaNodeLocator.class",
    ] {
        assert!(listing.lines().any(|l| l == class), "{class} in {listing}");
    }
    let manifest = stdout(&run(
        Command::new("python3").args([
            "-c",
            "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('META-INF/MANIFEST.MF').decode())",
            jar.to_str().unwrap(),
        ]),
        Duration::from_secs(60),
    ));
    assert!(
        manifest.contains(&format!("Implementation-Version: {}\r\n", version())),
        "{manifest}"
    );
    assert!(
        manifest.contains("Class-Path: jna.jar spymemcached.jar\r\n"),
        "{manifest}"
    );
}

#[test]
fn pom_readme_and_packages_carry_the_cargo_version() {
    let pom = std::fs::read_to_string(common::repo_root().join("bindings/java/pom.xml")).unwrap();
    // The project's own coordinates come before <dependencies>.
    let head = &pom[..pom.find("<dependencies>").expect("dependencies")];
    assert!(head.contains("<groupId>net.ketama</groupId>"), "{head}");
    assert!(head.contains("<artifactId>ketama</artifactId>"), "{head}");
    assert!(
        head.contains(&format!("<version>{}</version>", version())),
        "pom.xml version is not Cargo.toml's {}",
        version()
    );
    // Well-formed XML.
    run(
        Command::new("python3").args([
            "-c",
            "import sys, xml.etree.ElementTree as t; t.parse(sys.argv[1])",
            common::repo_root()
                .join("bindings/java/pom.xml")
                .to_str()
                .unwrap(),
        ]),
        Duration::from_secs(30),
    );
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).unwrap();
    assert!(readme.contains(&format!("libketama1_{}_", version())));
    assert!(readme.contains(&format!("net.ketama:ketama:{}", version())));
    // The original libketama's Debian packages were version 1.0-1: ours
    // must sort after it so that installing them upgrades the original's.
    let status = Command::new("dpkg")
        .args(["--compare-versions", version(), "gt", "1.0-1"])
        .status()
        .unwrap();
    assert!(status.success(), "{} does not upgrade 1.0-1", version());
}

/// `dpkg --root=ROOT ARGS` with ROOT's own package database; maintainer
/// scripts (there are none) would run without chroot.
fn dpkg_in(root: &Path, args: &[&str], packages: &[&Path]) -> String {
    let out = run(
        Command::new("dpkg")
            .arg(format!("--root={}", root.display()))
            .args(["--force-script-chrootless", "--force-not-root"])
            .args(args)
            .args(packages),
        Duration::from_secs(120),
    );
    stdout(&out)
}

/// A package laid out as the original libketama's debian/ directory lays
/// out its namesake (version 1.0-1, files in /usr/lib, no multiarch).
fn original_package(
    dir: &Path,
    control: &str,
    files: &[(&str, Option<&Path>, Option<&str>)],
) -> PathBuf {
    let tree = dir.join("tree");
    let _ = std::fs::remove_dir_all(&tree);
    std::fs::create_dir_all(tree.join("DEBIAN")).unwrap();
    std::fs::write(tree.join("DEBIAN/control"), control).unwrap();
    for (path, source, link) in files {
        let target = tree.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        match (source, link) {
            (Some(source), _) => {
                std::fs::copy(source, &target).unwrap();
            }
            (None, Some(link)) => std::os::unix::fs::symlink(link, &target).unwrap(),
            _ => unreachable!(),
        }
    }
    let deb = dir.with_extension("deb");
    run(
        Command::new("dpkg-deb")
            .args(["--root-owner-group", "--build"])
            .arg(&tree)
            .arg(&deb),
        Duration::from_secs(60),
    );
    deb
}

#[test]
fn installing_over_the_original_packages_upgrades_them_in_place() {
    // The original's library: its own C code, as pip compiled it for the oracle.
    let module = run(
        Command::new(oracle_python()).args(["-c", "import ketama; print(ketama.__file__)"]),
        Duration::from_secs(60),
    );
    let original_library = PathBuf::from(stdout(&module).trim());
    let work = common::scratch_dir("original-packages");
    let original_header = work.join("ketama.h");
    std::fs::write(
        &original_header,
        "/* the original libketama's ketama.h */\n",
    )
    .unwrap();
    let control = |package: &str, section: &str, depends: &str| {
        format!(
            "Package: {package}\nSource: libketama\nVersion: 1.0-1\nArchitecture: {}\n\
             Maintainer: libketama <libketama@example.org>\nSection: {section}\n{depends}\
             Description: a consistent hashing library\n libketama is a library for consistently hashing data across nodes.\n",
            arch()
        )
    };
    let original_lib = original_package(
        &work.join("libketama1"),
        &control("libketama1", "libs", ""),
        &[("usr/lib/libketama.so.1", Some(&original_library), None)],
    );
    let original_dev = original_package(
        &work.join("libketama-dev"),
        &control(
            "libketama-dev",
            "libdevel",
            "Depends: libketama1 (= 1.0-1)\n",
        ),
        &[
            ("usr/include/ketama.h", Some(&original_header), None),
            ("usr/lib/libketama.so", None, Some("libketama.so.1")),
        ],
    );

    let root = common::scratch_dir("dpkg-root");
    let admin = root.join("var/lib/dpkg");
    for dir in ["info", "updates", "triggers"] {
        std::fs::create_dir_all(admin.join(dir)).unwrap();
    }
    std::fs::write(admin.join("status"), "").unwrap();
    std::fs::write(admin.join("available"), "").unwrap();
    dpkg_in(&root, &["--install"], &[&original_lib, &original_dev]);
    assert!(root.join("usr/lib/libketama.so.1").exists());

    // Ours over them, in one command (libc6 and libgcc-s1 are not in this
    // root's database, hence --force-depends).
    let ours = [deb("libketama1"), deb("libketama-dev")];
    let log = dpkg_in(
        &root,
        &["--force-depends", "--install"],
        &[&ours[0], &ours[1]],
    );
    for package in ["libketama1", "libketama-dev"] {
        assert!(
            log.contains(&format!(
                "Unpacking {package}:{} ({}) over (1.0-1)",
                arch(),
                version()
            )),
            "{log}"
        );
        let status = dpkg_in(&root, &["--status"], &[Path::new(package)]);
        assert!(status.contains("Status: install ok installed"), "{status}");
        assert!(
            status.contains(&format!("Version: {}\n", version())),
            "{status}"
        );
    }
    // The original's files are gone, the header is ours.
    assert!(!root.join("usr/lib/libketama.so.1").exists());
    assert!(
        root.join("usr/lib/libketama.so")
            .symlink_metadata()
            .is_err()
    );
    assert_eq!(
        std::fs::read(root.join("usr/include/ketama.h")).unwrap(),
        std::fs::read(common::repo_root().join("include/ketama.h")).unwrap()
    );
    assert!(libdir(&root).join("libketama.so.1").exists());

    // And removing ours leaves nothing behind.
    dpkg_in(&root, &["--purge", "libketama-dev", "libketama1"], &[]);
    let left: Vec<PathBuf> = ["usr/lib", "usr/include", "usr/share/doc"]
        .iter()
        .map(|d| root.join(d))
        .filter(|d| d.exists())
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .collect();
    assert!(left.is_empty(), "left after purge: {left:?}");
}

#[test]
fn composer_validates_and_installs_the_binding_from_a_path_repository() {
    common::require_tool("composer", "composer");
    common::require_tool("php", "php8.2-cli");
    built();
    let php_dir = common::repo_root().join("bindings/php");
    let home = common::scratch_dir("composer-home");
    let composer = |dir: &Path, args: &[&str]| {
        run(
            Command::new("composer")
                .args(args)
                .args(["--no-interaction", "--no-ansi"])
                .current_dir(dir)
                .env("COMPOSER_HOME", home.join("home"))
                .env("COMPOSER_CACHE_DIR", home.join("cache"))
                .env("COMPOSER_ALLOW_SUPERUSER", "1")
                .env("COMPOSER_DISABLE_NETWORK", "1"),
            Duration::from_secs(300),
        )
    };
    composer(&php_dir, &["validate", "--strict"]);
    let project = common::scratch_dir("composer-project");
    std::fs::write(
        project.join("composer.json"),
        format!(
            r#"{{
    "repositories": [
        {{"type": "path", "url": "{}", "options": {{"symlink": false}}}},
        {{"packagist.org": false}}
    ],
    "require": {{"ketama/ketama": "*@dev"}}
}}
"#,
            php_dir.display()
        ),
    )
    .unwrap();
    composer(&project, &["install", "--no-progress"]);
    let script = project.join("find.php");
    std::fs::write(
        &script,
        PHP_FIND.replace("'Ketama/autoload.php'", "__DIR__ . '/vendor/autoload.php'"),
    )
    .unwrap();
    let (servers, keys) = sample(&project);
    let out = run(
        Command::new("php")
            .arg(&script)
            .arg(&servers)
            .args(&keys)
            .env(
                "KETAMA_LIBRARY",
                common::repo_root().join("target/release/libketama.so"),
            ),
        Duration::from_secs(120),
    );
    assert_answers_match_original(&stdout(&out), &servers, &keys, "PHP from Composer");
}
