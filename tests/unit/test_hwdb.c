/* test_hwdb.c - the hardware database: the bundled directory loads, holds
 * every GPU the contract names with figures that agree with each other and
 * with the CUDA Programming Guide's per-compute-capability limits; the field
 * table covers struct simt_gpu_spec and SCHEMA.md; field get/set/describe;
 * reference counting (also from several threads). Table-driven. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwdb.h"

#define BUNDLED SIMT_SOURCE_DIR "/hwdb"

static struct simt_hwdb *load_bundled(void)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    int rc = simt_hwdb_load_dir(BUNDLED, &db, &diag);
    ck_assert_msg(rc == SIMT_OK, "bundled database refused (%d): %s", rc, diag.message);
    ck_assert_ptr_nonnull(db);
    return db;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

/* ------------------------------------------------------------ bundled data */

static const char *const required_ids[] = {
    "v100-sxm2-32gb", "t4",        "a100-sxm4-80gb", "a10",  "l4",       "l40s",   "rtx-4090",
    "h100-sxm",       "h100-pcie", "h200-sxm",       "b200", "rtx-5090", "mi300x",
};
#define REQUIRED_COUNT (sizeof required_ids / sizeof required_ids[0])

START_TEST(test_bundled_loads)
{
    struct simt_hwdb *db = load_bundled();
    ck_assert_uint_ge(simt_hwdb_count(db), REQUIRED_COUNT);
    ck_assert_str_eq(simt_hwdb_dir(db), BUNDLED);
    for (size_t i = 1; i < simt_hwdb_count(db); i++)
        ck_assert_msg(strcmp(simt_hwdb_at(db, i - 1)->id, simt_hwdb_at(db, i)->id) < 0, "not sorted at %zu",
                      i);
    ck_assert_ptr_null(simt_hwdb_at(db, simt_hwdb_count(db)));
    ck_assert_ptr_null(simt_hwdb_find(db, "no-such-gpu"));
    ck_assert_ptr_null(simt_hwdb_find(db, ""));
    ck_assert_ptr_null(simt_hwdb_find(db, NULL));
    ck_assert_ptr_null(simt_hwdb_find(NULL, "t4"));
    ck_assert_uint_eq(simt_hwdb_count(NULL), 0);
    simt_hwdb_unref(db);
}
END_TEST

START_TEST(test_required_id_present)
{
    struct simt_hwdb *db = load_bundled();
    const struct simt_hwdb_gpu *gpu = simt_hwdb_find(db, required_ids[_i]);
    ck_assert_msg(gpu != NULL, "missing %s", required_ids[_i]);
    ck_assert_str_eq(gpu->id, required_ids[_i]);
    ck_assert(gpu->name[0] && gpu->architecture[0] && gpu->arch_id[0] && gpu->compute_capability[0] &&
              gpu->form_factor[0]);
    simt_hwdb_unref(db);
}
END_TEST

/* Per-compute-capability occupancy limits, from the CUDA C++ Programming
 * Guide's table (and cuda_occupancy.h for 12.x blocks), with each card's SM count. */
static const struct occ_row {
    const char *id;
    int major, minor, sm_count, threads_per_sm, blocks_per_sm;
    long long shared_per_sm, optin, reserved, alloc_unit;
    int carveouts;
} occ_rows[] = {
    {"v100-sxm2-32gb", 7, 0, 80, 2048, 32, 98304, 98304, 0, 256, 6},
    {"t4", 7, 5, 40, 1024, 16, 65536, 65536, 0, 256, 2},
    {"a100-sxm4-80gb", 8, 0, 108, 2048, 32, 167936, 166912, 1024, 128, 8},
    {"a10", 8, 6, 72, 1536, 16, 102400, 101376, 1024, 128, 6},
    {"l4", 8, 9, 58, 1536, 24, 102400, 101376, 1024, 128, 6},
    {"l40s", 8, 9, 142, 1536, 24, 102400, 101376, 1024, 128, 6},
    {"rtx-4090", 8, 9, 128, 1536, 24, 102400, 101376, 1024, 128, 6},
    {"h100-sxm", 9, 0, 132, 2048, 32, 233472, 232448, 1024, 128, 10},
    {"h100-pcie", 9, 0, 114, 2048, 32, 233472, 232448, 1024, 128, 10},
    {"h200-sxm", 9, 0, 132, 2048, 32, 233472, 232448, 1024, 128, 10},
    {"b200", 10, 0, 148, 2048, 32, 233472, 232448, 1024, 128, 10},
    {"rtx-5090", 12, 0, 170, 1536, 24, 102400, 101376, 1024, 128, 6},
};

START_TEST(test_occupancy_limits_per_cc)
{
    const struct occ_row *r = &occ_rows[_i];
    struct simt_hwdb *db = load_bundled();
    const struct simt_hwdb_gpu *gpu = simt_hwdb_find(db, r->id);
    ck_assert_ptr_nonnull(gpu);
    const struct simt_gpu_spec *s = &gpu->spec;
    ck_assert_int_eq(s->vendor, SIMT_VENDOR_NVIDIA);
    ck_assert_int_eq(s->compute_major, r->major);
    ck_assert_int_eq(s->compute_minor, r->minor);
    ck_assert_int_eq(s->sm_count, r->sm_count);
    ck_assert_int_eq(s->warp_size, 32);
    ck_assert_int_eq(s->max_threads_per_sm, r->threads_per_sm);
    ck_assert_int_eq(s->max_warps_per_sm, r->threads_per_sm / 32);
    ck_assert_int_eq(s->max_blocks_per_sm, r->blocks_per_sm);
    ck_assert_int_eq(s->max_threads_per_block, 1024);
    ck_assert_int_eq(s->registers_per_sm, 65536);
    ck_assert_int_eq(s->max_registers_per_block, 65536);
    ck_assert_int_eq(s->max_registers_per_thread, 255);
    ck_assert_int_eq(s->register_allocation_unit, 256);
    ck_assert_int_eq(s->register_file_partitions, 4);
    ck_assert_int_eq(s->shared_bytes_per_sm, r->shared_per_sm);
    ck_assert_int_eq(s->shared_bytes_per_block, 49152);
    ck_assert_int_eq(s->shared_bytes_per_block_optin, r->optin);
    ck_assert_int_eq(s->reserved_shared_bytes_per_block, r->reserved);
    ck_assert_int_eq(s->shared_allocation_unit_bytes, r->alloc_unit);
    ck_assert_int_eq(s->shared_carveout_count, r->carveouts);
    ck_assert_int_eq(s->shared_carveout_bytes[s->shared_carveout_count - 1], r->shared_per_sm);
    for (int i = 1; i < s->shared_carveout_count; i++)
        ck_assert_int_lt(s->shared_carveout_bytes[i - 1], s->shared_carveout_bytes[i]);
    for (int i = s->shared_carveout_count; i < SIMT_MAX_CARVEOUTS; i++)
        ck_assert_int_eq(s->shared_carveout_bytes[i], 0);
    simt_hwdb_unref(db);
}
END_TEST

/* Every NVIDIA GPU in the directory, bundled or added later: nothing that
 * occupancy divides by or compares against may be 0. */
START_TEST(test_nvidia_limits_nonzero)
{
    struct simt_hwdb *db = load_bundled();
    int nvidia = 0;
    for (size_t i = 0; i < simt_hwdb_count(db); i++) {
        const struct simt_hwdb_gpu *gpu = simt_hwdb_at(db, i);
        const struct simt_gpu_spec *s = &gpu->spec;
        if (s->vendor != SIMT_VENDOR_NVIDIA)
            continue;
        nvidia++;
        ck_assert_msg(s->warp_size > 0 && s->max_threads_per_sm > 0 && s->max_warps_per_sm > 0 &&
                          s->max_blocks_per_sm > 0 && s->max_threads_per_block > 0 &&
                          s->registers_per_sm > 0 && s->max_registers_per_block > 0 &&
                          s->max_registers_per_thread > 0 && s->register_allocation_unit > 0 &&
                          s->register_file_partitions > 0 && s->shared_bytes_per_sm > 0 &&
                          s->shared_bytes_per_block > 0 && s->shared_bytes_per_block_optin > 0 &&
                          s->shared_allocation_unit_bytes > 0 && s->shared_carveout_count > 0 &&
                          s->sm_count > 0 && s->boost_clock_hz > 0,
                      "%s: an occupancy limit is 0", gpu->id);
        ck_assert_msg(s->compute_major >= 7 && s->compute_major <= 12, "%s: cc %d", gpu->id,
                      s->compute_major);
        ck_assert_msg(s->max_threads_per_sm == s->max_warps_per_sm * s->warp_size, "%s", gpu->id);
        ck_assert_int_eq(s->simds_per_cu, 0);
    }
    ck_assert_int_ge(nvidia, 11);
    simt_hwdb_unref(db);
}
END_TEST

START_TEST(test_amd_mi300x)
{
    struct simt_hwdb *db = load_bundled();
    const struct simt_hwdb_gpu *gpu = simt_hwdb_find(db, "mi300x");
    ck_assert_ptr_nonnull(gpu);
    const struct simt_gpu_spec *s = &gpu->spec;
    ck_assert_str_eq(gpu->vendor, "amd");
    ck_assert_str_eq(gpu->compute_capability, "gfx942");
    ck_assert_int_eq(s->vendor, SIMT_VENDOR_AMD);
    ck_assert_int_eq(s->compute_major, 9);
    ck_assert_int_eq(s->compute_minor, 4);
    ck_assert_int_eq(s->sm_count, 304);
    ck_assert_int_eq(s->warp_size, 64);
    ck_assert_int_eq(s->max_threads_per_block, 1024);
    ck_assert_int_eq(s->simds_per_cu, 4);
    ck_assert_int_eq(s->max_waves_per_simd, 8);
    ck_assert_int_eq(s->max_warps_per_sm, s->simds_per_cu * s->max_waves_per_simd);
    ck_assert_int_eq(s->vgprs_per_simd_lane, 512);
    ck_assert_int_eq(s->vgpr_allocation_unit, 8);
    ck_assert_int_eq(s->max_vgprs_per_wave, 512);
    ck_assert_int_eq(s->sgprs_per_simd, 800);
    ck_assert_int_eq(s->sgpr_allocation_unit, 16);
    ck_assert_int_eq(s->max_sgprs_per_wave, 102);
    ck_assert_int_eq(s->lds_bytes_per_cu, 65536);
    ck_assert_int_eq(s->lds_allocation_unit_bytes, 512);
    ck_assert_int_eq(s->max_lds_bytes_per_workgroup, 65536);
    ck_assert_int_eq(s->shared_carveout_count, 0);
    simt_hwdb_unref(db);
}
END_TEST

static const char *source_of(const struct simt_hwdb_gpu *gpu, const char *group)
{
    for (int i = 0; i < gpu->source_count; i++) {
        if (strcmp(gpu->sources[i].group, group) == 0)
            return gpu->sources[i].text;
    }
    return NULL;
}

/* Every group of figures a record holds says where it came from. */
START_TEST(test_sources_present)
{
    struct simt_hwdb *db = load_bundled();
    static const char *const groups[] = {"sm", "clocks", "memory", "throughput", "interconnect"};
    for (size_t i = 0; i < simt_hwdb_count(db); i++) {
        const struct simt_hwdb_gpu *gpu = simt_hwdb_at(db, i);
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
            const char *text = source_of(gpu, groups[g]);
            ck_assert_msg(text && strlen(text) > 10, "%s: no source for %s", gpu->id, groups[g]);
        }
        const char *own = gpu->spec.vendor == SIMT_VENDOR_AMD ? "amd" : "limits";
        ck_assert_msg(source_of(gpu, own) != NULL, "%s: no source for %s", gpu->id, own);
        int latency = gpu->spec.fma_latency_cycles > 0 || gpu->spec.l2_latency_cycles > 0 ||
                      gpu->spec.dram_latency_cycles > 0;
        ck_assert_msg(!latency || source_of(gpu, "latency"), "%s: latencies without a source", gpu->id);
    }
    simt_hwdb_unref(db);
}
END_TEST

/* Figures that must agree with each other: DRAM bandwidth with memory clock
 * and bus width; sparse tensor peaks above dense; a half-precision tensor
 * peak for every GPU. */
START_TEST(test_figures_consistent)
{
    struct simt_hwdb *db = load_bundled();
    for (size_t i = 0; i < simt_hwdb_count(db); i++) {
        const struct simt_hwdb_gpu *gpu = simt_hwdb_at(db, i);
        const struct simt_gpu_spec *s = &gpu->spec;
        if (s->memory_clock_hz > 0) {
            double derived = 2.0 * s->memory_clock_hz * s->dram_bus_width_bits / 8.0;
            ck_assert_msg(fabs(derived / s->dram_bandwidth_bytes_per_s - 1.0) < 0.03,
                          "%s: 2 x memory clock x bus width = %g B/s, datasheet %g", gpu->id, derived,
                          s->dram_bandwidth_bytes_per_s);
        }
        for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
            if (s->tensor_sparse_flops_per_s[d] > 0)
                ck_assert_msg(s->tensor_sparse_flops_per_s[d] >= s->tensor_dense_flops_per_s[d] &&
                                  s->tensor_dense_flops_per_s[d] > 0,
                              "%s: %s sparse below dense or without dense", gpu->id, simt_dtype_name(d));
        }
        ck_assert_msg(s->tensor_dense_flops_per_s[SIMT_DTYPE_FP16] > 0, "%s: no fp16 tensor peak", gpu->id);
        /* fp16 tensor peak at most 16x the fp32 CUDA-core peak per clock ... and above it */
        double fp32_peak = s->fp32_flops_per_clock_per_sm * s->sm_count * s->boost_clock_hz;
        ck_assert_msg(s->tensor_dense_flops_per_s[SIMT_DTYPE_FP16] > fp32_peak, "%s: tensor below fp32",
                      gpu->id);
        ck_assert_msg(s->l2_bytes < s->dram_bytes && s->dram_bytes > 1e10, "%s: memory sizes", gpu->id);
        ck_assert_msg(s->sector_bytes == 32 || s->sector_bytes == 64, "%s: sector", gpu->id);
        ck_assert_msg(s->dram_access_granularity_bytes >= s->sector_bytes, "%s: DRAM granularity", gpu->id);
        ck_assert_msg(s->pcie_bandwidth_bytes_per_s > 1e10, "%s: pcie", gpu->id);
    }
    simt_hwdb_unref(db);
}
END_TEST

/* The peaks the database derives per clock agree with the datasheet FP32 figure. */
static const struct peak_row {
    const char *id;
    double fp32_flops_per_s; /* datasheet / whitepaper */
} peak_rows[] = {
    {"v100-sxm2-32gb", 15.7e12},
    {"t4", 8.1e12},
    {"a100-sxm4-80gb", 19.5e12},
    {"a10", 31.2e12},
    {"l4", 30.3e12},
    {"l40s", 91.6e12},
    {"rtx-4090", 82.6e12},
    {"h100-sxm", 67e12},
    {"h100-pcie", 51e12},
    {"h200-sxm", 67e12},
    {"rtx-5090", 104.8e12},
    {"mi300x", 163.4e12},
};

START_TEST(test_fp32_peak_matches_datasheet)
{
    const struct peak_row *r = &peak_rows[_i];
    struct simt_hwdb *db = load_bundled();
    const struct simt_hwdb_gpu *gpu = simt_hwdb_find(db, r->id);
    ck_assert_ptr_nonnull(gpu);
    const struct simt_gpu_spec *s = &gpu->spec;
    double peak = s->fp32_flops_per_clock_per_sm * s->sm_count * s->boost_clock_hz;
    ck_assert_msg(fabs(peak / r->fp32_flops_per_s - 1.0) < 0.02, "%s: %g vs datasheet %g", r->id, peak,
                  r->fp32_flops_per_s);
    simt_hwdb_unref(db);
}
END_TEST

START_TEST(test_arch_and_gpu_sources_merge)
{
    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    int rc = simt_hwdb_load_dir(SIMT_TEST_DIR "/hwdb/cases/valid-override", &db, &diag);
    ck_assert_msg(rc == SIMT_OK, "%s", diag.message);
    const struct simt_hwdb_gpu *gpu = simt_hwdb_find(db, "g1");
    ck_assert_ptr_nonnull(gpu);
    const char *sm = source_of(gpu, "sm");
    ck_assert_ptr_nonnull(sm);
    ck_assert_msg(strncmp(sm, "NVIDIA H100 whitepaper", 22) == 0, "arch text first: %s", sm);
    size_t n = strlen(sm);
    ck_assert_msg(n > 6 && strcmp(sm + n - 6, "; test") == 0, "GPU text last: %s", sm);
    ck_assert_str_eq(source_of(gpu, "clocks"), "test");
    ck_assert_str_eq(gpu->arch_id, "sm_90");
    ck_assert_str_eq(gpu->architecture, "hopper");
    simt_hwdb_unref(db);
}
END_TEST

START_TEST(test_load_failures)
{
    struct simt_hwdb *db = (struct simt_hwdb *)&db;
    struct simt_diag diag;
    ck_assert_int_eq(simt_hwdb_load_dir(SIMT_TEST_DIR "/hwdb/no-such-dir", &db, &diag), SIMT_ENOENT);
    ck_assert_ptr_null(db);
    ck_assert_msg(strstr(diag.message, "no-such-dir") != NULL, "%s", diag.message);
    ck_assert_int_eq(simt_hwdb_load_dir(NULL, &db, &diag), SIMT_EINVAL);
    ck_assert_int_eq(simt_hwdb_load_dir(BUNDLED, NULL, &diag), SIMT_EINVAL);
    /* without a diag struct: still refused, nothing written */
    ck_assert_int_eq(simt_hwdb_load_dir(SIMT_TEST_DIR "/hwdb/cases/unknown-key", &db, NULL), SIMT_EPARSE);
    ck_assert_ptr_null(db);
}
END_TEST

/* ------------------------------------------------------------ field table */

static const char *const known_groups[] = {"limits",     "amd",     "sm",           "clocks",   "memory",
                                           "throughput", "latency", "interconnect", "measured", "achievable"};

static size_t field_size(const struct simt_hwdb_field *f)
{
    switch (f->type) {
    case SIMT_FIELD_INT:
        return sizeof(int);
    case SIMT_FIELD_INT64:
        return sizeof(int64_t);
    case SIMT_FIELD_DOUBLE:
        return sizeof(double);
    case SIMT_FIELD_DTYPES:
        return sizeof(double) * SIMT_DTYPE_COUNT;
    case SIMT_FIELD_CARVEOUTS:
        return sizeof(int64_t) * SIMT_MAX_CARVEOUTS;
    case SIMT_FIELD_INT_LIST:
        return sizeof(int) * SIMT_HWDB_MAX_LIST;
    }
    return 0;
}

START_TEST(test_field_table_shape)
{
    size_t n;
    const struct simt_hwdb_field *f = simt_hwdb_fields(&n);
    ck_assert_uint_gt(n, 60);
    for (size_t i = 0; i < n; i++) {
        ck_assert_ptr_eq(simt_hwdb_field_find(f[i].name), &f[i]);
        int group_known = 0;
        for (size_t g = 0; g < sizeof known_groups / sizeof known_groups[0]; g++)
            group_known |= strcmp(f[i].group, known_groups[g]) == 0;
        ck_assert_msg(group_known, "%s: group %s", f[i].name, f[i].group);
        if (strcmp(f[i].group, "measured") == 0) {
            ck_assert_msg(strncmp(f[i].name, "measured_", 9) == 0 && strcmp(f[i].name + 9, f[i].key) == 0,
                          "%s", f[i].name);
            ck_assert_uint_eq(f[i].required, 0);
        } else if (strcmp(f[i].group, "achievable") == 0) {
            ck_assert_msg(strncmp(f[i].name, "achievable_", 11) == 0 && strcmp(f[i].name + 11, f[i].key) == 0,
                          "%s", f[i].name);
            ck_assert_msg(f[i].min >= 0.0 && f[i].max <= 1.0, "%s: a fraction", f[i].name);
        } else {
            ck_assert_str_eq(f[i].name, f[i].key);
        }
        ck_assert_msg(f[i].min <= f[i].max, "%s: range", f[i].name);
        ck_assert_msg(f[i].offset + field_size(&f[i]) <= sizeof(struct simt_gpu_spec), "%s: offset",
                      f[i].name);
        for (size_t j = 0; j < i; j++) {
            ck_assert_msg(strcmp(f[i].name, f[j].name) != 0, "duplicate %s", f[i].name);
            int disjoint = f[i].offset + field_size(&f[i]) <= f[j].offset ||
                           f[j].offset + field_size(&f[j]) <= f[i].offset;
            ck_assert_msg(disjoint, "%s overlaps %s", f[i].name, f[j].name);
        }
    }
    ck_assert_ptr_null(simt_hwdb_field_find("no_such_field"));
    ck_assert_ptr_null(simt_hwdb_field_find(NULL));
    ck_assert_ptr_nonnull(simt_hwdb_fields(NULL));
}
END_TEST

/* Every member of struct simt_gpu_spec, read from model/gpu.h itself, is in
 * the field table, except those the loader derives. A field added to gpu.h
 * without a table row fails here. */
START_TEST(test_field_table_covers_gpu_h)
{
    static const char *const derived[] = {"vendor", "compute_major", "compute_minor",
                                          "shared_carveout_count"};
    char *text = read_file(SIMT_SOURCE_DIR "/model/gpu.h");
    char *start = strstr(text, "struct simt_gpu_spec {");
    ck_assert_ptr_nonnull(start);
    char *end = strstr(start, "\n};");
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    int members = 0;
    for (char *save = NULL, *line = strtok_r(start + strlen("struct simt_gpu_spec {"), "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *comment = strstr(line, "/*");
        if (comment)
            *comment = '\0';
        char *semi = strchr(line, ';');
        if (!semi)
            continue;
        *semi = '\0';
        char *bracket = strchr(line, '[');
        if (bracket)
            *bracket = '\0';
        /* the member name is the last identifier before ';' or '[' */
        char *p = line + strlen(line);
        while (p > line && isspace((unsigned char)p[-1]))
            *--p = '\0';
        char *name = p;
        while (name > line && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
            name--;
        if (!*name)
            continue;
        members++;
        int skip = 0;
        for (size_t d = 0; d < sizeof derived / sizeof derived[0]; d++)
            skip |= strcmp(name, derived[d]) == 0;
        if (!skip)
            ck_assert_msg(simt_hwdb_field_find(name) != NULL, "gpu.h member %s has no field table row", name);
    }
    size_t n;
    simt_hwdb_fields(&n);
    ck_assert_uint_eq((size_t)members, n + sizeof derived / sizeof derived[0]);
    free(text);
}
END_TEST

/* SCHEMA.md documents every field with the table's type, range and
 * required-ness, and documents nothing the table lacks. */
START_TEST(test_schema_md_matches_table)
{
    char *text = read_file(SIMT_SOURCE_DIR "/hwdb/SCHEMA.md");
    size_t n;
    const struct simt_hwdb_field *f = simt_hwdb_fields(&n);
    int *seen = calloc(n, sizeof *seen);
    char group[64] = "";
    int rows = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') { /* a heading: "### <group>" opens a key table, any other closes it */
            group[0] = '\0';
            if (strncmp(line, "### ", 4) == 0) {
                for (size_t g = 0; g < sizeof known_groups / sizeof known_groups[0]; g++) {
                    if (strcmp(line + 4, known_groups[g]) == 0)
                        snprintf(group, sizeof group, "%s", known_groups[g]);
                }
            }
            continue;
        }
        if (!group[0] || strncmp(line, "| `", 3) != 0)
            continue;
        /* | `key` | type | range | required | meaning | */
        char key[80], type[64], range[64], required[32];
        if (sscanf(line, "| `%79[^`]` | %63[^|]| %63[^|]| %31[^|]|", key, type, range, required) != 4)
            ck_abort_msg("SCHEMA.md: malformed row: %s", line);
        for (char *s = type + strlen(type); s > type && s[-1] == ' ';)
            *--s = '\0';
        for (char *s = range + strlen(range); s > range && s[-1] == ' ';)
            *--s = '\0';
        for (char *s = required + strlen(required); s > required && s[-1] == ' ';)
            *--s = '\0';
        const struct simt_hwdb_field *row = NULL;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(f[i].group, group) == 0 && strcmp(f[i].key, key) == 0) {
                row = &f[i];
                seen[i] = 1;
            }
        }
        ck_assert_msg(row != NULL, "SCHEMA.md documents %s.%s, which the loader does not know", group, key);
        rows++;
        const char *want_type = row->type == SIMT_FIELD_INT || row->type == SIMT_FIELD_INT64 ? "integer"
                                : row->type == SIMT_FIELD_DOUBLE                             ? "number"
                                : row->type == SIMT_FIELD_DTYPES ? "map: data type to number"
                                                                 : "list of integers";
        ck_assert_msg(strcmp(type, want_type) == 0, "SCHEMA.md %s.%s: type \"%s\", table \"%s\"", group, key,
                      type, want_type);
        char describe[96];
        simt_hwdb_field_describe(row, describe, sizeof describe);
        const char *want_range = strstr(describe, " in ") + 4;
        ck_assert_msg(strcmp(range, want_range) == 0, "SCHEMA.md %s.%s: range \"%s\", table \"%s\"", group,
                      key, range, want_range);
        const char *want_required = row->required == 3   ? "nvidia, amd"
                                    : row->required == 1 ? "nvidia"
                                    : row->required == 2 ? "amd"
                                                         : "no";
        ck_assert_msg(strcmp(required, want_required) == 0, "SCHEMA.md %s.%s: required \"%s\", table \"%s\"",
                      group, key, required, want_required);
    }
    for (size_t i = 0; i < n; i++) {
        char want[300];
        char describe[96];
        simt_hwdb_field_describe(&f[i], describe, sizeof describe);
        snprintf(want, sizeof want, "under ### %s: | `%s` | ... | %s | ...", f[i].group, f[i].key,
                 strstr(describe, " in ") + 4);
        ck_assert_msg(seen[i], "SCHEMA.md misses %s.%s; add a row %s", f[i].group, f[i].key, want);
    }
    ck_assert_int_eq(rows, (int)n);
    free(seen);
    free(text);
}
END_TEST

static const struct set_row {
    const char *name;
    double value;
    int rc;
} set_rows[] = {
    {"sm_count", 114, SIMT_OK},
    {"sm_count", 4096, SIMT_OK},
    {"sm_count", 0, SIMT_EINVAL},
    {"sm_count", 4097, SIMT_EINVAL},
    {"sm_count", 113.5, SIMT_EINVAL},
    {"sm_count", -1, SIMT_EINVAL},
    {"dram_bandwidth_bytes_per_s", 4.8e12, SIMT_OK},
    {"dram_bandwidth_bytes_per_s", 1e9, SIMT_OK},
    {"dram_bandwidth_bytes_per_s", 9.99e8, SIMT_EINVAL},
    {"dram_bandwidth_bytes_per_s", 1e15, SIMT_EINVAL},
    {"dram_bandwidth_bytes_per_s", 3.3e12 + 0.5, SIMT_OK}, /* doubles need not be whole */
    {"shared_bytes_per_sm", 233472, SIMT_OK},
    {"shared_bytes_per_sm", 233472.25, SIMT_EINVAL},
    {"reserved_shared_bytes_per_block", 0, SIMT_OK},
    {"nvswitch", 1, SIMT_OK},
    {"nvswitch", 2, SIMT_EINVAL},
    {"issue_slots_per_clock_per_sm", 0.25, SIMT_OK},
    {"issue_slots_per_clock_per_sm", 0.2, SIMT_EINVAL},
    {"measured_dram_bandwidth_bytes_per_s", 4.3e12, SIMT_OK},
    {"measured_clock_hz", 1e7, SIMT_EINVAL},
    {"tensor_dense_flops_per_s", 1e15, SIMT_EINVAL}, /* not a scalar */
    {"shared_carveout_bytes", 0, SIMT_EINVAL},       /* not a scalar */
};

START_TEST(test_field_set_get)
{
    const struct set_row *r = &set_rows[_i];
    const struct simt_hwdb_field *f = simt_hwdb_field_find(r->name);
    ck_assert_msg(f != NULL, "%s", r->name);
    struct simt_gpu_spec spec, before;
    memset(&spec, 0x5a, sizeof spec);
    before = spec;
    struct simt_diag diag;
    memset(&diag, 0, sizeof diag);
    int rc = simt_hwdb_field_set(&spec, f, r->value, &diag);
    ck_assert_int_eq(rc, r->rc);
    if (rc == SIMT_OK) {
        ck_assert(fabs(simt_hwdb_field_get(&spec, f) - r->value) <= 1e-12 * fabs(r->value));
    } else {
        ck_assert_int_eq(memcmp(&spec, &before, sizeof spec), 0);
        ck_assert_str_eq(diag.field, r->name);
        ck_assert_msg(strstr(diag.message, r->name) && strstr(diag.message, "expected"), "%s", diag.message);
        ck_assert_int_eq(simt_hwdb_field_set(&spec, f, r->value, NULL), r->rc); /* NULL diag is allowed */
    }
}
END_TEST

START_TEST(test_field_set_changes_only_that_field)
{
    size_t n;
    const struct simt_hwdb_field *f = simt_hwdb_fields(&n);
    for (size_t i = 0; i < n; i++) {
        if (f[i].type == SIMT_FIELD_DTYPES || f[i].type == SIMT_FIELD_CARVEOUTS ||
            f[i].type == SIMT_FIELD_INT_LIST)
            continue;
        struct simt_gpu_spec spec, copy;
        memset(&spec, 0, sizeof spec);
        copy = spec;
        double value = f[i].max;
        ck_assert_int_eq(simt_hwdb_field_set(&spec, &f[i], value, NULL), SIMT_OK);
        ck_assert(simt_hwdb_field_get(&spec, &f[i]) >= value && simt_hwdb_field_get(&spec, &f[i]) <= value);
        for (size_t j = 0; j < n; j++) {
            if (j == i || f[j].type == SIMT_FIELD_DTYPES || f[j].type == SIMT_FIELD_CARVEOUTS ||
                f[j].type == SIMT_FIELD_INT_LIST)
                continue;
            ck_assert_msg(simt_hwdb_field_get(&spec, &f[j]) <= 0.0 &&
                              simt_hwdb_field_get(&spec, &f[j]) >= 0.0,
                          "setting %s changed %s", f[i].name, f[j].name);
        }
        (void)copy;
    }
}
END_TEST

static const struct describe_row {
    const char *name;
    const char *text;
} describe_rows[] = {
    {"sm_count", "an integer in 1..4096"},
    {"dram_bandwidth_bytes_per_s", "a number in 1e9..1e14"},
    {"shared_carveout_bytes", "an integer in 0..16777216"},
    {"tensor_dense_flops_per_s", "a number in 0..1e18"},
    {"launch_overhead_s", "a number in 1e-8..0.01"},
    {"boost_clock_hz", "a number in 1e8..1e10"},
    {"issue_slots_per_clock_per_sm", "a number in 0.25..64"},
};

START_TEST(test_field_describe)
{
    char buf[96];
    simt_hwdb_field_describe(simt_hwdb_field_find(describe_rows[_i].name), buf, sizeof buf);
    ck_assert_str_eq(buf, describe_rows[_i].text);
    char tiny[4];
    simt_hwdb_field_describe(simt_hwdb_field_find(describe_rows[_i].name), tiny, sizeof tiny);
    ck_assert_uint_eq(strlen(tiny), 3);
}
END_TEST

START_TEST(test_field_dtypes_and_carveouts)
{
    const struct simt_hwdb_field *dense = simt_hwdb_field_find("tensor_dense_flops_per_s");
    const struct simt_hwdb_field *carve = simt_hwdb_field_find("shared_carveout_bytes");
    const struct simt_hwdb_field *sms = simt_hwdb_field_find("sm_count");
    struct simt_gpu_spec spec, before;
    memset(&spec, 0, sizeof spec);
    struct simt_diag diag;

    ck_assert_int_eq(simt_hwdb_field_set_dtype(&spec, dense, SIMT_DTYPE_BF16, 9.895e14, &diag), SIMT_OK);
    ck_assert(simt_hwdb_field_get_dtype(&spec, dense, SIMT_DTYPE_BF16) >= 9.895e14);
    ck_assert(spec.tensor_dense_flops_per_s[SIMT_DTYPE_BF16] >= 9.895e14);
    ck_assert(spec.tensor_dense_flops_per_s[SIMT_DTYPE_FP16] <= 0.0);
    before = spec;
    ck_assert_int_eq(simt_hwdb_field_set_dtype(&spec, dense, SIMT_DTYPE_FP8, 2e18, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "tensor_dense_flops_per_s.fp8");
    ck_assert_int_eq(memcmp(&spec, &before, sizeof spec), 0);
    ck_assert_int_eq(simt_hwdb_field_set_dtype(&spec, dense, (enum simt_dtype)99, 1, &diag), SIMT_EINVAL);
    ck_assert_int_eq(simt_hwdb_field_set_dtype(&spec, sms, SIMT_DTYPE_FP8, 1, &diag), SIMT_EINVAL);
    ck_assert(simt_hwdb_field_get_dtype(&spec, sms, SIMT_DTYPE_FP8) <= 0.0);

    const int64_t good[] = {0, 8192, 102400};
    ck_assert_int_eq(simt_hwdb_field_set_carveouts(&spec, carve, good, 3, &diag), SIMT_OK);
    ck_assert_int_eq(spec.shared_carveout_count, 3);
    ck_assert_int_eq(spec.shared_carveout_bytes[2], 102400);
    before = spec;
    const int64_t descending[] = {0, 65536, 32768};
    ck_assert_int_eq(simt_hwdb_field_set_carveouts(&spec, carve, descending, 3, &diag), SIMT_EINVAL);
    ck_assert_str_eq(diag.field, "shared_carveout_bytes[2]");
    const int64_t negative[] = {-1};
    ck_assert_int_eq(simt_hwdb_field_set_carveouts(&spec, carve, negative, 1, &diag), SIMT_EINVAL);
    ck_assert_int_eq(simt_hwdb_field_set_carveouts(&spec, carve, good, 0, &diag), SIMT_EINVAL);
    int64_t many[SIMT_MAX_CARVEOUTS + 1];
    for (int i = 0; i <= SIMT_MAX_CARVEOUTS; i++)
        many[i] = 1024 * i;
    ck_assert_int_eq(simt_hwdb_field_set_carveouts(&spec, carve, many, SIMT_MAX_CARVEOUTS + 1, &diag),
                     SIMT_EINVAL);
    ck_assert_int_eq(simt_hwdb_field_set_carveouts(&spec, sms, good, 3, &diag), SIMT_EINVAL);
    ck_assert_int_eq(memcmp(&spec, &before, sizeof spec), 0);
    ck_assert_int_eq(simt_hwdb_field_set_carveouts(&spec, carve, many, SIMT_MAX_CARVEOUTS, &diag), SIMT_OK);
    ck_assert_int_eq(spec.shared_carveout_count, SIMT_MAX_CARVEOUTS);
}
END_TEST

/* ------------------------------------------------------------ references */

START_TEST(test_ref_unref)
{
    struct simt_hwdb *db = load_bundled();
    simt_hwdb_ref(db);
    simt_hwdb_unref(db);
    ck_assert_ptr_nonnull(simt_hwdb_find(db, "h200-sxm")); /* one reference left: still alive */
    simt_hwdb_ref(NULL);
    simt_hwdb_unref(NULL);
    simt_hwdb_unref(db);
}
END_TEST

static void *ref_worker(void *arg)
{
    struct simt_hwdb *db = arg;
    for (int i = 0; i < 20000; i++) {
        simt_hwdb_ref(db);
        if (!simt_hwdb_find(db, "t4"))
            return arg;
        simt_hwdb_unref(db);
    }
    return NULL;
}

START_TEST(test_ref_unref_threads)
{
    struct simt_hwdb *db = load_bundled();
    pthread_t threads[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, ref_worker, db), 0);
    for (int i = 0; i < 4; i++) {
        void *result;
        ck_assert_int_eq(pthread_join(threads[i], &result), 0);
        ck_assert_ptr_null(result);
    }
    ck_assert_ptr_nonnull(simt_hwdb_find(db, "t4"));
    simt_hwdb_unref(db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hwdb");
    TCase *data = tcase_create("bundled");
    tcase_set_timeout(data, 30);
    tcase_add_test(data, test_bundled_loads);
    tcase_add_loop_test(data, test_required_id_present, 0, (int)REQUIRED_COUNT);
    tcase_add_loop_test(data, test_occupancy_limits_per_cc, 0, (int)(sizeof occ_rows / sizeof occ_rows[0]));
    tcase_add_test(data, test_nvidia_limits_nonzero);
    tcase_add_test(data, test_amd_mi300x);
    tcase_add_test(data, test_sources_present);
    tcase_add_test(data, test_figures_consistent);
    tcase_add_loop_test(data, test_fp32_peak_matches_datasheet, 0,
                        (int)(sizeof peak_rows / sizeof peak_rows[0]));
    tcase_add_test(data, test_arch_and_gpu_sources_merge);
    tcase_add_test(data, test_load_failures);
    suite_add_tcase(s, data);

    TCase *table = tcase_create("fields");
    tcase_add_test(table, test_field_table_shape);
    tcase_add_test(table, test_field_table_covers_gpu_h);
    tcase_add_test(table, test_schema_md_matches_table);
    tcase_add_loop_test(table, test_field_set_get, 0, (int)(sizeof set_rows / sizeof set_rows[0]));
    tcase_add_test(table, test_field_set_changes_only_that_field);
    tcase_add_loop_test(table, test_field_describe, 0, (int)(sizeof describe_rows / sizeof describe_rows[0]));
    tcase_add_test(table, test_field_dtypes_and_carveouts);
    suite_add_tcase(s, table);

    TCase *refs = tcase_create("refs");
    tcase_set_timeout(refs, 60);
    tcase_add_test(refs, test_ref_unref);
    tcase_add_test(refs, test_ref_unref_threads);
    suite_add_tcase(s, refs);

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
