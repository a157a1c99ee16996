/* commands.c - `simt`'s command line: global flags, one subcommand per API
 * endpoint with a flag per request field (--block-size sets block_size),
 * the get/post pass-through, and per-subcommand --help. The tables below
 * are the whole mapping from flags to request bodies; the server still
 * validates everything, so a wrong value gets the contract's error. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
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

/* thread-block clusters: occupancy and sweep only */
#define CLUSTER_FIELDS                                                                                       \
    {"cluster_size", T_ANY, "blocks per cluster: N or [x,y,z] (cc 9.0 on): adds active_clusters_per_gpu"},   \
    {                                                                                                        \
        "non_portable_cluster_size", T_BOOL, "clusters above 8 blocks allowed (non-portable)"                \
    }

static const struct field occupancy_fields[] = {
    GPU_FIELD, OCCUPANCY_FIELDS, CLUSTER_FIELDS, FIGURES_FIELD, {NULL, T_INT, NULL}};
static const struct field sweep_fields[] = {
    GPU_FIELD,
    OCCUPANCY_FIELDS,
    CLUSTER_FIELDS,
    {"vary", T_STR, "block_size | registers_per_thread | dynamic_shared_bytes (required)"},
    {"from", T_INT, "first value [the natural start]"},
    {"to", T_INT, "last value [the GPU's limit]"},
    {"step", T_INT, "step [warp size, 1 or 1024]"},
    {"format", T_STR, "points | columns (one list per field) [points]"},
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
    {"precision", T_STR, "fp64 fp32 tf32 fp16 bf16 fp8 int8 int4 fp6 fp4 mxfp8 mxfp6 mxfp4 nvfp4"},
    {"tensor_cores", T_BOOL, "use the tensor-core peak"},
    {"sparse", T_BOOL, "2:4 structured sparsity (the sparse tensor peak)"},
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
    {"active_sms", T_INT, "SMs that run warps [all]"},
    {"lanes", T_INT, "lanes of a warp in one request [warp size]; 1: a one-thread pointer chase"},
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
static const struct field gemm_fields[] = {
    GPU_FIELD,
    {"m", T_INT, "rows of A and C"},
    {"n", T_INT, "columns of B and C"},
    {"k", T_INT, "the reduction dimension"},
    {"dtype", T_STR, "fp64 fp32 tf32 fp16 bf16 fp8 int8 int4 fp6 fp4 mxfp8 mxfp6 mxfp4 nvfp4"},
    {"batch", T_INT, "independent GEMMs [1]"},
    {"sparse", T_BOOL, "2:4 structured sparsity in A"},
    {"launches", T_STR, "single | back_to_back [single]"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field collective_fields[] = {
    GPU_FIELD,
    {"op", T_STR, "all_reduce all_gather reduce_scatter all_to_all broadcast send_recv"},
    {"bytes", T_NUM, "bytes as the NCCL tests count them"},
    {"gpus", T_INT, "GPUs (per node)"},
    {"link", T_STR, "nvlink | xgmi | pcie"},
    {"algorithm", T_STR, "auto ring tree nvls direct [auto]"},
    {"nodes", T_INT, "nodes [1]"},
    {"network_bytes_per_s", T_NUM, "network bandwidth per GPU between nodes"},
    {"host_memory_bytes_per_s", T_NUM, "pcie without peer-to-peer: the host memory all flows share"},
    FIGURES_FIELD,
    {NULL, T_INT, NULL}};
static const struct field compare_fields[] = {
    {"gpus", T_LIST, "comma-separated GPU ids"},
    {"question", T_STR, "the endpoint to ask, e.g. /v1/gemm"},
    {"body", T_JSON, "that endpoint's body without gpu (the request field body)"},
    {NULL, T_INT, NULL}};
static const struct field transformer_fields[] = {
    GPU_FIELD,
    {"model", T_ANY, "a preset id (simt models) or the shape as JSON {\"hidden\":4096,...}"},
    {"phase", T_STR, "prefill | decode"},
    {"batch", T_INT, "sequences [1]"},
    {"seq_len", T_INT, "new tokens per sequence (prefill)"},
    {"kv_len", T_INT, "tokens attended to (decode: cached tokens)"},
    {"dtype", T_JSON, "{\"weights\":\"fp8\",\"activations\":\"bf16\",\"kv_cache\":\"fp8\"} [bf16 each]"},
    {"parallel", T_JSON, "{\"tp\":2} [1]"},
    FIGURES_FIELD,
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
     "simt collective --gpu h200-sxm --op all_reduce --bytes 1GiB --gpus 8 --link nvlink"},
    {"transformer", "POST", "/v1/transformer", "a decoder layer and whole LLM: time, tokens/s, memory",
     transformer_fields,
     "simt transformer --gpu h200-sxm --model llama3-8b --phase decode --batch 32 --kv-len 4096"},
    {"models", "GET", "/v1/models", "list the transformer presets with their sources", no_fields,
     "simt models"},
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
            "  -s, --server URL      simtd to ask, http:// or https:// [$SIMT_SERVER or %s];\n"
            "                        proxies from http_proxy, https_proxy, no_proxy\n"
            "      --token-file FILE bearer token for a simtd run with --token-file (its first line)\n"
            "                        [$SIMT_TOKEN]\n"
            "      --offline         answer in-process from the bundled hardware database (no daemon)\n"
            "      --hwdb DIR        database directory for --offline [$SIMT_HWDB, else the one\n"
            "                        installed beside this program]\n"
            "  -j, --json            print the answer as JSON\n"
            "      --timeout S       seconds to wait for the daemon [30]\n"
            "  -b, --body JSON       request body to start from; flags are set on top (@FILE, - for stdin)\n"
            "  -h, --help            this help; simt COMMAND --help for a command's flags\n"
            "  -V, --version         print the version\n"
            "\n"
            "Commands:\n",
            SIMT_CLI_DEFAULT_SERVER);
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "  %-12s %s\n", "ptxas", "occupancy of every kernel in nvcc -Xptxas -v / cuobjdump output");
    fprintf(out, "  %-12s %s\n", "get PATH", "GET any path");
    fprintf(out, "  %-12s %s\n", "post PATH", "POST --body JSON to any path");
    fprintf(out, "\n`simt COMMAND --help` lists a command's flags: one per request field, named as the\n"
                 "field with - for _ (--registers-per-thread sets registers_per_thread). Byte counts\n"
                 "take sizes: 4096, 4K or 4KiB, 1GiB, 1e9 (K, M, G, T are powers of 1024).\n"
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
            "\nByte counts take sizes: 4096, 4KiB, 1GiB, 1e9.\n"
            "Also: --body JSON (@FILE, -) to start from, --json, --server URL, --token-file FILE,\n"
            "--offline, --hwdb DIR.\n"
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

/* A byte-count field ("bytes", "static_shared_bytes", ...) takes sizes as
 * people write them: 1GiB, 4K, 1e9. Integral counts stay JSON integers. */
static int is_size_field(const struct field *f)
{
    size_t n = strlen(f->key);
    return (f->type == T_INT || f->type == T_NUM || f->type == T_ANY) &&
           (strcmp(f->key, "bytes") == 0 || (n > 6 && strcmp(f->key + n - 6, "_bytes") == 0));
}

static json_t *size_value(const struct field *f, const char *flag, const char *text, char *error,
                          size_t error_size)
{
    double bytes = 0.0;
    if (simt_cli_parse_size(text, &bytes) != 0) {
        snprintf(error, error_size, "%s: '%s' is not a byte count (e.g. 4096, 4KiB, 1GiB, 1e9)", flag, text);
        return NULL;
    }
    if (bytes <= floor(bytes) && bytes < 9007199254740992.0) /* whole */
        return json_integer((json_int_t)bytes);
    if (f->type == T_INT) {
        snprintf(error, error_size, "%s: '%s' is not a whole number of bytes", flag, text);
        return NULL;
    }
    return json_real(bytes);
}

static json_t *flag_value(const struct field *f, const char *flag, const char *text, char *error,
                          size_t error_size)
{
    json_error_t jerr;
    json_t *value = NULL;
    if (is_size_field(f) && text[0] != '{' && text[0] != '[')
        return size_value(f, flag, text, error, error_size);
    switch (f->type) {
    case T_INT:
    case T_NUM:
        value = json_loads(text, JSON_DECODE_ANY, &jerr);
        if (value != NULL && !json_is_number(value)) {
            json_decref(value);
            value = NULL;
        }
        if (value == NULL)
            snprintf(error, error_size, "%s: '%s' is not a number", flag, text);
        return value;
    case T_STR:
        return json_string(text);
    case T_BOOL:
        if (strcasecmp(text, "true") == 0 || strcmp(text, "1") == 0 || strcasecmp(text, "yes") == 0)
            return json_true();
        if (strcasecmp(text, "false") == 0 || strcmp(text, "0") == 0 || strcasecmp(text, "no") == 0)
            return json_false();
        snprintf(error, error_size, "%s: '%s' is not true or false", flag, text);
        return NULL;
    case T_JSON:
        value = json_loads(text, JSON_DECODE_ANY, &jerr);
        if (value == NULL)
            snprintf(error, error_size, "%s: not JSON: %s", flag, jerr.text);
        return value;
    case T_GPU:
    case T_ANY:
        if (text[0] == '{' || text[0] == '[') {
            value = json_loads(text, JSON_DECODE_ANY, &jerr);
            if (value == NULL)
                snprintf(error, error_size, "%s: not JSON: %s", flag, jerr.text);
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

/* The global flags, valid anywhere on the line. */
enum { OPT_OFFLINE = 1000, OPT_HWDB, OPT_TIMEOUT, OPT_TOKEN_FILE, OPT_FIELD = 2000 };
static const struct option global_options[] = {
    {"server", required_argument, NULL, 's'},
    {"offline", no_argument, NULL, OPT_OFFLINE},
    {"hwdb", required_argument, NULL, OPT_HWDB},
    {"json", no_argument, NULL, 'j'},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"body", required_argument, NULL, 'b'},
    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
};
#define GLOBAL_COUNT (sizeof global_options / sizeof global_options[0])
#define SHORT_OPTIONS "-:s:jb:hV"
#define MAX_OPTIONS 160
#define MAX_NAME 64

/* What the line says beyond the global flags. */
struct line {
    const char *command;  /* first word; NULL when none */
    char *positional[64]; /* later words, in order */
    int positional_count;
    struct simt_cli_arg args[128]; /* the subcommand's flags, in order */
    int arg_count;
    const char *body_arg; /* --body */
    const char *token_file;
    int help;
    int version;
};

/* The options of one subcommand: the globals, then per field its flag
 * (--registers-per-thread) and the field's own name (--registers_per_thread)
 * as an alias, both carrying OPT_FIELD + the field's index. */
static int build_options(const struct command *cmd, int ptxas, struct option *options,
                         char (*names)[MAX_NAME])
{
    int n = 0;
    for (size_t i = 0; i < GLOBAL_COUNT; i++)
        options[n++] = global_options[i];
    if (ptxas) {
        for (const struct option *o = simt_cli_ptxas_options; o->name != NULL && n < MAX_OPTIONS - 1; o++)
            options[n++] = *o;
    } else if (cmd != NULL) {
        for (int i = 0; cmd->fields[i].key != NULL && n < MAX_OPTIONS - 2; i++) {
            const struct field *f = &cmd->fields[i];
            int has_arg = f->type == T_BOOL ? optional_argument : required_argument;
            flag_name(f, names[2 * i], MAX_NAME);
            options[n++] = (struct option){names[2 * i] + 2, has_arg, NULL, OPT_FIELD + i};
            if (strcmp(f->key, "body") != 0 && strchr(f->key, '_') != NULL)
                options[n++] = (struct option){f->key, has_arg, NULL, OPT_FIELD + i};
        }
    }
    options[n] = (struct option){NULL, 0, NULL, 0};
    return n;
}

static int is_value_taking_global(const char *a)
{
    static const char *const names[] = {"--server",     "--hwdb", "--timeout", "--body",
                                        "--token-file", "-s",     "-b"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(a, names[i]) == 0)
            return 1;
    return 0;
}

/* The command word: the first argument that is neither a flag nor a
 * global flag's value. */
static const char *find_command(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return i + 1 < argc ? argv[i + 1] : NULL;
        if (argv[i][0] != '-' || argv[i][1] == '\0')
            return argv[i];
        if (is_value_taking_global(argv[i]))
            i++;
    }
    return NULL;
}

static int set_timeout(struct simt_cli *cli, const char *value)
{
    char *end = NULL;
    errno = 0;
    long t = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || t < 1 || t > 3600) {
        fprintf(stderr, "simt: --timeout must be 1..3600 seconds\n");
        return -1;
    }
    cli->timeout_s = (int)t;
    return 0;
}

/* The flag as typed, for messages: "--block-sise" of "--block-sise=256". */
static void typed_flag(const char *arg, int short_opt, char *buf, size_t size)
{
    if (arg == NULL || strncmp(arg, "--", 2) != 0) {
        snprintf(buf, size, "-%c", short_opt ? short_opt : '?');
        return;
    }
    snprintf(buf, size, "%.*s", (int)strcspn(arg, "="), arg);
}

static int one_option(struct simt_cli *cli, struct line *line, int opt, const struct option *matched,
                      int argc, char **argv, const char *where)
{
    char flag[96];
    switch (opt) {
    case 1:
        if (line->command == NULL)
            line->command = optarg;
        else if (line->positional_count < (int)(sizeof line->positional / sizeof line->positional[0]))
            line->positional[line->positional_count++] = optarg;
        return 0;
    case 's':
        cli->server = optarg;
        return 0;
    case OPT_OFFLINE:
        cli->offline = 1;
        return 0;
    case OPT_HWDB:
        cli->hwdb_dir = optarg;
        return 0;
    case 'j':
        cli->json = 1;
        return 0;
    case OPT_TIMEOUT:
        return set_timeout(cli, optarg);
    case 'b':
        line->body_arg = optarg;
        return 0;
    case OPT_TOKEN_FILE:
        line->token_file = optarg;
        return 0;
    case 'h':
        line->help = 1;
        return 0;
    case 'V':
        line->version = 1;
        return 0;
    case ':':
        typed_flag(argv[optind - 1], optopt, flag, sizeof flag);
        fprintf(stderr, "simt%s: %s needs a value\n", where, flag);
        return -1;
    case '?':
        typed_flag(argv[optind - 1], optopt, flag, sizeof flag);
        fprintf(stderr, "simt%s: unknown flag %s (see simt%s --help)\n", where, flag, where);
        return -1;
    default:
        break;
    }
    if (line->arg_count == (int)(sizeof line->args / sizeof line->args[0])) {
        fprintf(stderr, "simt%s: too many flags\n", where);
        return -1;
    }
    const char *value = optarg;
    /* a bare boolean flag may take true/false as the next word */
    if (matched->has_arg == optional_argument && value == NULL && optind < argc && is_bool_word(argv[optind]))
        value = argv[optind++];
    line->args[line->arg_count++] = (struct simt_cli_arg){matched->name, opt, value};
    return 0;
}

static int parse_line(struct simt_cli *cli, const struct command *cmd, int ptxas, int argc, char **argv,
                      struct line *line)
{
    static struct option options[MAX_OPTIONS];
    static char names[MAX_OPTIONS][MAX_NAME];
    build_options(cmd, ptxas, options, names);
    char where[32] = "";
    const char *command = find_command(argc, argv);
    if (cmd != NULL || ptxas)
        snprintf(where, sizeof where, " %s", command);
    opterr = 0;
    optind = 1;
    for (;;) {
        int index = -1;
        int opt = getopt_long(argc, argv, SHORT_OPTIONS, options, &index);
        if (opt == -1)
            break;
        const struct option *matched = index >= 0 ? &options[index] : NULL;
        if (opt >= OPT_FIELD && matched == NULL)
            continue;
        if (one_option(cli, line, opt, matched, argc, argv, where) != 0)
            return -1;
    }
    for (int i = optind; i < argc; i++) /* after "--" */
        if (line->command == NULL)
            line->command = argv[i];
        else if (line->positional_count < (int)(sizeof line->positional / sizeof line->positional[0]))
            line->positional[line->positional_count++] = argv[i];
    return 0;
}

static const struct field *field_of(const struct command *cmd, int id)
{
    return &cmd->fields[id - OPT_FIELD];
}

static int run_command(struct simt_cli *cli, const struct command *cmd, const struct line *line, json_t *body)
{
    char error[512];
    char path[512];
    snprintf(path, sizeof path, "%s", cmd->path);
    int positional_needed = strcmp(cmd->name, "gpu") == 0;
    if (line->positional_count > positional_needed) {
        fprintf(stderr, "simt %s: unexpected argument '%s' (see simt %s --help)\n", cmd->name,
                line->positional[positional_needed], cmd->name);
        return SIMT_EXIT_USAGE;
    }
    if (positional_needed && line->positional_count == 0) {
        fprintf(stderr, "simt gpu: which GPU? (simt gpu ID; simt gpus lists them)\n");
        return SIMT_EXIT_USAGE;
    }
    if (positional_needed)
        snprintf(path, sizeof path, "%s%s", cmd->path, line->positional[0]);
    for (int i = 0; i < line->arg_count; i++) {
        const struct field *f = field_of(cmd, line->args[i].id);
        char flag[MAX_NAME + 2];
        snprintf(flag, sizeof flag, "--%s", line->args[i].flag);
        json_t *value = line->args[i].value != NULL
                            ? flag_value(f, flag, line->args[i].value, error, sizeof error)
                            : json_true();
        if (value == NULL) {
            fprintf(stderr, "simt %s: %s\n", cmd->name, error);
            return SIMT_EXIT_USAGE;
        }
        json_object_set_new(body, f->key, value);
    }
    return ask(cli, cmd->method, path, strcmp(cmd->method, "POST") == 0 ? body : NULL);
}

static int run_passthrough(struct simt_cli *cli, const char *method, const struct line *line, json_t *body)
{
    const char *word = strcmp(method, "GET") == 0 ? "get" : "post";
    if (line->positional_count != 1 || line->positional[0][0] != '/' || line->arg_count != 0) {
        fprintf(stderr, "Usage: simt %s PATH%s   (PATH starts with /, e.g. /v1/gpus)\n", word,
                strcmp(method, "POST") == 0 ? " --body JSON" : "");
        return SIMT_EXIT_USAGE;
    }
    if (strcmp(method, "POST") == 0 && line->body_arg == NULL) {
        fprintf(stderr, "simt post: --body JSON is required (use '{}' for an empty object)\n");
        return SIMT_EXIT_USAGE;
    }
    return ask(cli, method, line->positional[0], strcmp(method, "POST") == 0 ? body : NULL);
}

/* The server, the token: from the flags, else the environment. */
static int connection_settings(struct simt_cli *cli, const struct line *line)
{
    char error[512];
    if (line->token_file != NULL) {
        if (simt_cli_read_token_file(line->token_file, &cli->token, error, sizeof error) != 0) {
            fprintf(stderr, "simt: %s\n", error);
            return -1;
        }
    } else if (getenv("SIMT_TOKEN") != NULL && getenv("SIMT_TOKEN")[0] != '\0') {
        cli->token = strdup(getenv("SIMT_TOKEN"));
    }
    if (!cli->offline && simt_http_check_url(cli->server, error, sizeof error) != 0) {
        fprintf(stderr, "simt: --server: %s\n", error);
        return -1;
    }
    return 0;
}

static json_t *starting_body(const struct line *line, const struct command *cmd)
{
    if (line->body_arg == NULL)
        return json_object();
    char error[512];
    json_t *body = read_body_arg(line->body_arg, error, sizeof error);
    if (body == NULL) {
        fprintf(stderr, "simt: %s\n", error);
    } else if (cmd != NULL && !json_is_object(body)) {
        fprintf(stderr, "simt: --body must be a JSON object for %s\n", cmd->name);
        json_decref(body);
        body = NULL;
    }
    return body;
}

static int dispatch(struct simt_cli *cli, const struct command *cmd, int ptxas, const struct line *line)
{
    if (connection_settings(cli, line) != 0)
        return SIMT_EXIT_USAGE;
    if (ptxas)
        return simt_cli_ptxas(cli, line->args, line->arg_count, (char **)line->positional,
                              line->positional_count);
    json_t *body = starting_body(line, cmd);
    if (body == NULL)
        return SIMT_EXIT_USAGE;
    int rc = cmd != NULL
                 ? run_command(cli, cmd, line, body)
                 : run_passthrough(cli, strcmp(line->command, "get") == 0 ? "GET" : "POST", line, body);
    json_decref(body);
    return rc;
}

int simt_cli_main(int argc, char **argv)
{
    struct simt_cli cli;
    memset(&cli, 0, sizeof cli);
    cli.server = getenv("SIMT_SERVER") != NULL && getenv("SIMT_SERVER")[0] ? getenv("SIMT_SERVER")
                                                                           : SIMT_CLI_DEFAULT_SERVER;
    cli.timeout_s = 30;
    const char *name = find_command(argc, argv);
    const struct command *cmd = NULL;
    for (size_t i = 0; name != NULL && i < COMMAND_COUNT; i++)
        if (strcmp(commands[i].name, name) == 0)
            cmd = &commands[i];
    int ptxas = name != NULL && strcmp(name, "ptxas") == 0;
    int passthrough = name != NULL && (strcmp(name, "get") == 0 || strcmp(name, "post") == 0);
    static struct line line;
    memset(&line, 0, sizeof line);
    if (parse_line(&cli, cmd, ptxas, argc, argv, &line) != 0)
        return SIMT_EXIT_USAGE;
    if (line.version) {
        printf("simt %s\n", SIMT_CLI_VERSION);
        return SIMT_EXIT_OK;
    }
    if (line.command != NULL && strcmp(line.command, "help") == 0 && !line.help) {
        usage(stdout);
        return SIMT_EXIT_OK;
    }
    if (line.command == NULL || (cmd == NULL && !ptxas && !passthrough)) {
        if (line.help) {
            usage(stdout);
            return SIMT_EXIT_OK;
        }
        if (line.command != NULL)
            fprintf(stderr, "simt: unknown command '%s'\n\n", line.command);
        usage(stderr);
        return SIMT_EXIT_USAGE;
    }
    if (line.help) {
        if (ptxas)
            simt_cli_ptxas_usage(stdout);
        else if (cmd != NULL)
            command_usage(stdout, cmd);
        else
            usage(stdout);
        return SIMT_EXIT_OK;
    }
    int rc = dispatch(&cli, cmd, ptxas, &line);
    simt_cli_close(&cli);
    return rc;
}
