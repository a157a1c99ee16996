/* ptxas_cmd.c - `simt ptxas`: the build-tooling command. Reads the
 * resource lines of `nvcc -Xptxas -v` or `cuobjdump --dump-resource-usage`
 * (files, or standard input), asks POST /v1/occupancy for every kernel at the
 * given block size, prints registers, shared memory, occupancy and limiter
 * per kernel, and with --min-occupancy fails (exit 1), naming each kernel
 * that falls below. When the input holds code for several architectures the
 * one the GPU would run is reported (--arch picks another). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demangle.h"
#include "ptxas.h"

struct kernel_block {
    const char *name; /* mangled, demangled, or the bare function name */
    long block_size;
};

struct options {
    json_t *gpu; /* string or what-if object */
    long block_size;
    double min_occupancy;      /* < 0: no gate */
    long long max_spill_bytes; /* < 0: no gate */
    int warn_only;
    int quiet;    /* print only what fails or warns */
    int demangle; /* names through c++filt */
    const char *arch;
    json_t *extra; /* other occupancy fields passed through */
    struct kernel_block kernel_blocks[64];
    int kernel_block_count;
    char **files;
    int file_count;
};

enum {
    P_GPU = 3000,
    P_BLOCK_SIZE,
    P_MIN_OCCUPANCY,
    P_WARN_ONLY,
    P_ARCH,
    P_FIGURES,
    P_PASSED_INT,
    P_KERNEL_BLOCK_SIZE,
    P_MAX_SPILL_BYTES,
    P_QUIET,
    P_NO_DEMANGLE,
};

const struct option simt_cli_ptxas_options[] = {
    {"gpu", required_argument, NULL, P_GPU},
    {"block-size", required_argument, NULL, P_BLOCK_SIZE},
    {"min-occupancy", required_argument, NULL, P_MIN_OCCUPANCY},
    {"warn-only", no_argument, NULL, P_WARN_ONLY},
    {"arch", required_argument, NULL, P_ARCH},
    {"figures", required_argument, NULL, P_FIGURES},
    {"dynamic-shared-bytes", required_argument, NULL, P_PASSED_INT},
    {"max-dynamic-shared-bytes", required_argument, NULL, P_PASSED_INT},
    {"carveout-percent", required_argument, NULL, P_PASSED_INT},
    {"grid-size", required_argument, NULL, P_PASSED_INT},
    {"kernel-block-size", required_argument, NULL, P_KERNEL_BLOCK_SIZE},
    {"max-spill-bytes", required_argument, NULL, P_MAX_SPILL_BYTES},
    {"quiet", no_argument, NULL, P_QUIET},
    {"no-demangle", no_argument, NULL, P_NO_DEMANGLE},
    {NULL, 0, NULL, 0},
};

void simt_cli_ptxas_usage(FILE *out)
{
    fprintf(out,
            "Usage: simt ptxas --gpu ID --block-size N [--min-occupancy F] [FLAGS] [FILE...|-]\n"
            "Reads `nvcc -Xptxas -v` output (or `cuobjdump --dump-resource-usage`) from the files or\n"
            "standard input and reports, for every kernel, its registers, shared memory, spills,\n"
            "occupancy and limiter on the GPU at that block size (POST /v1/occupancy).\n"
            "\n"
            "  --gpu ID|JSON               GPU id, or a what-if object (required)\n"
            "  --block-size N              threads per block of every kernel (required)\n"
            "  --kernel-block-size NAME=N  one kernel's own block size (NAME: mangled, demangled,\n"
            "                              or the bare function name); repeatable\n"
            "  --min-occupancy F           exit 1, naming each kernel whose occupancy is below F (0..1)\n"
            "                              or which cannot launch at all\n"
            "  --max-spill-bytes N         exit 1, naming each kernel whose spill stores plus spill\n"
            "                              loads exceed N bytes (sizes: 4K, 1KiB)\n"
            "  --warn-only                 with the gates above: print warnings but exit 0\n"
            "  --quiet                     print only the kernels that fail or warn\n"
            "  --no-demangle               show mangled names (names go through c++filt otherwise)\n"
            "  --arch sm_XX                report that architecture's code [the one the GPU runs]\n"
            "  --dynamic-shared-bytes N    dynamic shared memory per block [0]\n"
            "  --max-dynamic-shared-bytes N, --carveout-percent N, --grid-size N, --figures S:\n"
            "                              passed to /v1/occupancy as named\n"
            "  --json, --server URL, --token-file FILE, --offline, --hwdb DIR: as for every command\n"
            "\n"
            "Example:\n"
            "  nvcc -c -Xptxas -v -arch=sm_90 k.cu 2>&1 | simt ptxas --offline --gpu h200-sxm \\\n"
            "      --block-size 256 --min-occupancy 0.5\n");
}

static int parse_long(const char *flag, const char *value, long long min, long long max, int sizes,
                      long long *out)
{
    char *end = NULL;
    errno = 0;
    double bytes = 0.0;
    long long v = strtoll(value, &end, 10);
    if (sizes && simt_cli_parse_size(value, &bytes) == 0 && bytes < 9.0e15 && bytes <= floor(bytes)) {
        v = (long long)bytes;
        end = (char *)value + strlen(value);
        errno = 0;
    }
    if (errno != 0 || end == value || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "simt ptxas: --%s: '%s' must be an integer %lld..%lld\n", flag, value, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

static int kernel_block_option(struct options *o, const char *value)
{
    const char *eq = strrchr(value, '=');
    long long n = 0;
    if (eq == NULL || eq == value) {
        fprintf(stderr, "simt ptxas: --kernel-block-size: '%s' is not NAME=N\n", value);
        return -1;
    }
    if (parse_long("kernel-block-size", eq + 1, 1, 1L << 20, 0, &n) != 0)
        return -1;
    if (o->kernel_block_count == (int)(sizeof o->kernel_blocks / sizeof o->kernel_blocks[0])) {
        fprintf(stderr, "simt ptxas: at most 64 --kernel-block-size flags\n");
        return -1;
    }
    char *name = strndup(value, (size_t)(eq - value));
    if (name == NULL)
        return -1;
    o->kernel_blocks[o->kernel_block_count++] = (struct kernel_block){name, (long)n};
    return 0;
}

static int one_option(struct options *o, const struct simt_cli_arg *arg)
{
    const char *value = arg->value;
    long long n = 0;
    char *end = NULL;
    json_error_t jerr;
    switch (arg->id) {
    case P_GPU:
        json_decref(o->gpu);
        o->gpu = value[0] == '{' ? json_loads(value, 0, &jerr) : json_string(value);
        if (o->gpu == NULL)
            fprintf(stderr, "simt ptxas: --gpu: not JSON: %s\n", jerr.text);
        return o->gpu != NULL ? 0 : -1;
    case P_BLOCK_SIZE:
        if (parse_long(arg->flag, value, 1, 1L << 20, 0, &n) != 0)
            return -1;
        o->block_size = (long)n;
        return 0;
    case P_MIN_OCCUPANCY:
        errno = 0;
        o->min_occupancy = strtod(value, &end);
        if (errno != 0 || end == value || *end != '\0' ||
            !(o->min_occupancy >= 0.0 && o->min_occupancy <= 1.0)) {
            fprintf(stderr, "simt ptxas: --min-occupancy must be a fraction 0..1\n");
            return -1;
        }
        return 0;
    case P_WARN_ONLY:
        o->warn_only = 1;
        return 0;
    case P_QUIET:
        o->quiet = 1;
        return 0;
    case P_NO_DEMANGLE:
        o->demangle = 0;
        return 0;
    case P_ARCH:
        o->arch = value;
        return 0;
    case P_FIGURES:
        json_object_set_new(o->extra, "figures", json_string(value));
        return 0;
    case P_MAX_SPILL_BYTES:
        return parse_long(arg->flag, value, 0, 1LL << 40, 1, &o->max_spill_bytes);
    case P_KERNEL_BLOCK_SIZE:
        return kernel_block_option(o, value);
    default: { /* P_PASSED_INT: --dynamic-shared-bytes and the like, as named */
        if (parse_long(arg->flag, value, -1, 1LL << 40, 1, &n) != 0)
            return -1;
        char key[64];
        snprintf(key, sizeof key, "%s", arg->flag);
        for (char *p = key; *p; p++)
            if (*p == '-')
                *p = '_';
        json_object_set_new(o->extra, key, json_integer(n));
        return 0;
    }
    }
}

static int parse_options(const struct simt_cli_arg *args, int arg_count, struct options *o)
{
    o->block_size = 0;
    o->min_occupancy = -1.0;
    o->max_spill_bytes = -1;
    o->demangle = 1;
    o->extra = json_object();
    for (int i = 0; i < arg_count; i++)
        if (one_option(o, &args[i]) != 0)
            return -1;
    if (o->gpu == NULL || o->block_size == 0) {
        fprintf(stderr, "simt ptxas: --gpu and --block-size are required (see simt ptxas --help)\n");
        return -1;
    }
    if (o->warn_only && o->min_occupancy < 0.0 && o->max_spill_bytes < 0) {
        fprintf(stderr, "simt ptxas: --warn-only goes with --min-occupancy or --max-spill-bytes\n");
        return -1;
    }
    return 0;
}

static char *read_stream(FILE *in, size_t *len)
{
    size_t cap = 65536, used = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        size_t n = fread(buf + used, 1, cap - used, in);
        used += n;
        if (used < cap) {
            if (ferror(in)) {
                free(buf);
                return NULL;
            }
            break;
        }
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            return NULL;
        }
        buf = bigger;
        cap *= 2;
    }
    *len = used;
    return buf;
}

static int read_inputs(const struct options *o, struct simt_ptxas_report *report)
{
    int count = o->file_count ? o->file_count : 1;
    for (int i = 0; i < count; i++) {
        const char *name = o->file_count ? o->files[i] : "-";
        FILE *in = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
        if (in == NULL) {
            fprintf(stderr, "simt ptxas: cannot open %s: %s\n", name, strerror(errno));
            return -1;
        }
        size_t len = 0;
        char *text = read_stream(in, &len);
        if (in != stdin)
            fclose(in);
        if (text == NULL) {
            fprintf(stderr, "simt ptxas: cannot read %s\n", name);
            return -1;
        }
        int rc = simt_ptxas_parse(text, len, report);
        free(text);
        if (rc != 0) {
            fprintf(stderr, "simt ptxas: out of memory\n");
            return -1;
        }
    }
    return 0;
}

/* "sm_90a" -> 90; 0 when not an sm_ name */
static int arch_number(const char *arch)
{
    if (strncmp(arch, "sm_", 3) != 0 && strncmp(arch, "compute_", 8) != 0)
        return 0;
    const char *d = strchr(arch, '_') + 1;
    return (int)strtol(d, NULL, 10);
}

/* The GPU's compute capability as an arch number (9.0 -> 90), 0 when it
 * has none (AMD) or cannot be asked. */
static int gpu_arch_number(struct simt_cli *cli, json_t *gpu)
{
    const char *id =
        json_is_string(gpu) ? json_string_value(gpu) : json_string_value(json_object_get(gpu, "base"));
    if (id == NULL)
        return 0;
    char path[256];
    snprintf(path, sizeof path, "/v1/gpus/%s", id);
    int status = 0;
    json_t *answer = NULL;
    char error[256];
    if (simt_cli_call(cli, "GET", path, NULL, &status, &answer, error, sizeof error) != 0)
        return 0;
    int number = 0;
    const char *cc = json_string_value(json_object_get(answer, "compute_capability"));
    int major = 0, minor = 0;
    if (status == 200 && cc != NULL && sscanf(cc, "%d.%d", &major, &minor) == 2)
        number = major * 10 + minor;
    json_decref(answer);
    return number;
}

/* Keeps only the kernels of one architecture when the input has several. */
static int choose_arch(struct simt_cli *cli, const struct options *o, struct simt_ptxas_report *report)
{
    char chosen[16] = "";
    if (o->arch != NULL) {
        snprintf(chosen, sizeof chosen, "%s", o->arch);
    } else {
        int distinct = 0;
        for (size_t i = 0; i < report->count; i++)
            if (strcmp(report->kernels[i].arch, report->kernels[0].arch) != 0)
                distinct = 1;
        if (!distinct)
            return 0;
        int want = gpu_arch_number(cli, o->gpu);
        int best = -1, lowest = -1;
        for (size_t i = 0; i < report->count; i++) {
            int n = arch_number(report->kernels[i].arch);
            /* the driver runs SASS of the same major version, not newer than the GPU */
            if (want > 0 && n <= want && n / 10 == want / 10 &&
                (best < 0 || n > arch_number(report->kernels[best].arch)))
                best = (int)i;
            if (lowest < 0 || n < arch_number(report->kernels[lowest].arch))
                lowest = (int)i;
        }
        if (best < 0) {
            fprintf(stderr,
                    "simt ptxas: the input has code for several architectures and none matches the GPU; "
                    "reporting all (--arch picks one)\n");
            return 0;
        }
        snprintf(chosen, sizeof chosen, "%s", report->kernels[best].arch);
        fprintf(stderr,
                "simt ptxas: the input has code for several architectures; reporting %s, the code the GPU "
                "runs (--arch picks another)\n",
                chosen);
    }
    size_t kept = 0;
    for (size_t i = 0; i < report->count; i++)
        if (strcmp(report->kernels[i].arch, chosen) == 0)
            report->kernels[kept++] = report->kernels[i];
    report->count = kept;
    if (kept == 0) {
        fprintf(stderr, "simt ptxas: no kernel compiled for %s in the input\n", chosen);
        return -1;
    }
    return 0;
}

static const char *limiter_text(json_t *answer)
{
    json_t *limiters = json_object_get(answer, "limiters");
    static char buf[128];
    buf[0] = '\0';
    size_t i;
    json_t *item;
    json_array_foreach(limiters, i, item)
    {
        size_t used = strlen(buf);
        snprintf(buf + used, sizeof buf - used, "%s%s", i ? "," : "", json_string_value(item));
    }
    return buf[0] ? buf : "-";
}

/* The block size of one kernel: its own --kernel-block-size, matched by the
 * mangled name, the demangled one, or the bare function name of that. */
static long block_size_of(const struct options *o, const char *mangled, const char *demangled)
{
    size_t bare_len = strcspn(demangled, "(");
    for (int i = 0; i < o->kernel_block_count; i++) {
        const char *want = o->kernel_blocks[i].name;
        if (strcmp(want, mangled) == 0 || strcmp(want, demangled) == 0 ||
            (strlen(want) == bare_len && strncmp(want, demangled, bare_len) == 0))
            return o->kernel_blocks[i].block_size;
    }
    return o->block_size;
}

/* Warns when the GPU cannot run the code the input was compiled for. */
static void check_arch(struct simt_cli *cli, const struct options *o, const struct simt_ptxas_report *report)
{
    if (report->count == 0 || report->kernels[0].arch[0] == '\0')
        return;
    int have = arch_number(report->kernels[0].arch);
    int want = gpu_arch_number(cli, o->gpu);
    if (have > 0 && want > 0 && (have > want || have / 10 != want / 10))
        fprintf(stderr,
                "simt ptxas: warning: the code is compiled for %s, which a GPU of compute capability %d.%d "
                "cannot run (compile for sm_%d)\n",
                report->kernels[0].arch, want / 10, want % 10, want);
}

struct verdict {
    int failed; /* kernels below a gate */
};

static void print_failure(const struct options *o, const char *name, const struct simt_ptxas_kernel *k,
                          long block_size, int status, double occupancy, json_t *row)
{
    const char *level = o->warn_only ? "warning" : "error";
    const char *gpu_name = json_is_string(o->gpu) ? json_string_value(o->gpu) : "the GPU";
    char arch[600]; /* "sm_90" or "sm_90, _Z5heavyPfi" when the name was demangled */
    if (strcmp(name, k->name) != 0)
        snprintf(arch, sizeof arch, "%s, %s", k->arch[0] ? k->arch : "?", k->name);
    else
        snprintf(arch, sizeof arch, "%s", k->arch[0] ? k->arch : "?");
    if (status != 200)
        fprintf(stderr, "simt ptxas: %s: kernel %s (%s) cannot launch on %s at block size %ld: %s\n", level,
                name, arch, gpu_name, block_size, json_string_value(json_object_get(row, "reason")));
    else if (o->min_occupancy >= 0.0 && occupancy < o->min_occupancy)
        fprintf(stderr,
                "simt ptxas: %s: kernel %s (%s): occupancy %.3f is below the minimum %.3f on %s at "
                "block size %ld (%d registers, %lld bytes shared; limited by %s)\n",
                level, name, arch, occupancy, o->min_occupancy, gpu_name, block_size, k->registers,
                (long long)k->shared_bytes, json_string_value(json_object_get(row, "limiter")));
    long long spill = (long long)(k->spill_store_bytes + k->spill_load_bytes);
    if (o->max_spill_bytes >= 0 && spill > o->max_spill_bytes)
        fprintf(stderr,
                "simt ptxas: %s: kernel %s (%s) spills %lld bytes (%lld stored, %lld loaded), more than "
                "the maximum %lld\n",
                level, name, arch, spill, (long long)k->spill_store_bytes, (long long)k->spill_load_bytes,
                o->max_spill_bytes);
}

static json_t *kernel_row(const struct simt_ptxas_kernel *k, const char *name, long block_size)
{
    json_t *row = json_pack("{s:s, s:s, s:s, s:I, s:i, s:I, s:I, s:I, s:I, s:I}", "kernel", k->name, "name",
                            name, "arch", k->arch, "block_size", (json_int_t)block_size,
                            "registers_per_thread", k->registers, "static_shared_bytes",
                            (json_int_t)k->shared_bytes, "stack_bytes", (json_int_t)k->stack_bytes,
                            "spill_store_bytes", (json_int_t)k->spill_store_bytes, "spill_load_bytes",
                            (json_int_t)k->spill_load_bytes, "local_bytes", (json_int_t)k->local_bytes);
    if (k->barriers >= 0)
        json_object_set_new(row, "block_barriers", json_integer(k->barriers));
    return row;
}

/* Asks for one kernel, appends its row; returns an exit code (0: go on). */
static int check_kernel(struct simt_cli *cli, const struct options *o, const struct simt_ptxas_kernel *k,
                        const char *name, json_t *results, struct verdict *v)
{
    long block_size = block_size_of(o, k->name, name);
    json_t *body = json_deep_copy(o->extra);
    json_object_set(body, "gpu", o->gpu);
    json_object_set_new(body, "block_size", json_integer(block_size));
    json_object_set_new(body, "registers_per_thread", json_integer(k->registers));
    json_object_set_new(body, "static_shared_bytes", json_integer(k->shared_bytes));
    if (k->barriers >= 0)
        json_object_set_new(body, "block_barriers", json_integer(k->barriers));
    int status = 0;
    json_t *answer = NULL;
    char error[512];
    int call_rc = simt_cli_call(cli, "POST", "/v1/occupancy", body, &status, &answer, error, sizeof error);
    json_decref(body);
    if (call_rc != 0) {
        fprintf(stderr, "simt ptxas: %s\n", error);
        return SIMT_EXIT_UNREACHABLE;
    }
    if (status != 200 && status != 422) {
        /* a request error (unknown GPU, bad flag value) is the same for every kernel */
        simt_cli_print_error(stderr, status, answer);
        json_decref(answer);
        return SIMT_EXIT_API;
    }
    json_t *row = kernel_row(k, name, block_size);
    double occupancy = 0.0;
    if (status == 200) {
        occupancy = json_number_value(json_object_get(answer, "occupancy"));
        json_object_set_new(row, "launchable", json_true());
        json_object_set(row, "occupancy", json_object_get(answer, "occupancy"));
        json_object_set(row, "active_blocks_per_sm", json_object_get(answer, "active_blocks_per_sm"));
        json_object_set_new(row, "limiter", json_string(limiter_text(answer)));
    } else {
        json_object_set_new(row, "launchable", json_false());
        json_object_set_new(row, "occupancy", json_real(0.0));
        json_object_set_new(row, "active_blocks_per_sm", json_integer(0));
        json_t *err = json_object_get(answer, "error");
        const char *field = json_string_value(json_object_get(err, "field"));
        json_object_set_new(row, "limiter", json_string(field != NULL ? field : "unsatisfiable"));
        json_object_set_new(row, "reason", json_string(json_string_value(json_object_get(err, "message"))));
    }
    json_object_set_new(row, "answer", answer);
    int low = o->min_occupancy >= 0.0 && (status != 200 || occupancy < o->min_occupancy);
    int spills = o->max_spill_bytes >= 0 && k->spill_store_bytes + k->spill_load_bytes > o->max_spill_bytes;
    if (o->min_occupancy >= 0.0)
        json_object_set_new(row, "below_minimum", json_boolean(low));
    if (o->max_spill_bytes >= 0)
        json_object_set_new(row, "spills_too_much", json_boolean(spills));
    json_object_set_new(row, "failed", json_boolean(low || spills));
    if (low || spills) {
        v->failed++;
        print_failure(o, name, k, block_size, status, occupancy, row);
    }
    json_array_append_new(results, row);
    return SIMT_EXIT_OK;
}

/* Display names, demangled unless --no-demangle. names[i] is owned. */
static char **display_names(const struct options *o, const struct simt_ptxas_report *report)
{
    size_t count = report->count;
    char **names = calloc(count + 1, sizeof *names);
    const char **mangled = calloc(count + 1, sizeof *mangled);
    if (names == NULL || mangled == NULL) {
        free(names);
        free(mangled);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        names[i] = calloc(1, sizeof report->kernels[i].name);
        mangled[i] = report->kernels[i].name;
        if (names[i] == NULL) {
            for (size_t j = 0; j < i; j++)
                free(names[j]);
            free(names);
            free(mangled);
            return NULL;
        }
        snprintf(names[i], sizeof report->kernels[i].name, "%s", mangled[i]);
    }
    if (o->demangle)
        (void)simt_cli_demangle(mangled, count, names, sizeof report->kernels[0].name);
    free(mangled);
    return names;
}

static void print_results(struct simt_cli *cli, const struct options *o, json_t *results, int failed)
{
    if (cli->json) {
        json_t *doc = json_pack("{s:O, s:I, s:O}", "gpu", o->gpu, "block_size", (json_int_t)o->block_size,
                                "kernels", results);
        if (o->min_occupancy >= 0.0)
            json_object_set_new(doc, "min_occupancy", json_real(o->min_occupancy));
        if (o->max_spill_bytes >= 0)
            json_object_set_new(doc, "max_spill_bytes", json_integer(o->max_spill_bytes));
        if (o->min_occupancy >= 0.0 || o->max_spill_bytes >= 0)
            json_object_set_new(doc, "passed", json_boolean(failed == 0));
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        fputc('\n', stdout);
        json_decref(doc);
        return;
    }
    if (o->quiet && failed == 0)
        return;
    json_t *shown = results;
    if (o->quiet) { /* only the kernels that failed */
        shown = json_array();
        size_t i;
        json_t *row;
        json_array_foreach(results, i, row) if (json_is_true(json_object_get(row, "failed")))
            json_array_append(shown, row);
    }
    static const char *const columns[] = {"name",
                                          "arch",
                                          "block_size",
                                          "registers_per_thread",
                                          "static_shared_bytes",
                                          "stack_bytes",
                                          "spill_store_bytes",
                                          "active_blocks_per_sm",
                                          "occupancy",
                                          "limiter",
                                          NULL};
    simt_cli_print_table(stdout, shown, columns);
    if (shown != results)
        json_decref(shown);
}

int simt_cli_ptxas(struct simt_cli *cli, const struct simt_cli_arg *args, int arg_count, char **files,
                   int file_count)
{
    struct options o;
    memset(&o, 0, sizeof o);
    o.files = files;
    o.file_count = file_count;
    struct simt_ptxas_report report;
    memset(&report, 0, sizeof report);
    int rc = SIMT_EXIT_USAGE;
    json_t *results = json_array();
    char **names = NULL;
    if (parse_options(args, arg_count, &o) != 0 || read_inputs(&o, &report) != 0)
        goto done;
    if (report.count == 0) {
        fprintf(stderr, "simt ptxas: no kernel resource lines in the input (expected the output of "
                        "nvcc -Xptxas -v or cuobjdump --dump-resource-usage)\n");
        rc = SIMT_EXIT_API;
        goto done;
    }
    if (choose_arch(cli, &o, &report) != 0)
        goto done;
    check_arch(cli, &o, &report);
    names = display_names(&o, &report);
    rc = names == NULL ? SIMT_EXIT_API : SIMT_EXIT_OK;
    struct verdict v = {0};
    for (size_t i = 0; rc == SIMT_EXIT_OK && i < report.count; i++)
        rc = check_kernel(cli, &o, &report.kernels[i], names[i], results, &v);
    if (rc != SIMT_EXIT_OK)
        goto done;
    print_results(cli, &o, results, v.failed);
    if (v.failed > 0 && !o.warn_only) {
        fprintf(stderr, "simt ptxas: %d kernel%s fail%s the gate\n", v.failed, v.failed == 1 ? "" : "s",
                v.failed == 1 ? "s" : "");
        rc = SIMT_EXIT_API;
    }
done:
    for (size_t i = 0; names != NULL && i < report.count; i++)
        free(names[i]);
    free(names);
    for (int i = 0; i < o.kernel_block_count; i++)
        free((char *)o.kernel_blocks[i].name);
    json_decref(results);
    json_decref(o.gpu);
    json_decref(o.extra);
    simt_ptxas_report_free(&report);
    return rc;
}
