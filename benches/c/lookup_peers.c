/*
 * Side-by-side lookup cost of C peers, measured the same way for each:
 * median over 15 rounds of (time to look up 65,536 random keys) / 65,536.
 *
 * Built three times by scripts/bench.sh:
 *   -DPEER_THIS_LIBRARY  this library: ketama_hashi (MD5 of the key alone, the
 *                        floor), ketama_get_server, ketama_find_server,
 *                        ketama_find_servers (batch)
 *   -DPEER_ORIGINAL      the original libketama C code (PyPI ketama==0.1.1
 *                        sources, compiled at bench time, never committed)
 *   -DPEER_LIBMEMCACHED  libmemcached's memcached_generate_hash with
 *                        MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED
 *
 * usage: lookup_peers SERVERS_FILE SERVER_COUNT
 * prints: PEER<TAB>SERVERS<TAB>NS_PER_KEY   (one line per measured function)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(PEER_THIS_LIBRARY) || defined(PEER_ORIGINAL)
#include <ketama.h>
#endif
#ifdef PEER_LIBMEMCACHED
#include <libmemcached/memcached.h>
#endif

#define KEYS 65536
#define ROUNDS 15
#define KEY_BYTES 24

static char keys[KEYS][KEY_BYTES];
static size_t key_lens[KEYS];
static volatile uint64_t sink;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef void (*round_fn)(void *ctx);

static double median_ns_per_key(round_fn run, void *ctx)
{
    double samples[ROUNDS];
    run(ctx); /* warm-up */
    for (int r = 0; r < ROUNDS; r++) {
        double start = now_ns();
        run(ctx);
        samples[r] = (now_ns() - start) / KEYS;
    }
    qsort(samples, ROUNDS, sizeof samples[0], compare_double);
    return samples[ROUNDS / 2];
}

#ifdef PEER_ORIGINAL
static void original_round(void *ctx)
{
    ketama_continuum c = ctx;
    for (int i = 0; i < KEYS; i++)
        sink += ketama_get_server(keys[i], c, key_lens[i])->point; /* PyPI variant takes a length */
}
#endif

#ifdef PEER_THIS_LIBRARY
static void compat_round(void *ctx)
{
    ketama_continuum c = ctx;
    for (int i = 0; i < KEYS; i++)
        sink += ketama_get_server(keys[i], c)->point;
}

/* The floor in the same process: libketama's key hash (MD5 of the key) alone. */
static void hashi_round(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < KEYS; i++)
        sink += ketama_hashi(keys[i]);
}

static void modern_round(void *ctx)
{
    const ketama_ring *ring = ctx;
    ketama_server_ref ref;
    for (int i = 0; i < KEYS; i++) {
        ketama_find_server(ring, keys[i], key_lens[i], &ref);
        sink += ref.server_index;
    }
}

static const char *key_ptrs[KEYS];
static uint32_t batch_out[KEYS];

static void batch_round(void *ctx)
{
    const ketama_ring *ring = ctx;
    ketama_find_servers(ring, key_ptrs, key_lens, KEYS, batch_out);
    sink += batch_out[KEYS - 1];
}
#endif

#ifdef PEER_LIBMEMCACHED
static void libmemcached_round(void *ctx)
{
    memcached_st *memc = ctx;
    for (int i = 0; i < KEYS; i++)
        sink += memcached_generate_hash(memc, keys[i], key_lens[i]);
}
#endif

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s SERVERS_FILE SERVER_COUNT\n", argv[0]);
        return 2;
    }
    const char *count = argv[2];
    uint64_t state = 12345;
    for (int i = 0; i < KEYS; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        key_lens[i] = (size_t)snprintf(keys[i], KEY_BYTES, "user:%llu", (unsigned long long)(state >> 24));
    }
#ifdef PEER_ORIGINAL
    ketama_continuum c;
    if (!ketama_roll(&c, argv[1])) {
        printf("original\t%s\tfailed: %s\n", count, ketama_error());
        return 0;
    }
    printf("libketama original ketama_get_server\t%s\t%.1f\n", count, median_ns_per_key(original_round, c));
    ketama_smoke(c);
#endif
#ifdef PEER_THIS_LIBRARY
    ketama_continuum c;
    const ketama_ring *ring;
    if (!ketama_roll(&c, argv[1]) ||
        ketama_ring_new_from_file(argv[1], KETAMA_FLAVOUR_LIBKETAMA, 0, KETAMA_PARSE_LIBKETAMA, &ring) != KETAMA_OK) {
        fprintf(stderr, "roll failed: %s\n", ketama_error());
        return 1;
    }
    for (int i = 0; i < KEYS; i++)
        key_ptrs[i] = keys[i];
    printf("this library ketama_hashi (MD5 floor)\t%s\t%.1f\n", count, median_ns_per_key(hashi_round, NULL));
    printf("this library ketama_get_server\t%s\t%.1f\n", count, median_ns_per_key(compat_round, c));
    printf("this library ketama_find_server\t%s\t%.1f\n", count, median_ns_per_key(modern_round, (void *)ring));
    printf("this library ketama_find_servers (batch)\t%s\t%.1f\n", count, median_ns_per_key(batch_round, (void *)ring));
    ketama_ring_free(ring);
    ketama_smoke(c);
#endif
#ifdef PEER_LIBMEMCACHED
    memcached_st *memc = memcached_create(NULL);
    memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
    FILE *f = fopen(argv[1], "r");
    char host[256];
    unsigned port, weight;
    while (f && fscanf(f, "%255[^:]:%u %u\n", host, &port, &weight) == 3)
        memcached_server_add_with_weight(memc, host, (in_port_t)port, weight);
    if (f)
        fclose(f);
    printf("libmemcached memcached_generate_hash\t%s\t%.1f\n", count, median_ns_per_key(libmemcached_round, memc));
    memcached_free(memc);
#endif
    return 0;
}
