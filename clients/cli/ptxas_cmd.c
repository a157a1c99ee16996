/* ptxas_cmd.c - `simt ptxas`: the build-tooling command. Reads the
 * resource lines of `nvcc -Xptxas -v` or `cuobjdump --dump-resource-usage`
 * (files, or standard input), asks POST /v1/occupancy for every kernel at the
 * given block size, prints registers, shared memory, occupancy and limiter
 * per kernel, and with --min-occupancy fails (exit 1), naming each kernel
 * that falls below. When the input holds code for several architectures the
 * one the GPU would run is reported (--arch picks another). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ptxas.h"

struct options {
    json_t *gpu; /* string or what-if object */
    long block_size;
    double min_occupancy; /* < 0: no gate */
    int warn_only;
    const char *arch;
    json_t *extra; /* other occupancy fields passed through */
    const char *files[64];
    int file_count;
};

static void ptxas_usage(FILE *out)
{
    fprintf(out,
            "Usage: simt ptxas --gpu ID --block-size N [--min-occupancy F] [FLAGS] [FILE...|-]\n"
            "Reads `nvcc -Xptxas -v` output (or `cuobjdump --dump-resource-usage`) from the files or\n"
            "standard input and reports, for every kernel, its registers, shared memory, occupancy\n"
            "and limiter on the GPU at that block size (POST /v1/occupancy).\n"
            "\n"
            "  --gpu ID|JSON               GPU id, or a what-if object (required)\n"
            "  --block-size N              threads per block of every kernel (required)\n"
            "  --min-occupancy F           exit 1, naming each kernel whose occupancy is below F (0..1)\n"
            "                              or which cannot launch at all\n"
            "  --warn-only                 with --min-occupancy: print warnings but exit 0\n"
            "  --arch sm_XX                report that architecture's code [the one the GPU runs]\n"
            "  --dynamic-shared-bytes N    dynamic shared memory per block [0]\n"
            "  --max-dynamic-shared-bytes N, --carveout-percent N, --grid-size N, --figures S:\n"
            "                              passed to /v1/occupancy as named\n"
            "  --json, --server URL, --offline, --hwdb DIR: as for every command\n"
            "\n"
            "Example:\n"
            "  nvcc -c -Xptxas -v -arch=sm_90 k.cu 2>&1 | simt ptxas --offline --gpu h200-sxm \\\n"
            "      --block-size 256 --min-occupancy 0.5\n");
}

static int parse_options(int argc, char **argv, struct options *o)
{
    o->block_size = 0;
    o->min_occupancy = -1.0;
    o->extra = json_object();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || strcmp(a, "-") == 0) {
            if (o->file_count == (int)(sizeof o->files / sizeof o->files[0])) {
                fprintf(stderr, "simt ptxas: at most 64 files\n");
                return -1;
            }
            o->files[o->file_count++] = a;
            continue;
        }
        if (strcmp(a, "--warn-only") == 0) {
            o->warn_only = 1;
            continue;
        }
        char name[64];
        const char *eq = strchr(a, '=');
        size_t n = eq != NULL ? (size_t)(eq - a) : strlen(a);
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, a, n);
        name[n] = '\0';
        const char *value = eq != NULL ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (value == NULL) {
            fprintf(stderr, "simt ptxas: %s needs a value\n", name);
            return -1;
        }
        char *end = NULL;
        errno = 0;
        if (strcmp(name, "--gpu") == 0) {
            json_error_t jerr;
            json_decref(o->gpu);
            o->gpu = value[0] == '{' ? json_loads(value, 0, &jerr) : json_string(value);
            if (o->gpu == NULL) {
                fprintf(stderr, "simt ptxas: --gpu: not JSON: %s\n", jerr.text);
                return -1;
            }
        } else if (strcmp(name, "--block-size") == 0) {
            o->block_size = strtol(value, &end, 10);
            if (errno != 0 || end == value || *end != '\0' || o->block_size < 1 ||
                o->block_size > (1L << 20)) {
                fprintf(stderr, "simt ptxas: --block-size must be a positive integer\n");
                return -1;
            }
        } else if (strcmp(name, "--min-occupancy") == 0) {
            o->min_occupancy = strtod(value, &end);
            if (errno != 0 || end == value || *end != '\0' ||
                !(o->min_occupancy >= 0.0 && o->min_occupancy <= 1.0)) {
                fprintf(stderr, "simt ptxas: --min-occupancy must be a fraction 0..1\n");
                return -1;
            }
        } else if (strcmp(name, "--arch") == 0) {
            o->arch = value;
        } else if (strcmp(name, "--figures") == 0) {
            json_object_set_new(o->extra, "figures", json_string(value));
        } else if (strcmp(name, "--dynamic-shared-bytes") == 0 ||
                   strcmp(name, "--max-dynamic-shared-bytes") == 0 ||
                   strcmp(name, "--carveout-percent") == 0 || strcmp(name, "--grid-size") == 0) {
            long long v = strtoll(value, &end, 10);
            if (errno != 0 || end == value || *end != '\0') {
                fprintf(stderr, "simt ptxas: %s must be an integer\n", name);
                return -1;
            }
            char key[64];
            snprintf(key, sizeof key, "%s", name + 2);
            for (char *p = key; *p; p++)
                if (*p == '-')
                    *p = '_';
            json_object_set_new(o->extra, key, json_integer(v));
        } else {
            fprintf(stderr, "simt ptxas: unknown flag %s (see simt ptxas --help)\n", name);
            return -1;
        }
    }
    if (o->gpu == NULL || o->block_size == 0) {
        fprintf(stderr, "simt ptxas: --gpu and --block-size are required (see simt ptxas --help)\n");
        return -1;
    }
    if (o->warn_only && o->min_occupancy < 0.0) {
        fprintf(stderr, "simt ptxas: --warn-only goes with --min-occupancy\n");
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

int simt_cli_ptxas(struct simt_cli *cli, int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            ptxas_usage(stdout);
            return SIMT_EXIT_OK;
        }
    struct options o;
    memset(&o, 0, sizeof o);
    struct simt_ptxas_report report;
    memset(&report, 0, sizeof report);
    int rc = SIMT_EXIT_USAGE;
    json_t *results = json_array();
    if (parse_options(argc, argv, &o) != 0 || read_inputs(&o, &report) != 0)
        goto done;
    if (report.count == 0) {
        fprintf(stderr, "simt ptxas: no kernel resource lines in the input (expected the output of "
                        "nvcc -Xptxas -v or cuobjdump --dump-resource-usage)\n");
        rc = SIMT_EXIT_API;
        goto done;
    }
    if (choose_arch(cli, &o, &report) != 0)
        goto done;

    int failed = 0;
    for (size_t i = 0; i < report.count; i++) {
        const struct simt_ptxas_kernel *k = &report.kernels[i];
        json_t *body = json_deep_copy(o.extra);
        json_object_set(body, "gpu", o.gpu);
        json_object_set_new(body, "block_size", json_integer(o.block_size));
        json_object_set_new(body, "registers_per_thread", json_integer(k->registers));
        json_object_set_new(body, "static_shared_bytes", json_integer(k->shared_bytes));
        if (k->barriers >= 0)
            json_object_set_new(body, "block_barriers", json_integer(k->barriers));
        int status = 0;
        json_t *answer = NULL;
        char error[512];
        int call_rc =
            simt_cli_call(cli, "POST", "/v1/occupancy", body, &status, &answer, error, sizeof error);
        json_decref(body);
        if (call_rc != 0) {
            fprintf(stderr, "simt ptxas: %s\n", error);
            rc = SIMT_EXIT_UNREACHABLE;
            goto done;
        }
        if (status != 200 && status != 422) {
            /* a request error (unknown GPU, bad flag value) is the same for every kernel */
            simt_cli_print_error(stderr, status, answer);
            json_decref(answer);
            rc = SIMT_EXIT_API;
            goto done;
        }
        json_t *row = json_pack("{s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I}", "kernel", k->name, "arch",
                                k->arch, "registers_per_thread", k->registers, "static_shared_bytes",
                                (json_int_t)k->shared_bytes, "stack_bytes", (json_int_t)k->stack_bytes,
                                "spill_store_bytes", (json_int_t)k->spill_store_bytes, "spill_load_bytes",
                                (json_int_t)k->spill_load_bytes, "local_bytes", (json_int_t)k->local_bytes);
        if (k->barriers >= 0)
            json_object_set_new(row, "block_barriers", json_integer(k->barriers));
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
            json_object_set_new(row, "reason",
                                json_string(json_string_value(json_object_get(err, "message"))));
        }
        json_object_set_new(row, "answer", answer);
        int below = o.min_occupancy >= 0.0 && (status != 200 || occupancy < o.min_occupancy);
        if (o.min_occupancy >= 0.0)
            json_object_set_new(row, "below_minimum", json_boolean(below));
        if (below) {
            failed++;
            const char *gpu_name = json_is_string(o.gpu) ? json_string_value(o.gpu) : "the GPU";
            if (status == 200)
                fprintf(stderr,
                        "simt ptxas: %s: kernel %s (%s): occupancy %.3f is below the minimum %.3f on %s at "
                        "block size %ld (%d registers, %lld bytes shared; limited by %s)\n",
                        o.warn_only ? "warning" : "error", k->name, k->arch[0] ? k->arch : "?", occupancy,
                        o.min_occupancy, gpu_name, o.block_size, k->registers, (long long)k->shared_bytes,
                        json_string_value(json_object_get(row, "limiter")));
            else
                fprintf(stderr, "simt ptxas: %s: kernel %s (%s) cannot launch on %s at block size %ld: %s\n",
                        o.warn_only ? "warning" : "error", k->name, k->arch[0] ? k->arch : "?", gpu_name,
                        o.block_size, json_string_value(json_object_get(row, "reason")));
        }
        json_array_append_new(results, row);
    }

    if (cli->json) {
        json_t *doc = json_pack("{s:O, s:I, s:O}", "gpu", o.gpu, "block_size", (json_int_t)o.block_size,
                                "kernels", results);
        if (o.min_occupancy >= 0.0) {
            json_object_set_new(doc, "min_occupancy", json_real(o.min_occupancy));
            json_object_set_new(doc, "passed", json_boolean(failed == 0));
        }
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        static const char *const columns[] = {"kernel",
                                              "arch",
                                              "registers_per_thread",
                                              "static_shared_bytes",
                                              "stack_bytes",
                                              "spill_store_bytes",
                                              "active_blocks_per_sm",
                                              "occupancy",
                                              "limiter",
                                              NULL};
        simt_cli_print_table(stdout, results, columns);
    }
    if (failed > 0 && !o.warn_only) {
        fprintf(stderr, "simt ptxas: %d kernel%s below the minimum occupancy %.3f\n", failed,
                failed == 1 ? "" : "s", o.min_occupancy);
        rc = SIMT_EXIT_API;
    } else {
        rc = SIMT_EXIT_OK;
    }
done:
    json_decref(results);
    json_decref(o.gpu);
    json_decref(o.extra);
    simt_ptxas_report_free(&report);
    return rc;
}
