//! A continuum shared between processes, from C: two programs build the
//! same 10,000-server libketama ring from one file through the process's
//! ring cache (`KETAMA_SHARED_RINGS` naming a scratch directory). The
//! first rolls and publishes the image, and maps it; the second, while the
//! first still runs, attaches (`ketama_ring_cache_sharing.attached`), answers
//! 100,000 keys as the first and as a third with sharing off (so does
//! `ketama_roll`'s continuum of the file: its ring is mapped too, and its
//! `mcs` records copy-on-write, a write through `mcs*` the writer's own),
//! and its
//! mapping of the image (in `/proc/self/maps` by the image's path) is all
//! shared pages: `/proc/self/smaps` gives it no private page and a Pss of
//! half its Rss.

use ketama_testkit as common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const PROGRAM: &str = r#"
#include <ketama.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Prints `label` and the first mapping whose path starts with `dir` (or,
 * `dir` NULL, the mapping holding `addr`), its path and its Rss, Pss,
 * shared and private kB from /proc/self/smaps; "`label` none" if none. */
static void print_mapping_of(const char *label, const char *dir, const void *addr)
{
    FILE *smaps = fopen("/proc/self/smaps", "r");
    char line[4096], path[4096] = "";
    long rss = -1, pss = -1, shared = 0, private_kb = 0, value;
    unsigned long lo, hi, at = (unsigned long) addr;
    int in = 0;
    while (smaps && fgets(line, sizeof line, smaps)) {
        char *slash = strchr(line, '/');
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) { /* a mapping's header line */
            if (in) break;
            if (dir ? slash && strncmp(slash, dir, strlen(dir)) == 0 : lo <= at && at < hi) {
                in = 1;
                snprintf(path, sizeof path, "%s", slash ? slash : "(anonymous)");
                path[strcspn(path, "\n")] = 0;
            }
        } else if (in && sscanf(line, "Rss: %ld kB", &value) == 1) {
            rss = value;
        } else if (in && sscanf(line, "Pss: %ld kB", &value) == 1) {
            pss = value;
        } else if (in && (sscanf(line, "Shared_Clean: %ld kB", &value) == 1 || sscanf(line, "Shared_Dirty: %ld kB", &value) == 1)) {
            shared += value;
        } else if (in && (sscanf(line, "Private_Clean: %ld kB", &value) == 1 || sscanf(line, "Private_Dirty: %ld kB", &value) == 1)) {
            private_kb += value;
        }
    }
    if (smaps) fclose(smaps);
    if (in) printf("%s %s rss=%ld pss=%ld shared=%ld private=%ld\n", label, path, rss, pss, shared, private_kb);
    else printf("%s none\n", label);
}

/* Rolls `path` with ketama_roll and prints the sharing counters after it
 * and a digest of the servers its continuum gives 100,000 keys. */
static ketama_continuum roll_compat(const char *path)
{
    ketama_continuum continuum;
    if (ketama_roll(&continuum, (char *) path) != 1) {
        printf("FAIL roll: %s\n", ketama_error());
        exit(1);
    }
    uint64_t compat = 14695981039346656037ull;
    char key[32];
    for (int i = 0; i < 100000; i++) {
        snprintf(key, sizeof key, "user:%d", i);
        mcs *found = ketama_get_server(key, continuum);
        for (const char *c = found->ip; *c; c++) compat = (compat ^ (unsigned char) *c) * 1099511628211ull;
        compat = (compat ^ 0xff) * 1099511628211ull;
    }
    ketama_ring_cache_sharing s;
    if (ketama_ring_cache_get_sharing(&s) != KETAMA_OK) exit(1);
    printf("compat_attached=%llu compat_rolled=%llu compat_digest=%016llx\n", (unsigned long long) s.attached,
           (unsigned long long) s.rolled, (unsigned long long) compat);
    return continuum;
}

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    const ketama_ring *ring;
    if (ketama_ring_new_from_file_named(argv[1], "libketama", NULL, NULL, NULL, &ring) != KETAMA_OK) {
        printf("FAIL build: %s\n", ketama_error());
        return 1;
    }
    ketama_ring_cache_sharing s;
    if (ketama_ring_cache_get_sharing(&s) != KETAMA_OK) return 1;
    printf("attached=%llu rolled=%llu enabled=%d threshold=%zu\n", (unsigned long long) s.attached,
           (unsigned long long) s.rolled, (int) s.enabled, s.threshold_bytes);
    /* FNV-1a over the addresses of 100,000 keys' servers. */
    uint64_t digest = 14695981039346656037ull;
    char key[32];
    for (int i = 0; i < 100000; i++) {
        int len = snprintf(key, sizeof key, "user:%d", i);
        const char *address = ketama_find_server_address(ring, key, (size_t) len);
        if (!address) return 1;
        for (const char *c = address; *c; c++) digest = (digest ^ (unsigned char) *c) * 1099511628211ull;
        digest = (digest ^ 0xff) * 1099511628211ull;
    }
    printf("digest=%016llx\n", (unsigned long long) digest);
    print_mapping_of("mapped", argv[2], NULL);
    /* ketama_roll's continuum of the same file: its ring is built as the
       cache builds, so it maps the ring's image too, and its mcs records are
       mapped copy-on-write from their own image; the same 100,000 answers. */
    ketama_continuum continuum = roll_compat(argv[1]);
    print_mapping_of("records", NULL, continuum->array);
    if (strcmp(argv[3], "exit") == 0) {
        /* A client may write through mcs*: the page becomes its own. */
        ((mcs *) continuum->array)[0].ip[0] = '#';
        print_mapping_of("written", NULL, continuum->array);
    }
    if (strcmp(argv[3], "hold") == 0) {
        /* Keeps the ring mapped until the test closes standard input (or two minutes pass). */
        printf("ready\n");
        fflush(stdout);
        alarm(120);
        while (getchar() != EOF) {}
    }
    ketama_smoke(continuum);
    ketama_ring_free(ring);
    return 0;
}
"#;

/// What one program printed: its counts, its digest and its mapping line.
#[derive(Debug)]
struct Report {
    attached: u64,
    rolled: u64,
    enabled: bool,
    threshold: usize,
    digest: String,
    mapping: String,
}

fn report(stdout: &str) -> Report {
    let field = |prefix: &str| {
        stdout
            .lines()
            .flat_map(|l| l.split(' '))
            .find_map(|w| w.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix} in {stdout}"))
            .to_string()
    };
    Report {
        attached: field("attached=").parse().unwrap(),
        rolled: field("rolled=").parse().unwrap(),
        enabled: field("enabled=") == "1",
        threshold: field("threshold=").parse().unwrap(),
        digest: field("digest="),
        mapping: stdout
            .lines()
            .find(|l| l.starts_with("mapped "))
            .unwrap_or_else(|| panic!("no mapping line in {stdout}"))
            .to_string(),
    }
}

/// The `name=N` figure of a mapping line.
fn kb(mapping: &str, name: &str) -> i64 {
    mapping
        .split(' ')
        .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {name} in {mapping}"))
        .parse()
        .unwrap()
}

#[test]
fn a_second_process_maps_the_ring_the_first_rolled() {
    let scratch = common::scratch_dir("shared-rings-c");
    let source = scratch.join("shared_rings.c");
    std::fs::write(&source, PROGRAM).unwrap();
    let program = common::compile_c(&[&source], "shared_rings", &[]);
    let servers = scratch.join("servers");
    let list: String = (0..10_000)
        .map(|i| format!("10.{}.{}.{}:11211\t100\n", i >> 16, (i >> 8) & 255, i & 255))
        .collect();
    std::fs::write(&servers, list).unwrap();
    // Settled: modified an hour ago, and its ctime past the settling time.
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let file = std::fs::File::options().write(true).open(&servers).unwrap();
    file.set_modified(hour_ago).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let rings = scratch.join("rings");
    let _ = std::fs::remove_dir_all(&rings);
    let command = |sharing: &std::path::Path, hold: &str| {
        let mut command = Command::new(&program);
        command
            .arg(&servers)
            .arg(&rings)
            .arg(hold)
            .env("KETAMA_SHARED_RINGS", sharing)
            .env_remove("KETAMA_RING_CACHE_RINGS")
            .env_remove("KETAMA_RING_CACHE_BYTES");
        command
    };

    // The first rolls, publishes and maps the image; it holds it mapped.
    let mut first = command(&rings, "hold")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let pid = first.id();
    let stdout = first.stdout.take().unwrap();
    let (lines, printed) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut first_out = String::new();
    while !first_out.contains("ready") {
        match printed.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => first_out += &(line + "\n"),
            Err(_) => {
                let _ = first.kill();
                let _ = first.wait();
                panic!("the first program (pid {pid}) did not get ready: {first_out}");
            }
        }
    }
    let first_report = report(&first_out);
    // The image of the records the first published, as it was written.
    let records_line = |out: &str, label: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{label} ")))
            .unwrap_or_else(|| panic!("no {label} line in {out}"))
            .to_string()
    };
    let records_image = records_line(&first_out, "records")
        .split(' ')
        .nth(1)
        .unwrap()
        .to_string();
    let image_before = std::fs::read(&records_image).unwrap();

    // The second, while the first runs, attaches.
    let out = common::run_with_timeout(&mut command(&rings, "exit"), Duration::from_secs(60));
    let second_out = String::from_utf8_lossy(&out.stdout).into_owned();
    // The first lets go of the image; killed by its PID if it does not end.
    drop(first.stdin.take());
    let started = std::time::Instant::now();
    while first.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = first.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = first.wait();
    assert!(
        out.status.success(),
        "{second_out}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let second = report(&second_out);

    // Sharing off: rolled privately, nothing mapped, the same answers.
    let off = common::run_with_timeout(
        &mut command(std::path::Path::new("off"), "exit"),
        Duration::from_secs(60),
    );
    let private_out = String::from_utf8_lossy(&off.stdout).into_owned();
    let private = report(&private_out);

    assert_eq!(
        (first_report.attached, first_report.rolled),
        (0, 1),
        "{first_out}"
    );
    assert_eq!((second.attached, second.rolled), (1, 0), "{second_out}");
    assert_eq!((private.attached, private.rolled), (0, 1));
    assert!(first_report.enabled && second.enabled && !private.enabled);
    // The default threshold: 1 MiB of points and owners.
    assert_eq!(second.threshold, 1 << 20);
    assert_eq!(private.mapping, "mapped none");
    assert_eq!(second.digest, first_report.digest);
    assert_eq!(second.digest, private.digest);
    // ketama_roll's continuum: mapped from the image where sharing is on,
    // rolled where it is off; the same servers either way.
    let compat = |out: &str| {
        let field = |name: &str| {
            out.split_whitespace()
                .find_map(|w| w.strip_prefix(name))
                .unwrap_or_else(|| panic!("no {name} in {out}"))
                .to_string()
        };
        (
            field("compat_attached=").parse::<u64>().unwrap(),
            field("compat_rolled=").parse::<u64>().unwrap(),
            field("compat_digest="),
        )
    };
    assert_eq!(
        compat(&second_out),
        (2, 0, second.digest.clone()),
        "{second_out}"
    );
    assert_eq!(
        compat(&first_out),
        (1, 1, first_report.digest.clone()),
        "{first_out}"
    );
    // The records: the first published them and maps them; the second maps
    // the same image, every page shared with the first and none its own,
    // until it writes through mcs* (one page its own, the image untouched).
    assert!(
        records_image.starts_with(rings.to_str().unwrap()),
        "{first_out}"
    );
    let mapped = records_line(&second_out, "records");
    assert_eq!(
        mapped.split(' ').nth(1).unwrap(),
        records_image,
        "{second_out}"
    );
    assert_eq!(kb(&mapped, "private"), 0, "{mapped}");
    assert!(kb(&mapped, "rss") >= 40_000, "45 MB of records: {mapped}");
    assert!(kb(&mapped, "pss") * 2 <= kb(&mapped, "rss") + 8, "{mapped}");
    let written = records_line(&second_out, "written");
    assert!(kb(&written, "private") >= 4, "{written}");
    assert_eq!(std::fs::read(&records_image).unwrap(), image_before);
    assert!(
        !records_line(&private_out, "records").contains(rings.to_str().unwrap()),
        "sharing off: the records are the process's own: {private_out}"
    );
    assert_eq!(
        compat(&private_out),
        (0, 2, second.digest.clone()),
        "{private_out}"
    );
    // Both map the one image, by its path in the directory.
    let image = |mapping: &str| mapping.split(' ').nth(1).unwrap().to_string();
    assert!(
        image(&second.mapping).starts_with(&format!("{}/ring-", rings.display())),
        "{}",
        second.mapping
    );
    assert_eq!(image(&second.mapping), image(&first_report.mapping));
    // 1.6 M points and owners: 12.8 MB, all resident and all shared with the first.
    let (rss, pss) = (kb(&second.mapping, "rss"), kb(&second.mapping, "pss"));
    assert!(rss >= 12_000, "{}", second.mapping);
    assert_eq!(kb(&second.mapping, "private"), 0, "{}", second.mapping);
    assert_eq!(kb(&second.mapping, "shared"), rss, "{}", second.mapping);
    assert!(pss <= rss / 2 + 4, "{}", second.mapping);
    let _ = std::fs::remove_dir_all(&scratch);
}
