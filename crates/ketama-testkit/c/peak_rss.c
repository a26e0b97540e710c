/* peak_rss OUT_FILE PROGRAM [ARG...]: runs PROGRAM and writes its peak
 * resident set size in KiB to OUT_FILE; exits with PROGRAM's exit code, or
 * 128 + the signal that ended it.
 *
 * Why a launcher: Linux keeps ru_maxrss across exec, and a child spawned
 * with vfork (as posix_spawn does) starts from its parent's memory, so a
 * command started straight from a test process reports that process's own
 * peak when it is the larger. Forked from this small program, the command's
 * figure is its own. */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: peak_rss OUT_FILE PROGRAM [ARG...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("peak_rss: fork");
        return 2;
    }
    if (pid == 0) {
        /* Dies with the launcher, so a test's time limit kills both. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execvp(argv[2], argv + 2);
        perror("peak_rss: exec");
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) != pid) {
        perror("peak_rss: wait4");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out || fprintf(out, "%ld\n", usage.ru_maxrss) < 0 || fclose(out) != 0) {
        perror("peak_rss: write OUT_FILE");
        return 2;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
