/* args.c - what `simt`'s command line needs besides the flag tables: byte
 * counts written as people write them (1GiB, 4K, 1e9), the bearer token
 * from a file, and where the hardware database lies for --offline: beside
 * the installed binary first, so that a copied or relocated install stands
 * alone. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* SIMT_SOURCE_HWDB, SIMT_BUILD_DIR, SIMT_INSTALLED_HWDB and SIMT_HWDB_FROM_BIN
 * come from clients/cli/CMakeLists.txt. */

int simt_cli_parse_size(const char *text, double *bytes)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || !isfinite(v) || v < 0.0 || text[0] == '-' || text[0] == '+')
        return SIMT_EINVAL;
    static const char units[] = "KMGTP";
    if (*end != '\0') {
        const char *unit = strchr(units, (char)(*end >= 'a' && *end <= 'z' ? *end - 'a' + 'A' : *end));
        if (unit == NULL || *end == '\0')
            return SIMT_EINVAL;
        for (int i = 0; i <= (int)(unit - units); i++)
            v *= 1024.0;
        end++;
        if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
            end += strlen(end);
    }
    if (*end != '\0')
        return SIMT_EINVAL;
    *bytes = v;
    return SIMT_OK;
}

int simt_cli_read_token_file(const char *path, char **token, char *error, size_t error_size)
{
    *token = NULL;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(error, error_size, "--token-file %s: %s", path, strerror(errno));
        return SIMT_EIO;
    }
    char line[4096];
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    size_t start = 0, n = got != NULL ? strlen(line) : 0;
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    while (start < n && (line[start] == ' ' || line[start] == '\t'))
        start++;
    if (start == n) {
        snprintf(error, error_size, "--token-file %s: no token on the first line", path);
        return SIMT_EINVAL;
    }
    *token = strndup(line + start, n - start);
    memset(line, 0, sizeof line);
    if (*token == NULL) {
        snprintf(error, error_size, "out of memory");
        return SIMT_ENOMEM;
    }
    return SIMT_OK;
}

static int is_dir(const char *path)
{
    struct stat st;
    return path[0] != '\0' && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *simt_cli_default_hwdb(void)
{
    const char *found = simt_hwdb_default_dir(SIMT_HWDB_FROM_BIN, SIMT_BUILD_DIR, SIMT_SOURCE_HWDB);
    if (found != NULL)
        return found;
    if (is_dir(SIMT_INSTALLED_HWDB) || !is_dir(SIMT_SOURCE_HWDB))
        return SIMT_INSTALLED_HWDB;
    return SIMT_SOURCE_HWDB;
}
