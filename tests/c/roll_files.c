/* Rolls each server file named on the command line with the original API and
 * prints one line per file ("OK <numpoints>" or "FAIL <ketama_error()>"). */
#include <ketama.h>
#include <stdio.h>

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
    return 0;
}
