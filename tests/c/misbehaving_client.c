/* A client with two classic bugs, so that the suite can show its checkers
 * (valgrind, or AddressSanitizer + UBSan under KETAMA_C_SANITIZE) report
 * them: it reads one mcs past the end of the continuum's array, and keeps a
 * ring's server address after freeing the ring.
 *   misbehaving_client SERVERS_FILE (overread|use-after-free) */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <ketama.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    /* No ring cache: it would keep the freed ring alive for the next build,
     * and the use after free would read memory still owned. */
    setenv("KETAMA_RING_CACHE_RINGS", "0", 1);
    ketama_continuum c = NULL;
    if (!ketama_roll(&c, argv[1])) { fprintf(stderr, "%s\n", ketama_error()); return 2; }
    volatile unsigned int sum = 0;
    if (strcmp(argv[2], "overread") == 0) {
        mcs *array = (mcs *)c->array;
        sum += array[c->numpoints].point;
    } else {
        const ketama_ring *ring = NULL;
        if (ketama_ring_new_from_file(argv[1], 0, 0, 1, &ring) != KETAMA_OK) return 2;
        ketama_server_ref ref;
        if (ketama_find_server(ring, "k", 1, &ref) != KETAMA_OK) return 2;
        ketama_ring_free(ring);
        sum += (unsigned char)ref.address[0];
    }
    ketama_smoke(c);
    printf("%u\n", sum);
    return 0;
}
