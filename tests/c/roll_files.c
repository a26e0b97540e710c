/* Rolls each server file named on the command line with the original API and
 * prints one line per file ("OK <numpoints>" or "FAIL <ketama_error()>"), then
 * the process's peak resident set size: "maxrss_kib <N>". */
#include <ketama.h>
#include <stdio.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        ketama_continuum c = NULL;
        if (ketama_roll(&c, argv[i])) {
            printf("OK %d\n", c->numpoints);
            ketama_smoke(c);
        } else {
            printf("FAIL %s\n", ketama_error());
        }
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("maxrss_kib %ld\n", usage.ru_maxrss);
    return 0;
}
