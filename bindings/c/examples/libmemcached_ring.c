/*
 * libmemcached against real memcached servers, with keys placed by
 * libketama's ring, and a set kept in one key with the library's set codec.
 *
 *   bindings/c/run.sh 127.0.0.1:11211 127.0.0.1:11212 127.0.0.1:11213
 *
 * One memcached_st per server, so that the library (not libmemcached's own
 * distribution) decides where each key lives. Stores 300 keys, reads each
 * back from its server and checks that no other server has it. Then adds and
 * removes set members with APPEND/ADD (the writer recipe), reads the set
 * with its CAS and stores the compacted value with CAS.
 */
#include <libmemcached/memcached.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ketama.h"

#define KEYS 300

static void die(const char *what) {
    fprintf(stderr, "libmemcached_ring: %s (ketama_error: %s)\n", what, ketama_error());
    exit(1);
}

/* The index of the server that owns `key`. */
static uint32_t server_of(const ketama_ring *ring, const char *key) {
    ketama_server_ref at;
    if (ketama_find_server(ring, key, strlen(key), &at) != KETAMA_OK) die("ketama_find_server");
    return at.server_index;
}

static uint32_t reply_of(memcached_return_t rc) {
    switch (rc) {
    case MEMCACHED_SUCCESS: case MEMCACHED_STORED: return KETAMA_SET_REPLY_STORED;
    case MEMCACHED_NOTSTORED: return KETAMA_SET_REPLY_NOT_STORED;
    case MEMCACHED_DATA_EXISTS: return KETAMA_SET_REPLY_EXISTS;
    case MEMCACHED_NOTFOUND: return KETAMA_SET_REPLY_NOT_FOUND;
    case MEMCACHED_E2BIG: return KETAMA_SET_REPLY_TOO_LARGE;
    default: die(memcached_strerror(NULL, rc)); return 0;
    }
}

static const char *outcome_name(uint32_t action) {
    switch (action) {
    case KETAMA_SET_DONE_APPENDED: return "appended";
    case KETAMA_SET_DONE_CREATED: return "created";
    case KETAMA_SET_DONE_NOTHING_TO_REMOVE: return "nothing_to_remove";
    default: return "unfinished";
    }
}

/* Adds or removes one member with the write recipe; returns the outcome action. */
static uint32_t write_set(memcached_st *mc, const char *key, uint32_t op, const char *member) {
    ketama_set_member_ref ref = {(const uint8_t *)member, strlen(member)};
    ketama_set_buffer payload;
    if (ketama_set_encode(op, KETAMA_SET_ENCODING_T1, &ref, 1, 0, &payload) != KETAMA_OK) die("ketama_set_encode");
    ketama_set_writer *writer = NULL;
    uint32_t action = 0;
    if (ketama_set_writer_new(op, 0, &writer, &action) != KETAMA_OK) die("ketama_set_writer_new");
    while (action == KETAMA_SET_DO_APPEND || action == KETAMA_SET_DO_ADD || action == KETAMA_SET_DO_PROBE) {
        memcached_return_t rc;
        if (action == KETAMA_SET_DO_APPEND) {
            rc = memcached_append(mc, key, strlen(key), (const char *)payload.data, payload.len, 0, 0);
        } else if (action == KETAMA_SET_DO_ADD) {
            rc = memcached_add(mc, key, strlen(key), (const char *)payload.data, payload.len, 0, 0);
        } else {
            rc = memcached_exist(mc, key, strlen(key)) == MEMCACHED_SUCCESS ? MEMCACHED_DATA_EXISTS : MEMCACHED_NOTFOUND;
        }
        if (ketama_set_writer_step(writer, reply_of(rc), &action) != KETAMA_OK) die("ketama_set_writer_step");
    }
    ketama_set_writer_free(writer);
    ketama_set_buffer_free(payload);
    return action;
}

int main(int argc, char **argv) {
    const char *defaults[] = {"127.0.0.1:11211", "127.0.0.1:11212", "127.0.0.1:11213"};
    size_t count = argc > 1 ? (size_t)argc - 1 : 3;
    const char **addresses = argc > 1 ? (const char **)argv + 1 : defaults;

    ketama_server servers[64];
    memcached_st *clients[64];
    if (count > 64) die("at most 64 servers");
    for (size_t i = 0; i < count; i++) {
        servers[i] = (ketama_server){addresses[i], strlen(addresses[i]), 0, NULL, 0};
        char host[256];
        const char *colon = strrchr(addresses[i], ':');
        if (colon == NULL || (size_t)(colon - addresses[i]) >= sizeof host) die("addresses are host:port");
        memcpy(host, addresses[i], (size_t)(colon - addresses[i]));
        host[colon - addresses[i]] = '\0';
        clients[i] = memcached_create(NULL);
        memcached_server_add(clients[i], host, (in_port_t)atoi(colon + 1));
        memcached_behavior_set(clients[i], MEMCACHED_BEHAVIOR_SUPPORT_CAS, 1);
        memcached_behavior_set(clients[i], MEMCACHED_BEHAVIOR_POLL_TIMEOUT, 5000);
    }
    const ketama_ring *ring = NULL;
    if (ketama_ring_new(servers, count, KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_DEFAULT, &ring) != KETAMA_OK) {
        die("ketama_ring_new");
    }

    /* Place 300 keys with the ring. */
    size_t per_server[64] = {0};
    char key[64], value[96];
    for (int i = 0; i < KEYS; i++) {
        snprintf(key, sizeof key, "user:%d", i);
        snprintf(value, sizeof value, "value of %s", key);
        uint32_t s = server_of(ring, key);
        if (memcached_set(clients[s], key, strlen(key), value, strlen(value), 60, 0) != MEMCACHED_SUCCESS) die("set");
        per_server[s]++;
    }
    printf("placed %d keys:", KEYS);
    for (size_t i = 0; i < count; i++) printf(" %s=%zu", addresses[i], per_server[i]);
    printf("\n");

    /* Every key is on its server and on no other. */
    int found = 0, elsewhere = 0;
    for (int i = 0; i < KEYS; i++) {
        snprintf(key, sizeof key, "user:%d", i);
        snprintf(value, sizeof value, "value of %s", key);
        uint32_t home = server_of(ring, key);
        for (size_t s = 0; s < count; s++) {
            size_t len = 0;
            uint32_t flags = 0;
            memcached_return_t rc;
            char *got = memcached_get(clients[s], key, strlen(key), &len, &flags, &rc);
            if (s == home) {
                found += got != NULL && len == strlen(value) && memcmp(got, value, len) == 0;
            } else if (got != NULL) {
                elsewhere++;
            }
            free(got);
        }
    }
    printf("read back %d/%d keys from their servers, %d found elsewhere\n", found, KEYS, elsewhere);

    /* A set in one key on the ring's server for it. */
    const char *set_key = "followers:alice";
    uint32_t home = server_of(ring, set_key);
    memcached_st *mc = clients[home];
    memcached_delete(mc, set_key, strlen(set_key), 0);
    uint32_t o1 = write_set(mc, set_key, KETAMA_SET_ADD, "bob");
    uint32_t o2 = write_set(mc, set_key, KETAMA_SET_ADD, "carol");
    uint32_t o3 = write_set(mc, set_key, KETAMA_SET_REMOVE, "bob");
    char member[32];
    for (int i = 0; i < 150; i++) {
        snprintf(member, sizeof member, "fan%d", i);
        write_set(mc, set_key, KETAMA_SET_ADD, member);
    }
    for (int i = 0; i < 150; i += 2) {
        snprintf(member, sizeof member, "fan%d", i);
        write_set(mc, set_key, KETAMA_SET_REMOVE, member);
    }
    printf("set %s on %s: %s, %s, %s\n", set_key, addresses[home], outcome_name(o1), outcome_name(o2), outcome_name(o3));

    /* Read it with its CAS (mget + fetch_result), compact when told to. */
    const char *keys[1] = {set_key};
    size_t key_lens[1] = {strlen(set_key)};
    if (memcached_mget(mc, keys, key_lens, 1) != MEMCACHED_SUCCESS) die("mget");
    memcached_result_st *result = memcached_fetch_result(mc, NULL, NULL);
    if (result == NULL) die("the set is missing");
    ketama_set *set = NULL;
    ketama_set_compaction compaction;
    if (ketama_set_plan_read((const uint8_t *)memcached_result_value(result), memcached_result_length(result),
                             KETAMA_SET_ENCODING_AUTO, memcached_result_cas(result), 0, false, NULL, false, &set,
                             &compaction) != KETAMA_OK) {
        die("ketama_set_plan_read");
    }
    memcached_result_free(result);
    while ((result = memcached_fetch_result(mc, NULL, NULL)) != NULL) memcached_result_free(result);
    ketama_set_stats stats;
    ketama_set_get_stats(set, &stats);
    printf("read %zu members from %zu records (%zu redundant)\n", stats.members, stats.records, stats.redundant);
    ketama_set_free(set);
    if (!compaction.needed) die("expected the library to ask for compaction");
    /* libmemcached cannot read the remaining TTL; this set never expires. */
    memcached_return_t rc = memcached_cas(mc, set_key, strlen(set_key), (const char *)compaction.value.data,
                                          compaction.value.len, 0, 0, compaction.cas);
    ketama_set_buffer_free(compaction.value);
    printf("compacted under CAS: %s\n", rc == MEMCACHED_SUCCESS ? "stored" : memcached_strerror(mc, rc));

    size_t len = 0;
    uint32_t flags = 0;
    char *after_value = memcached_get(mc, set_key, strlen(set_key), &len, &flags, &rc);
    ketama_set *after = NULL;
    if (after_value == NULL || ketama_set_decode((const uint8_t *)after_value, len, KETAMA_SET_ENCODING_AUTO, 0, &after, NULL) != KETAMA_OK) {
        die("reading the compacted set");
    }
    free(after_value);
    bool none_lost = ketama_set_card(after) == 76;
    bool carol = false, fan1 = false, fan0 = true;
    ketama_set_contains(after, (const uint8_t *)"carol", 5, &carol);
    ketama_set_contains(after, (const uint8_t *)"fan149", 6, &fan1);
    ketama_set_contains(after, (const uint8_t *)"fan0", 4, &fan0);
    none_lost = none_lost && carol && fan1 && !fan0;
    ketama_set_get_stats(after, &stats);
    printf("after compaction: %zu members in %zu records, %s\n", stats.members, stats.records, none_lost ? "none lost" : "MEMBERS DIFFER");
    ketama_set_free(after);

    for (size_t i = 0; i < count; i++) memcached_free(clients[i]);
    ketama_ring_free(ring);
    return found == KEYS && elsewhere == 0 && rc == MEMCACHED_SUCCESS && none_lost ? 0 : 1;
}
