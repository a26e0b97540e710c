/* The set recipe example of docs/setcodec.md: add members to a set kept in one
 * memcached value, then read it back (compacting when dirty).
 * Usage: setcodec_readme_example PORT */
#include <libmemcached/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ketama.h"

/* Appends one payload, creating the set when missing; bounded retries. */
static ketama_status set_write(memcached_st *mc, const char *key, uint32_t op,
                               const ketama_set_member_ref *members, size_t count) {
    ketama_set_buffer payload;
    ketama_status st = ketama_set_encode(op, KETAMA_SET_ENCODING_T1, members, count, 0, &payload);
    if (st != KETAMA_OK) return st;
    ketama_set_writer *w;
    uint32_t action;
    st = ketama_set_writer_new(op, 0, &w, &action);
    while (st == KETAMA_OK && action <= KETAMA_SET_DO_PROBE) {
        memcached_return_t rc;
        if (action == KETAMA_SET_DO_APPEND)
            rc = memcached_append(mc, key, strlen(key), (char *)payload.data, payload.len, 0, 0);
        else if (action == KETAMA_SET_DO_ADD)
            rc = memcached_add(mc, key, strlen(key), (char *)payload.data, payload.len, 0, 0);
        else
            rc = memcached_exist(mc, key, strlen(key)) == MEMCACHED_SUCCESS ? MEMCACHED_DATA_EXISTS
                                                                            : MEMCACHED_NOTFOUND;
        uint32_t reply = rc == MEMCACHED_SUCCESS     ? KETAMA_SET_REPLY_STORED
                         : rc == MEMCACHED_NOTSTORED ? KETAMA_SET_REPLY_NOT_STORED
                         : rc == MEMCACHED_DATA_EXISTS ? KETAMA_SET_REPLY_EXISTS
                         : rc == MEMCACHED_NOTFOUND  ? KETAMA_SET_REPLY_NOT_FOUND
                                                     : KETAMA_SET_REPLY_TOO_LARGE;
        st = ketama_set_writer_step(w, reply, &action); /* KETAMA_ERR_SET_FULL / _CONTENDED end it */
    }
    ketama_set_writer_free(w);
    ketama_set_buffer_free(payload);
    return st;
}

int main(int argc, char **argv) {
    memcached_st *mc = memcached_create(NULL);
    memcached_server_add(mc, "127.0.0.1", (in_port_t)atoi(argc > 1 ? argv[1] : "11211"));
    memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_SUPPORT_CAS, 1);

    ketama_set_member_ref add[] = {{(const uint8_t *)"alice", 5}, {(const uint8_t *)"bob", 3}};
    ketama_set_member_ref rem[] = {{(const uint8_t *)"bob", 3}};
    if (set_write(mc, "followers:42", KETAMA_SET_ADD, add, 2) != KETAMA_OK ||
        set_write(mc, "followers:42", KETAMA_SET_REMOVE, rem, 1) != KETAMA_OK) {
        fprintf(stderr, "write failed: %s\n", ketama_error());
        return 1;
    }

    /* Read: gets, decode, and compact with CAS when the policy says so. */
    const char *keys[] = {"followers:42"};
    size_t lens[] = {12};
    memcached_mget(mc, keys, lens, 1);
    memcached_result_st *r = memcached_fetch_result(mc, NULL, NULL);
    ketama_set *set;
    ketama_set_compaction c;
    if (ketama_set_plan_read((const uint8_t *)memcached_result_value(r), memcached_result_length(r),
                             KETAMA_SET_ENCODING_AUTO, memcached_result_cas(r), 0, false, NULL,
                             true /* force, for the example */, &set, &c) != KETAMA_OK) {
        fprintf(stderr, "bad value: %s\n", ketama_error()); /* kind, byte offset, record */
        return 1;
    }
    memcached_result_free(r);
    if (c.needed) /* EXISTS/NOT_FOUND just mean another client got there first */
        memcached_cas(mc, keys[0], lens[0], (char *)c.value.data, c.value.len, c.exptime, 0, c.cas);
    ketama_set_buffer_free(c.value);

    for (size_t i = 0; i < ketama_set_card(set); i++) {
        const uint8_t *m;
        size_t len;
        ketama_set_member(set, i, &m, &len);
        printf("%.*s\n", (int)len, (const char *)m);
    }
    ketama_set_free(set);
    memcached_free(mc);
    return 0;
}
