//! Replica lists (`Ring::replicas`) from every entry point: for every
//! flavour whose server files are read strictly, ten servers and 500 keys,
//! 0 to 12 replicas, the C call `ketama_find_replicas` answers, and PHP
//! (`Ring::replicas`), Python (`Ring.replicas`), Java (`Ring.replicas`,
//! every case in one JVM) and `ketama find --replicas N` answer the same
//! lists.

use ketama_testkit as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::java::java_command;
use common::{cli, repo_root, require_tool, run_with_timeout, scratch_dir, shared_library_dir};
use ketama::ring::{
    ketama_find_replicas, ketama_ring, ketama_ring_free, ketama_ring_new_from_file,
};
use ketama::status::ketama_status::KETAMA_OK;
use ketama_core::Flavour;
use ketama_core::parser::ParseMode;

const SIZES: [usize; 6] = [0, 1, 2, 3, 10, 12];

fn keys() -> Vec<String> {
    (0..500)
        .map(|i| match i % 3 {
            0 => format!("key:{i}"),
            1 => format!("user/{}/profile", i * 7919),
            _ => format!("ключ-{i}-ü€"),
        })
        .collect()
}

/// What the C call lists: `KEY<TAB>N<TAB>I,J,...` per key and count.
fn c_lists(file: &Path, flavour: Flavour, keys: &[String]) -> String {
    let path = std::ffi::CString::new(file.to_str().unwrap()).unwrap();
    let mut ring: *const ketama_ring = std::ptr::null();
    // SAFETY: a NUL-terminated path and a writable out-pointer.
    let status = unsafe {
        ketama_ring_new_from_file(
            path.as_ptr(),
            flavour.id(),
            0,
            ParseMode::Strict.id(),
            &mut ring,
        )
    };
    assert_eq!(status, KETAMA_OK, "{}", flavour.name());
    let mut out = String::new();
    for key in keys {
        for n in SIZES {
            let mut indices = [0u32; 16];
            let mut count = 0usize;
            // SAFETY: `ring` is live; the key, `indices` and `count` are
            // valid for what is passed.
            let status = unsafe {
                ketama_find_replicas(
                    ring,
                    key.as_ptr().cast(),
                    key.len(),
                    n,
                    indices.as_mut_ptr(),
                    indices.len(),
                    &mut count,
                )
            };
            assert_eq!(status, KETAMA_OK, "{} {key} {n}", flavour.name());
            let listed: Vec<String> = indices[..count].iter().map(u32::to_string).collect();
            out += &format!("{key}\t{n}\t{}\n", listed.join(","));
        }
    }
    // SAFETY: the ring handed out above, released once.
    unsafe { ketama_ring_free(ring) };
    out
}

/// Runs `cmd` with the keys on stdin; fails with its stderr.
fn run(cmd: &mut Command, input: &Path, what: &str) {
    let out = run_with_timeout(
        cmd.stdin(Stdio::from(std::fs::File::open(input).unwrap())),
        Duration::from_secs(300),
    );
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_language_lists_the_replicas_the_c_call_lists() {
    require_tool("php", "php8.2-cli");
    let dir = scratch_dir("bindings-replicas");
    let keys = keys();
    let input = dir.join("keys.txt");
    std::fs::write(
        &input,
        keys.iter().map(|k| format!("{k}\n")).collect::<String>(),
    )
    .unwrap();
    let file = dir.join("servers");
    let addresses: Vec<String> = (0..10)
        .map(|i| format!("10.7.0.{i}:{}", 11211 + i % 2))
        .collect();
    std::fs::write(
        &file,
        addresses
            .iter()
            .map(|a| format!("{a}\t1\n"))
            .collect::<String>(),
    )
    .unwrap();
    let flavours: Vec<Flavour> = Flavour::ALL
        .iter()
        .copied()
        .filter(|f| f.file_syntax() == ParseMode::Strict)
        .collect();
    let languages = ["php", "python", "java"];
    let mut manifests = Vec::new();
    for language in languages {
        let manifest: String = flavours
            .iter()
            .map(|f| {
                let out = dir.join(format!("{language}-{}.out", f.name()));
                format!("{}\t{}\t{}\n", file.display(), f.name(), out.display())
            })
            .collect();
        let path = dir.join(format!("{language}-cases.tsv"));
        std::fs::write(&path, manifest).unwrap();
        manifests.push(path);
    }
    let sizes: Vec<String> = SIZES.iter().map(usize::to_string).collect();
    let sizes = sizes.join(",");
    let library = shared_library_dir().join("libketama.so");
    run(
        Command::new("php")
            .arg(repo_root().join("bindings/php/tests/find_replicas.php"))
            .args([sizes.as_str(), manifests[0].to_str().unwrap()])
            .env("KETAMA_LIBRARY", &library),
        &input,
        "PHP",
    );
    run(
        common::python_command(&repo_root().join("bindings/python/tests/find_replicas.py"))
            .args([sizes.as_str(), manifests[1].to_str().unwrap()]),
        &input,
        "Python",
    );
    run(
        java_command(&[], "net.ketama.FindReplicas")
            .args([sizes.as_str(), manifests[2].to_str().unwrap()]),
        &input,
        "Java",
    );
    let mut compared = 0;
    for &flavour in &flavours {
        let c = c_lists(&file, flavour, &keys);
        for language in languages {
            let path: PathBuf = dir.join(format!("{language}-{}.out", flavour.name()));
            let theirs = std::fs::read_to_string(&path).unwrap();
            let differing = c
                .lines()
                .zip(theirs.lines())
                .filter(|(a, b)| a != b)
                .count();
            assert!(
                differing == 0 && c.lines().count() == theirs.lines().count(),
                "{}: {language} lists {differing} of {} differently; first: {:?}",
                flavour.name(),
                c.lines().count(),
                c.lines().zip(theirs.lines()).find(|(a, b)| a != b)
            );
        }
        // The CLI prints addresses: KEY<TAB>SERVER<TAB>SERVER...
        for n in [1, 3, 12] {
            let out = run_with_timeout(
                Command::new(cli())
                    .args([
                        "find",
                        "--flavor",
                        flavour.name(),
                        "--replicas",
                        &n.to_string(),
                    ])
                    .arg(&file)
                    .stdin(Stdio::from(std::fs::File::open(&input).unwrap())),
                Duration::from_secs(120),
            );
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let expected: String = c
                .lines()
                .filter(|line| line.split('\t').nth(1) == Some(&n.to_string()))
                .map(|line| {
                    let mut fields = line.split('\t');
                    let key = fields.next().unwrap();
                    let listed = fields.nth(1).unwrap();
                    let servers: Vec<&str> = listed
                        .split(',')
                        .map(|i| addresses[i.parse::<usize>().unwrap()].as_str())
                        .collect();
                    format!("{key}\t{}\n", servers.join("\t"))
                })
                .collect();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected,
                "{} CLI n {n}",
                flavour.name()
            );
        }
        compared += c.lines().count();
    }
    eprintln!(
        "replica lists: {} flavours, {compared} lists per language, C = PHP = Python = Java = CLI",
        flavours.len()
    );
    assert!(flavours.len() > 30, "only {} flavours", flavours.len());
}
