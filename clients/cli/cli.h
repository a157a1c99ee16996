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

#include <getopt.h>
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
    int json;             /* --json: print the answer as JSON */
    char *token;          /* --token-file's first line or $SIMT_TOKEN; owned, NULL for none */
    struct simt_hwdb *db; /* loaded on first offline call; owned */
};

/* One flag of a subcommand as getopt_long saw it: the name as typed (the
 * long option that matched, with its leading --) and its value (NULL for a
 * flag without one). Both point into argv or static tables. */
struct simt_cli_arg {
    const char *flag;
    int id; /* the subcommand's own number for the flag */
    const char *value;
};

/* The default database directory for --offline: $SIMT_HWDB; else the one
 * installed beside the running binary (<bin>/../share/simtd/hwdb, found
 * through /proc/self/exe); else the configure-time install path; else,
 * for a binary run from its build tree, the source tree's hwdb/. The
 * answer is a static buffer, valid until the next call. */
const char *simt_cli_default_hwdb(void);

/* Parses a byte count: a number (1024, 1e9, 1.5) with an optional binary
 * suffix K, M, G, T (also KiB/KB, MiB/MB, ...: all powers of 1024, as
 * simtd's own flags read them). 0 and the value in *bytes, or SIMT_EINVAL. */
int simt_cli_parse_size(const char *text, double *bytes) SIMT_WARN_UNUSED;

/* Reads a bearer token: the file's first line without surrounding blanks.
 * On 0, *token is malloc'd and owned by the caller; on failure a negative
 * SIMT_E* code and why in error. */
int simt_cli_read_token_file(const char *path, char **token, char *error, size_t error_size) SIMT_WARN_UNUSED;

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

/* `simt ptxas`'s flags, for getopt_long: each entry's val is the id its
 * simt_cli_arg carries. Ends with a zeroed entry. */
extern const struct option simt_cli_ptxas_options[];

/* `simt ptxas --help`. */
void simt_cli_ptxas_usage(FILE *out);

/* `simt ptxas`: its flags (parsed) and input files ("-" or none: stdin). */
int simt_cli_ptxas(struct simt_cli *cli, const struct simt_cli_arg *args, int arg_count, char **files,
                   int file_count);

/* The whole command line; returns the exit code. */
int simt_cli_main(int argc, char **argv);

#endif
