//! The process's ring cache from C, in a program of its own (its counters
//! are the program's alone): the constructors by name and from PHP's
//! `serialize()` share rings with the constructors by id and from packed
//! columns, `ketama_find_server_address` answers what `ketama_find_server`
//! does, the constructors that return the ring (and `ketama_roll_file`)
//! report a failure by NULL and `ketama_last_status()`,
//! `ketama_ring_cache_get_stats` counts every build, a file edited
//! between two builds is read again once it has settled, and
//! `ketama_ring_cache_configure` bounds the cache at once without touching
//! the rings handed out.

use ketama_testkit as common;

use std::process::Command;
use std::time::Duration;

const PROGRAM: &str = r#"
#include <ketama.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int failed(const char *what)
{
    printf("FAIL %s (ketama_error: %s)\n", what, ketama_error());
    return 1;
}
#define CHECK(cond, what) do { if (!(cond)) return failed(what); } while (0)

/* Writes `text` to `path` in place, modified an hour ago, then waits past
 * the 100 ms a change takes to settle (its ctime moved now). */
static void write_settled(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    struct timeval old[2];
    gettimeofday(&old[0], NULL);
    old[0].tv_sec -= 3600;
    old[1] = old[0];
    utimes(path, old);
    usleep(200 * 1000);
}

static ketama_ring_cache_stats stats(void)
{
    ketama_ring_cache_stats s;
    memset(&s, 0xff, sizeof s);
    if (ketama_ring_cache_get_stats(&s) != KETAMA_OK) {
        printf("FAIL stats\n");
    }
    return s;
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *path = argv[1];
    write_settled(path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n");
    ketama_ring_cache_stats s = stats();
    CHECK(s.rings == 0 && s.bytes == 0 && s.hits == 0 && s.misses == 0 && s.evictions == 0, "a fresh cache");
    CHECK(s.max_rings == 64 && s.max_bytes == 256u << 20, "the default bounds");

    const ketama_ring *by_ids, *by_names, *spelled, *other;
    CHECK(ketama_ring_new_from_file(path, KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_DEFAULT, KETAMA_PARSE_STRICT, &by_ids) == KETAMA_OK, "by ids");
    CHECK(ketama_ring_new_from_file_named(path, "libketama", NULL, NULL, NULL, &by_names) == KETAMA_OK, "by names");
    CHECK(by_names == by_ids, "the ring already built, by names");
    CHECK(ketama_ring_new_from_file_named(path, "LIBKETAMA", "default", "strict", NULL, &spelled) == KETAMA_OK && spelled == by_ids,
          "names spelled out");
    s = stats();
    CHECK(s.rings == 1 && s.hits == 2 && s.misses == 1 && s.bytes > 160 * 2 * 8, "one ring built, two found");
    CHECK(ketama_ring_new_from_file_named(path, "libketama", "md5", "libketama", NULL, &other) == KETAMA_OK && other != by_ids,
          "another reading is another ring");
    CHECK(ketama_ring_new_from_file_named(path, "no-such-flavour", NULL, NULL, NULL, &other) == KETAMA_ERR_INVALID_ARGUMENT
          && strstr(ketama_error(), "unknown flavour \"no-such-flavour\"") != NULL, "an unknown flavour");
    CHECK(ketama_ring_new_from_file_named(path, "libketama", NULL, "no-such-reading", NULL, &other) == KETAMA_ERR_INVALID_ARGUMENT
          && strstr(ketama_error(), "no-such-reading") != NULL, "an unknown reading");
    CHECK(ketama_ring_new_from_file_named(path, "twemproxy", "sha1", NULL, NULL, &other) == KETAMA_ERR_INVALID_ARGUMENT,
          "a hash the flavour's peer lacks");
    /* Names are resolved once per process and kept: each spelling still
       means what it names, however many there were since. */
    const ketama_ring *md5_ring, *kept;
    CHECK(ketama_ring_new_from_file_named(path, "libketama", "md5", "libketama", NULL, &md5_ring) == KETAMA_OK
          && md5_ring == other, "the same names again");
    const ketama_ring *own_hash;
    CHECK(ketama_ring_new_from_file_named(path, "libketama", NULL, "libketama", NULL, &own_hash) == KETAMA_OK
          && own_hash != by_ids && own_hash != md5_ring, "a hash named or not: two configurations");
    CHECK(ketama_ring_new_from_file_named(path, "libketama", NULL, "libketama", NULL, &kept) == KETAMA_OK
          && kept == own_hash, "each found again");
    ketama_ring_free(kept);
    int spellings_ok = 1;
    for (unsigned variant = 0; variant < 40; variant++) {
        char name[] = "libketama";
        for (unsigned letter = 0; letter < 9; letter++) {
            if (variant & (1u << (letter % 6))) {
                name[letter] = (char)(name[letter] - 'a' + 'A');
            }
        }
        const char *reading = variant % 2 ? "strict" : NULL;
        spellings_ok &= ketama_ring_new_from_file_named(path, name, variant % 3 ? "default" : NULL, reading, NULL, &kept) == KETAMA_OK
                        && kept == by_ids;
        ketama_ring_free(kept);
        spellings_ok &= ketama_ring_new_from_file_named(path, name, NULL, "no-such-reading", NULL, &kept) == KETAMA_ERR_INVALID_ARGUMENT;
    }
    CHECK(spellings_ok, "forty spellings of the same names, each a hit, a bad reading refused each time");
    CHECK(ketama_ring_new_from_file_named(path, "libketama", "md5", "libketama", "points=100", &kept) == KETAMA_ERR_INVALID_ARGUMENT,
          "options make other names: libketama's points are fixed");

    ketama_server_ref ref;
    CHECK(ketama_find_server(by_ids, "user:7", 6, &ref) == KETAMA_OK, "find");
    const char *address = ketama_find_server_address(by_ids, "user:7", 6);
    CHECK(address == ref.address && strlen(address) == ref.address_len, "the address find_server answers");
    CHECK(ketama_find_server_address(NULL, "user:7", 6) == NULL && strstr(ketama_error(), "ring") != NULL, "a NULL ring");

    const char *addresses = "10.0.0.1:11211\0" "10.0.0.2:11211";
    const char *weights = "100\0" "100";
    const char *serialized = "a:2:{s:14:\"10.0.0.1:11211\";i:100;s:14:\"10.0.0.2:11211\";i:100;}";
    const ketama_ring *packed, *from_php, *again;
    CHECK(ketama_ring_new_packed(2, addresses, 29, weights, 7, NULL, 0, 0, 0, NULL, &packed) == KETAMA_OK, "packed");
    CHECK(ketama_ring_new_serialized(serialized, strlen(serialized), "libketama", NULL, NULL, &from_php) == KETAMA_OK
          && from_php == packed, "the same list serialized is the same ring");
    CHECK(ketama_ring_new_serialized(serialized, strlen(serialized), "libketama", NULL, NULL, &again) == KETAMA_OK
          && again == packed, "and found by its bytes");
    CHECK(ketama_ring_new_serialized("a:1:{i:0;d:1.5;}", 16, "libketama", NULL, NULL, &other) == KETAMA_ERR_INVALID_ARGUMENT
          && strstr(ketama_error(), "at byte 9") != NULL, "an entry of no form read");
    s = stats();
    CHECK(s.hits == 46 && s.misses == 4, "the lists counted");

    /* The constructors that return the ring (NULL on failure, the status in
       ketama_last_status()) answer from the same cache. */
    const ketama_ring *returned = ketama_ring_from_file_named(path, "libketama", NULL, NULL, NULL);
    CHECK(returned == by_ids && ketama_last_status() == KETAMA_ERR_INVALID_ARGUMENT, "a ring returned; the last failure's status kept");
    ketama_ring_free(returned);
    returned = ketama_ring_from_serialized(serialized, strlen(serialized), "libketama", NULL, NULL);
    CHECK(returned == packed, "a list's ring returned");
    ketama_ring_free(returned);
    CHECK(ketama_ring_from_file_named(path, "no-such-flavour", NULL, NULL, NULL) == NULL
          && ketama_last_status() == KETAMA_ERR_INVALID_ARGUMENT && strstr(ketama_error(), "no-such-flavour") != NULL,
          "NULL for an unknown flavour, with its status and message");
    CHECK(ketama_ring_from_file_named("/nonexistent/servers", "libketama", NULL, NULL, NULL) == NULL
          && ketama_last_status() == KETAMA_ERR_IO && strstr(ketama_error(), "/nonexistent/servers") != NULL,
          "NULL for a missing file");
    CHECK(ketama_ring_from_serialized("a:1:{i:0;d:1.5;}", 16, "libketama", NULL, NULL) == NULL
          && ketama_last_status() == KETAMA_ERR_INVALID_ARGUMENT && strstr(ketama_error(), "at byte 9") != NULL,
          "NULL for an entry of no form");
    ketama_continuum continuum = ketama_roll_file(path);
    CHECK(continuum != NULL && ketama_last_status() == KETAMA_OK && ketama_error()[0] == '\0', "a continuum returned, no error left");
    mcs *found = ketama_get_server("user:7", continuum);
    CHECK(found != NULL && strcmp(found->ip, address) == 0, "the server ketama_roll's continuum answers");
    ketama_smoke(continuum);
    CHECK(ketama_roll_file("/nonexistent/servers") == NULL && ketama_last_status() == KETAMA_ERR_IO
          && strstr(ketama_error(), "/nonexistent/servers") != NULL, "NULL for a file ketama_roll cannot read");
    s = stats();
    CHECK(s.hits == 48 && s.misses == 5, "the rings returned counted as hits, the missing file as a miss");

    write_settled(path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n");
    const ketama_ring *edited;
    CHECK(ketama_ring_new_from_file_named(path, "libketama", NULL, NULL, NULL, &edited) == KETAMA_OK, "after the edit");
    CHECK(edited != by_ids && ketama_ring_server_count(edited) == 3 && ketama_ring_server_count(by_ids) == 2,
          "the edit is read, the ring handed out before untouched");
    CHECK(stats().misses == 6, "the edit read again");

    CHECK(ketama_ring_cache_configure(1, 1u << 30) == KETAMA_OK, "configure");
    s = stats();
    CHECK(s.rings == 1 && s.max_rings == 1 && s.max_bytes == 1u << 30 && s.evictions >= 3, "lowered bounds apply at once");
    CHECK(ketama_ring_cache_configure(0, 0) == KETAMA_OK && stats().rings == 0 && stats().bytes == 0, "nothing kept");
    const ketama_ring *first, *second;
    CHECK(ketama_ring_new_from_file_named(path, "libketama", NULL, NULL, NULL, &first) == KETAMA_OK
          && ketama_ring_new_from_file_named(path, "libketama", NULL, NULL, NULL, &second) == KETAMA_OK
          && first != second, "each build its own ring");
    CHECK(strcmp(ketama_find_server_address(by_ids, "user:7", 6), address) == 0 && ketama_ring_server_count(packed) == 2,
          "evicted rings stay valid for their holders");
    const ketama_ring *rings[] = {by_ids, by_names, spelled, other, md5_ring, own_hash, packed, from_php, again, edited, first, second};
    for (size_t i = 0; i < sizeof rings / sizeof rings[0]; i++) {
        ketama_ring_free(rings[i]);
    }
    printf("ok\n");
    return 0;
}
"#;

#[test]
fn the_cache_is_shared_counted_followed_and_bounded_from_c() {
    let dir = common::scratch_dir("ring-cache-c");
    let source = dir.join("ring_cache.c");
    std::fs::write(&source, PROGRAM).unwrap();
    let program = common::compile_c(&[&source], "ring_cache", &[]);
    let out = common::run_with_timeout(
        Command::new(program)
            .arg(dir.join("servers"))
            .env_remove("KETAMA_RING_CACHE_RINGS")
            .env_remove("KETAMA_RING_CACHE_BYTES"),
        Duration::from_secs(30),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
