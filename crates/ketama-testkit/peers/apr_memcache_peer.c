/* Asks Apache apr-util's apr_memcache (Debian libaprutil1-dev) where keys
 * go, for crates/ketama-core/tests/peers/apr_memcache.rs. No network: the servers keep no
 * connection open (min 0), and only apr_memcache_hash and
 * apr_memcache_find_server_hash are called, the two calls apr_memcache_set
 * and apr_memcache_getp make to choose a server. A server listed in `down`
 * is disabled with apr_memcache_disable_server, as the client marks a
 * server dead after a failed request.
 *
 * Usage: apr_memcache_peer default|crc32 CASE_DIR...
 *   crc32: apr_memcache_hash_crc32 as the pool's hash_func (default: none set).
 * Each CASE_DIR has `servers` (HOST:PORT or [V6]:PORT per line), `keys` (one
 * key per line, bytes as they are) and optionally `down` (server indices).
 * The peer writes `out`: each key's server index, -1 when none is found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_memcache.h>
#include <apr_strings.h>
#include <apu_version.h>

#define MAX_SERVERS 1000

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "apr_memcache_peer: %s %s\n", what, detail);
    exit(1);
}

static FILE *open_in(const char *dir, const char *name, const char *mode, int required) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    if (!f && required) fail("cannot open", path);
    return f;
}

static void run_case(const char *dir, int crc32) {
    apr_pool_t *pool;
    apr_memcache_t *mc;
    apr_memcache_server_t *servers[MAX_SERVERS];
    int n = 0;
    char line[1024];

    if (apr_pool_create(&pool, NULL) != APR_SUCCESS) fail("apr_pool_create", dir);
    if (apr_memcache_create(pool, MAX_SERVERS, 0, &mc) != APR_SUCCESS) fail("apr_memcache_create", dir);
    if (crc32) mc->hash_func = apr_memcache_hash_crc32;

    FILE *f = open_in(dir, "servers", "r", 1);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0]) continue;
        char *colon = strrchr(line, ':');
        if (!colon || n == MAX_SERVERS) fail("bad server line", line);
        *colon = 0;
        char *host = line;
        if (host[0] == '[') {
            host++;
            host[strlen(host) - 1] = 0;
        }
        /* min 0, soft max 1, hard max 1, ttl 60 s: no connection is opened here. */
        if (apr_memcache_server_create(pool, apr_pstrdup(pool, host), (apr_port_t)atoi(colon + 1), 0, 1, 1, 60,
                                       &servers[n]) != APR_SUCCESS)
            fail("apr_memcache_server_create", host);
        if (apr_memcache_add_server(mc, servers[n]) != APR_SUCCESS) fail("apr_memcache_add_server", host);
        n++;
    }
    fclose(f);
    if ((f = open_in(dir, "down", "r", 0))) {
        int index;
        while (fscanf(f, "%d", &index) == 1) {
            if (index < 0 || index >= n) fail("bad down index in", dir);
            apr_memcache_disable_server(mc, servers[index]);
        }
        fclose(f);
    }

    FILE *out = open_in(dir, "out", "w", 1);
    FILE *keys = open_in(dir, "keys", "r", 1);
    char *key = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&key, &cap, keys)) > 0) {
        if (key[len - 1] == '\n') len--;
        apr_memcache_server_t *found = apr_memcache_find_server_hash(mc, apr_memcache_hash(mc, key, (apr_size_t)len));
        int index = -1;
        for (int i = 0; i < n; i++)
            if (servers[i] == found) index = i;
        fprintf(out, "%d\n", index);
    }
    free(key);
    fclose(keys);
    fclose(out);
    apr_pool_destroy(pool);
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "default") != 0 && strcmp(argv[1], "crc32") != 0)) {
        fprintf(stderr, "usage: apr_memcache_peer default|crc32 CASE_DIR...\n");
        return 2;
    }
    if (apr_initialize() != APR_SUCCESS) fail("apr_initialize", "");
    for (int i = 2; i < argc; i++) run_case(argv[i], strcmp(argv[1], "crc32") == 0);
    apr_terminate();
    printf("apr-util %s\n", APU_VERSION_STRING);
    return 0;
}
