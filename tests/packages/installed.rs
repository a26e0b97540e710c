//! The packages at work: unpacked with `dpkg -x` into temporary roots
//! (nothing is installed on the machine), C programs build with the
//! installed pkg-config file and header and run on the installed library,
//! PHP and Java run from the installed layout, and the README's Java lines
//! compile and run. Their answers are compared with the original libketama
//! C code (the oracle, PyPI `ketama==0.1.1`).

use ketama_testkit as common;
use ketama_testkit::oracle_lists;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::debian::{built, libdir, multiarch, run, stdout, unpack, version};
use oracle_lists::{equal, hex_encode, lines, oracle_python};

/// A server file (5 servers, one weighted differently) and keys to look up.
pub(crate) fn sample(dir: &Path) -> (PathBuf, Vec<String>) {
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
pub(crate) fn assert_answers_match_original(
    output: &str,
    servers: &Path,
    keys: &[String],
    who: &str,
) {
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

pub(crate) const PHP_FIND: &str = r#"<?php
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
