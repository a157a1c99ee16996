/* config.h - simtd's command line: flags, their defaults, the usage text.
 * Parsing is strict (unknown flags, missing values, out-of-range numbers and
 * trailing garbage are refused) and touches nothing but the struct it fills. */
#ifndef SIMT_SERVER_CONFIG_H
#define SIMT_SERVER_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "log.h"
#include "simt_error.h"

/* Where the database lives, compiled in by server/CMakeLists.txt (the
 * source tree's hwdb/ and the installed one); the fallbacks serve a build
 * without them. config.c and static.c (the dashboard beside it) use them. */
#ifndef SIMT_SOURCE_HWDB
#define SIMT_SOURCE_HWDB ""
#endif
#ifndef SIMT_BUILD_DIR
#define SIMT_BUILD_DIR ""
#endif
#ifndef SIMT_HWDB_FROM_BIN
#define SIMT_HWDB_FROM_BIN ""
#endif
#ifndef SIMT_INSTALLED_HWDB
#define SIMT_INSTALLED_HWDB "/usr/local/share/simtd/hwdb"
#endif

#define SIMT_DEFAULT_BIND "127.0.0.1"
#define SIMT_DEFAULT_PORT 8080u
#define SIMT_DEFAULT_THREADS 0u /* one per CPU */
#define SIMT_DEFAULT_MAX_BODY_BYTES ((size_t)1 << 20)
#define SIMT_DEFAULT_MAX_CONNECTIONS 1024u
#define SIMT_DEFAULT_MAX_CONNECTIONS_PER_IP 128u
#define SIMT_DEFAULT_MAX_REQUEST_COST 16384u
#define SIMT_DEFAULT_TIMEOUT_S 30u
#define SIMT_DEFAULT_CACHE_ENTRIES 1024u

#define SIMT_MAX_TOKEN_BYTES 256

struct simt_config {
    const char *bind_addr; /* numeric IPv4 or IPv6 address */
    unsigned port;         /* 0: the kernel picks one */
    const char *hwdb_dir;  /* NULL: the bundled database */
    unsigned threads;      /* event threads: 1, or a pool of N; parsed 0 becomes one per CPU */
    size_t max_body_bytes; /* larger request bodies are answered 413 */
    unsigned max_connections;
    unsigned max_connections_per_ip; /* 0: no limit per client address */
    unsigned max_request_cost;       /* model points one request may ask for (simt_api_set_max_cost) */
    unsigned timeout_s;              /* idle limit, and the time a request may take to arrive */
    unsigned cache_entries;          /* answers memoized (0: none); see cache.h */
    enum simt_log_level log_level;
    int access_log;         /* 1: one JSON line per request on stderr */
    const char *token_file; /* NULL: no authentication; else a file holding the bearer token */
    const char *token;      /* the token read from token_file by main(), or NULL */
};

/* What the command line asks for. */
enum simt_config_action {
    SIMT_CONFIG_RUN = 0,     /* start the daemon */
    SIMT_CONFIG_HELP = 1,    /* --help: print usage to stdout, exit 0 */
    SIMT_CONFIG_VERSION = 2, /* --version */
};

void simt_config_defaults(struct simt_config *cfg);

/* Fills cfg from argv (argv[0] skipped); strings point into argv. Returns 0
 * with *action RUN, or HELP / VERSION when that flag comes before any bad
 * one; or SIMT_EINVAL for bad flags, with diag->field the option ("--port",
 * or the argument itself) and diag->message why ("--port must be an integer
 * 0..65535, not 'x'"): main prints it with the usage and exits 2. */
int simt_config_parse(int argc, char **argv, struct simt_config *cfg, enum simt_config_action *action,
                      struct simt_diag *diag) SIMT_WARN_UNUSED;

/* The default database directory, as the CLI's simt_cli_default_hwdb():
 * $SIMT_HWDB; else the database beside the running binary (its directory
 * plus SIMT_HWDB_FROM_BIN, the install's bin/ -> share/simtd/hwdb path),
 * so an installed tree works wherever it is moved; else the source tree's
 * hwdb/ when the binary lies in the build tree; else the configure-time
 * install directory. */
const char *simt_config_default_hwdb(void);

void simt_config_usage(FILE *out);

/* "0.1.0": the project version compiled in. */
const char *simt_config_version(void);

#endif
