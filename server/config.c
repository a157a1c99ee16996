/* config.c - strict flag parsing for simtd. Accepts `--flag VALUE` and
 * `--flag=VALUE`; every number is checked for range and trailing garbage. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SIMT_VERSION
#define SIMT_VERSION "unknown"
#endif
#ifndef SIMT_SOURCE_HWDB
#define SIMT_SOURCE_HWDB ""
#endif
#ifndef SIMT_INSTALLED_HWDB
#define SIMT_INSTALLED_HWDB "/usr/local/share/simtd/hwdb"
#endif

void simt_config_defaults(struct simt_server_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->bind_addr = SIMT_DEFAULT_BIND;
    cfg->port = SIMT_DEFAULT_PORT;
    cfg->hwdb_dir = NULL;
    cfg->threads = SIMT_DEFAULT_THREADS;
    cfg->max_body_bytes = SIMT_DEFAULT_MAX_BODY_BYTES;
    cfg->max_connections = SIMT_DEFAULT_MAX_CONNECTIONS;
    cfg->timeout_s = SIMT_DEFAULT_TIMEOUT_S;
    cfg->cache_entries = SIMT_DEFAULT_CACHE_ENTRIES;
    cfg->log_level = SIMT_LOG_INFO;
    cfg->access_log = 1;
}

const char *simt_config_default_hwdb(void)
{
    struct stat st;
    if (SIMT_SOURCE_HWDB[0] != '\0' && stat(SIMT_SOURCE_HWDB, &st) == 0 && S_ISDIR(st.st_mode))
        return SIMT_SOURCE_HWDB;
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
            "  --hwdb DIR             hardware database directory (arch/ and gpus/ under it)\n"
            "                         [%s]\n"
            "  --threads N            event threads: 1, or a pool of N; 0: one per CPU\n"
            "                         (%ld here) [0]\n"
            "  --max-body-bytes N     largest request body, bytes (K, M, G suffixes: KiB,\n"
            "                         MiB, GiB); larger ones are answered 413 [1M]\n"
            "  --max-connections N    open connections at most; more are refused [%u]\n"
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
            SIMT_DEFAULT_MAX_CONNECTIONS, SIMT_DEFAULT_TIMEOUT_S, SIMT_DEFAULT_CACHE_ENTRIES);
}

static void set_error(char *error, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_error(char *error, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, size, fmt, ap);
    va_end(ap);
}

/* Parses a decimal integer in [min, max], with an optional binary size
 * suffix when `sizes` is set. Returns 0, or -1. */
static int parse_number(const char *text, int sizes, uint64_t min, uint64_t max, uint64_t *out)
{
    if (text[0] < '0' || text[0] > '9')
        return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text)
        return -1;
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
            return -1;
        }
        end++;
        if (*end == 'i' && end[1] == 'B')
            end += 2;
        else if (*end == 'B')
            end++;
        if (v > (UINT64_MAX >> shift))
            return -1;
        v <<= shift;
    }
    if (*end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

enum simt_config_result simt_config_parse(int argc, char **argv, struct simt_server_config *cfg, char *error,
                                          size_t error_size)
{
    simt_config_defaults(cfg);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return SIMT_CONFIG_HELP;
        if (strcmp(arg, "--version") == 0)
            return SIMT_CONFIG_VERSION;
        if (strncmp(arg, "--", 2) != 0) {
            set_error(error, error_size, "unexpected argument '%s'", arg);
            return SIMT_CONFIG_ERROR;
        }
        /* split "--name=value" or take the next argument */
        char name[64];
        const char *value = NULL;
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (name_len >= sizeof name) {
            set_error(error, error_size, "unknown option '%s'", arg);
            return SIMT_CONFIG_ERROR;
        }
        memcpy(name, arg, name_len);
        name[name_len] = '\0';

        static const char *const known[] = {"--bind",       "--port",           "--hwdb",
                                            "--threads",    "--max-body-bytes", "--max-connections",
                                            "--timeout-s",  "--cache-entries",  "--log-level",
                                            "--access-log", "--token-file"};
        int is_known = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            if (strcmp(name, known[k]) == 0)
                is_known = 1;
        if (!is_known) {
            set_error(error, error_size, "unknown option '%s'", name);
            return SIMT_CONFIG_ERROR;
        }
        if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            set_error(error, error_size, "option '%s' needs a value", name);
            return SIMT_CONFIG_ERROR;
        }

        uint64_t n = 0;
        if (strcmp(name, "--bind") == 0) {
            if (value[0] == '\0') {
                set_error(error, error_size, "--bind needs an address");
                return SIMT_CONFIG_ERROR;
            }
            cfg->bind_addr = value;
        } else if (strcmp(name, "--port") == 0) {
            if (parse_number(value, 0, 0, 65535, &n) != 0) {
                set_error(error, error_size, "--port must be an integer 0..65535, not '%s'", value);
                return SIMT_CONFIG_ERROR;
            }
            cfg->port = (unsigned)n;
        } else if (strcmp(name, "--hwdb") == 0) {
            if (value[0] == '\0') {
                set_error(error, error_size, "--hwdb needs a directory");
                return SIMT_CONFIG_ERROR;
            }
            cfg->hwdb_dir = value;
        } else if (strcmp(name, "--threads") == 0) {
            if (parse_number(value, 0, 0, 256, &n) != 0) {
                set_error(error, error_size, "--threads must be an integer 0..256, not '%s'", value);
                return SIMT_CONFIG_ERROR;
            }
            cfg->threads = (unsigned)n;
        } else if (strcmp(name, "--max-body-bytes") == 0) {
            if (parse_number(value, 1, 1, (uint64_t)1 << 30, &n) != 0) {
                set_error(error, error_size, "--max-body-bytes must be 1..1G bytes, not '%s'", value);
                return SIMT_CONFIG_ERROR;
            }
            cfg->max_body_bytes = (size_t)n;
        } else if (strcmp(name, "--max-connections") == 0) {
            if (parse_number(value, 0, 1, 1000000, &n) != 0) {
                set_error(error, error_size, "--max-connections must be an integer 1..1000000, not '%s'",
                          value);
                return SIMT_CONFIG_ERROR;
            }
            cfg->max_connections = (unsigned)n;
        } else if (strcmp(name, "--timeout-s") == 0) {
            if (parse_number(value, 0, 1, 86400, &n) != 0) {
                set_error(error, error_size, "--timeout-s must be an integer 1..86400, not '%s'", value);
                return SIMT_CONFIG_ERROR;
            }
            cfg->timeout_s = (unsigned)n;
        } else if (strcmp(name, "--cache-entries") == 0) {
            if (parse_number(value, 0, 0, 1000000, &n) != 0) {
                set_error(error, error_size, "--cache-entries must be an integer 0..1000000, not '%s'",
                          value);
                return SIMT_CONFIG_ERROR;
            }
            cfg->cache_entries = (unsigned)n;
        } else if (strcmp(name, "--log-level") == 0) {
            if (simt_log_level_parse(value, &cfg->log_level) != 0) {
                set_error(error, error_size, "--log-level must be error, warn, info or debug, not '%s'",
                          value);
                return SIMT_CONFIG_ERROR;
            }
        } else if (strcmp(name, "--token-file") == 0) {
            if (value[0] == '\0') {
                set_error(error, error_size, "--token-file needs a file name");
                return SIMT_CONFIG_ERROR;
            }
            cfg->token_file = value;
        } else if (strcmp(name, "--access-log") == 0) {
            if (strcmp(value, "on") == 0) {
                cfg->access_log = 1;
            } else if (strcmp(value, "off") == 0) {
                cfg->access_log = 0;
            } else {
                set_error(error, error_size, "--access-log must be on or off, not '%s'", value);
                return SIMT_CONFIG_ERROR;
            }
        }
    }
    if (cfg->threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        cfg->threads = cpus > 0 ? (unsigned)cpus : 1u;
    }
    return SIMT_CONFIG_RUN;
}

const char *simt_config_version(void)
{
    return SIMT_VERSION;
}
