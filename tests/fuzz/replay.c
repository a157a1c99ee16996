/* replay.c - runs a libFuzzer target without libFuzzer: every file named on
 * the command line, and every regular file of every directory named (in
 * name order, hidden files skipped), is fed once to LLVMFuzzerTestOneInput.
 * This is how the committed corpus runs under ctest with any compiler; a
 * target reports a failed check by aborting. Exits 1 when nothing was run,
 * so that an empty or misplaced corpus cannot pass. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t size = 0, capacity = 4096;
    uint8_t *data = malloc(capacity);
    for (;;) {
        if (data == NULL) {
            fclose(f);
            fprintf(stderr, "replay: out of memory reading %s\n", path);
            return -1;
        }
        size_t got = fread(data + size, 1, capacity - size, f);
        if (got == 0)
            break;
        size += got;
        if (size == capacity) {
            capacity *= 2;
            uint8_t *bigger = realloc(data, capacity);
            if (bigger == NULL)
                free(data);
            data = bigger;
        }
    }
    fclose(f);
    /* an exact-size copy, so that reading past the input is caught by ASan */
    uint8_t *exact = malloc(size ? size : 1);
    if (exact == NULL) {
        free(data);
        return -1;
    }
    memcpy(exact, data, size);
    free(data);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, capacity = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            char **bigger = realloc(names, capacity * sizeof *names);
            if (bigger == NULL)
                break;
            names = bigger;
        }
        names[n] = strdup(e->d_name);
        if (names[n] != NULL)
            n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, compare_names);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(len);
        struct stat st;
        if (path != NULL) {
            snprintf(path, len, "%s/%s", dir, names[i]);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (run_file(path) == 0)
                    (*count)++;
                else
                    rc = -1;
            }
        } else {
            rc = -1;
        }
        free(path);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    size_t count = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            failed = 1;
        } else if (S_ISDIR(st.st_mode)) {
            failed |= run_dir(argv[i], &count) != 0;
        } else if (run_file(argv[i]) == 0) {
            count++;
        } else {
            failed = 1;
        }
    }
    printf("replay: %zu inputs run\n", count);
    return failed || count == 0 ? 1 : 0;
}
