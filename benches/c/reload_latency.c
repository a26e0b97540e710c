/* Reload latency: how long a reader's roll takes while a writer rewrites the
 * server file in place. Not part of the test suite; scripts/reload-latency.sh
 * builds and runs it.
 *
 *   reload_latency DIR [SECONDS [CASE...]]
 *
 * For each API (the compat roll: ketama_roll + ketama_get_server +
 * ketama_smoke; the file ring: ketama_file_ring_current +
 * ketama_find_server_index + ketama_ring_free), 1 and 6 reader threads and a
 * writer that truncates and rewrites the file in place (one write, 10 or 11
 * servers alternately) then pauses 1, 20, 100 or 500 ms (and, as a
 * baseline, no writer at all), the readers call the API back to back for
 * SECONDS (default 5). Every call is timed with
 * CLOCK_MONOTONIC. Prints one Markdown table row per case: calls, p50, p99,
 * p99.9 and max latency, and failed calls (a roll returning 0, a status
 * other than KETAMA_OK / KETAMA_KEPT_LAST_GOOD, or no server for the key);
 * then, from getrusage(RUSAGE_THREAD) around each call, the calls during
 * which the reader blocked (a voluntary context switch: it slept or waited
 * for a lock or I/O) and the p99.9 and max of the calls during which it was
 * not preempted (no involuntary switch), which separate waiting in the
 * library from a busy machine's scheduling; with the writes made and how many calls
 * answered with each version of the file (10 or 11 servers). A CASE
 * (API-READERS-PAUSE, e.g. compat-6-20 or file-ring-1-0, pause 0 meaning no
 * writer) runs that case only, to run a disturbed row again. */
#define _GNU_SOURCE
#include <ketama.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum api { COMPAT, FILE_RING };

/* Call times, in ns. */
struct series {
    uint64_t *ns;
    size_t len, cap;
};

struct samples {
    struct series all;
    /* The calls during which the thread was not preempted (no involuntary
     * context switch): what the call itself cost, and whatever it waited for. */
    struct series unpreempted;
    uint64_t failed;
    uint64_t of_version[2];
    /* Calls during which the thread blocked (a voluntary context switch:
     * a sleep, a lock held by another thread, I/O). */
    uint64_t blocked;
};

struct shared {
    enum api api;
    char path[4096];
    const ketama_file_ring *file_ring;
    atomic_int stop;
    unsigned pause_ms;
    uint64_t writes;
};

struct reader {
    struct shared *shared;
    struct samples samples;
    pthread_t thread;
};

static char versions[2][512];
/* The compat continuum's point count for each version. */
static int version_points[2];

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

/* Truncates and rewrites the file in place with one write. */
static void write_in_place(const char *path, const char *content) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die(path);
    size_t len = strlen(content);
    if (write(fd, content, len) != (ssize_t)len) die("write");
    if (close(fd) != 0) die("close");
}

static void push(struct series *s, uint64_t ns) {
    if (s->len == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1 << 16;
        s->ns = realloc(s->ns, s->cap * sizeof *s->ns);
        if (!s->ns) die("realloc");
    }
    s->ns[s->len++] = ns;
}

/* Which version a server count belongs to (10 → 0, 11 → 1), or -1. */
static int version_of(size_t servers) {
    return servers == 10 ? 0 : servers == 11 ? 1 : -1;
}

static void *read_loop(void *arg) {
    struct reader *r = arg;
    struct shared *sh = r->shared;
    char key[32];
    unsigned serial = 0;
    while (!atomic_load(&sh->stop)) {
        int len = snprintf(key, sizeof key, "user:%u", serial++ % 1000);
        int ok = 0, version = -1;
        struct rusage before, after;
        getrusage(RUSAGE_THREAD, &before);
        uint64_t start = now_ns();
        if (sh->api == COMPAT) {
            ketama_continuum cont = NULL;
            if (ketama_roll(&cont, sh->path) == 1) {
                ok = ketama_get_server(key, cont) != NULL;
                version = cont->numpoints == version_points[0] ? 0 : cont->numpoints == version_points[1] ? 1 : -1;
                ketama_smoke(cont);
            }
        } else {
            const ketama_ring *ring = NULL;
            ketama_status st = ketama_file_ring_current(sh->file_ring, &ring);
            if (st == KETAMA_OK || st == KETAMA_KEPT_LAST_GOOD) {
                ok = ketama_find_server_index(ring, key, (size_t)len) >= 0;
                version = version_of(ketama_ring_server_count(ring));
                ketama_ring_free(ring);
            }
        }
        uint64_t ns = now_ns() - start;
        getrusage(RUSAGE_THREAD, &after);
        push(&r->samples.all, ns);
        if (after.ru_nvcsw != before.ru_nvcsw) r->samples.blocked++;
        if (after.ru_nivcsw == before.ru_nivcsw) push(&r->samples.unpreempted, ns);
        if (!ok) r->samples.failed++;
        if (version >= 0) r->samples.of_version[version]++;
    }
    return NULL;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A latency as text: ns, µs or ms with three significant digits. */
static void show(char *out, size_t size, uint64_t ns) {
    if (ns < 1000) snprintf(out, size, "%llu ns", (unsigned long long)ns);
    else if (ns < 1000000) snprintf(out, size, "%.3g µs", ns / 1e3);
    else snprintf(out, size, "%.4g ms", ns / 1e6);
}

static uint64_t percentile(const uint64_t *sorted, size_t len, double p) {
    size_t i = (size_t)(p * (double)(len - 1) + 0.5);
    return sorted[i < len ? i : len - 1];
}

static void run_case(const char *dir, enum api api, int readers, unsigned pause_ms, double seconds) {
    static struct shared sh;
    memset(&sh, 0, sizeof sh);
    sh.api = api;
    sh.pause_ms = pause_ms;
    snprintf(sh.path, sizeof sh.path, "%s/servers-%s-%d-%u", dir, api == COMPAT ? "compat" : "file-ring",
             readers, pause_ms);
    /* Start from version 0, last written an hour ago (settled). */
    write_in_place(sh.path, versions[0]);
    struct timespec old[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
    if (utimensat(AT_FDCWD, sh.path, old, 0) != 0) die("utimensat");
    if (api == FILE_RING) {
        if (ketama_file_ring_open(sh.path, KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_DEFAULT, KETAMA_PARSE_STRICT,
                                  KETAMA_RELOAD_KEEP_LAST_GOOD, &sh.file_ring) != KETAMA_OK) {
            fprintf(stderr, "ketama_file_ring_open: %s\n", ketama_error());
            exit(1);
        }
    } else {
        ketama_continuum cont = NULL;
        if (ketama_roll(&cont, sh.path) != 1) {
            fprintf(stderr, "ketama_roll: %s\n", ketama_error());
            exit(1);
        }
        ketama_smoke(cont);
    }
    /* The writer's first rewrite comes before the readers start, so that
     * every call is made while the writer is at work. Pause 0: no writer
     * (the baseline: what the readers' calls cost on an unchanged file). */
    uint64_t deadline = now_ns() + (uint64_t)(seconds * 1e9);
    if (pause_ms > 0) {
        sh.writes = 1;
        write_in_place(sh.path, versions[1]);
    }
    struct reader *r = calloc((size_t)readers, sizeof *r);
    if (!r) die("calloc");
    for (int i = 0; i < readers; i++) {
        r[i].shared = &sh;
        if (pthread_create(&r[i].thread, NULL, read_loop, &r[i]) != 0) die("pthread_create");
    }
    /* Then: pause, rewrite in place, until the deadline. */
    for (;;) {
        uint64_t wait_ns = pause_ms > 0 ? pause_ms * 1000000ull : deadline - now_ns();
        struct timespec pause = {(time_t)(wait_ns / 1000000000u), (long)(wait_ns % 1000000000u)};
        while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
        }
        if (now_ns() >= deadline || pause_ms == 0) break;
        sh.writes++;
        write_in_place(sh.path, versions[sh.writes % 2]);
    }
    atomic_store(&sh.stop, 1);
    struct samples all = {0};
    for (int i = 0; i < readers; i++) {
        if (pthread_join(r[i].thread, NULL) != 0) die("pthread_join");
        for (size_t j = 0; j < r[i].samples.all.len; j++) push(&all.all, r[i].samples.all.ns[j]);
        for (size_t j = 0; j < r[i].samples.unpreempted.len; j++)
            push(&all.unpreempted, r[i].samples.unpreempted.ns[j]);
        all.failed += r[i].samples.failed;
        all.of_version[0] += r[i].samples.of_version[0];
        all.of_version[1] += r[i].samples.of_version[1];
        all.blocked += r[i].samples.blocked;
        free(r[i].samples.all.ns);
        free(r[i].samples.unpreempted.ns);
    }
    free(r);
    if (api == FILE_RING) ketama_file_ring_free(sh.file_ring);
    struct series *a = &all.all, *u = &all.unpreempted;
    qsort(a->ns, a->len, sizeof *a->ns, compare_u64);
    qsort(u->ns, u->len, sizeof *u->ns, compare_u64);
    char p50[32] = "-", p99[32] = "-", p999[32] = "-", max[32] = "-", u_p999[32] = "-", u_max[32] = "-";
    if (a->len > 0) {
        show(p50, sizeof p50, percentile(a->ns, a->len, 0.50));
        show(p99, sizeof p99, percentile(a->ns, a->len, 0.99));
        show(p999, sizeof p999, percentile(a->ns, a->len, 0.999));
        show(max, sizeof max, a->ns[a->len - 1]);
    }
    if (u->len > 0) {
        show(u_p999, sizeof u_p999, percentile(u->ns, u->len, 0.999));
        show(u_max, sizeof u_max, u->ns[u->len - 1]);
    }
    char pause[16] = "no writer";
    if (pause_ms > 0) snprintf(pause, sizeof pause, "%u ms", pause_ms);
    printf("| %s | %d | %s | %zu | %s | %s | %s | %s | %llu | %llu | %s / %s | %llu | %llu / %llu |\n",
           api == COMPAT ? "compat roll" : "FileRing", readers, pause, a->len, p50, p99, p999, max,
           (unsigned long long)all.failed, (unsigned long long)all.blocked, u_p999, u_max,
           (unsigned long long)sh.writes, (unsigned long long)all.of_version[0],
           (unsigned long long)all.of_version[1]);
    fflush(stdout);
    free(a->ns);
    free(u->ns);
}

/* One case to run: API-READERS-PAUSE. */
struct case_arg {
    enum api api;
    int readers;
    unsigned pause_ms;
};

/* Reads a CASE argument; 0 when it is not one. */
static int parse_case(const char *arg, struct case_arg *out) {
    const char *rest = NULL;
    out->api = COMPAT;
    if (strncmp(arg, "compat-", 7) == 0) {
        rest = arg + 7;
    } else if (strncmp(arg, "file-ring-", 10) == 0) {
        out->api = FILE_RING;
        rest = arg + 10;
    }
    char end;
    return rest && sscanf(rest, "%d-%u%c", &out->readers, &out->pause_ms, &end) == 2 && out->readers >= 1 &&
           out->readers <= 64;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: reload_latency DIR [SECONDS [CASE...]]\n");
        return 2;
    }
    double seconds = argc >= 3 ? atof(argv[2]) : 5.0;
    if (!(seconds > 0 && seconds <= 600)) {
        fprintf(stderr, "reload_latency: SECONDS must be in (0, 600]\n");
        return 2;
    }
    /* The cases asked for, or every case. */
    struct case_arg cases[64];
    size_t n_cases = 0;
    if (argc > 3) {
        for (int c = 3; c < argc; c++) {
            if (n_cases == sizeof cases / sizeof *cases || !parse_case(argv[c], &cases[n_cases])) {
                fprintf(stderr, "reload_latency: bad case '%s' (compat-READERS-PAUSE or file-ring-READERS-PAUSE, "
                                "at most 64)\n", argv[c]);
                return 2;
            }
            n_cases++;
        }
    } else {
        const int reader_counts[] = {1, 6};
        const unsigned pauses[] = {0, 1, 20, 100, 500};
        for (int api = COMPAT; api <= FILE_RING; api++)
            for (size_t n = 0; n < 2; n++)
                for (size_t p = 0; p < 5; p++)
                    cases[n_cases++] = (struct case_arg){(enum api)api, reader_counts[n], pauses[p]};
    }
    for (int v = 0; v < 2; v++) {
        size_t at = 0;
        for (int i = 1; i <= 10 + v; i++)
            at += (size_t)snprintf(versions[v] + at, sizeof versions[v] - at, "10.0.0.%d:11211\t100\n", i);
    }
    for (int v = 0; v < 2; v++) {
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/version-%d", argv[1], v);
        write_in_place(probe, versions[v]);
        ketama_continuum cont = NULL;
        if (ketama_roll(&cont, probe) != 1) {
            fprintf(stderr, "ketama_roll: %s\n", ketama_error());
            return 1;
        }
        version_points[v] = cont->numpoints;
        ketama_smoke(cont);
    }
    printf("| API | readers | writer pause | calls | p50 | p99 | p99.9 | max | failed | blocked "
           "| not preempted: p99.9 / max | writes | answers 10 / 11 servers |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t c = 0; c < n_cases; c++)
        run_case(argv[1], cases[c].api, cases[c].readers, cases[c].pause_ms, seconds);
    return 0;
}
