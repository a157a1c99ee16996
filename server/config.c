/* config.c - strict flag parsing for simtd. Accepts `--flag VALUE` and
 * `--flag=VALUE`; every number is checked for range and trailing garbage. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SIMT_VERSION
#define SIMT_VERSION "unknown"
#endif

void simt_config_defaults(struct simt_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->bind_addr = SIMT_DEFAULT_BIND;
    cfg->port = SIMT_DEFAULT_PORT;
    cfg->hwdb_dir = NULL;
    cfg->threads = SIMT_DEFAULT_THREADS;
    cfg->max_body_bytes = SIMT_DEFAULT_MAX_BODY_BYTES;
    cfg->max_connections = SIMT_DEFAULT_MAX_CONNECTIONS;
    cfg->max_connections_per_ip = SIMT_DEFAULT_MAX_CONNECTIONS_PER_IP;
    cfg->max_request_cost = SIMT_DEFAULT_MAX_REQUEST_COST;
    cfg->timeout_s = SIMT_DEFAULT_TIMEOUT_S;
    cfg->cache_entries = SIMT_DEFAULT_CACHE_ENTRIES;
    cfg->log_level = SIMT_LOG_INFO;
    cfg->access_log = 1;
}

static int is_dir(const char *path)
{
    struct stat st;
    return path[0] != '\0' && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *simt_config_default_hwdb(void)
{
    const char *env = getenv("SIMT_HWDB");
    if (env != NULL && env[0] != '\0')
        return env;
    static char found[PATH_MAX + 64];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL) {
            *slash = '\0';
            /* installed: the database where it lies relative to bin/ */
            snprintf(found, sizeof found, "%s/%s", exe, SIMT_HWDB_FROM_BIN);
            if (SIMT_HWDB_FROM_BIN[0] != '\0' && is_dir(found))
                return found;
            /* a binary in its build tree answers from the tree it was built from */
            size_t build_len = strlen(SIMT_BUILD_DIR);
            if (build_len > 0 && strncmp(exe, SIMT_BUILD_DIR, build_len) == 0 &&
                (exe[build_len] == '/' || exe[build_len] == '\0') && is_dir(SIMT_SOURCE_HWDB))
                return SIMT_SOURCE_HWDB;
        }
    }
    return SIMT_INSTALLED_HWDB;
}

void simt_config_usage(FILE *out)
{
    fprintf(out,
            "Usage: simtd [OPTION]...\n"
            "Serve simtd's analytical GPU performance model over HTTP (API v1).\n"
            "\n"
            "Options (defaults in brackets):\n"
            "  --bind ADDR            numeric IPv4 or IPv6 address to listen on [%s]\n"
            "  --port N               TCP port; 0 picks a free one and prints it [%u]\n"
            "  --hwdb DIR             hardware database directory (arch/ and gpus/ under it);\n"
            "                         default: $SIMT_HWDB, else the one installed beside\n"
            "                         this binary, else the source tree's for a build\n"
            "                         [%s]\n"
            "  --threads N            event threads: 1, or a pool of N; 0: one per CPU\n"
            "                         (%ld here) [0]\n"
            "  --max-body-bytes N     largest request body, bytes (K, M, G suffixes: KiB,\n"
            "                         MiB, GiB); larger ones are answered 413 [1M]\n"
            "  --max-connections N    open connections at most; near it the longest-idle\n"
            "                         connection is closed first, then new ones are\n"
            "                         refused [%u]\n"
            "  --max-connections-per-ip N\n"
            "                         open connections from one client address at most;\n"
            "                         0: no limit [%u]\n"
            "  --max-request-cost N   model points one request may ask for (GPUs x sweep\n"
            "                         points in /v1/compare, points in a sweep; about\n"
            "                         340 bytes of answer and 40 us of CPU each); a\n"
            "                         costlier request is answered 413 saying how to\n"
            "                         split it. Costly requests run on their own thread,\n"
            "                         never delaying the others [%u]\n"
            "  --timeout-s N          seconds a connection may stay idle, and may take to\n"
            "                         deliver one whole request, before it is closed [%u]\n"
            "  --cache-entries N      answers kept for identical requests (each answer is\n"
            "                         a pure function of the request and the database;\n"
            "                         a reload empties it); 0 turns it off [%u]\n"
            "  --log-level LEVEL      error, warn, info or debug [info]\n"
            "  --access-log on|off    one JSON line per request on stderr [on]\n"
            "  --token-file FILE      require 'Authorization: Bearer TOKEN' on every route\n"
            "                         but /healthz, TOKEN being FILE's first line; meant\n"
            "                         for binds beyond loopback [none]\n"
            "  --help                 print this help and exit\n"
            "  --version              print the version and exit\n"
            "\n"
            "Signals: SIGHUP reloads the database from the same directory (a database\n"
            "that fails to load is reported and the old one keeps serving); SIGTERM or\n"
            "SIGINT stop accepting, finish requests in flight and exit 0.\n"
            "\n"
            "On start the line \"simtd: listening on http://ADDR:PORT\" goes to stdout;\n"
            "logs are JSON lines on stderr.\n"
            "\n"
            "Examples:\n"
            "  simtd\n"
            "  simtd --port 0 --hwdb ./my-hwdb --access-log off\n"
            "  simtd --bind 0.0.0.0 --port 9000 --threads 2 --max-body-bytes 64K\n"
            "  curl -s localhost:8080/healthz\n"
            "  curl -s --json '{\"gpu\":\"h200-sxm\",\"block_size\":256,\"registers_per_thread\":64}' "
            "localhost:8080/v1/occupancy\n",
            SIMT_DEFAULT_BIND, SIMT_DEFAULT_PORT, simt_config_default_hwdb(), sysconf(_SC_NPROCESSORS_ONLN),
            SIMT_DEFAULT_MAX_CONNECTIONS, SIMT_DEFAULT_MAX_CONNECTIONS_PER_IP, SIMT_DEFAULT_MAX_REQUEST_COST,
            SIMT_DEFAULT_TIMEOUT_S, SIMT_DEFAULT_CACHE_ENTRIES);
}

/* Parses a decimal integer in [min, max], with an optional binary size
 * suffix when `sizes` is set. Returns 0, or SIMT_EINVAL. */
static SIMT_WARN_UNUSED int parse_number(const char *text, int sizes, uint64_t min, uint64_t max,
                                         uint64_t *out)
{
    if (text[0] < '0' || text[0] > '9')
        return SIMT_EINVAL;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text)
        return SIMT_EINVAL;
    if (sizes && *end != '\0') {
        unsigned shift = 0;
        switch (*end) {
        case 'k':
        case 'K':
            shift = 10;
            break;
        case 'm':
        case 'M':
            shift = 20;
            break;
        case 'g':
        case 'G':
            shift = 30;
            break;
        default:
            return SIMT_EINVAL;
        }
        end++;
        if (*end == 'i' && end[1] == 'B')
            end += 2;
        else if (*end == 'B')
            end++;
        if (v > (UINT64_MAX >> shift))
            return SIMT_EINVAL;
        v <<= shift;
    }
    if (*end != '\0' || v < min || v > max)
        return SIMT_EINVAL;
    *out = v;
    return SIMT_OK;
}

/* Options that take a number: where it goes and what it may be. */
static const struct number_option {
    const char *name;
    int sizes; /* K, M, G suffixes allowed */
    uint64_t min, max;
    const char *range; /* for the message: "must be <range>, not '...'" */
    size_t offset;     /* into struct simt_config */
    int is_size_t;     /* the field is a size_t, else an unsigned */
} number_options[] = {
    {"--port", 0, 0, 65535, "an integer 0..65535", offsetof(struct simt_config, port), 0},
    {"--threads", 0, 0, 256, "an integer 0..256", offsetof(struct simt_config, threads), 0},
    {"--max-body-bytes", 1, 1, (uint64_t)1 << 30, "1..1G bytes", offsetof(struct simt_config, max_body_bytes),
     1},
    {"--max-connections", 0, 1, 1000000, "an integer 1..1000000",
     offsetof(struct simt_config, max_connections), 0},
    {"--max-connections-per-ip", 0, 0, 1000000, "an integer 0..1000000",
     offsetof(struct simt_config, max_connections_per_ip), 0},
    {"--max-request-cost", 0, 1, 100000000, "an integer 1..100000000",
     offsetof(struct simt_config, max_request_cost), 0},
    {"--timeout-s", 0, 1, 86400, "an integer 1..86400", offsetof(struct simt_config, timeout_s), 0},
    {"--cache-entries", 0, 0, 1000000, "an integer 0..1000000", offsetof(struct simt_config, cache_entries),
     0},
};

/* Options that take a non-empty string, kept as a pointer into argv. */
static const struct text_option {
    const char *name;
    const char *needs; /* for the message: "--bind needs <needs>" */
    size_t offset;     /* of a const char * in struct simt_config */
} text_options[] = {
    {"--bind", "an address", offsetof(struct simt_config, bind_addr)},
    {"--hwdb", "a directory", offsetof(struct simt_config, hwdb_dir)},
    {"--token-file", "a file name", offsetof(struct simt_config, token_file)},
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static int is_known_option(const char *name)
{
    for (size_t k = 0; k < COUNT_OF(number_options); k++)
        if (strcmp(name, number_options[k].name) == 0)
            return 1;
    for (size_t k = 0; k < COUNT_OF(text_options); k++)
        if (strcmp(name, text_options[k].name) == 0)
            return 1;
    return strcmp(name, "--log-level") == 0 || strcmp(name, "--access-log") == 0;
}

/* Applies one known option's value to cfg; SIMT_EINVAL with diag on a bad value. */
static SIMT_WARN_UNUSED int apply_option(struct simt_config *cfg, const char *name, const char *value,
                                         struct simt_diag *diag)
{
    for (size_t k = 0; k < COUNT_OF(number_options); k++) {
        const struct number_option *o = &number_options[k];
        if (strcmp(name, o->name) != 0)
            continue;
        uint64_t n = 0;
        if (parse_number(value, o->sizes, o->min, o->max, &n) != SIMT_OK)
            return simt_diag_fail(diag, SIMT_EINVAL, name, "%s must be %s, not '%s'", name, o->range, value);
        if (o->is_size_t)
            *(size_t *)(void *)((char *)cfg + o->offset) = (size_t)n;
        else
            *(unsigned *)(void *)((char *)cfg + o->offset) = (unsigned)n;
        return SIMT_OK;
    }
    for (size_t k = 0; k < COUNT_OF(text_options); k++) {
        const struct text_option *o = &text_options[k];
        if (strcmp(name, o->name) != 0)
            continue;
        if (value[0] == '\0')
            return simt_diag_fail(diag, SIMT_EINVAL, name, "%s needs %s", name, o->needs);
        *(const char **)(void *)((char *)cfg + o->offset) = value;
        return SIMT_OK;
    }
    if (strcmp(name, "--log-level") == 0) {
        if (simt_log_level_parse(value, &cfg->log_level) != SIMT_OK)
            return simt_diag_fail(diag, SIMT_EINVAL, name,
                                  "--log-level must be error, warn, info or debug, not '%s'", value);
        return SIMT_OK;
    }
    /* --access-log */
    if (strcmp(value, "on") == 0)
        cfg->access_log = 1;
    else if (strcmp(value, "off") == 0)
        cfg->access_log = 0;
    else
        return simt_diag_fail(diag, SIMT_EINVAL, name, "--access-log must be on or off, not '%s'", value);
    return SIMT_OK;
}

int simt_config_parse(int argc, char **argv, struct simt_config *cfg, enum simt_config_action *action,
                      struct simt_diag *diag)
{
    simt_config_defaults(cfg);
    *action = SIMT_CONFIG_RUN;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *action = SIMT_CONFIG_HELP;
            return SIMT_OK;
        }
        if (strcmp(arg, "--version") == 0) {
            *action = SIMT_CONFIG_VERSION;
            return SIMT_OK;
        }
        if (strncmp(arg, "--", 2) != 0)
            return simt_diag_fail(diag, SIMT_EINVAL, arg, "unexpected argument '%s'", arg);
        /* split "--name=value" or take the next argument */
        char name[64];
        const char *value = NULL;
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (name_len >= sizeof name)
            return simt_diag_fail(diag, SIMT_EINVAL, arg, "unknown option '%s'", arg);
        memcpy(name, arg, name_len);
        name[name_len] = '\0';
        if (!is_known_option(name))
            return simt_diag_fail(diag, SIMT_EINVAL, name, "unknown option '%s'", name);
        if (eq)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            return simt_diag_fail(diag, SIMT_EINVAL, name, "option '%s' needs a value", name);
        int rc = apply_option(cfg, name, value, diag);
        if (rc != SIMT_OK)
            return rc;
    }
    if (cfg->threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        cfg->threads = cpus > 0 ? (unsigned)cpus : 1u;
    }
    return SIMT_OK;
}

const char *simt_config_version(void)
{
    return SIMT_VERSION;
}
