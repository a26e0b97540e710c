/*
 * The modern API from C: build rings from a file and from an in-memory list
 * (long hostnames, IPv6, keys with NUL bytes), look keys up, fail over,
 * iterate points, and check that every error comes back as a status with a
 * message. Prints "OK <checks>" on success; exits 1 on the first failure.
 *
 * usage: modern_client SERVERS_FILE BAD_FILE
 */
#include <ketama.h>
#include <stdio.h>
#include <string.h>

static int checks = 0;
#define CHECK(cond)                                                                \
    do {                                                                           \
        checks++;                                                                  \
        if (!(cond)) {                                                             \
            printf("FAIL line %d: %s (last error: %s)\n", __LINE__, #cond, ketama_error()); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s SERVERS_FILE BAD_FILE\n", argv[0]);
        return 2;
    }
    const ketama_ring *from_file = NULL;
    CHECK(ketama_ring_new_from_file(argv[1], KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_DEFAULT, KETAMA_PARSE_STRICT,
                                    &from_file) == KETAMA_OK);
    CHECK(ketama_ring_server_count(from_file) == 3);
    CHECK(ketama_ring_point_count(from_file) == 480);

    /* The compat API on the same file gives the same answers. */
    ketama_continuum cont;
    CHECK(ketama_roll(&cont, argv[1]) == 1);
    const char *keys[] = {"user:1", "user:2", "session:abc", "", "a longer key with spaces"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        ketama_server_ref ref;
        CHECK(ketama_find_server(from_file, keys[i], strlen(keys[i]), &ref) == KETAMA_OK);
        mcs *m = ketama_get_server((char *)keys[i], cont);
        CHECK(m->point == ref.point);
        CHECK(strcmp(m->ip, ref.address) == 0);
        CHECK((size_t)(m - (mcs *)cont->array) == ref.point_index);
    }
    ketama_smoke(cont);

    /* In-memory list: names of any length, IPv6, weights. */
    const char *long_name = "memcached-cache-node-0001.eu-west-1.example.internal:11211";
    ketama_server servers[3] = {
        {long_name, strlen(long_name), 100, NULL, 0},
        {"[2001:db8::1]:11211", 19, 200, NULL, 0},
        {"10.0.0.3:11211", 14, 0, NULL, 0},
    };
    const ketama_ring *ring = NULL;
    CHECK(ketama_ring_new(servers, 3, KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_MD5, &ring) == KETAMA_OK);
    const ketama_ring *shared = ketama_ring_clone(ring);
    CHECK(shared == ring);
    ketama_ring_free(shared);

    /* Keys are bytes: "a\0b" and "a" are different keys. */
    ketama_server_ref with_nul, without;
    CHECK(ketama_find_server(ring, "a\0b", 3, &with_nul) == KETAMA_OK);
    CHECK(ketama_find_server(ring, "a", 1, &without) == KETAMA_OK);
    CHECK(with_nul.point != without.point);

    /* Iterate points: sorted, owners valid, counts add up. */
    size_t total = 0;
    for (size_t s = 0; s < ketama_ring_server_count(ring); s++) {
        ketama_server_info info;
        CHECK(ketama_ring_server(ring, s, &info) == KETAMA_OK);
        total += info.point_count;
    }
    CHECK(total == ketama_ring_point_count(ring));
    uint32_t previous = 0;
    for (size_t i = 0; i < ketama_ring_point_count(ring); i++) {
        uint32_t point, owner;
        CHECK(ketama_ring_point(ring, i, &point, &owner) == KETAMA_OK);
        CHECK(point >= previous && owner < 3);
        previous = point;
    }

    /* Batch lookup (pointer array and packed forms) equals single lookups. */
    const char *batch_keys[4] = {"a\0b", "user:1", "", "zz"};
    size_t batch_lens[4] = {3, 6, 0, 2};
    uint32_t batch_out[4], packed_out[4];
    CHECK(ketama_find_servers(ring, batch_keys, batch_lens, 4, batch_out) == KETAMA_OK);
    uint32_t packed_lens[4] = {3, 6, 0, 2};
    CHECK(ketama_find_servers_packed(ring, "a\0buser:1zz", 11, packed_lens, 4, packed_out) == KETAMA_OK);
    for (int i = 0; i < 4; i++) {
        ketama_server_ref single;
        CHECK(ketama_find_server(ring, batch_keys[i], batch_lens[i], &single) == KETAMA_OK);
        CHECK(ketama_find_server_index(ring, batch_keys[i], batch_lens[i]) == (int64_t)single.server_index);
        CHECK(batch_out[i] == single.server_index && packed_out[i] == single.server_index);
    }
    packed_lens[3] = 3; /* one byte past the end of the packed buffer */
    CHECK(ketama_find_servers_packed(ring, "a\0buser:1zz", 11, packed_lens, 4, packed_out) ==
          KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ketama_error(), "lengths[3]") != NULL);
    CHECK(ketama_find_servers(ring, batch_keys, batch_lens, 4, NULL) == KETAMA_ERR_NULL_ARGUMENT);

    /* Failover: with the key's server down, the next live server answers. */
    uint32_t down[1] = {with_nul.server_index};
    ketama_server_ref failover;
    CHECK(ketama_find_server_avoiding(ring, "a\0b", 3, down, 1, &failover) == KETAMA_OK);
    CHECK(failover.server_index != with_nul.server_index);
    uint32_t all[3] = {0, 1, 2};
    CHECK(ketama_find_server_avoiding(ring, "x", 1, all, 3, &failover) ==
          KETAMA_ERR_NO_SERVER_AVAILABLE);

    /* Errors: status plus a message naming the problem. */
    const ketama_ring *bad = NULL;
    CHECK(ketama_ring_new_from_file(argv[2], 0, 0, KETAMA_PARSE_STRICT, &bad) == KETAMA_ERR_PARSE);
    CHECK(bad == NULL);
    CHECK(strstr(ketama_error(), "(line 2 in ") != NULL);
    CHECK(ketama_ring_new_from_file("/nonexistent", 0, 0, 0, &bad) == KETAMA_ERR_IO);
    CHECK(ketama_ring_new_from_file("/", 0, 0, 0, &bad) == KETAMA_ERR_IO);
    CHECK(strstr(ketama_error(), "directory") != NULL);
    CHECK(ketama_ring_new(servers, 3, 9999, 0, &bad) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(ketama_ring_new(servers, 3, 0, 9999, &bad) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(ketama_ring_new(NULL, 3, 0, 0, &bad) == KETAMA_ERR_NULL_ARGUMENT);
    CHECK(ketama_ring_new(servers, 0, 0, 0, &bad) == KETAMA_ERR_NO_SERVERS);
    /* Placement options: a peer's own setting, or an error naming it. */
    const ketama_ring *fast = NULL;
    CHECK(ketama_ring_new_with_options(servers, 3, KETAMA_FLAVOUR_MEMCACHED_FAST, KETAMA_HASH_DEFAULT,
                                       "ketama_points=10", &fast) == KETAMA_OK);
    CHECK(ketama_ring_point_count(fast) == 10 * (100 + 200 + 1));
    ketama_ring_free(fast);
    CHECK(ketama_ring_new_with_options(servers, 3, KETAMA_FLAVOUR_MEMCACHED_FAST, KETAMA_HASH_DEFAULT,
                                       NULL, &fast) == KETAMA_OK);
    CHECK(ketama_ring_point_count(fast) == 150 * (100 + 200 + 1));
    ketama_ring_free(fast);
    CHECK(ketama_ring_new_with_options(servers, 3, KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_DEFAULT,
                                       "points=10", &bad) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ketama_error(), "flavour libketama has a fixed number of points") != NULL);
    CHECK(ketama_ring_new_with_options(servers, 3, KETAMA_FLAVOUR_TWEMPROXY, KETAMA_HASH_DEFAULT,
                                       "hash_tag={", &bad) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ketama_error(), "hash tag '{'") != NULL);
    CHECK(ketama_ring_new_with_options(servers, 3, KETAMA_FLAVOUR_TWEMPROXY, KETAMA_HASH_DEFAULT,
                                       "colour=red", &bad) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ketama_error(), "unknown placement option 'colour'") != NULL);
    CHECK(bad == NULL);
    CHECK(ketama_ring_new_from_file_with_options(argv[1], KETAMA_FLAVOUR_TWEMPROXY, KETAMA_HASH_DEFAULT,
                                                 KETAMA_PARSE_STRICT, "hash_tag={}", &fast) == KETAMA_OK);
    ketama_server_ref tagged, plain;
    CHECK(ketama_find_server(fast, "a{user:7}b", 10, &tagged) == KETAMA_OK);
    CHECK(ketama_find_server(fast, "user:7", 6, &plain) == KETAMA_OK);
    CHECK(tagged.point == plain.point);
    ketama_ring_free(fast);
    const ketama_file_ring *followed = NULL;
    CHECK(ketama_file_ring_open_with_options(argv[1], KETAMA_FLAVOUR_TWEMPROXY, KETAMA_HASH_DEFAULT,
                                             KETAMA_PARSE_STRICT, KETAMA_RELOAD_KEEP_LAST_GOOD, "hash_tag={}",
                                             &followed) == KETAMA_OK);
    CHECK(ketama_file_ring_current(followed, &fast) == KETAMA_OK);
    CHECK(ketama_find_server(fast, "a{user:7}b", 10, &tagged) == KETAMA_OK);
    CHECK(tagged.point == plain.point);
    ketama_ring_free(fast);
    ketama_file_ring_free(followed);
    CHECK(ketama_file_ring_open_with_options(argv[1], KETAMA_FLAVOUR_LIBKETAMA, KETAMA_HASH_DEFAULT,
                                             KETAMA_PARSE_STRICT, KETAMA_RELOAD_KEEP_LAST_GOOD, "points=3",
                                             &followed) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(ketama_find_server(NULL, "k", 1, &without) == KETAMA_ERR_NULL_ARGUMENT);
    CHECK(strstr(ketama_error(), "ring") != NULL);
    CHECK(ketama_find_server(ring, NULL, 5, &without) == KETAMA_ERR_NULL_ARGUMENT);
    CHECK(ketama_find_server(ring, NULL, 0, &without) == KETAMA_OK); /* the empty key */
    CHECK(ketama_find_server_index(NULL, "k", 1) == -(int64_t)KETAMA_ERR_NULL_ARGUMENT);
    CHECK(ketama_find_server_index(ring, NULL, 5) == -(int64_t)KETAMA_ERR_NULL_ARGUMENT);
    CHECK(ketama_find_server_index(ring, NULL, 0) == (int64_t)without.server_index); /* the empty key */
    CHECK(ketama_ring_point(ring, 1u << 30, &previous, &previous) == KETAMA_ERR_OUT_OF_RANGE);
    CHECK(strcmp(ketama_status_name(KETAMA_ERR_PARSE), "KETAMA_ERR_PARSE") == 0);
    CHECK(strcmp(ketama_status_name(12345), "KETAMA_UNKNOWN_STATUS") == 0);
    CHECK(strlen(ketama_version()) > 0);
    ketama_ring_free(NULL);

    ketama_ring_free(ring);
    ketama_ring_free(from_file);
    /* Flavour and hash names, resolved by the library (bindings keep no id tables). */
    uint32_t id = 99, hash = 99;
    CHECK(ketama_flavour_from_name("PHP_Memcached", &id) == KETAMA_OK);
    CHECK(id == KETAMA_FLAVOUR_LIBMEMCACHED);
    CHECK(strcmp(ketama_flavour_name(id), "libmemcached") == 0);
    CHECK(ketama_flavour_name(4000000000u) == NULL);
    CHECK(ketama_flavour_from_name("no-such-flavour", &id) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ketama_error(), "no-such-flavour") != NULL);
    CHECK(ketama_flavour_from_name(NULL, &id) == KETAMA_ERR_NULL_ARGUMENT);
    CHECK(ketama_hash_from_name(KETAMA_FLAVOUR_TWEMPROXY, "crc32", &hash) == KETAMA_OK);
    CHECK(hash == KETAMA_HASH_CRC);
    CHECK(ketama_hash_from_name(KETAMA_FLAVOUR_PECL_MEMCACHE, "crc32", &hash) == KETAMA_OK);
    CHECK(hash == KETAMA_HASH_CRC32);
    CHECK(strcmp(ketama_hash_name(hash), "crc32") == 0);
    CHECK(ketama_hash_from_name(KETAMA_FLAVOUR_PECL_MEMCACHE, "md5", &hash) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ketama_error(), "it offers") != NULL);
    CHECK(ketama_hash_from_name(KETAMA_FLAVOUR_LIBKETAMA, "default", &hash) == KETAMA_OK && hash == 0);
    CHECK(ketama_hash_from_name(KETAMA_FLAVOUR_LIBKETAMA, "md5", NULL) == KETAMA_ERR_NULL_ARGUMENT);

    /* A per-key placement (not a continuum): lookups work, points do not. */
    const ketama_ring *scoring = NULL;
    CHECK(ketama_ring_new(servers, 3, KETAMA_FLAVOUR_PYTHON_MEMCACHED, KETAMA_HASH_DEFAULT, &scoring) == KETAMA_OK);
    ketama_server_ref placed;
    CHECK(ketama_find_server(scoring, "user:42", 7, &placed) == KETAMA_OK);
    CHECK(placed.server_index < 3 && placed.address_len > 0);
    CHECK(ketama_ring_point_count(scoring) == 0);
    uint32_t value = 0, owner = 0;
    CHECK(ketama_ring_point(scoring, 0, &value, &owner) == KETAMA_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ketama_error(), "no continuum points") != NULL);
    uint32_t down_all[3] = {0, 1, 2};
    CHECK(ketama_find_server_avoiding(scoring, "user:42", 7, down_all, 3, &placed) == KETAMA_ERR_NO_SERVER_AVAILABLE);
    ketama_ring_free(scoring);

    printf("OK %d\n", checks);
    return 0;
}
