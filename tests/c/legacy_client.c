/*
 * A program written exactly as a libketama user writes one: include
 * <ketama.h>, roll a server file, read cont->array directly, look keys up,
 * print the continuum, smoke. It also exercises the fixes (failed rolls,
 * double smoke, NULL arguments) that must not crash.
 *
 * usage: legacy_client SERVERS_FILE [KEY...]
 * output: "roll 1 error ''", "points N sorted S", one
 *         "key KEY hash H point P ip IP index I" line per key, then the
 *         output of ketama_print_continuum.
 */
#include <ketama.h>
#include <stdio.h>
#include <string.h>

static int check_failures(void)
{
    ketama_continuum untouched = (ketama_continuum)0;
    if (ketama_roll(&untouched, "/nonexistent/ketama.servers") != 0 || untouched != 0) {
        printf("FAIL: missing file\n");
        return 1;
    }
    if (strstr(ketama_error(), "Invalid filename specified: /nonexistent/ketama.servers") != ketama_error()) {
        printf("FAIL: missing-file error '%s'\n", ketama_error());
        return 1;
    }
    ketama_continuum empty;
    if (ketama_roll(&empty, "/") != 0 || empty == 0 || empty->numpoints != 0 || empty->array != 0) {
        printf("FAIL: directory\n");
        return 1;
    }
    if (ketama_get_server("key", empty) != 0) {
        printf("FAIL: lookup on failed roll\n");
        return 1;
    }
    ketama_smoke(empty);
    ketama_smoke(empty);
    ketama_smoke(0);
    if (ketama_get_server(0, 0) != 0 || ketama_hashi(0) != 0) {
        printf("FAIL: NULL arguments\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SERVERS_FILE [KEY...]\n", argv[0]);
        return 2;
    }
    ketama_continuum c;
    if (!ketama_roll(&c, argv[1])) {
        printf("roll 0 error '%s'\n", ketama_error());
        return 1;
    }
    printf("roll 1 error '%s'\n", ketama_error());

    mcs *points = (mcs *)c->array;
    int sorted = 1;
    for (int i = 1; i < c->numpoints; i++) {
        if (ketama_compare(&points[i - 1], &points[i]) > 0)
            sorted = 0;
    }
    printf("points %d sorted %d modtime %s\n", c->numpoints, sorted, c->modtime ? "set" : "NULL");

    for (int i = 2; i < argc; i++) {
        mcs *m = ketama_get_server(argv[i], c);
        printf("key %s hash %u point %u ip %s index %ld\n", argv[i], ketama_hashi(argv[i]), m->point, m->ip,
               (long)(m - points));
    }

    /* A copy of the continuum struct answers like the handle itself. */
    continuum copy = *c;
    for (int i = 2; i < argc; i++) {
        if (ketama_get_server(argv[i], &copy) != ketama_get_server(argv[i], c)) {
            printf("FAIL: lookup through a copy of the continuum\n");
            return 1;
        }
    }

    unsigned char digest[16];
    ketama_md5_digest("test", digest);
    printf("md5(test) ");
    for (int i = 0; i < 16; i++)
        printf("%02x", digest[i]);
    printf("\n");

    /* A second roll of the unchanged file shares the continuum. */
    ketama_continuum again;
    if (!ketama_roll(&again, argv[1]) || again->numpoints != c->numpoints || again->array != c->array) {
        printf("FAIL: second roll\n");
        return 1;
    }
    ketama_smoke(again);

    if (check_failures())
        return 1;

    fflush(stdout);
    ketama_print_continuum(c);
    ketama_smoke(c);
    return 0;
}
