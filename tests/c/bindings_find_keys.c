/* KEY<TAB>SERVER for each key read from stdin (one per line), like
 * `ketama find FILE`: bindings_find_keys SERVERS_FILE [FLAVOUR] [HASH] [PARSE],
 * the flavour by id or name, the hash by its name in the flavour's peer's
 * spelling, the file's reading by name (all resolved by the library). For the
 * libketama flavour read from a libketama file every answer is also checked
 * against the original API
 * (ketama_roll + ketama_get_server); a difference exits 1. Used by
 * tests/bindings/agreement.rs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ketama.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SERVERS_FILE [FLAVOUR] [HASH] [PARSE] [OPTIONS]\n", argv[0]);
        return 2;
    }
    uint32_t flavour = KETAMA_FLAVOUR_LIBKETAMA;
    uint32_t hash = KETAMA_HASH_DEFAULT;
    if (argc > 2 && argv[2][strspn(argv[2], "0123456789")] == '\0') {
        flavour = (uint32_t)atoi(argv[2]);
    } else if (argc > 2 && ketama_flavour_from_name(argv[2], &flavour) != KETAMA_OK) {
        fprintf(stderr, "%s\n", ketama_error());
        return 1;
    }
    if (argc > 3 && ketama_hash_from_name(flavour, argv[3], &hash) != KETAMA_OK) {
        fprintf(stderr, "%s\n", ketama_error());
        return 1;
    }
    uint32_t parse = KETAMA_PARSE_STRICT;
    if (argc > 4 && ketama_parse_mode_from_name(argv[4], &parse) != KETAMA_OK) {
        fprintf(stderr, "%s\n", ketama_error());
        return 1;
    }
    const ketama_ring *ring = NULL;
    const char *options = argc > 5 && argv[5][0] != '\0' ? argv[5] : NULL;
    if (ketama_ring_new_from_file_with_options(argv[1], flavour, hash, parse, options, &ring) != KETAMA_OK) {
        fprintf(stderr, "%s\n", ketama_error());
        return 1;
    }
    ketama_continuum cont = NULL;
    if (flavour == KETAMA_FLAVOUR_LIBKETAMA && parse == KETAMA_PARSE_STRICT && !ketama_roll(&cont, argv[1])) {
        fprintf(stderr, "ketama_roll: %s\n", ketama_error());
        return 1;
    }
    char line[4096];
    int differences = 0;
    while (fgets(line, sizeof line, stdin) != NULL) {
        size_t len = strcspn(line, "\r\n");
        line[len] = '\0';
        ketama_server_ref at;
        if (ketama_find_server(ring, line, len, &at) != KETAMA_OK) {
            fprintf(stderr, "%s\n", ketama_error());
            return 1;
        }
        if (cont != NULL) {
            mcs *m = ketama_get_server(line, cont);
            differences += m == NULL || m->point != at.point || strcmp(m->ip, at.address) != 0;
        }
        printf("%s\t%s\n", line, at.address);
    }
    ketama_smoke(cont);
    ketama_ring_free(ring);
    if (differences) {
        fprintf(stderr, "%d keys differ between ketama_find_server and ketama_get_server\n", differences);
        return 1;
    }
    return 0;
}
