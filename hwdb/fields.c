/* fields.c - the field table: every numeric field of struct simt_gpu_spec by
 * the name it has in YAML, in GET /v1/gpus/{id} and in what-if overrides,
 * with its group, its type, the range a value must lie in and for which
 * vendors it is required. One table drives the loader, the JSON output, the
 * overrides and SCHEMA.md's check test. Static data, thread-safe. */
#include "hwdb.h"

#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NV 1u  /* required for NVIDIA */
#define AMD 2u /* required for AMD */
#define ALL 3u /* required for both */
#define OPT 0u /* optional: absent = 0 */

#define F(name, group, type, min, max, req)                                                                  \
    {                                                                                                        \
#name, group, #name, offsetof(struct simt_gpu_spec, name), SIMT_FIELD_##type, min, max, req          \
    }
/* measured fields: the key inside "measured:" drops the prefix */
#define M(key, type, min, max)                                                                               \
    {                                                                                                        \
        "measured_" #key, "measured", #key, offsetof(struct simt_gpu_spec, measured_##key),                  \
            SIMT_FIELD_##type, min, max, OPT                                                                 \
    }

/* achievable fractions: the key inside "achievable:" drops the prefix; every
 * one is required (the models derive every unmeasured figure from them), and
 * simt_hwdb_spec_complete asks for a tensor fraction per dtype with a rate */
#define A(key, type)                                                                                         \
    {                                                                                                        \
        "achievable_" #key, "achievable", #key, offsetof(struct simt_gpu_spec, achievable_##key),            \
            SIMT_FIELD_##type, 0, 1, ALL                                                                     \
    }

static const struct simt_hwdb_field fields[] = {
    /* --- limits: what occupancy uses --- */
    F(warp_size, "limits", INT, 16, 64, ALL),
    F(max_threads_per_sm, "limits", INT, 32, 4096, ALL),
    F(max_warps_per_sm, "limits", INT, 1, 128, ALL),
    F(max_blocks_per_sm, "limits", INT, 1, 128, NV),
    F(max_threads_per_block, "limits", INT, 32, 4096, ALL),
    F(registers_per_sm, "limits", INT, 1024, 1048576, NV),
    F(max_registers_per_block, "limits", INT, 1024, 1048576, NV),
    F(max_registers_per_thread, "limits", INT, 16, 1024, NV),
    F(register_allocation_unit, "limits", INT, 1, 1024, NV),
    F(register_file_partitions, "limits", INT, 1, 16, NV),
    F(shared_bytes_per_sm, "limits", INT64, 0, 16777216, NV),
    F(shared_bytes_per_block, "limits", INT64, 0, 16777216, NV),
    F(shared_bytes_per_block_optin, "limits", INT64, 0, 16777216, NV),
    F(reserved_shared_bytes_per_block, "limits", INT64, 0, 65536, NV),
    F(shared_allocation_unit_bytes, "limits", INT64, 1, 65536, NV),
    F(shared_carveout_bytes, "limits", CARVEOUTS, 0, 16777216, NV),
    F(max_barriers_per_sm, "limits", INT, 0, 4096, OPT),

    /* --- AMD's own limits --- */
    F(simds_per_cu, "amd", INT, 1, 16, AMD),
    F(max_waves_per_simd, "amd", INT, 1, 64, AMD),
    F(vgprs_per_simd_lane, "amd", INT, 64, 4096, AMD),
    F(vgpr_allocation_unit, "amd", INT, 1, 256, AMD),
    F(max_vgprs_per_wave, "amd", INT, 16, 4096, AMD),
    F(sgprs_per_simd, "amd", INT, 16, 16384, AMD),
    F(sgpr_allocation_unit, "amd", INT, 1, 256, AMD),
    F(max_sgprs_per_wave, "amd", INT, 8, 1024, AMD),
    F(lds_bytes_per_cu, "amd", INT64, 1024, 16777216, AMD),
    F(lds_allocation_unit_bytes, "amd", INT64, 1, 65536, AMD),
    F(max_lds_bytes_per_workgroup, "amd", INT64, 1024, 16777216, AMD),

    /* --- the SM's (CU's) make-up --- */
    F(sm_count, "sm", INT, 1, 4096, ALL),
    F(sub_partitions, "sm", INT, 1, 16, ALL),
    F(fp32_lanes_per_sm, "sm", INT, 1, 1024, ALL),
    F(fp64_lanes_per_sm, "sm", INT, 0, 1024, ALL),
    F(int32_lanes_per_sm, "sm", INT, 0, 1024, NV),
    F(sfu_lanes_per_sm, "sm", INT, 0, 1024, NV),
    F(load_store_units_per_sm, "sm", INT, 0, 1024, NV),
    F(tensor_cores_per_sm, "sm", INT, 0, 64, ALL),
    F(shared_banks, "sm", INT, 1, 128, ALL),
    F(shared_bank_bytes, "sm", INT, 1, 64, ALL),

    /* --- thread-block clusters: the layout the runtime places clusters in
     * (only where measured; a GPU without it cannot answer cluster questions) --- */
    F(gpc_sms, "sm", INT_LIST, 1, 1024, OPT),
    F(cluster_max_blocks_per_sm, "sm", INT, 1, 128, OPT),
    F(cluster_max_portable_size, "sm", INT, 1, 1024, OPT),
    F(cluster_max_size, "sm", INT, 1, 1024, OPT),

    /* --- clocks --- */
    F(base_clock_hz, "clocks", DOUBLE, 1e8, 1e10, OPT),
    F(boost_clock_hz, "clocks", DOUBLE, 1e8, 1e10, ALL),
    F(memory_clock_hz, "clocks", DOUBLE, 1e8, 1e11, OPT),

    /* --- memory --- */
    F(dram_bytes, "memory", DOUBLE, 1e9, 1e14, ALL),
    F(dram_bandwidth_bytes_per_s, "memory", DOUBLE, 1e9, 1e14, ALL),
    F(dram_bus_width_bits, "memory", INT, 16, 65536, ALL),
    F(l2_bytes, "memory", DOUBLE, 65536, 1e10, ALL),
    F(l2_bandwidth_bytes_per_s, "memory", DOUBLE, 1e9, 1e15, OPT),
    F(l1_bytes_per_sm, "memory", DOUBLE, 1024, 16777216, ALL),
    F(sector_bytes, "memory", INT, 8, 1024, ALL),
    F(cache_line_bytes, "memory", INT, 8, 1024, ALL),
    F(dram_access_granularity_bytes, "memory", INT, 8, 1024, ALL),
    F(constant_cache_bytes_per_sm, "memory", INT, 0, 16777216, OPT),
    F(l2_atomics_per_clock, "throughput", DOUBLE, 0, 4096, OPT),
    F(l2_same_address_atomics_per_clock, "throughput", DOUBLE, 0, 64, OPT),
    F(l2_slice_atomic_lanes_per_clock, "throughput", DOUBLE, 0, 1024, OPT),
    F(l2_atomic_slice_bytes, "memory", DOUBLE, 0, 1048576, OPT),

    /* --- the whole-kernel model's L2 residency (kernel_cost.c) --- */
    F(l2_partitions, "memory", INT, 1, 64, OPT), /* every bundled GPU has it; absent = 1 */
    F(warp_lines_in_flight, "memory", DOUBLE, 0, 4096, OPT),
    F(l2_reuse_fraction, "memory", DOUBLE, 0, 1, OPT),
    F(repeat_whole_fraction, "memory", DOUBLE, 0, 1, OPT),
    F(l2_effective_ways, "memory", INT, 1, 64, OPT),

    /* --- throughputs: per SM per clock, an FMA counts 2 --- */
    F(fp32_flops_per_clock_per_sm, "throughput", DOUBLE, 1, 65536, ALL),
    F(fp64_flops_per_clock_per_sm, "throughput", DOUBLE, 0, 65536, ALL),
    F(fp16_flops_per_clock_per_sm, "throughput", DOUBLE, 0, 65536, NV),
    F(int32_ops_per_clock_per_sm, "throughput", DOUBLE, 0, 65536, NV),
    F(int32_mul_ops_per_clock_per_sm, "throughput", DOUBLE, 0, 65536, OPT),
    F(sfu_ops_per_clock_per_sm, "throughput", DOUBLE, 0, 65536, NV),
    F(issue_slots_per_clock_per_sm, "throughput", DOUBLE, 0.25, 64, ALL),
    F(fp64_issue_hold_fraction, "throughput", DOUBLE, 0, 1, OPT),
    F(tensor_dense_flops_per_s, "throughput", DTYPES, 0, 1e18, ALL),
    F(tensor_sparse_flops_per_s, "throughput", DTYPES, 0, 1e18, OPT),
    /* a single call's boost before the power limit (figures.h); absent: none */
    F(tensor_single_call_ratio, "throughput", DOUBLE, 1, 4, OPT),
    F(tensor_boost_window_s, "throughput", DOUBLE, 0, 10, OPT),

    /* --- latencies, cycles of the SM clock --- */
    F(fma_latency_cycles, "latency", DOUBLE, 1, 1000, ALL),
    F(shared_latency_cycles, "latency", DOUBLE, 1, 10000, ALL),
    F(l1_latency_cycles, "latency", DOUBLE, 1, 10000, ALL),
    F(l2_latency_cycles, "latency", DOUBLE, 1, 10000, ALL),
    F(dram_latency_cycles, "latency", DOUBLE, 1, 100000, ALL),
    F(launch_overhead_s, "latency", DOUBLE, 1e-8, 1e-2, ALL),
    /* block barriers and warp shuffles (the whole-kernel model); absent: not priced */
    F(barrier_latency_cycles, "latency", DOUBLE, 0, 10000, OPT),
    F(barrier_cycles_per_warp, "latency", DOUBLE, 0, 1000, OPT),
    F(shuffle_latency_cycles, "latency", DOUBLE, 0, 10000, OPT),
    F(barrier_data_path_cycles, "throughput", DOUBLE, 0, 10000, OPT),
    F(block_launch_cycles, "throughput", DOUBLE, 0, 100000, OPT),

    /* --- interconnect --- */
    F(nvlink_generation, "interconnect", INT, 0, 16, OPT),
    F(nvlink_links, "interconnect", INT, 0, 256, OPT),
    F(nvlink_bandwidth_bytes_per_s, "interconnect", DOUBLE, 0, 1e14, OPT),
    F(nvswitch, "interconnect", INT, 0, 1, OPT),
    F(pcie_generation, "interconnect", INT, 1, 16, ALL),
    F(pcie_lanes, "interconnect", INT, 1, 64, ALL),
    F(pcie_bandwidth_bytes_per_s, "interconnect", DOUBLE, 1e8, 1e13, ALL),
    F(xgmi_links, "interconnect", INT, 0, 64, OPT),
    F(xgmi_bandwidth_bytes_per_s, "interconnect", DOUBLE, 0, 1e14, OPT),

    /* --- measured on a real card (issue 4) --- */
    M(dram_bandwidth_bytes_per_s, DOUBLE, 1e9, 1e14),
    M(l2_bandwidth_bytes_per_s, DOUBLE, 1e9, 1e15),
    M(dram_latency_cycles, DOUBLE, 1, 100000),
    M(l2_latency_cycles, DOUBLE, 1, 10000),
    M(l1_latency_cycles, DOUBLE, 1, 10000),
    M(shared_latency_cycles, DOUBLE, 1, 10000),
    M(fma_latency_cycles, DOUBLE, 1, 1000),
    M(fp32_flops_per_s, DOUBLE, 1e9, 1e17),
    M(fp64_flops_per_s, DOUBLE, 1e8, 1e17),
    M(sfu_ops_per_s, DOUBLE, 1e8, 1e17),
    M(tensor_flops_per_s, DTYPES, 0, 1e18),
    M(tensor_single_call_ratio, DOUBLE, 1, 4),
    M(tensor_boost_window_s, DOUBLE, 0, 10),
    M(launch_overhead_s, DOUBLE, 1e-8, 1e-2),
    M(clock_hz, DOUBLE, 1e8, 1e10),
    M(dram_write_bandwidth_bytes_per_s, DOUBLE, 1e9, 1e14),
    M(dram_copy_bandwidth_bytes_per_s, DOUBLE, 1e9, 1e14),
    M(dram_row_activations_per_s, DOUBLE, 1e7, 1e13),
    M(l2_write_bandwidth_bytes_per_s, DOUBLE, 1e9, 1e15),
    M(l2_requests_per_s, DOUBLE, 1e8, 1e14),
    M(launch_interval_s, DOUBLE, 1e-8, 1e-2),
    M(fp64_fma_latency_cycles, DOUBLE, 1, 1000),
    M(dram_partial_stores_per_s, DOUBLE, 1e7, 1e13),

    /* --- achievable fractions of datasheet figures (issue 11) --- */
    A(dram_bandwidth, DOUBLE),
    A(dram_write_bandwidth, DOUBLE),
    A(dram_copy_bandwidth, DOUBLE),
    A(l2_bandwidth, DOUBLE),
    A(fp32, DOUBLE),
    A(fp64, DOUBLE),
    A(tensor, DTYPES),
};

const struct simt_hwdb_field *simt_hwdb_fields(size_t *count)
{
    if (count)
        *count = sizeof fields / sizeof fields[0];
    return fields;
}

const struct simt_hwdb_field *simt_hwdb_field_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (strcmp(fields[i].name, name) == 0)
            return &fields[i];
    }
    return NULL;
}

double simt_hwdb_field_get(const struct simt_gpu_spec *spec, const struct simt_hwdb_field *field)
{
    const char *base = (const char *)spec + field->offset;
    switch (field->type) {
    case SIMT_FIELD_INT: {
        int v;
        memcpy(&v, base, sizeof v);
        return (double)v;
    }
    case SIMT_FIELD_INT64: {
        int64_t v;
        memcpy(&v, base, sizeof v);
        return (double)v;
    }
    case SIMT_FIELD_DOUBLE: {
        double v;
        memcpy(&v, base, sizeof v);
        return v;
    }
    case SIMT_FIELD_DTYPES:
    case SIMT_FIELD_CARVEOUTS:
    case SIMT_FIELD_INT_LIST:
        break;
    }
    return 0.0;
}

/* 1e+09 -> "1e9", 233472 -> "233472", 16777216 -> "16777216", 2.5e-07 -> "2.5e-7" */
static void format_number(double value, char *buf, size_t size)
{
    if (!isfinite(value)) {
        snprintf(buf, size, "%s", isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
        return;
    }
    /* integers print whole unless they are round millions (1e8, 4.8e12) */
    if (fabs(value) < 1e15 && floor(value) >= value && floor(value) <= value &&
        (fabs(value) < 1e7 || fmod(value, 1e6) > 0.0)) {
        snprintf(buf, size, "%.0f", value);
        return;
    }
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.6g", value);
    char *e = strchr(tmp, 'e');
    if (!e) {
        size_t n = strlen(tmp) < size ? strlen(tmp) : size - 1;
        memcpy(buf, tmp, n);
        buf[n] = '\0';
        return;
    }
    const char *digits = e + 1;
    int negative = *digits == '-';
    if (*digits == '+' || *digits == '-')
        digits++;
    while (*digits == '0' && digits[1] != '\0')
        digits++;
    snprintf(buf, size, "%.*se%s%s", (int)(e - tmp), tmp, negative ? "-" : "", digits);
}

static int is_integer_type(enum simt_field_type type)
{
    return type == SIMT_FIELD_INT || type == SIMT_FIELD_INT64 || type == SIMT_FIELD_CARVEOUTS ||
           type == SIMT_FIELD_INT_LIST;
}

void simt_hwdb_field_describe(const struct simt_hwdb_field *field, char *buf, size_t size)
{
    char lo[32], hi[32];
    if (size == 0)
        return;
    format_number(field->min, lo, sizeof lo);
    format_number(field->max, hi, sizeof hi);
    snprintf(buf, size, "%s in %s..%s", is_integer_type(field->type) ? "an integer" : "a number", lo, hi);
}

static void fail(struct simt_diag *diag, const char *path, const char *what, double value)
{
    if (!diag)
        return;
    char got[32];
    format_number(value, got, sizeof got);
    memset(diag, 0, sizeof *diag);
    snprintf(diag->field, sizeof diag->field, "%s", path);
    snprintf(diag->message, sizeof diag->message, "%s: expected %s, got %s", path, what, got);
}

static int check_named(const struct simt_hwdb_field *field, const char *path, double value,
                       struct simt_diag *diag)
{
    int ok = isfinite(value) && value >= field->min && value <= field->max;
    if (ok && is_integer_type(field->type))
        ok = floor(value) >= value && floor(value) <= value;
    if (ok)
        return SIMT_OK;
    char what[96];
    simt_hwdb_field_describe(field, what, sizeof what);
    fail(diag, path, what, value);
    return SIMT_EINVAL;
}

int simt_hwdb_field_check(const struct simt_hwdb_field *field, double value, struct simt_diag *diag)
{
    return check_named(field, field->name, value, diag);
}

static void not_this_kind(struct simt_diag *diag, const struct simt_hwdb_field *field, const char *what)
{
    if (!diag)
        return;
    memset(diag, 0, sizeof *diag);
    snprintf(diag->field, sizeof diag->field, "%s", field->name);
    snprintf(diag->message, sizeof diag->message, "%s: %s", field->name, what);
}

int simt_hwdb_field_set(struct simt_gpu_spec *spec, const struct simt_hwdb_field *field, double value,
                        struct simt_diag *diag)
{
    if (field->type == SIMT_FIELD_DTYPES) {
        not_this_kind(diag, field, "expected an object keyed by data type, not a single number");
        return SIMT_EINVAL;
    }
    if (field->type == SIMT_FIELD_CARVEOUTS) {
        not_this_kind(diag, field, "expected a list of sizes, not a single number");
        return SIMT_EINVAL;
    }
    if (field->type == SIMT_FIELD_INT_LIST) {
        not_this_kind(diag, field, "expected a list of integers, not a single number");
        return SIMT_EINVAL;
    }
    int rc = check_named(field, field->name, value, diag);
    if (rc != SIMT_OK)
        return rc;
    char *base = (char *)spec + field->offset;
    switch (field->type) {
    case SIMT_FIELD_INT: {
        int v = (int)value;
        memcpy(base, &v, sizeof v);
        break;
    }
    case SIMT_FIELD_INT64: {
        int64_t v = (int64_t)value;
        memcpy(base, &v, sizeof v);
        break;
    }
    case SIMT_FIELD_DOUBLE:
        memcpy(base, &value, sizeof value);
        break;
    case SIMT_FIELD_DTYPES:
    case SIMT_FIELD_CARVEOUTS:
    case SIMT_FIELD_INT_LIST:
        break;
    }
    return SIMT_OK;
}

double simt_hwdb_field_get_dtype(const struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                                 enum simt_dtype dtype)
{
    if (field->type != SIMT_FIELD_DTYPES || (int)dtype < 0 || dtype >= SIMT_DTYPE_COUNT)
        return 0.0;
    double v;
    memcpy(&v, (const char *)spec + field->offset + (size_t)dtype * sizeof v, sizeof v);
    return v;
}

int simt_hwdb_field_set_dtype(struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                              enum simt_dtype dtype, double value, struct simt_diag *diag)
{
    const char *dname = simt_dtype_name(dtype);
    if (field->type != SIMT_FIELD_DTYPES || !dname) {
        not_this_kind(diag, field, "not a per-dtype field, or no such data type");
        return SIMT_EINVAL;
    }
    char path[128];
    snprintf(path, sizeof path, "%s.%s", field->name, dname);
    int rc = check_named(field, path, value, diag);
    if (rc != SIMT_OK)
        return rc;
    memcpy((char *)spec + field->offset + (size_t)dtype * sizeof value, &value, sizeof value);
    return SIMT_OK;
}

/* A list field given too few or too many items: SIMT_EINVAL, saying so. */
static int fail_count(struct simt_diag *diag, const struct simt_hwdb_field *field, const char *items, int max,
                      int count)
{
    if (diag) {
        memset(diag, 0, sizeof *diag);
        snprintf(diag->field, sizeof diag->field, "%s", field->name);
        snprintf(diag->message, sizeof diag->message, "%s: expected 1..%d %s, got %d", field->name, max,
                 items, count);
    }
    return SIMT_EINVAL;
}

int simt_hwdb_field_set_carveouts(struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                                  const int64_t *bytes, int count, struct simt_diag *diag)
{
    if (field->type != SIMT_FIELD_CARVEOUTS) {
        not_this_kind(diag, field, "not a carveout list");
        return SIMT_EINVAL;
    }
    if (count < 1 || count > SIMT_MAX_CARVEOUTS)
        return fail_count(diag, field, "sizes", SIMT_MAX_CARVEOUTS, count);
    for (int i = 0; i < count; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s[%d]", field->name, i);
        int rc = check_named(field, path, (double)bytes[i], diag);
        if (rc != SIMT_OK)
            return rc;
        if (i > 0 && bytes[i] <= bytes[i - 1]) {
            char what[64];
            snprintf(what, sizeof what, "a size above the previous one (%lld)", (long long)bytes[i - 1]);
            fail(diag, path, what, (double)bytes[i]);
            return SIMT_EINVAL;
        }
    }
    int64_t *dst = (int64_t *)(void *)((char *)spec + field->offset);
    for (int i = 0; i < SIMT_MAX_CARVEOUTS; i++)
        dst[i] = i < count ? bytes[i] : 0;
    spec->shared_carveout_count = count;
    return SIMT_OK;
}

int simt_hwdb_field_set_list(struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                             const int *values, int count, struct simt_diag *diag)
{
    if (field->type != SIMT_FIELD_INT_LIST) {
        not_this_kind(diag, field, "not a list of integers");
        return SIMT_EINVAL;
    }
    if (count < 1 || count > SIMT_HWDB_MAX_LIST)
        return fail_count(diag, field, "entries", SIMT_HWDB_MAX_LIST, count);
    for (int i = 0; i < count; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s[%d]", field->name, i);
        int rc = check_named(field, path, (double)values[i], diag);
        if (rc != SIMT_OK)
            return rc;
    }
    int *dst = (int *)(void *)((char *)spec + field->offset);
    for (int i = 0; i < SIMT_HWDB_MAX_LIST; i++)
        dst[i] = i < count ? values[i] : 0;
    return SIMT_OK;
}

int simt_hwdb_field_get_list(const struct simt_gpu_spec *spec, const struct simt_hwdb_field *field,
                             const int **values)
{
    if (field->type != SIMT_FIELD_INT_LIST)
        return 0;
    const int *list = (const int *)(const void *)((const char *)spec + field->offset);
    int count = 0;
    while (count < SIMT_HWDB_MAX_LIST && list[count] > 0)
        count++;
    if (values)
        *values = list;
    return count;
}

/* One relation between `field` and `other`: when broken, names field, says
 * why, and hands back the other field's name. */
static int relation(struct simt_diag *diag, const char **other_out, int holds, const char *field,
                    const char *other, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int relation(struct simt_diag *diag, const char **other_out, int holds, const char *field,
                    const char *other, const char *fmt, ...)
{
    if (holds)
        return SIMT_OK;
    if (other_out != NULL)
        *other_out = other;
    snprintf(diag->field, sizeof diag->field, "%s", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(diag->message, sizeof diag->message, fmt, ap);
    va_end(ap);
    return SIMT_EINVAL;
}

int simt_hwdb_spec_check(const struct simt_gpu_spec *s, struct simt_diag *diag, const char **other)
{
    const int64_t largest_carveout =
        s->shared_carveout_count > 0 ? s->shared_carveout_bytes[s->shared_carveout_count - 1] : 0;
    int rc;
    if ((rc = relation(
             diag, other,
             s->max_warps_per_sm <= 0 || s->max_threads_per_sm == s->max_warps_per_sm * s->warp_size,
             "max_threads_per_sm", "max_warps_per_sm", "expected max_warps_per_sm * warp_size = %d, got %d",
             s->max_warps_per_sm * s->warp_size, s->max_threads_per_sm)) != SIMT_OK ||
        (rc = relation(diag, other,
                       s->max_threads_per_block <= 0 || s->max_threads_per_sm <= 0 ||
                           s->max_threads_per_block <= s->max_threads_per_sm,
                       "max_threads_per_block", "max_threads_per_sm", "larger than max_threads_per_sm (%d)",
                       s->max_threads_per_sm)) != SIMT_OK ||
        (rc = relation(diag, other, s->max_registers_per_block <= s->registers_per_sm,
                       "max_registers_per_block", "registers_per_sm", "larger than registers_per_sm (%d)",
                       s->registers_per_sm)) != SIMT_OK ||
        (rc = relation(diag, other,
                       s->shared_carveout_count == 0 || largest_carveout == s->shared_bytes_per_sm,
                       "shared_carveout_bytes", "shared_bytes_per_sm",
                       "the largest carveout (%lld) must equal shared_bytes_per_sm (%lld)",
                       (long long)largest_carveout, (long long)s->shared_bytes_per_sm)) != SIMT_OK ||
        (rc = relation(diag, other, s->shared_bytes_per_block <= s->shared_bytes_per_block_optin,
                       "shared_bytes_per_block", "shared_bytes_per_block_optin",
                       "larger than shared_bytes_per_block_optin (%lld)",
                       (long long)s->shared_bytes_per_block_optin)) != SIMT_OK ||
        (rc = relation(diag, other, s->shared_bytes_per_block_optin <= s->shared_bytes_per_sm,
                       "shared_bytes_per_block_optin", "shared_bytes_per_sm",
                       "larger than shared_bytes_per_sm (%lld)", (long long)s->shared_bytes_per_sm)) !=
            SIMT_OK ||
        (rc = relation(diag, other, s->boost_clock_hz >= s->base_clock_hz, "boost_clock_hz", "base_clock_hz",
                       "below base_clock_hz (%g)", s->base_clock_hz)) != SIMT_OK ||
        (rc = relation(diag, other, s->max_lds_bytes_per_workgroup <= s->lds_bytes_per_cu,
                       "max_lds_bytes_per_workgroup", "lds_bytes_per_cu",
                       "larger than lds_bytes_per_cu (%lld)", (long long)s->lds_bytes_per_cu)) != SIMT_OK ||
        (rc = relation(diag, other, s->max_vgprs_per_wave <= s->vgprs_per_simd_lane, "max_vgprs_per_wave",
                       "vgprs_per_simd_lane", "larger than vgprs_per_simd_lane (%d)",
                       s->vgprs_per_simd_lane)) != SIMT_OK ||
        (rc =
             relation(diag, other, s->sector_bytes <= s->cache_line_bytes, "sector_bytes", "cache_line_bytes",
                      "larger than cache_line_bytes (%d): a cache line holds whole sectors",
                      s->cache_line_bytes)) != SIMT_OK)
        return rc;
    return SIMT_OK;
}

int simt_hwdb_spec_complete(const struct simt_gpu_spec *s, struct simt_diag *diag)
{
    for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
        if (s->tensor_dense_flops_per_s[d] > 0.0 && !(s->achievable_tensor[d] > 0.0)) {
            const char *other = NULL;
            return relation(
                diag, &other, 0, "achievable_tensor", "tensor_dense_flops_per_s",
                "has no fraction for %s, which has a dense tensor rate (tensor_dense_flops_per_s.%s)",
                simt_dtype_name((enum simt_dtype)d), simt_dtype_name((enum simt_dtype)d));
        }
        if (s->tensor_sparse_flops_per_s[d] > 0.0 && !(s->achievable_tensor[d] > 0.0)) {
            const char *other = NULL;
            return relation(
                diag, &other, 0, "achievable_tensor", "tensor_sparse_flops_per_s",
                "has no fraction for %s, which has a sparse tensor rate (tensor_sparse_flops_per_s.%s)",
                simt_dtype_name((enum simt_dtype)d), simt_dtype_name((enum simt_dtype)d));
        }
    }
    return SIMT_OK;
}
