/* demangle.c - readable kernel names for `simt ptxas`: the mangled names
 * go, as arguments, to binutils' c++filt (no shell), one demangled name
 * comes back per line. Without c++filt, or when it fails, names stay as
 * they were. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "demangle.h"

extern char **environ;

int simt_cli_demangle(const char *const *names, size_t count, char **out, size_t name_size)
{
    for (size_t i = 0; i < count; i++)
        snprintf(out[i], name_size, "%s", names[i]);
    if (count == 0)
        return 0;
    char **argv = calloc(count + 2, sizeof *argv);
    int fds[2];
    if (argv == NULL || pipe(fds) != 0) {
        free(argv);
        return -1;
    }
    argv[0] = (char *)"c++filt";
    for (size_t i = 0; i < count; i++)
        argv[i + 1] = (char *)names[i];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, "c++filt", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    free(argv);
    if (rc != 0) {
        close(fds[0]);
        return -1;
    }
    FILE *in = fdopen(fds[0], "r");
    size_t got = 0;
    char line[4096];
    while (in != NULL && got < count && fgets(line, sizeof line, in) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        snprintf(out[got++], name_size, "%s", line);
    }
    if (in != NULL)
        fclose(in);
    else
        close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got != count || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        for (size_t i = 0; i < count; i++)
            snprintf(out[i], name_size, "%s", names[i]);
        return -1;
    }
    return 0;
}
