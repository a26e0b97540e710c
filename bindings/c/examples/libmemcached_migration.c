/*
 * libmemcached across a migration from one ring to another: a pool of three
 * servers grows to four under warm-up, every get, set, add and delete driven
 * by the library's steps (ketama_migration_begin, _op_step, _op_reply) on one
 * memcached_st per server.
 *
 *   bindings/c/run.sh 127.0.0.1:11211 127.0.0.1:11212 127.0.0.1:11213 127.0.0.1:11214
 *   (run.sh builds libmemcached_ring.c; build this file the same way)
 *
 * The first three servers are the old pool, all four the new one. Writes
 * KEYS keys where the old ring puts them, then, in the warm phase, reads
 * every key (each must be the value written), rewrites and deletes some and
 * reads them back, and reads the moved keys with the new ring alone after
 * the schedule. Prints one line per check; exits 1 at the first failure.
 */
#include <libmemcached/memcached.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ketama.h"

#define KEYS 1000
#define SERVERS 4

static const char *addresses[SERVERS];
static memcached_st *clients[SERVERS];

static void die(const char *what) {
    fprintf(stderr, "libmemcached_migration: %s (ketama_error: %s)\n", what, ketama_error());
    exit(1);
}

static void expect(bool ok, const char *what) {
    if (!ok) die(what);
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The client of the server at `address` (one of the four). */
static memcached_st *client_of(const char *address, size_t len) {
    for (int i = 0; i < SERVERS; i++) {
        if (strlen(addresses[i]) == len && memcmp(addresses[i], address, len) == 0) return clients[i];
    }
    die("a step names a server not given");
    return NULL;
}

/* What one read returned: the value (malloc'ed by libmemcached) and its CAS unique. */
typedef struct {
    char *value;
    size_t len;
    uint64_t cas;
} found;

/* get (with_cas false) or gets: a hit fills `out`. */
static memcached_return_t read_key(memcached_st *mc, const char *key, bool with_cas, found *out) {
    if (!with_cas) {
        uint32_t flags;
        memcached_return_t rc;
        out->value = memcached_get(mc, key, strlen(key), &out->len, &flags, &rc);
        out->cas = 0;
        return rc;
    }
    const char *keys[1] = {key};
    size_t lens[1] = {strlen(key)};
    memcached_return_t rc = memcached_mget(mc, keys, lens, 1);
    if (rc != MEMCACHED_SUCCESS) return rc;
    memcached_result_st *result = memcached_fetch_result(mc, NULL, &rc);
    if (result == NULL) return rc == MEMCACHED_END ? MEMCACHED_NOTFOUND : rc;
    out->len = memcached_result_length(result);
    out->value = malloc(out->len + 1);
    if (out->value == NULL) die("out of memory");
    memcpy(out->value, memcached_result_value(result), out->len);
    out->cas = memcached_result_cas(result);
    memcached_result_free(result);
    while ((result = memcached_fetch_result(mc, NULL, &rc)) != NULL) memcached_result_free(result);
    return MEMCACHED_SUCCESS;
}

/*
 * Runs one operation to its outcome; for a get, `*value_out` receives the
 * value to return (malloc'ed; NULL on a miss). The library decides every
 * command; this only sends them and names the replies.
 */
static uint32_t run(const ketama_migration *m, uint32_t kind, const char *key, const char *value, char **value_out) {
    ketama_migration_op *op = NULL;
    if (ketama_migration_begin(m, kind, key, strlen(key), 0, &op) != KETAMA_OK) die("ketama_migration_begin");
    found read[2] = {{NULL, 0, 0}, {NULL, 0, 0}}; /* by side: old, new */
    ketama_migration_step step;
    if (ketama_migration_op_step(op, &step) != KETAMA_OK) die("ketama_migration_op_step");
    while (!step.done) {
        memcached_st *mc = client_of(step.address, step.address_len);
        time_t ttl = step.exptime < 0 ? 0 : (time_t)step.exptime;
        found hit = {NULL, 0, 0};
        memcached_return_t rc;
        uint32_t reply;
        switch (step.command) {
        case KETAMA_MIGRATION_DO_GET:
        case KETAMA_MIGRATION_DO_GETS:
            rc = read_key(mc, key, step.command == KETAMA_MIGRATION_DO_GETS, &hit);
            reply = rc == MEMCACHED_SUCCESS ? KETAMA_MIGRATION_REPLY_HIT
                  : rc == MEMCACHED_NOTFOUND ? KETAMA_MIGRATION_REPLY_MISS : KETAMA_MIGRATION_REPLY_FAILED;
            break;
        case KETAMA_MIGRATION_DO_ADD_LEASE:
        case KETAMA_MIGRATION_DO_ADD: {
            bool lease = step.command == KETAMA_MIGRATION_DO_ADD_LEASE;
            rc = memcached_add(mc, key, strlen(key), lease ? (const char *)step.lease : value,
                               lease ? step.lease_len : strlen(value), ttl, 0);
            reply = rc == MEMCACHED_SUCCESS ? KETAMA_MIGRATION_REPLY_STORED
                  : (rc == MEMCACHED_NOTSTORED || rc == MEMCACHED_DATA_EXISTS) ? KETAMA_MIGRATION_REPLY_NOT_STORED
                  : KETAMA_MIGRATION_REPLY_FAILED;
            break;
        }
        case KETAMA_MIGRATION_DO_CAS_COPY:
        case KETAMA_MIGRATION_DO_CAS_VALUE: {
            bool copy = step.command == KETAMA_MIGRATION_DO_CAS_COPY;
            rc = memcached_cas(mc, key, strlen(key), copy ? read[KETAMA_MIGRATION_SIDE_OLD].value : value,
                               copy ? read[KETAMA_MIGRATION_SIDE_OLD].len : strlen(value), ttl, 0, step.cas);
            reply = rc == MEMCACHED_SUCCESS ? KETAMA_MIGRATION_REPLY_STORED
                  : rc == MEMCACHED_DATA_EXISTS ? KETAMA_MIGRATION_REPLY_EXISTS
                  : rc == MEMCACHED_NOTFOUND ? KETAMA_MIGRATION_REPLY_NOT_FOUND : KETAMA_MIGRATION_REPLY_FAILED;
            break;
        }
        case KETAMA_MIGRATION_DO_SET:
            rc = memcached_set(mc, key, strlen(key), value, strlen(value), ttl, 0);
            reply = rc == MEMCACHED_SUCCESS ? KETAMA_MIGRATION_REPLY_STORED : KETAMA_MIGRATION_REPLY_FAILED;
            break;
        default: /* KETAMA_MIGRATION_DO_DELETE */
            rc = memcached_delete(mc, key, strlen(key), 0);
            reply = rc == MEMCACHED_SUCCESS ? KETAMA_MIGRATION_REPLY_DELETED
                  : rc == MEMCACHED_NOTFOUND ? KETAMA_MIGRATION_REPLY_NOT_FOUND : KETAMA_MIGRATION_REPLY_FAILED;
            break;
        }
        uint32_t side = step.side;
        if (ketama_migration_op_reply(op, reply, (const uint8_t *)hit.value, hit.len, hit.cas, &step) != KETAMA_OK) {
            die("ketama_migration_op_reply");
        }
        if (hit.value != NULL) {
            free(read[side].value);
            read[side] = hit;
        }
    }
    ketama_migration_op_free(op);
    uint32_t outcome = step.outcome;
    if (value_out != NULL) {
        int side = outcome == KETAMA_MIGRATION_DONE_HIT_NEW ? KETAMA_MIGRATION_SIDE_NEW
                 : outcome == KETAMA_MIGRATION_DONE_HIT_OLD ? KETAMA_MIGRATION_SIDE_OLD : -1;
        *value_out = NULL;
        if (side >= 0) {
            *value_out = read[side].value; /* NUL-terminated below */
            read[side].value = NULL;
            char *v = realloc(*value_out, read[side].len + 1);
            if (v == NULL) die("out of memory");
            v[read[side].len] = '\0';
            *value_out = v;
        }
    }
    free(read[0].value);
    free(read[1].value);
    return outcome;
}

/* True when a get through `m` returns exactly `want` (NULL: a miss). */
static bool reads(const ketama_migration *m, const char *key, const char *want) {
    char *got = NULL;
    uint32_t outcome = run(m, KETAMA_MIGRATION_OP_GET, key, NULL, &got);
    if (outcome == KETAMA_MIGRATION_DONE_FAILED) die("a get failed");
    bool same = want == NULL ? got == NULL : got != NULL && strcmp(got, want) == 0;
    free(got);
    return same;
}

static const ketama_migration *migration(const ketama_ring *old, const ketama_ring *new_ring, uint64_t start,
                                         const char *options) {
    const ketama_migration *m = NULL;
    if (ketama_migration_new(old, new_ring, KETAMA_MIGRATION_WARMUP, start, options, &m) != KETAMA_OK) {
        die("ketama_migration_new");
    }
    return m;
}

int main(int argc, char **argv) {
    if (argc != SERVERS + 1) {
        fprintf(stderr, "usage: %s OLD1 OLD2 OLD3 NEW4 (HOST:PORT each)\n", argv[0]);
        return 2;
    }
    ketama_server servers[SERVERS];
    for (int i = 0; i < SERVERS; i++) {
        addresses[i] = argv[i + 1];
        servers[i] = (ketama_server){addresses[i], strlen(addresses[i]), 0, NULL, 0};
        const char *colon = strrchr(addresses[i], ':');
        if (colon == NULL) die("an address is HOST:PORT");
        char host[256];
        snprintf(host, sizeof host, "%.*s", (int)(colon - addresses[i]), addresses[i]);
        clients[i] = memcached_create(NULL);
        memcached_server_add(clients[i], host, (in_port_t)atoi(colon + 1));
        memcached_behavior_set(clients[i], MEMCACHED_BEHAVIOR_SUPPORT_CAS, 1);
        memcached_behavior_set(clients[i], MEMCACHED_BEHAVIOR_POLL_TIMEOUT, 30000);
    }
    const ketama_ring *old = NULL, *new_ring = NULL;
    if (ketama_ring_new(servers, SERVERS - 1, KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_DEFAULT, &old) != KETAMA_OK ||
        ketama_ring_new(servers, SERVERS, KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_DEFAULT, &new_ring) != KETAMA_OK) {
        die("ketama_ring_new");
    }

    /* Before the move: each key on its server in the old ring. */
    char key[32], value[48];
    for (int i = 0; i < KEYS; i++) {
        snprintf(key, sizeof key, "user:%d", i);
        snprintf(value, sizeof value, "v1:%s", key);
        ketama_server_ref at;
        if (ketama_find_server(old, key, strlen(key), &at) != KETAMA_OK) die("ketama_find_server");
        if (memcached_set(clients[at.server_index], key, strlen(key), value, strlen(value), 0, 0) != MEMCACHED_SUCCESS) {
            die("set before the move");
        }
    }

    uint64_t now = now_ms();
    const ketama_migration *warm = migration(old, new_ring, now - 2000, "interval=1s,warmup=1h");
    const ketama_migration *after = migration(old, new_ring, now - 10000000, "interval=1s,warmup=1h");
    int moved = 0, misses = 0, stale = 0, copied = 0;
    bool is_moved[KEYS];
    for (int i = 0; i < KEYS; i++) {
        snprintf(key, sizeof key, "user:%d", i);
        snprintf(value, sizeof value, "v1:%s", key);
        ketama_migration_owners owners;
        if (ketama_migration_route(warm, key, strlen(key), &owners) != KETAMA_OK) die("ketama_migration_route");
        is_moved[i] = owners.moved;
        moved += (int)owners.moved;
        char *got = NULL;
        if (run(warm, KETAMA_MIGRATION_OP_GET, key, NULL, &got) == KETAMA_MIGRATION_DONE_FAILED) die("get failed");
        if (got == NULL) misses++;
        else if (strcmp(got, value) != 0) stale++;
        free(got);
        if (owners.moved) {
            found there = {NULL, 0, 0};
            if (read_key(clients[SERVERS - 1], key, false, &there) == MEMCACHED_SUCCESS && there.len == strlen(value) &&
                memcmp(there.value, value, there.len) == 0) {
                copied++;
            }
            free(there.value);
        }
    }
    printf("warm-up reads: %d keys, %d moved, %d misses, %d stale, %d copied forward\n", KEYS, moved, misses, stale,
           copied);
    expect(moved > KEYS / 8 && moved < KEYS / 2, "about a quarter of the keys move");
    expect(misses == 0 && stale == 0 && copied == moved, "every key read, the moved ones copied");

    /* Writes and deletes during the move. */
    int rewritten = 0, deleted = 0, resurrected = 0, seen = 0;
    for (int i = 0; i < KEYS; i++) {
        if (!is_moved[i]) continue;
        snprintf(key, sizeof key, "user:%d", i);
        if (seen % 3 == 0) {
            snprintf(value, sizeof value, "v2:%s", key);
            expect(run(warm, KETAMA_MIGRATION_OP_SET, key, value, NULL) == KETAMA_MIGRATION_DONE_STORED, "set");
            rewritten += reads(warm, key, value);
        } else if (seen % 3 == 1) {
            expect(run(warm, KETAMA_MIGRATION_OP_DELETE, key, NULL, NULL) == KETAMA_MIGRATION_DONE_DELETED, "delete");
            expect(run(warm, KETAMA_MIGRATION_OP_DELETE, key, NULL, NULL) == KETAMA_MIGRATION_DONE_NOT_FOUND,
                   "second delete");
            deleted++;
            resurrected += !reads(warm, key, NULL);
        } else {
            expect(run(warm, KETAMA_MIGRATION_OP_ADD, key, "added", NULL) == KETAMA_MIGRATION_DONE_NOT_STORED,
                   "add of a held key");
            snprintf(value, sizeof value, "v1:%s", key);
            expect(reads(after, key, value), "the new ring alone finds the copy");
        }
        seen++;
    }
    printf("during the move: %d rewritten and read back, %d deleted, %d read after delete\n", rewritten, deleted,
           resurrected);
    expect(rewritten == (moved + 2) / 3 && resurrected == 0, "writes read back, deletes stay deleted");

    ketama_migration_free(warm);
    ketama_migration_free(after);
    ketama_ring_free(old);
    ketama_ring_free(new_ring);
    for (int i = 0; i < SERVERS; i++) memcached_free(clients[i]);
    printf("libmemcached migration: ok\n");
    return 0;
}
