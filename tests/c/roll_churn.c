/* Resource bounds of ketama_roll under churn. Prints the peak resident set
 * size after a tenth of the work and at the end:
 *   "rss_kib_at_tenth <N>" and "rss_kib_at_end <N>", then "rolls <N>".
 *
 *   roll_churn distinct DIR N
 *       writes N distinct server files (mtime an hour ago) and rolls each once;
 *   roll_churn rewrite DIR N READERS
 *       one writer replaces DIR/servers N times (write a temporary file, rename
 *       it into place) while READERS threads roll it, each holding up to 8
 *       handles and smoking the oldest. */
#include <ketama.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

/* The process's own peak resident set size (VmHWM). Not ru_maxrss: Linux
 * keeps that across exec, so it may be the test process's peak instead. */
static long peak_rss_kib(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    if (!status) { perror("/proc/self/status"); exit(2); }
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, status))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    fclose(status);
    if (kib < 0) { fprintf(stderr, "no VmHWM in /proc/self/status\n"); exit(2); }
    return kib;
}

static void write_servers(const char *path, int variant)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(2); }
    int servers = 3 + variant % 5;
    for (int s = 0; s < servers; s++)
        fprintf(f, "10.%d.%d.%d:11211\t%d\n", variant % 250, s, variant / 250 % 250, 100 + variant % 7);
    fclose(f);
}

static void age_an_hour(const char *path)
{
    struct timeval now, times[2];
    gettimeofday(&now, NULL);
    times[0].tv_sec = times[1].tv_sec = now.tv_sec - 3600;
    times[0].tv_usec = times[1].tv_usec = 0;
    utimes(path, times);
}

static int roll_and_use(const char *path, ketama_continuum *out)
{
    if (!ketama_roll(out, (char *)path)) {
        fprintf(stderr, "roll %s failed: %s\n", path, ketama_error());
        return 0;
    }
    if (!ketama_get_server("some-key", *out)) {
        fprintf(stderr, "no server for a key in %s\n", path);
        return 0;
    }
    return 1;
}

static const char *rewrite_path;
static atomic_int writer_done;
static atomic_long rolls;
static atomic_int failures;

static void *reader(void *unused)
{
    (void)unused;
    ketama_continuum held[8] = {0};
    int next = 0;
    while (!atomic_load(&writer_done)) {
        ketama_continuum c;
        if (!roll_and_use(rewrite_path, &c)) { atomic_fetch_add(&failures, 1); continue; }
        atomic_fetch_add(&rolls, 1);
        if (held[next]) ketama_smoke(held[next]);
        held[next] = c;
        next = (next + 1) % 8;
    }
    for (int i = 0; i < 8; i++)
        if (held[i]) ketama_smoke(held[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: see the comment at the top\n"); return 2; }
    const char *dir = argv[2];
    int n = atoi(argv[3]);
    char path[4096], tmp[4096];
    long at_tenth = 0;
    if (argv[1][0] == 'd') {
        for (int i = 0; i < n; i++) {
            snprintf(path, sizeof path, "%s/servers-%d", dir, i);
            write_servers(path, i);
            age_an_hour(path);
            ketama_continuum c;
            if (!roll_and_use(path, &c)) return 1;
            atomic_fetch_add(&rolls, 1);
            ketama_smoke(c);
            if (i == n / 10) at_tenth = peak_rss_kib();
        }
    } else {
        int readers = argc > 4 ? atoi(argv[4]) : 4;
        snprintf(path, sizeof path, "%s/servers", dir);
        rewrite_path = path;
        write_servers(path, 0);
        ketama_continuum first;
        if (!roll_and_use(path, &first)) return 1;
        ketama_smoke(first);
        pthread_t threads[64];
        for (int t = 0; t < readers && t < 64; t++) pthread_create(&threads[t], NULL, reader, NULL);
        for (int i = 0; i < n; i++) {
            snprintf(tmp, sizeof tmp, "%s/servers.tmp", dir);
            write_servers(tmp, i + 1);
            if (rename(tmp, path) != 0) { perror("rename"); return 2; }
            if (i == n / 10) at_tenth = peak_rss_kib();
        }
        atomic_store(&writer_done, 1);
        for (int t = 0; t < readers && t < 64; t++) pthread_join(threads[t], NULL);
    }
    printf("rss_kib_at_tenth %ld\nrss_kib_at_end %ld\nrolls %ld\n", at_tenth, peak_rss_kib(),
           atomic_load(&rolls));
    return atomic_load(&failures) ? 1 : 0;
}
