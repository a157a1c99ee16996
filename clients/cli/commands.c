/* commands.c - `simt`'s command line: global flags, one subcommand per API
 * endpoint with a flag per request field (--block-size sets block_size),
 * the get/post pass-through, and per-subcommand --help. The tables below
 * are the whole mapping from flags to request bodies; the server still
 * validates everything, so a wrong value gets the contract's error. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

enum field_type {
    T_INT,  /* a JSON number (integers stay integers) */
    T_NUM,  /* a JSON number */
    T_STR,  /* a string */
    T_BOOL, /* true/false; a bare flag means true */
    T_JSON, /* any JSON text: an object, an array, a number */
    T_GPU,  /* an id, or a what-if object {"base": ...} */
    T_ANY,  /* a number, JSON if it starts with { or [, else a string */
    T_LIST  /* comma-separated strings -> an array */
};

struct field {
    const char *key;
    enum field_type type;
    const char *help;
};

struct command {
    const char *name;
    const char *method;
    const char *path;
    const char *summary;
    const struct field *fields;
    const char *example;
};

#define GPU_FIELD                                                                                            \
    {                                                                                                        \
        "gpu", T_GPU, "GPU id (simt gpus) or a what-if object {\"base\":\"h100-sxm\",\"sm_count\":114}"      \
    }
#define FIGURES_FIELD                                                                                        \
    {                                                                                                        \
        "figures", T_STR, "measured (default) or datasheet"                                                  \
    }
#define OCCUPANCY_FIELDS                                                                                     \
    {"block_size", T_INT, "threads per block (required)"},                                                   \
        {"registers_per_thread", T_INT, "registers per thread, as ptxas reports (required)"},                \
        {"static_shared_bytes", T_INT, "static shared memory per block [0]"},                                \
        {"dynamic_shared_bytes", T_INT, "dynamic shared memory per block [0]"},                              \
        {"max_dynamic_shared_bytes", T_INT,                                                                  \
         "cudaFuncAttributeMaxDynamicSharedMemorySize [the most allowed]"},                                  \
        {"carveout_percent", T_INT, "preferred shared-memory carveout 0..100, -1 driver default [-1]"},      \
        {"block_barriers", T_INT, "named barriers the kernel uses [1]"},                                     \
    {                                                                                                        \
        "grid_size", T_INT, "blocks in the grid: adds waves"                                                 \
    }

static const struct field occupancy_fields[] = {
    GPU_FIELD, OCCUPANCY_FIELDS, FIGURES_FIELD, {NULL, T_INT, NULL}};
static const struct field sweep_fields[] = {
    GPU_FIELD,
    OCCUPANCY_FIELDS,
    {"vary", T_STR, "block_size | registers_per_thread | dynamic_shared_bytes (required)"},
    {"from", T_INT, "first value [the natural start]"},
    {"to", T_INT, "last value [the GPU's limit]"},
    {"step", T_INT, "step [warp size, 1 or 1024]"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field suggest_fields[] = {
    GPU_FIELD,
    {"registers_per_thread", T_INT, "registers per thread (required)"},
    {"static_shared_bytes", T_INT, "static shared memory per block [0]"},
    {"dynamic_shared_bytes", T_INT, "dynamic shared memory per block [0]"},
    {"dynamic_shared_bytes_per_thread", T_INT, "dynamic shared memory per thread (instead of per block)"},
    {"max_block_size", T_INT, "largest block to consider [the GPU's limit]"},
    {"carveout_percent", T_INT, "preferred carveout 0..100, -1 default [-1]"},
    {"block_barriers", T_INT, "named barriers [1]"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field roofline_fields[] = {
    GPU_FIELD,
    {"flops", T_NUM, "floating-point operations (an FMA counts 2)"},
    {"precision", T_STR, "fp64 fp32 tf32 fp16 bf16 fp8 int8 int4"},
    {"tensor_cores", T_BOOL, "use the tensor-core peak"},
    {"bytes", T_ANY, "DRAM bytes, or {\"dram\":..,\"l2\":..,\"shared\":..}"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field access_fields[] = {
    GPU_FIELD,
    {"element_bytes", T_INT, "bytes per lane: 1 2 4 8 16"},
    {"lane_stride_elements", T_INT, "elements between consecutive lanes (0: one address)"},
    {"offset_elements", T_INT, "first lane's offset in elements [0]"},
    {"lane_addresses", T_JSON, "[32 byte offsets] instead of a stride"},
    {"active_lanes", T_JSON, "[32 booleans]"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field constant_fields[] = {
    GPU_FIELD,
    {"distinct_addresses", T_INT, "distinct addresses the warp reads"},
    {"lane_addresses", T_JSON, "[32 byte offsets]"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field latency_fields[] = {
    GPU_FIELD,
    {"warps_per_sm", T_INT, "resident warps per SM (or give the occupancy fields)"},
    {"ilp", T_INT, "independent operations per warp in flight [1]"},
    {"bytes_per_lane", T_NUM, "bytes each lane moves per access"},
    {"level", T_STR, "dram | l2 | shared | fma"},
    OCCUPANCY_FIELDS,
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field divergence_fields[] = {
    GPU_FIELD,
    {"paths", T_INT, "lanes spread over k equal-cost paths"},
    {"lane_paths", T_JSON, "[32 ints]: each lane's path"},
    {"random_paths", T_INT, "each lane picks one of k paths at random"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field kernel_fields[] = {
    GPU_FIELD,
    {"launch", T_JSON, "{\"grid\":[..],\"block\":[..],\"dynamic_shared_bytes\":..}"},
    {"resources", T_JSON, "{\"registers_per_thread\":..,\"static_shared_bytes\":..,\"block_barriers\":..}"},
    {"per_thread", T_JSON, "{\"flops\":{..},\"sfu_ops\":..,\"accesses\":[..],\"branch\":{..}}"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field gemm_fields[] = {GPU_FIELD,
                                           {"m", T_INT, "rows of A and C"},
                                           {"n", T_INT, "columns of B and C"},
                                           {"k", T_INT, "the reduction dimension"},
                                           {"dtype", T_STR, "fp64 fp32 tf32 fp16 bf16 fp8 int8"},
                                           {"batch", T_INT, "independent GEMMs [1]"},
                                           FIGURES_FIELD,
                                           {NULL, T_INT, NULL}};
static const struct field collective_fields[] = {
    GPU_FIELD,
    {"op", T_STR, "all_reduce all_gather reduce_scatter all_to_all broadcast"},
    {"bytes", T_NUM, "bytes as the NCCL tests count them"},
    {"gpus", T_INT, "GPUs (per node)"},
    {"link", T_STR, "nvlink | pcie"},
    {"nodes", T_INT, "nodes [1]"},
    {"network_bytes_per_s", T_NUM, "network bandwidth per GPU between nodes"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field compare_fields[] = {
    {"gpus", T_LIST, "comma-separated GPU ids"},
    {"question", T_STR, "the endpoint to ask, e.g. /v1/gemm"},
    {"body", T_JSON, "that endpoint's body without gpu (the request field body)"},
    {NULL, T_INT, NULL}};
static const struct field no_fields[] = {{NULL, T_INT, NULL}};

static const struct command commands[] = {
    {"health", "GET", "/healthz", "is the daemon up; how many GPUs it knows", no_fields, "simt health"},
    {"gpus", "GET", "/v1/gpus", "list the GPUs of the hardware database", no_fields, "simt gpus"},
    {"gpu", "GET", "/v1/gpus/", "one GPU's whole record: simt gpu ID", no_fields, "simt gpu h200-sxm"},
    {"occupancy", "POST", "/v1/occupancy", "occupancy of one kernel configuration", occupancy_fields,
     "simt occupancy --gpu h200-sxm --block-size 256 --registers-per-thread 64"},
    {"sweep", "POST", "/v1/occupancy/sweep", "occupancy against block size, registers or shared memory",
     sweep_fields, "simt sweep --gpu h200-sxm --registers-per-thread 64 --vary block_size"},
    {"suggest", "POST", "/v1/launch/suggest", "the block size of highest occupancy", suggest_fields,
     "simt suggest --gpu h200-sxm --registers-per-thread 64"},
    {"roofline", "POST", "/v1/roofline", "roofline bound and time of a kernel", roofline_fields,
     "simt roofline --gpu h200-sxm --flops 1e12 --precision fp16 --tensor-cores --bytes 4e9"},
    {"coalescing", "POST", "/v1/memory/coalescing", "sectors and efficiency of one warp-wide global access",
     access_fields, "simt coalescing --gpu h200-sxm --element-bytes 4 --lane-stride-elements 2"},
    {"banks", "POST", "/v1/memory/banks", "shared-memory bank conflicts of one warp-wide access",
     access_fields, "simt banks --gpu h200-sxm --element-bytes 4 --lane-stride-elements 32"},
    {"constant", "POST", "/v1/memory/constant", "constant-cache serialization", constant_fields,
     "simt constant --gpu h200-sxm --distinct-addresses 4"},
    {"latency", "POST", "/v1/latency-hiding", "is there enough in flight to hide latency", latency_fields,
     "simt latency --gpu h200-sxm --warps-per-sm 16 --ilp 2 --bytes-per-lane 16 --level dram"},
    {"divergence", "POST", "/v1/divergence", "SIMT efficiency of divergent branches", divergence_fields,
     "simt divergence --paths 4"},
    {"kernel", "POST", "/v1/kernel", "predict one whole kernel launch", kernel_fields,
     "simt kernel --body @kernel.json"},
    {"gemm", "POST", "/v1/gemm", "tensor-core GEMM time", gemm_fields,
     "simt gemm --gpu h200-sxm --m 8192 --n 8192 --k 8192 --dtype bf16"},
    {"collective", "POST", "/v1/collective", "NCCL-style collective time", collective_fields,
     "simt collective --gpu h200-sxm --op all_reduce --bytes 1073741824 --gpus 8 --link nvlink"},
    {"compare", "POST", "/v1/compare", "ask one question of several GPUs", compare_fields,
     "simt compare --gpus a100-sxm4-80gb,h100-sxm,h200-sxm --question /v1/gemm "
     "--question-body '{\"m\":8192,\"n\":8192,\"k\":8192,\"dtype\":\"bf16\"}'"},
    {"openapi", "GET", "/openapi.json", "the OpenAPI 3 document", no_fields, "simt --json openapi"},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: simt [GLOBAL FLAGS] COMMAND [FLAGS]\n"
            "Ask simtd's GPU performance model from the command line.\n"
            "\n"
            "Global flags (anywhere on the line):\n"
            "  --server URL     simtd to ask [%s]\n"
            "  --offline        answer in-process from the bundled hardware database (no daemon)\n"
            "  --hwdb DIR       database directory for --offline [$SIMT_HWDB or the bundled one]\n"
            "  --json           print the answer as JSON\n"
            "  --timeout S      seconds to wait for the daemon [30]\n"
            "  --body JSON      request body to start from; flags are set on top (@FILE, - for stdin)\n"
            "\n"
            "Commands:\n",
            SIMT_CLI_DEFAULT_SERVER);
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "  %-12s %s\n", "ptxas", "occupancy of every kernel in nvcc -Xptxas -v / cuobjdump output");
    fprintf(out, "  %-12s %s\n", "get PATH", "GET any path");
    fprintf(out, "  %-12s %s\n", "post PATH", "POST --body JSON to any path");
    fprintf(out, "\n`simt COMMAND --help` lists a command's flags: one per request field, named as the\n"
                 "field with - for _ (--registers-per-thread sets registers_per_thread).\n"
                 "Exit status: 0 ok, 1 the API answered an error or a gate failed, 2 bad usage,\n"
                 "3 the daemon or the database could not be reached.\n");
}

static const char *type_name(enum field_type type)
{
    switch (type) {
    case T_INT:
        return "N";
    case T_NUM:
        return "X";
    case T_STR:
        return "S";
    case T_BOOL:
        return "[BOOL]";
    case T_JSON:
        return "JSON";
    case T_GPU:
        return "ID|JSON";
    case T_ANY:
        return "X|JSON";
    case T_LIST:
        return "A,B,..";
    }
    return "";
}

/* The flag of a field: --key with - for _, except where a global flag owns
 * the name (compare's "body" field is --question-body; --body is global). */
static void flag_name(const struct field *f, char *buf, size_t size)
{
    snprintf(buf, size, "--%s", strcmp(f->key, "body") == 0 ? "question-body" : f->key);
    for (char *p = buf + 2; *p; p++)
        if (*p == '_')
            *p = '-';
}

static void command_usage(FILE *out, const struct command *cmd)
{
    fprintf(out, "Usage: simt %s%s [FLAGS]\n%s: %s %s%s\n", cmd->name,
            strcmp(cmd->name, "gpu") == 0 ? " ID" : "", cmd->summary, cmd->method, cmd->path,
            strcmp(cmd->name, "gpu") == 0 ? "{id}" : "");
    if (cmd->fields[0].key != NULL)
        fprintf(out, "\nFlags (each sets the request field of the same name):\n");
    for (const struct field *f = cmd->fields; f->key != NULL; f++) {
        char flag[64], left[96];
        flag_name(f, flag, sizeof flag);
        snprintf(left, sizeof left, "%s %s", flag, type_name(f->type));
        fprintf(out, "  %-34s %s\n", left, f->help);
    }
    fprintf(out,
            "\nAlso: --body JSON (@FILE, -) to start from, --json, --server URL, --offline, --hwdb DIR.\n"
            "Example:\n  %s\n",
            cmd->example);
}

/* Reads --body's value: JSON text, @FILE, or - for stdin. */
static json_t *read_body_arg(const char *arg, char *error, size_t error_size)
{
    json_error_t jerr;
    json_t *body = NULL;
    if (strcmp(arg, "-") == 0) {
        body = json_loadf(stdin, JSON_DECODE_ANY, &jerr);
    } else if (arg[0] == '@') {
        body = json_load_file(arg + 1, JSON_DECODE_ANY, &jerr);
    } else {
        body = json_loads(arg, JSON_DECODE_ANY, &jerr);
    }
    if (body == NULL)
        snprintf(error, error_size, "--body: not JSON: %s (line %d, column %d)", jerr.text, jerr.line,
                 jerr.column);
    return body;
}

static json_t *flag_value(const struct field *f, const char *text, char *error, size_t error_size)
{
    json_error_t jerr;
    json_t *value = NULL;
    switch (f->type) {
    case T_INT:
    case T_NUM:
        value = json_loads(text, JSON_DECODE_ANY, &jerr);
        if (value != NULL && !json_is_number(value)) {
            json_decref(value);
            value = NULL;
        }
        if (value == NULL)
            snprintf(error, error_size, "--%s: '%s' is not a number", f->key, text);
        return value;
    case T_STR:
        return json_string(text);
    case T_BOOL:
        if (strcasecmp(text, "true") == 0 || strcmp(text, "1") == 0 || strcasecmp(text, "yes") == 0)
            return json_true();
        if (strcasecmp(text, "false") == 0 || strcmp(text, "0") == 0 || strcasecmp(text, "no") == 0)
            return json_false();
        snprintf(error, error_size, "--%s: '%s' is not true or false", f->key, text);
        return NULL;
    case T_JSON:
        value = json_loads(text, JSON_DECODE_ANY, &jerr);
        if (value == NULL)
            snprintf(error, error_size, "--%s: not JSON: %s", f->key, jerr.text);
        return value;
    case T_GPU:
    case T_ANY:
        if (text[0] == '{' || text[0] == '[') {
            value = json_loads(text, JSON_DECODE_ANY, &jerr);
            if (value == NULL)
                snprintf(error, error_size, "--%s: not JSON: %s", f->key, jerr.text);
            return value;
        }
        if (f->type == T_ANY) {
            value = json_loads(text, JSON_DECODE_ANY, &jerr);
            if (value != NULL && json_is_number(value))
                return value;
            json_decref(value);
        }
        return json_string(text);
    case T_LIST: {
        json_t *list = json_array();
        const char *p = text;
        while (*p) {
            size_t n = strcspn(p, ",");
            if (n > 0)
                json_array_append_new(list, json_stringn(p, n));
            p += n;
            if (*p == ',')
                p++;
        }
        return list;
    }
    }
    return NULL;
}

static const struct field *find_field(const struct field *fields, const char *flag)
{
    for (const struct field *f = fields; f->key != NULL; f++) {
        char name[64];
        flag_name(f, name, sizeof name);
        if (strcmp(name + 2, flag) == 0 || (strcmp(f->key, "body") != 0 && strcmp(f->key, flag) == 0))
            return f;
    }
    return NULL;
}

static int is_bool_word(const char *s)
{
    static const char *const words[] = {"true", "false", "1", "0", "yes", "no", NULL};
    for (int i = 0; words[i] != NULL; i++)
        if (strcasecmp(s, words[i]) == 0)
            return 1;
    return 0;
}

/* Prints the answer; returns the exit code. */
static int show(struct simt_cli *cli, int status, json_t *answer)
{
    if (status >= 400) {
        if (cli->json) {
            json_dumpf(answer, stdout, JSON_INDENT(2) | JSON_ENCODE_ANY);
            fputc('\n', stdout);
        }
        simt_cli_print_error(stderr, status, answer);
        return SIMT_EXIT_API;
    }
    if (cli->json) {
        json_dumpf(answer, stdout, JSON_INDENT(2) | JSON_ENCODE_ANY | JSON_REAL_PRECISION(12));
        fputc('\n', stdout);
    } else {
        simt_cli_print_human(stdout, answer);
    }
    return SIMT_EXIT_OK;
}

static int ask(struct simt_cli *cli, const char *method, const char *path, json_t *body)
{
    int status = 0;
    json_t *answer = NULL;
    char error[512];
    if (simt_cli_call(cli, method, path, body, &status, &answer, error, sizeof error) != 0) {
        fprintf(stderr, "simt: %s\n", error);
        return SIMT_EXIT_UNREACHABLE;
    }
    int rc = show(cli, status, answer);
    json_decref(answer);
    return rc;
}

/* Takes the global flags out of argv (wherever they are), leaving the
 * rest in order. Returns -1 (message printed) on a bad global flag. */
static int global_flags(struct simt_cli *cli, int *argc, char **argv, const char **body_arg)
{
    int out = 0;
    for (int i = 0; i < *argc; i++) {
        const char *a = argv[i];
        const char *value = NULL;
        const char *eq = strchr(a, '=');
        char name[32] = "";
        if (strncmp(a, "--", 2) == 0) {
            size_t n = eq != NULL ? (size_t)(eq - a) : strlen(a);
            if (n < sizeof name) {
                memcpy(name, a, n);
                name[n] = '\0';
            }
        }
        int takes_value = strcmp(name, "--server") == 0 || strcmp(name, "--hwdb") == 0 ||
                          strcmp(name, "--timeout") == 0 || strcmp(name, "--body") == 0;
        if (takes_value) {
            if (eq != NULL) {
                value = eq + 1;
            } else if (i + 1 < *argc) {
                value = argv[++i];
            } else {
                fprintf(stderr, "simt: %s needs a value\n", name);
                return -1;
            }
            if (strcmp(name, "--server") == 0) {
                cli->server = value;
            } else if (strcmp(name, "--hwdb") == 0) {
                cli->hwdb_dir = value;
            } else if (strcmp(name, "--body") == 0) {
                *body_arg = value;
            } else {
                char *end = NULL;
                errno = 0;
                long t = strtol(value, &end, 10);
                if (errno != 0 || end == value || *end != '\0' || t < 1 || t > 3600) {
                    fprintf(stderr, "simt: --timeout must be 1..3600 seconds\n");
                    return -1;
                }
                cli->timeout_s = (int)t;
            }
        } else if (strcmp(a, "--offline") == 0) {
            cli->offline = 1;
        } else if (strcmp(a, "--json") == 0) {
            cli->json = 1;
        } else {
            argv[out++] = argv[i];
        }
    }
    *argc = out;
    return 0;
}

static int has_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

static int run_command(struct simt_cli *cli, const struct command *cmd, int argc, char **argv, json_t *body)
{
    char error[512];
    char path[512];
    snprintf(path, sizeof path, "%s", cmd->path);
    int positional_needed = strcmp(cmd->name, "gpu") == 0;
    int have_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0) {
            if (positional_needed && !have_positional) {
                snprintf(path, sizeof path, "%s%s", cmd->path, a);
                have_positional = 1;
                continue;
            }
            fprintf(stderr, "simt %s: unexpected argument '%s' (see simt %s --help)\n", cmd->name, a,
                    cmd->name);
            return SIMT_EXIT_USAGE;
        }
        char flag[96];
        const char *eq = strchr(a, '=');
        size_t n = eq != NULL ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (n >= sizeof flag)
            n = sizeof flag - 1;
        memcpy(flag, a + 2, n);
        flag[n] = '\0';
        const struct field *f = find_field(cmd->fields, flag);
        if (f == NULL) {
            fprintf(stderr, "simt %s: unknown flag --%s (see simt %s --help)\n", cmd->name, flag, cmd->name);
            return SIMT_EXIT_USAGE;
        }
        const char *text;
        if (eq != NULL) {
            text = eq + 1;
        } else if (f->type == T_BOOL && (i + 1 >= argc || !is_bool_word(argv[i + 1]))) {
            text = "true";
        } else if (i + 1 < argc) {
            text = argv[++i];
        } else {
            fprintf(stderr, "simt %s: --%s needs a value\n", cmd->name, flag);
            return SIMT_EXIT_USAGE;
        }
        json_t *value = flag_value(f, text, error, sizeof error);
        if (value == NULL) {
            fprintf(stderr, "simt %s: %s\n", cmd->name, error);
            return SIMT_EXIT_USAGE;
        }
        json_object_set_new(body, f->key, value);
    }
    if (positional_needed && !have_positional) {
        fprintf(stderr, "simt gpu: which GPU? (simt gpu ID; simt gpus lists them)\n");
        return SIMT_EXIT_USAGE;
    }
    return ask(cli, cmd->method, path, strcmp(cmd->method, "POST") == 0 ? body : NULL);
}

static int run_passthrough(struct simt_cli *cli, const char *method, int argc, char **argv, json_t *body,
                           int body_given)
{
    if (argc != 2 || argv[1][0] != '/') {
        fprintf(stderr, "Usage: simt %s PATH%s   (PATH starts with /, e.g. /v1/gpus)\n", argv[0],
                strcmp(method, "POST") == 0 ? " --body JSON" : "");
        return SIMT_EXIT_USAGE;
    }
    if (strcmp(method, "POST") == 0 && !body_given) {
        fprintf(stderr, "simt post: --body JSON is required (use '{}' for an empty object)\n");
        return SIMT_EXIT_USAGE;
    }
    return ask(cli, method, argv[1], strcmp(method, "POST") == 0 ? body : NULL);
}

int simt_cli_main(int argc, char **argv)
{
    struct simt_cli cli;
    memset(&cli, 0, sizeof cli);
    cli.server = getenv("SIMT_SERVER") != NULL && getenv("SIMT_SERVER")[0] ? getenv("SIMT_SERVER")
                                                                           : SIMT_CLI_DEFAULT_SERVER;
    cli.timeout_s = 30;
    const char *body_arg = NULL;
    argc--;
    argv++;
    if (global_flags(&cli, &argc, argv, &body_arg) != 0)
        return SIMT_EXIT_USAGE;
    if (argc == 0) {
        usage(stderr);
        return SIMT_EXIT_USAGE;
    }
    if (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "help") == 0) {
        usage(stdout);
        return SIMT_EXIT_OK;
    }
    if (strcmp(argv[0], "--version") == 0) {
        printf("simt %s\n", SIMT_CLI_VERSION);
        return SIMT_EXIT_OK;
    }
    char error[512];
    if (!cli.offline && simt_http_parse_url(cli.server, &cli.url, error, sizeof error) != 0) {
        fprintf(stderr, "simt: --server: %s\n", error);
        return SIMT_EXIT_USAGE;
    }

    if (strcmp(argv[0], "ptxas") == 0) {
        int rc = simt_cli_ptxas(&cli, argc, argv);
        simt_cli_close(&cli);
        return rc;
    }

    const struct command *cmd = NULL;
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(commands[i].name, argv[0]) == 0)
            cmd = &commands[i];
    int passthrough = strcmp(argv[0], "get") == 0 || strcmp(argv[0], "post") == 0;
    if (cmd == NULL && !passthrough) {
        fprintf(stderr, "simt: unknown command '%s'\n\n", argv[0]);
        usage(stderr);
        return SIMT_EXIT_USAGE;
    }
    if (cmd != NULL && has_help(argc, argv)) {
        command_usage(stdout, cmd);
        return SIMT_EXIT_OK;
    }

    json_t *body = NULL;
    if (body_arg != NULL) {
        body = read_body_arg(body_arg, error, sizeof error);
        if (body == NULL) {
            fprintf(stderr, "simt: %s\n", error);
            return SIMT_EXIT_USAGE;
        }
        if (cmd != NULL && !json_is_object(body)) {
            fprintf(stderr, "simt: --body must be a JSON object for %s\n", cmd->name);
            json_decref(body);
            return SIMT_EXIT_USAGE;
        }
    } else {
        body = json_object();
    }
    int rc = passthrough ? run_passthrough(&cli, strcmp(argv[0], "get") == 0 ? "GET" : "POST", argc, argv,
                                           body, body_arg != NULL)
                         : run_command(&cli, cmd, argc, argv, body);
    json_decref(body);
    simt_cli_close(&cli);
    return rc;
}
