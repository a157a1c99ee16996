/* cli.h - the pieces of `simt`, the command-line client: how it reaches an
 * answer (over HTTP from simtd, or in-process from the bundled database with
 * --offline: the same simt_api_handle the daemon runs, so the same answers),
 * how it prints one (tables for people, JSON for machines), and its
 * subcommands. Everything here reports problems to the caller as text in a
 * caller-provided buffer; only the subcommand runners print.
 *
 * Exit codes of the command: 0 success; 1 the API answered an error, or a
 * gate (ptxas --min-occupancy) failed; 2 bad usage; 3 the daemon or the
 * database could not be reached. */
#ifndef SIMT_CLI_H
#define SIMT_CLI_H

#include <jansson.h>
#include <stdio.h>

#include "http.h"
#include "hwdb.h"

#define SIMT_CLI_DEFAULT_SERVER "http://127.0.0.1:8080"

enum simt_cli_exit { SIMT_EXIT_OK = 0, SIMT_EXIT_API = 1, SIMT_EXIT_USAGE = 2, SIMT_EXIT_UNREACHABLE = 3 };

struct simt_cli {
    int offline;          /* 1: answer in-process from the database */
    const char *server;   /* base URL when not offline */
    const char *hwdb_dir; /* --hwdb, or NULL for the default */
    int timeout_s;
    int json;                 /* --json: print the answer as JSON */
    struct simt_http_url url; /* parsed server */
    struct simt_hwdb *db;     /* loaded on first offline call; owned */
};

/* The default database directory for --offline: $SIMT_HWDB, the source
 * tree's hwdb/ when it exists, else the installed one. */
const char *simt_cli_default_hwdb(void);

/* One request. body may be NULL (GET). On 0, *status is the HTTP status and
 * *answer a new reference to the parsed JSON answer (or a JSON string
 * holding the raw text when the answer is not JSON). On failure returns a
 * negative SIMT_E* code and writes why into error. */
int simt_cli_call(struct simt_cli *cli, const char *method, const char *path, json_t *body, int *status,
                  json_t **answer, char *error, size_t error_size) SIMT_WARN_UNUSED;

/* Releases the database, if loaded. */
void simt_cli_close(struct simt_cli *cli);

/* Prints an answer for people: scalars as aligned "key  value" lines
 * (nested objects flattened as a.b), arrays of objects as tables,
 * assumptions last as a list. */
void simt_cli_print_human(FILE *out, json_t *answer);

/* Prints an array of objects as a table with the given columns (NULL: every
 * scalar key of the first row). */
void simt_cli_print_table(FILE *out, json_t *rows, const char *const *columns);

/* Prints an error answer ({"error": {...}}) or an unexpected one to err. */
void simt_cli_print_error(FILE *err, int status, json_t *answer);

/* Formats one scalar JSON value for people into buf. */
const char *simt_cli_format_value(const char *key, json_t *value, char *buf, size_t size);

/* `simt ptxas ...`: argv[0] is "ptxas". */
int simt_cli_ptxas(struct simt_cli *cli, int argc, char **argv);

/* The whole command line; returns the exit code. */
int simt_cli_main(int argc, char **argv);

#endif
