//! The Debian packages of `make deb` (libketama1, libketama-dev, ketama,
//! libketama-java, php-ketama) and `make java` (target/ketama.jar), built
//! once for the whole test binary ([`built`]): each package's control
//! fields, file list and permissions (`dpkg-deb`), the library's shlibs,
//! symbols and ldconfig trigger, lintian with no errors, and the version
//! every package, the pom and the README carry. The packages at work are
//! in `installed.rs`, the upgrade over the original's in `upgrade.rs`.

use ketama_testkit as common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

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

pub(crate) fn arch() -> &'static str {
    static ARCH: OnceLock<String> = OnceLock::new();
    ARCH.get_or_init(|| dpkg_architecture("DEB_HOST_ARCH"))
}

pub(crate) fn multiarch() -> &'static str {
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
pub(crate) fn unpack(name: &str, packages: &[&str]) -> PathBuf {
    let root = common::scratch_dir(&format!("root-{name}"));
    for package in packages {
        run(
            Command::new("dpkg").arg("-x").arg(deb(package)).arg(&root),
            Duration::from_secs(60),
        );
    }
    root
}

pub(crate) fn libdir(root: &Path) -> PathBuf {
    root.join("usr/lib").join(multiarch())
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
