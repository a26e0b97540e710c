/*
 * Asks the real libmemcached (Debian libmemcached-dev) where keys go and what
 * its hash functions return, for tests/c_abi/peer_libmemcached.rs. No network:
 * memcached_generate_hash only consults the continuum.
 *
 *   libmemcached_peer ring CASE...     each CASE file holds
 *       distribution weighted|consistent|spy|modula
 *       hash N                         (memcached_hash_t; -1 keeps the default)
 *       server HOST PORT WEIGHT        (WEIGHT 0: memcached_server_add)
 *       keys PATH                      (one key per line)
 *       out PATH                       (per key: "PEER OURS", the server index
 *                                      from libmemcached and from this library's
 *                                      C API, ketama_ring_new + ketama_find_server,
 *                                      with the matching flavour and hash)
 *   libmemcached_peer hash KEYS OUT    per key: for each libmemcached hash,
 *                                      "peer ours" via ketama_hash_bytes
 */
#include <libmemcached/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ketama.h"

struct keys {
    char **key;
    size_t *len;
    size_t count;
};

static void die(const char *what, const char *detail) {
    fprintf(stderr, "libmemcached_peer: %s: %s\n", what, detail);
    exit(2);
}

static struct keys read_keys(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open keys", path);
    struct keys k = {0};
    size_t cap = 0;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t n;
    while ((n = getline(&line, &line_cap, f)) >= 0) {
        if (n > 0 && line[n - 1] == '\n') n--;
        if (k.count == cap) {
            cap = cap ? cap * 2 : 1024;
            k.key = realloc(k.key, cap * sizeof *k.key);
            k.len = realloc(k.len, cap * sizeof *k.len);
            if (!k.key || !k.len) die("out of memory", path);
        }
        k.key[k.count] = malloc((size_t)n + 1);
        memcpy(k.key[k.count], line, (size_t)n);
        k.len[k.count++] = (size_t)n;
    }
    free(line);
    fclose(f);
    return k;
}

static void free_keys(struct keys *k) {
    for (size_t i = 0; i < k->count; i++) free(k->key[i]);
    free(k->key);
    free(k->len);
}

/* memcached_hash_t -> ketama_hash (libmemcached's default is one-at-a-time). */
static uint32_t our_hash(int peer) {
    static const uint32_t map[] = {KETAMA_HASH_ONE_AT_A_TIME, KETAMA_HASH_MD5, KETAMA_HASH_CRC,
                                   KETAMA_HASH_FNV1_64, KETAMA_HASH_FNV1A_64, KETAMA_HASH_FNV1_32,
                                   KETAMA_HASH_FNV1A_32, KETAMA_HASH_HSIEH, KETAMA_HASH_MURMUR,
                                   KETAMA_HASH_JENKINS, KETAMA_HASH_MURMUR3};
    if (peer < 0) return KETAMA_HASH_DEFAULT;
    if ((size_t)peer >= sizeof map / sizeof map[0]) die("no ketama_hash for", "memcached_hash_t");
    return map[peer];
}

static void run_case(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open case", path);
    memcached_st *memc = memcached_create(NULL);
    char word[64], a[256], out_path[4096] = "", keys_path[4096] = "";
    uint32_t flavour = KETAMA_FLAVOUR_LIBMEMCACHED, hash = KETAMA_HASH_DEFAULT;
    ketama_server servers[256];
    char addresses[256][300];
    size_t count = 0;
    while (fscanf(f, "%63s", word) == 1) {
        if (!strcmp(word, "distribution")) {
            if (fscanf(f, "%255s", a) != 1) die("bad distribution line", path);
            memcached_return_t rc;
            if (!strcmp(a, "weighted")) {
                rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
                flavour = KETAMA_FLAVOUR_LIBMEMCACHED;
            } else if (!strcmp(a, "consistent")) {
                rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, MEMCACHED_DISTRIBUTION_CONSISTENT);
                flavour = KETAMA_FLAVOUR_LIBMEMCACHED_CONSISTENT;
            } else if (!strcmp(a, "modula")) {
                rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, MEMCACHED_DISTRIBUTION_MODULA);
                flavour = KETAMA_FLAVOUR_LIBMEMCACHED_MODULA;
            } else if (!strcmp(a, "spy")) {
                rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION,
                                            MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA_SPY);
                flavour = KETAMA_FLAVOUR_LIBMEMCACHED_SPY;
            } else
                die("unknown distribution", a);
            if (rc != MEMCACHED_SUCCESS) die("distribution rejected", memcached_strerror(memc, rc));
        } else if (!strcmp(word, "hash")) {
            int h;
            if (fscanf(f, "%d", &h) != 1) die("bad hash line", path);
            hash = our_hash(h);
            if (h >= 0) {
                memcached_return_t rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_HASH, (uint64_t)h);
                if (rc != MEMCACHED_SUCCESS) die("hash rejected", memcached_strerror(memc, rc));
            }
        } else if (!strcmp(word, "server")) {
            unsigned port, weight;
            if (fscanf(f, "%255s %u %u", a, &port, &weight) != 3) die("bad server line", path);
            memcached_return_t rc = weight
                ? memcached_server_add_with_weight(memc, a, (in_port_t)port, weight)
                : memcached_server_add(memc, a, (in_port_t)port);
            if (rc != MEMCACHED_SUCCESS) die("server rejected", memcached_strerror(memc, rc));
            if (count == 256) die("too many servers", path);
            int len = snprintf(addresses[count], sizeof addresses[count], strchr(a, ':') ? "[%s]:%u" : "%s:%u", a, port);
            servers[count] = (ketama_server){.address = addresses[count], .address_len = (size_t)len, .weight = weight};
            count++;
        } else if (!strcmp(word, "keys")) {
            if (fscanf(f, "%4095s", keys_path) != 1) die("bad keys line", path);
        } else if (!strcmp(word, "out")) {
            if (fscanf(f, "%4095s", out_path) != 1) die("bad out line", path);
        } else {
            die("unknown case line", word);
        }
    }
    fclose(f);
    const ketama_ring *ring = NULL;
    if (ketama_ring_new(servers, count, flavour, hash, &ring) != KETAMA_OK) die("ketama_ring_new failed", ketama_error());
    struct keys k = read_keys(keys_path);
    FILE *out = fopen(out_path, "w");
    if (!out) die("cannot write", out_path);
    for (size_t i = 0; i < k.count; i++) {
        ketama_server_ref at;
        if (ketama_find_server(ring, k.key[i], k.len[i], &at) != KETAMA_OK)
            die("ketama_find_server failed", ketama_error());
        fprintf(out, "%u %u\n", memcached_generate_hash(memc, k.key[i], k.len[i]), at.server_index);
    }
    fclose(out);
    free_keys(&k);
    ketama_ring_free(ring);
    memcached_free(memc);
}

/* libmemcached hash ids and the matching ketama_hash ids. */
static const struct { memcached_hash_t peer; uint32_t ours; } HASHES[] = {
    {MEMCACHED_HASH_DEFAULT, KETAMA_HASH_ONE_AT_A_TIME}, {MEMCACHED_HASH_MD5, KETAMA_HASH_MD5},
    {MEMCACHED_HASH_CRC, KETAMA_HASH_CRC},               {MEMCACHED_HASH_FNV1_64, KETAMA_HASH_FNV1_64},
    {MEMCACHED_HASH_FNV1A_64, KETAMA_HASH_FNV1A_64},     {MEMCACHED_HASH_FNV1_32, KETAMA_HASH_FNV1_32},
    {MEMCACHED_HASH_FNV1A_32, KETAMA_HASH_FNV1A_32},     {MEMCACHED_HASH_HSIEH, KETAMA_HASH_HSIEH},
    {MEMCACHED_HASH_MURMUR, KETAMA_HASH_MURMUR},         {MEMCACHED_HASH_JENKINS, KETAMA_HASH_JENKINS},
    {MEMCACHED_HASH_MURMUR3, KETAMA_HASH_MURMUR3},
};

static void run_hashes(const char *keys_path, const char *out_path) {
    struct keys k = read_keys(keys_path);
    FILE *out = fopen(out_path, "w");
    if (!out) die("cannot write", out_path);
    for (size_t i = 0; i < k.count; i++) {
        for (size_t h = 0; h < sizeof HASHES / sizeof HASHES[0]; h++) {
            uint32_t ours = 0;
            ketama_status st = ketama_hash_bytes(HASHES[h].ours, k.key[i], k.len[i], &ours);
            if (st != KETAMA_OK) die("ketama_hash_bytes failed", ketama_error());
            fprintf(out, "%s%u %u", h ? " " : "", memcached_generate_hash_value(k.key[i], k.len[i], HASHES[h].peer),
                    ours);
        }
        fputc('\n', out);
    }
    fclose(out);
    free_keys(&k);
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "ring")) {
        for (int i = 2; i < argc; i++) run_case(argv[i]);
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "hash")) {
        run_hashes(argv[2], argv[3]);
        return 0;
    }
    fprintf(stderr, "usage: libmemcached_peer ring CASE... | hash KEYS OUT\n");
    return 2;
}
