/* whatif.c - applies a what-if's overrides to a GPU record's numbers through
 * hwdb's field table and checks the relations afterwards. Pure: no I/O, no
 * allocation, no JSON. */
#include "whatif.h"

#include <stddef.h>
#include <string.h>

#include "hwdb.h"

/* The table's field, or NULL after filling diag (SIMT_ENOENT). */
static const struct simt_hwdb_field *find(const char *name, struct simt_diag *diag)
{
    const struct simt_hwdb_field *field = simt_hwdb_field_find(name);
    if (field == NULL)
        simt_diag_fail(diag, SIMT_ENOENT, name, "'%.80s' is not a numeric field of a GPU record", name);
    return field;
}

int simt_whatif_set(struct simt_gpu_spec *spec, const char *name, double value, struct simt_diag *diag)
{
    const struct simt_hwdb_field *field = find(name, diag);
    if (field == NULL)
        return SIMT_ENOENT;
    return simt_hwdb_field_set(spec, field, value, diag);
}

int simt_whatif_set_dtype(struct simt_gpu_spec *spec, const char *name, enum simt_dtype dtype, double value,
                          struct simt_diag *diag)
{
    const struct simt_hwdb_field *field = find(name, diag);
    if (field == NULL)
        return SIMT_ENOENT;
    return simt_hwdb_field_set_dtype(spec, field, dtype, value, diag);
}

int simt_whatif_set_carveouts(struct simt_gpu_spec *spec, const char *name, const int64_t *bytes, int count,
                              struct simt_diag *diag)
{
    const struct simt_hwdb_field *field = find(name, diag);
    if (field == NULL)
        return SIMT_ENOENT;
    return simt_hwdb_field_set_carveouts(spec, field, bytes, count, diag);
}

static int was_overridden(const char *name, const char *const *overridden, size_t count)
{
    for (size_t i = 0; name != NULL && i < count; i++)
        if (strcmp(overridden[i], name) == 0)
            return 1;
    return 0;
}

int simt_whatif_check(const struct simt_gpu_spec *spec, const char *const *overridden, size_t count,
                      struct simt_diag *diag, const char **other, const char **culprit)
{
    const char *other_field = NULL;
    int rc = simt_hwdb_spec_check(spec, diag, &other_field);
    if (other != NULL)
        *other = other_field;
    if (rc != SIMT_OK) {
        /* name the side of the relation the request changed */
        *culprit =
            !was_overridden(diag->field, overridden, count) && was_overridden(other_field, overridden, count)
                ? other_field
                : diag->field;
    }
    return rc;
}

/* A datasheet field and its measured counterpart, by the figure they give. */
struct pair {
    const char *datasheet;
    const char *measured; /* NULL: no measured counterpart */
    enum simt_figure_id id;
    int chip_compute; /* a chip-wide compute rate: moves with sm_count and the clock too */
};

static const struct pair pairs[] = {
    {"boost_clock_hz", "measured_clock_hz", SIMT_FIG_CLOCK, 0},
    {"dram_bandwidth_bytes_per_s", "measured_dram_bandwidth_bytes_per_s", SIMT_FIG_DRAM_BANDWIDTH, 0},
    {"dram_bandwidth_bytes_per_s", "measured_dram_write_bandwidth_bytes_per_s", SIMT_FIG_DRAM_WRITE_BANDWIDTH,
     0},
    {"dram_bandwidth_bytes_per_s", "measured_dram_copy_bandwidth_bytes_per_s", SIMT_FIG_DRAM_COPY_BANDWIDTH,
     0},
    {"l2_bandwidth_bytes_per_s", "measured_l2_bandwidth_bytes_per_s", SIMT_FIG_L2_BANDWIDTH, 0},
    {"l2_bandwidth_bytes_per_s", "measured_l2_write_bandwidth_bytes_per_s", SIMT_FIG_L2_WRITE_BANDWIDTH, 0},
    {"l2_bandwidth_bytes_per_s", "measured_l2_requests_per_s", SIMT_FIG_L2_REQUESTS, 0},
    {"dram_latency_cycles", "measured_dram_latency_cycles", SIMT_FIG_DRAM_LATENCY, 0},
    {"l2_latency_cycles", "measured_l2_latency_cycles", SIMT_FIG_L2_LATENCY, 0},
    {"l1_latency_cycles", "measured_l1_latency_cycles", SIMT_FIG_L1_LATENCY, 0},
    {"shared_latency_cycles", "measured_shared_latency_cycles", SIMT_FIG_SHARED_LATENCY, 0},
    {"fma_latency_cycles", "measured_fma_latency_cycles", SIMT_FIG_FMA_LATENCY, 0},
    {"fma_latency_cycles", "measured_fp64_fma_latency_cycles", SIMT_FIG_FP64_FMA_LATENCY, 0},
    /* the row rate has no datasheet counterpart: its own what-if marks it;
     * a read-modify-write opens its row twice, so a what-if of the row rate
     * moves the measured read-modify-write rate in proportion */
    {"measured_dram_row_activations_per_s", "measured_dram_row_activations_per_s",
     SIMT_FIG_DRAM_ROW_ACTIVATIONS, 0},
    {"measured_dram_row_activations_per_s", "measured_dram_partial_stores_per_s",
     SIMT_FIG_DRAM_PARTIAL_STORES, 0},
    {"fp32_flops_per_clock_per_sm", "measured_fp32_flops_per_s", SIMT_FIG_FP32, 1},
    {"fp64_flops_per_clock_per_sm", "measured_fp64_flops_per_s", SIMT_FIG_FP64, 1},
    {"sfu_ops_per_clock_per_sm", "measured_sfu_ops_per_s", SIMT_FIG_SFU, 1},
    {"fp16_flops_per_clock_per_sm", NULL, SIMT_FIG_FP16, 1},
    {"int32_ops_per_clock_per_sm", NULL, SIMT_FIG_INT32, 1},
    {"issue_slots_per_clock_per_sm", NULL, SIMT_FIG_ISSUE, 1},
    {"shared_banks", NULL, SIMT_FIG_SHARED_BANDWIDTH, 1},
    {"shared_bank_bytes", NULL, SIMT_FIG_SHARED_BANDWIDTH, 1},
    {"launch_overhead_s", "measured_launch_overhead_s", SIMT_FIG_LAUNCH_OVERHEAD, 0},
    {"launch_overhead_s", "measured_launch_interval_s", SIMT_FIG_LAUNCH_INTERVAL, 0},
    {"nvlink_bandwidth_bytes_per_s", NULL, SIMT_FIG_NVLINK_BANDWIDTH, 0},
    {"pcie_bandwidth_bytes_per_s", NULL, SIMT_FIG_PCIE_BANDWIDTH, 0},
    {"xgmi_bandwidth_bytes_per_s", NULL, SIMT_FIG_XGMI_BANDWIDTH, 0},
};

/* An achievable fraction and the figures it scales. */
struct fraction {
    const char *name;
    enum simt_figure_id id;
};

static const struct fraction fractions[] = {
    {"achievable_dram_bandwidth", SIMT_FIG_DRAM_BANDWIDTH},
    {"achievable_dram_write_bandwidth", SIMT_FIG_DRAM_WRITE_BANDWIDTH},
    {"achievable_dram_copy_bandwidth", SIMT_FIG_DRAM_COPY_BANDWIDTH},
    {"achievable_l2_bandwidth", SIMT_FIG_L2_BANDWIDTH},
    {"achievable_fp32", SIMT_FIG_FP32},
    {"achievable_fp64", SIMT_FIG_FP64},
};

/* new / old of a scalar field the what-if set (1 when it did not, or when
 * the record's value is 0). */
static double ratio_of(const struct simt_gpu_spec *record, const struct simt_gpu_spec *spec, const char *name,
                       const char *const *overridden, size_t count, int *touched)
{
    const struct simt_hwdb_field *field = simt_hwdb_field_find(name);
    if (field == NULL || !was_overridden(name, overridden, count))
        return 1.0;
    *touched = 1;
    double old = simt_hwdb_field_get(record, field), now = simt_hwdb_field_get(spec, field);
    return old > 0.0 ? now / old : 1.0;
}

static double *measured_slot(struct simt_gpu_spec *spec, const char *name, int dtype)
{
    const struct simt_hwdb_field *field = simt_hwdb_field_find(name);
    if (field == NULL)
        return NULL;
    double *at = (double *)(void *)((char *)spec + field->offset);
    return dtype >= 0 ? &at[dtype] : at;
}

static void note(struct simt_whatif_scaled *scaled, size_t *n, const char *measured, const char *datasheet,
                 int dtype, double from, double to)
{
    if (*n >= SIMT_WHATIF_MAX_SCALED)
        return;
    scaled[*n] = (struct simt_whatif_scaled){measured, datasheet, dtype, from, to};
    (*n)++;
}

/* One datasheet/measured pair: marks, and the measured value moved. */
static void scale_pair(const struct pair *p, const struct simt_gpu_spec *record, struct simt_gpu_spec *spec,
                       const char *const *overridden, size_t count, double compute_ratio, int compute_touched,
                       struct simt_figure_overrides *marks, struct simt_whatif_scaled *scaled, size_t *n)
{
    int own = 0;
    double ratio = ratio_of(record, spec, p->datasheet, overridden, count, &own);
    int touched = own || (p->chip_compute && compute_touched);
    if (p->chip_compute)
        ratio *= compute_ratio;
    simt_figure_mask bit = SIMT_FIG_BIT(p->id);
    if (p->measured != NULL && was_overridden(p->measured, overridden, count)) {
        marks->measured |= bit;
        return;
    }
    if (!touched)
        return;
    marks->datasheet |= bit;
    double *m = p->measured != NULL ? measured_slot(spec, p->measured, -1) : NULL;
    if (m != NULL && *m > 0.0 && (ratio < 1.0 || ratio > 1.0)) {
        double from = *m;
        *m = from * ratio;
        note(scaled, n, p->measured, own ? p->datasheet : "sm_count or boost_clock_hz", -1, from, *m);
    }
}

/* The tensor rates, per dtype. */
static void scale_tensor(const struct simt_gpu_spec *record, struct simt_gpu_spec *spec,
                         const char *const *overridden, size_t count, double compute_ratio,
                         int compute_touched, struct simt_figure_overrides *marks,
                         struct simt_whatif_scaled *scaled, size_t *n)
{
    int dense_set = was_overridden("tensor_dense_flops_per_s", overridden, count);
    int measured_set = was_overridden("measured_tensor_flops_per_s", overridden, count);
    int fraction_set = was_overridden("achievable_tensor", overridden, count);
    int sparse_set = was_overridden("tensor_sparse_flops_per_s", overridden, count);
    for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
        /* the sparse rates: no measured counterpart; marked when set, and
         * when the fraction they share with the dense rate is */
        simt_figure_mask sparse_bit = SIMT_FIG_BIT(SIMT_FIG_TENSOR_SPARSE_FIRST + d);
        if (sparse_set && (spec->tensor_sparse_flops_per_s[d] < record->tensor_sparse_flops_per_s[d] ||
                           spec->tensor_sparse_flops_per_s[d] > record->tensor_sparse_flops_per_s[d]))
            marks->datasheet |= sparse_bit;
        if (fraction_set && (spec->achievable_tensor[d] < record->achievable_tensor[d] ||
                             spec->achievable_tensor[d] > record->achievable_tensor[d]))
            marks->fraction |= sparse_bit;
    }
    for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
        simt_figure_mask bit = SIMT_FIG_BIT(SIMT_FIG_TENSOR_FIRST + d);
        double old = record->tensor_dense_flops_per_s[d], now = spec->tensor_dense_flops_per_s[d];
        int dtype_set = dense_set && (now < old || now > old);
        if (fraction_set && (spec->achievable_tensor[d] < record->achievable_tensor[d] ||
                             spec->achievable_tensor[d] > record->achievable_tensor[d]))
            marks->fraction |= bit;
        if (measured_set && (spec->measured_tensor_flops_per_s[d] < record->measured_tensor_flops_per_s[d] ||
                             spec->measured_tensor_flops_per_s[d] > record->measured_tensor_flops_per_s[d])) {
            marks->measured |= bit;
            continue;
        }
        if (!dtype_set && !compute_touched)
            continue;
        marks->datasheet |= bit;
        double ratio = (dtype_set && old > 0.0 ? now / old : 1.0) * compute_ratio;
        double *m = &spec->measured_tensor_flops_per_s[d];
        if (*m > 0.0 && (ratio < 1.0 || ratio > 1.0)) {
            double from = *m;
            *m = from * ratio;
            note(scaled, n, "measured_tensor_flops_per_s",
                 dtype_set ? "tensor_dense_flops_per_s" : "sm_count or boost_clock_hz", d, from, *m);
        }
    }
}

/* A single call's boost (figures.h): the record's field and the measured
 * one give the same thing, whoever measured it, so an override of the
 * record's field replaces the measured value outright. */
static void replace_boost(const struct simt_gpu_spec *record, struct simt_gpu_spec *spec, const char *name,
                          const char *measured_name, int dtype, enum simt_figure_id id,
                          const char *const *overridden, size_t count, struct simt_figure_overrides *marks,
                          struct simt_whatif_scaled *scaled, size_t *n)
{
    const struct simt_hwdb_field *field = simt_hwdb_field_find(name);
    if (field == NULL)
        return;
    const double *at = (const double *)(const void *)((const char *)record + field->offset);
    const double *was = dtype >= 0 ? &at[dtype] : at;
    double *now = measured_slot(spec, name, dtype);
    double *m = measured_slot(spec, measured_name, dtype);
    if (now == NULL || m == NULL)
        return;
    if (was_overridden(measured_name, overridden, count)) {
        marks->measured |= SIMT_FIG_BIT(id);
        return;
    }
    if (!was_overridden(name, overridden, count) || !(*now < *was || *now > *was))
        return;
    /* the measured value replaced, or the record's field overridden */
    if (*m > 0.0)
        marks->measured |= SIMT_FIG_BIT(id);
    else
        marks->datasheet |= SIMT_FIG_BIT(id);
    if (*m > 0.0) {
        double from = *m;
        *m = *now;
        note(scaled, n, measured_name, name, dtype, from, *m);
    }
}

void simt_whatif_scale_measured(const struct simt_gpu_spec *record, struct simt_gpu_spec *spec,
                                const char *const *overridden, size_t count,
                                struct simt_figure_overrides *marks, struct simt_whatif_scaled *scaled,
                                size_t *scaled_count)
{
    memset(marks, 0, sizeof *marks);
    *scaled_count = 0;
    int compute_touched = 0;
    double compute_ratio = ratio_of(record, spec, "sm_count", overridden, count, &compute_touched) *
                           ratio_of(record, spec, "boost_clock_hz", overridden, count, &compute_touched);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        scale_pair(&pairs[i], record, spec, overridden, count, compute_ratio, compute_touched, marks, scaled,
                   scaled_count);
    scale_tensor(record, spec, overridden, count, compute_ratio, compute_touched, marks, scaled,
                 scaled_count);
    replace_boost(record, spec, "tensor_single_call_ratio", "measured_tensor_single_call_ratio", -1,
                  SIMT_FIG_TENSOR_SINGLE_CALL, overridden, count, marks, scaled, scaled_count);
    replace_boost(record, spec, "tensor_boost_window_s", "measured_tensor_boost_window_s", -1,
                  SIMT_FIG_TENSOR_BOOST_WINDOW, overridden, count, marks, scaled, scaled_count);
    for (size_t i = 0; i < sizeof fractions / sizeof fractions[0]; i++)
        if (was_overridden(fractions[i].name, overridden, count))
            marks->fraction |= SIMT_FIG_BIT(fractions[i].id);
}
