/* The set codec's C ABI driven against a real memcached with libmemcached:
 * the write recipe (append -> add -> bounded retries -> probe), reads with
 * compaction under CAS, set algebra, SPOP/SMOVE payloads, Membase
 * conversion, sharding through a ring, and API misuse. Run under valgrind.
 * Usage: setcodec_libmemcached PORT */
#include <libmemcached/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ketama.h"

static int failures = 0;
#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s (ketama_error: %s)\n", \
                    __FILE__, __LINE__, #cond, ketama_error());              \
            failures++;                                                      \
        }                                                                    \
    } while (0)

static uint32_t reply_of(memcached_return_t rc) {
    switch (rc) {
    case MEMCACHED_SUCCESS: case MEMCACHED_STORED: return KETAMA_SET_REPLY_STORED;
    case MEMCACHED_NOTSTORED: return KETAMA_SET_REPLY_NOT_STORED;
    case MEMCACHED_DATA_EXISTS: return KETAMA_SET_REPLY_EXISTS;
    case MEMCACHED_NOTFOUND: return KETAMA_SET_REPLY_NOT_FOUND;
    case MEMCACHED_E2BIG: return KETAMA_SET_REPLY_TOO_LARGE;
    default:
        fprintf(stderr, "unexpected libmemcached reply %d\n", (int)rc);
        exit(3);
    }
}

/* The write recipe: one payload, bounded steps. Returns the final status
 * and stores the last action in *done. */
static ketama_status write_set(memcached_st *mc, const char *key, uint32_t op, const char *const *members,
                               size_t count, uint32_t *done) {
    ketama_set_member_ref refs[16];
    for (size_t i = 0; i < count; i++) {
        refs[i].data = (const uint8_t *)members[i];
        refs[i].len = strlen(members[i]);
    }
    ketama_set_buffer payload;
    ketama_status st = ketama_set_encode(op, KETAMA_SET_ENCODING_T1, refs, count, 0, &payload);
    if (st != KETAMA_OK) return st;
    ketama_set_writer *writer = NULL;
    uint32_t action = 0;
    st = ketama_set_writer_new(op, 3, &writer, &action);
    for (int step = 0; st == KETAMA_OK && step < 32 && action <= KETAMA_SET_DO_PROBE; step++) {
        memcached_return_t rc;
        if (action == KETAMA_SET_DO_APPEND) {
            rc = memcached_append(mc, key, strlen(key), (const char *)payload.data, payload.len, 0, 0);
        } else if (action == KETAMA_SET_DO_ADD) {
            rc = memcached_add(mc, key, strlen(key), (const char *)payload.data, payload.len, 0, 0);
        } else {
            rc = memcached_exist(mc, key, strlen(key));
            rc = rc == MEMCACHED_SUCCESS ? MEMCACHED_DATA_EXISTS : MEMCACHED_NOTFOUND;
        }
        st = ketama_set_writer_step(writer, reply_of(rc), &action);
    }
    *done = action;
    ketama_set_writer_free(writer);
    ketama_set_buffer_free(payload);
    return st;
}

/* gets + decode + maybe compact with cas. Returns the decoded set. */
static ketama_set *read_set(memcached_st *mc, const char *key, bool force, bool *compacted) {
    const char *keys[1] = {key};
    size_t lens[1] = {strlen(key)};
    *compacted = false;
    if (memcached_mget(mc, keys, lens, 1) != MEMCACHED_SUCCESS) return NULL;
    memcached_result_st *result = memcached_fetch_result(mc, NULL, NULL);
    if (result == NULL) return NULL;
    uint64_t cas = memcached_result_cas(result);
    ketama_set *set = NULL;
    ketama_set_compaction compaction;
    ketama_status st = ketama_set_plan_read((const uint8_t *)memcached_result_value(result),
                                            memcached_result_length(result), KETAMA_SET_ENCODING_AUTO, cas, 0,
                                            false, NULL, force, &set, &compaction);
    memcached_result_free(result);
    while ((result = memcached_fetch_result(mc, NULL, NULL)) != NULL) memcached_result_free(result);
    if (st != KETAMA_OK) return NULL;
    if (compaction.needed) {
        /* libmemcached cannot read the remaining TTL: exptime_known is false
         * and this test's sets never expire, so 0 is right here. */
        CHECK(!compaction.exptime_known);
        memcached_return_t rc = memcached_cas(mc, key, strlen(key), (const char *)compaction.value.data,
                                              compaction.value.len, 0, 0, compaction.cas);
        *compacted = rc == MEMCACHED_SUCCESS;
    }
    ketama_set_buffer_free(compaction.value);
    return set;
}

static bool member_is(const ketama_set *set, size_t index, const char *expected) {
    const uint8_t *data = NULL;
    size_t len = 0;
    if (ketama_set_member(set, index, &data, &len) != KETAMA_OK) return false;
    return len == strlen(expected) && memcmp(data, expected, len) == 0;
}

static void test_decode_errors(void) {
    ketama_set *set = (ketama_set *)0x1;
    ketama_set_error err = {0, 0, 0};
    const uint8_t bad[] = "+a +b \x01";
    CHECK(ketama_set_decode(bad, 7, KETAMA_SET_ENCODING_AUTO, 0, &set, &err) == KETAMA_ERR_SET_DECODE);
    CHECK(set == (ketama_set *)0x1); /* outputs untouched on failure */
    CHECK(err.kind == KETAMA_SET_ERROR_BAD_OP && err.offset == 6 && err.record == 2);
    CHECK(strcmp(ketama_set_error_kind_name(err.kind), "BadOp") == 0);
    CHECK(strstr(ketama_error(), "BadOp at byte offset 6 (record 2)") != NULL);
    const uint8_t truncated[] = {0xA1, 0x05, 'a', 'b'};
    CHECK(ketama_set_decode(truncated, 4, KETAMA_SET_ENCODING_AUTO, 0, &set, NULL) == KETAMA_ERR_SET_DECODE);
    CHECK(strstr(ketama_error(), "Truncated") != NULL);
    /* Salvage returns the valid prefix. */
    CHECK(ketama_set_decode_salvage(bad, 7, KETAMA_SET_ENCODING_AUTO, 0, &set, &err) == KETAMA_OK);
    CHECK(ketama_set_card(set) == 2 && err.kind == KETAMA_SET_ERROR_BAD_OP);
    ketama_set_free(set);
    /* Encoding errors name the member and the byte. */
    ketama_set_member_ref spaced[2] = {{(const uint8_t *)"ok", 2}, {(const uint8_t *)"a b", 3}};
    ketama_set_buffer buf = {NULL, 0};
    CHECK(ketama_set_encode(KETAMA_SET_ADD, KETAMA_SET_ENCODING_T1, spaced, 2, 0, &buf) == KETAMA_ERR_SET_MEMBER);
    CHECK(strstr(ketama_error(), "MemberHasWhitespace at byte offset 1 of member 1") != NULL);
    CHECK(buf.data == NULL);
    CHECK(ketama_set_encode(KETAMA_SET_ADD, KETAMA_SET_ENCODING_B1, spaced, 2, 0, &buf) == KETAMA_OK);
    CHECK(buf.len == 2 + 2 + 2 + 3 && buf.data[0] == 0xA1);
    ketama_set_buffer_free(buf);
    /* Misuse: NULL pointers, unknown ids, small capacity, NULL frees. */
    CHECK(ketama_set_decode(NULL, 5, 0, 0, &set, NULL) == KETAMA_ERR_NULL_ARGUMENT);
    CHECK(ketama_set_decode(bad, 7, 99, 0, &set, NULL) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(ketama_set_decode(bad, 7, 0, 0, NULL, NULL) == KETAMA_ERR_NULL_ARGUMENT);
    CHECK(ketama_set_encode(KETAMA_SET_ADD, KETAMA_SET_ENCODING_MEMBASE_COMMA, spaced, 1, 0, &buf) ==
          KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(ketama_set_card(NULL) == 0);
    uint32_t detected = 99;
    CHECK(ketama_set_detect((const uint8_t *)"{}", 2, &detected) == KETAMA_ERR_SET_DECODE && detected == 99);
    ketama_set_free(NULL);
    ketama_set_writer_free(NULL);
    ketama_set_buffer_free((ketama_set_buffer){NULL, 0});
    CHECK(strcmp(ketama_status_name(KETAMA_ERR_SET_FULL), "KETAMA_ERR_SET_FULL") == 0);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PORT\n", argv[0]);
        return 2;
    }
    test_decode_errors();

    memcached_st *mc = memcached_create(NULL);
    memcached_server_add(mc, "127.0.0.1", (in_port_t)atoi(argv[1]));
    memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_SUPPORT_CAS, 1);
    memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT, 5000);

    uint32_t done = 0;
    const char *abc[] = {"a", "b", "c"};
    const char *bx[] = {"b", "x"};
    const char *cde[] = {"c", "d", "e"};
    CHECK(write_set(mc, "c:s1", KETAMA_SET_ADD, abc, 3, &done) == KETAMA_OK && done == KETAMA_SET_DONE_CREATED);
    CHECK(write_set(mc, "c:s1", KETAMA_SET_REMOVE, bx, 2, &done) == KETAMA_OK && done == KETAMA_SET_DONE_APPENDED);
    CHECK(write_set(mc, "c:none", KETAMA_SET_REMOVE, bx, 2, &done) == KETAMA_OK &&
          done == KETAMA_SET_DONE_NOTHING_TO_REMOVE);
    CHECK(write_set(mc, "c:s2", KETAMA_SET_ADD, cde, 3, &done) == KETAMA_OK);

    bool compacted = false;
    ketama_set *s1 = read_set(mc, "c:s1", false, &compacted);
    CHECK(s1 != NULL && !compacted);
    ketama_set_stats stats;
    CHECK(ketama_set_get_stats(s1, &stats) == KETAMA_OK);
    CHECK(stats.members == 2 && stats.records == 5 && stats.removals == 2 && stats.redundant == 3 &&
          stats.encoding == KETAMA_SET_ENCODING_T1);
    CHECK(member_is(s1, 0, "a") && member_is(s1, 1, "c"));
    bool yes = false;
    CHECK(ketama_set_contains(s1, (const uint8_t *)"c", 1, &yes) == KETAMA_OK && yes);
    ketama_set_free(s1);
    s1 = read_set(mc, "c:s1", true, &compacted);
    CHECK(s1 != NULL && compacted);
    size_t len = 0;
    char *stored = memcached_get(mc, "c:s1", 4, &len, NULL, NULL);
    CHECK(stored != NULL && len == 6 && memcmp(stored, "+a +c ", 6) == 0);
    free(stored);

    /* Algebra with a missing key (NULL). */
    ketama_set *s2 = read_set(mc, "c:s2", false, &compacted);
    const ketama_set *inputs[3] = {s1, s2, NULL};
    ketama_set *result = NULL;
    CHECK(ketama_set_union(inputs, 3, &result) == KETAMA_OK && ketama_set_card(result) == 4);
    ketama_set_free(result);
    CHECK(ketama_set_inter(inputs, 2, &result) == KETAMA_OK && ketama_set_card(result) == 1 &&
          member_is(result, 0, "c"));
    ketama_set_buffer store = {NULL, 0};
    CHECK(ketama_set_compacted(result, KETAMA_SET_ENCODING_T1, &store) == KETAMA_OK);
    CHECK(memcached_set(mc, "c:dst", 5, (const char *)store.data, store.len, 0, 0) == MEMCACHED_SUCCESS);
    ketama_set_buffer_free(store);
    ketama_set_free(result);
    CHECK(ketama_set_inter(inputs, 3, &result) == KETAMA_OK && ketama_set_card(result) == 0);
    ketama_set_free(result);
    CHECK(ketama_set_diff(inputs, 2, &result) == KETAMA_OK && ketama_set_card(result) == 1 &&
          member_is(result, 0, "a"));
    ketama_set_free(result);
    size_t card = 0;
    CHECK(ketama_set_intercard(inputs, 2, 0, &card) == KETAMA_OK && card == 1);
    CHECK(ketama_set_intercard(inputs, 2, -1, &card) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(ketama_set_intercard(inputs, 0, 0, &card) == KETAMA_ERR_INVALID_ARGUMENT);

    /* SRANDMEMBER / SPOP / SMOVE. */
    size_t picks[8];
    size_t picked = 0;
    CHECK(ketama_set_srandmember(s2, -5, true, 7, picks, 8, &picked) == KETAMA_OK && picked == 5);
    CHECK(ketama_set_srandmember(s2, 10, true, 7, picks, 8, &picked) == KETAMA_OK && picked == 3);
    CHECK(ketama_set_srandmember(s2, -9, true, 7, picks, 8, &picked) == KETAMA_ERR_INVALID_ARGUMENT);
    ketama_set_buffer pop = {NULL, 0};
    CHECK(ketama_set_spop(s2, -1, true, 1, KETAMA_SET_ENCODING_T1, picks, 8, &picked, &pop) ==
          KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(ketama_set_spop(s2, 1, true, 1, KETAMA_SET_ENCODING_T1, picks, 8, &picked, &pop) == KETAMA_OK &&
          picked == 1 && pop.len >= 3 && pop.data[0] == '-');
    CHECK(memcached_append(mc, "c:s2", 4, (const char *)pop.data, pop.len, 0, 0) == MEMCACHED_SUCCESS);
    ketama_set_buffer_free(pop);
    bool moved = false;
    ketama_set_buffer add = {NULL, 0}, rem = {NULL, 0};
    CHECK(ketama_set_smove(s1, (const uint8_t *)"a", 1, true, KETAMA_SET_ENCODING_T1, &moved, &add, &rem) ==
              KETAMA_OK &&
          moved && add.data == NULL && rem.data == NULL);
    CHECK(ketama_set_smove(s1, (const uint8_t *)"a", 1, false, KETAMA_SET_ENCODING_T1, &moved, &add, &rem) ==
              KETAMA_OK &&
          moved && add.len == 3 && rem.len == 3);
    CHECK(memcached_append(mc, "c:s2", 4, (const char *)add.data, add.len, 0, 0) == MEMCACHED_SUCCESS);
    CHECK(memcached_append(mc, "c:s1", 4, (const char *)rem.data, rem.len, 0, 0) == MEMCACHED_SUCCESS);
    ketama_set_buffer_free(add);
    ketama_set_buffer_free(rem);
    ketama_set_free(s1);
    ketama_set_free(s2);
    s2 = read_set(mc, "c:s2", false, &compacted);
    CHECK(ketama_set_card(s2) == 3 && ketama_set_contains(s2, (const uint8_t *)"a", 1, &yes) == KETAMA_OK && yes);
    ketama_set_free(s2);

    /* Membase conversion. */
    const char *tomb = "user-222,|user-1234,user-222,user-987,";
    ketama_set_buffer converted = {NULL, 0};
    CHECK(ketama_set_convert((const uint8_t *)tomb, strlen(tomb), KETAMA_SET_ENCODING_MEMBASE_TOMBSTONE,
                             KETAMA_SET_ENCODING_T1, 0, &converted) == KETAMA_OK);
    CHECK(converted.len == 21 && memcmp(converted.data, "+user-1234 +user-987 ", 21) == 0);
    ketama_set_buffer_free(converted);

    /* Sharding through a ring of one server (this memcached). */
    char address[32];
    snprintf(address, sizeof address, "127.0.0.1:%s", argv[1]);
    ketama_server servers[1] = {{address, strlen(address), 1, NULL, 0}};
    const ketama_ring *ring = NULL;
    CHECK(ketama_ring_new(servers, 1, KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_DEFAULT, &ring) == KETAMA_OK);
    ketama_server_ref where;
    CHECK(ketama_set_shard_server(ring, (const uint8_t *)"big", 3, 8, 7, &where) == KETAMA_OK &&
          where.server_index == 0);
    ketama_set_buffer key = {NULL, 0};
    CHECK(ketama_set_shard_key((const uint8_t *)"big", 3, 8, 7, &key) == KETAMA_OK && key.len == 5 &&
          memcmp(key.data, "big.7", 5) == 0);
    ketama_set_buffer_free(key);
    char long_base[250];
    memset(long_base, 'k', sizeof long_base);
    CHECK(ketama_set_shard_key((const uint8_t *)long_base, 248, 11, 0, &key) == KETAMA_ERR_SET_DECODE);
    uint32_t shard = 99;
    CHECK(ketama_set_shard_of((const uint8_t *)"foobar", 6, 8, &shard) == KETAMA_OK && shard == 0);
    ketama_set_buffer index = {NULL, 0};
    CHECK(ketama_set_shard_index_value(8, &index) == KETAMA_OK);
    CHECK(memcached_add(mc, "big", 3, (const char *)index.data, index.len, 0, 0) == MEMCACHED_SUCCESS);
    ketama_set_buffer_free(index);
    char *index_value = memcached_get(mc, "big", 3, &len, NULL, NULL);
    CHECK(ketama_set_shard_count_from_index((const uint8_t *)"big", 3, (const uint8_t *)index_value, len, &shard) ==
              KETAMA_OK &&
          shard == 8);
    free(index_value);
    ketama_ring_free(ring);

    memcached_free(mc);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("setcodec C test: all checks passed\n");
    return 0;
}
