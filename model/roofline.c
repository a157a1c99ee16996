/* roofline.c - compute time against each memory level's time. Pure. */
#include "roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const level_names[SIMT_LEVEL_COUNT] = {"dram", "l2", "shared"};
static const enum simt_figure_id level_figures[SIMT_LEVEL_COUNT] = {
    SIMT_FIG_DRAM_BANDWIDTH, SIMT_FIG_L2_BANDWIDTH, SIMT_FIG_SHARED_BANDWIDTH};

const char *simt_mem_level_name(enum simt_mem_level level)
{
    if ((int)level < 0 || level >= SIMT_LEVEL_COUNT)
        return NULL;
    return level_names[level];
}

int simt_roofline_peak_figure(enum simt_dtype precision, int tensor_cores, enum simt_figure_id *out)
{
    if ((int)precision < 0 || precision >= SIMT_DTYPE_COUNT)
        return SIMT_EINVAL;
    if (tensor_cores) {
        *out = (enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + (int)precision);
        return SIMT_OK;
    }
    switch (precision) {
    case SIMT_DTYPE_FP64:
        *out = SIMT_FIG_FP64;
        return SIMT_OK;
    case SIMT_DTYPE_FP32:
        *out = SIMT_FIG_FP32;
        return SIMT_OK;
    case SIMT_DTYPE_FP16:
    case SIMT_DTYPE_BF16:
        *out = SIMT_FIG_FP16;
        return SIMT_OK;
    default:
        return SIMT_EUNSAT;
    }
}

static int fail(struct simt_diag *diag, int rc, const char *field, const char *message)
{
    return simt_diag_fail(diag, rc, field, "%s", message);
}

/* The 2:4 sparse tensor peak in place of the dense one: tensor cores only,
 * and a GPU whose dense peak exists but sparse one does not is refused
 * naming "sparse" (the dense one absent is the precision's own refusal). */
static int sparse_peak(const struct simt_figure_set *figures, const struct simt_roofline_request *req,
                       double dense_peak, enum simt_figure_id *peak, struct simt_diag *diag)
{
    const char *name = simt_dtype_name(req->precision);
    if (!req->tensor_cores)
        return simt_diag_fail(diag, SIMT_EUNSAT, "sparse",
                              "2:4 sparsity runs on tensor cores only; set tensor_cores to true");
    if (!(dense_peak > 0.0))
        return SIMT_OK;
    enum simt_figure_id id = (enum simt_figure_id)(SIMT_FIG_TENSOR_SPARSE_FIRST + (int)req->precision);
    if (!(simt_figure_get(figures, id) > 0.0))
        return simt_diag_fail(diag, SIMT_EUNSAT, "sparse",
                              "this GPU has no 2:4 sparse %s tensor-core peak (%s)",
                              name != NULL ? name : "such", simt_figure_name(id));
    *peak = id;
    return SIMT_OK;
}

int simt_roofline_compute(const struct simt_figure_set *figures, const struct simt_roofline_request *req,
                          struct simt_roofline_result *out, struct simt_diag *diag)
{
    if (!(req->flops >= 0.0) || !isfinite(req->flops))
        return fail(diag, SIMT_EINVAL, "flops", "flops must be a finite number >= 0");
    int any_bytes = 0;
    for (int l = 0; l < SIMT_LEVEL_COUNT; l++) {
        if (!req->level_given[l])
            continue;
        if (!(req->bytes[l] >= 0.0) || !isfinite(req->bytes[l])) {
            char field[32];
            snprintf(field, sizeof field, "bytes.%s", level_names[l]);
            return fail(diag, SIMT_EINVAL, field, "bytes must be finite numbers >= 0");
        }
        if (req->bytes[l] > 0.0)
            any_bytes = 1;
    }
    if (req->flops <= 0.0 && !any_bytes)
        return fail(diag, SIMT_EINVAL, "flops", "nothing to do: flops and every level's bytes are 0");

    struct simt_roofline_result r;
    memset(&r, 0, sizeof r);
    if (simt_roofline_peak_figure(req->precision, req->tensor_cores, &r.peak_figure) != SIMT_OK) {
        const char *name = simt_dtype_name(req->precision);
        char message[160];
        snprintf(message, sizeof message, "%s has no peak without tensor cores; set tensor_cores to true",
                 name != NULL ? name : "this precision");
        return fail(diag, SIMT_EUNSAT, "tensor_cores", message);
    }
    r.peak_flops_per_s = simt_figure_get(figures, r.peak_figure);
    if (req->sparse) {
        int rc = sparse_peak(figures, req, r.peak_flops_per_s, &r.peak_figure, diag);
        if (rc != SIMT_OK)
            return rc;
        r.peak_flops_per_s = simt_figure_get(figures, r.peak_figure);
    }
    if (!(r.peak_flops_per_s > 0.0)) {
        const char *name = simt_dtype_name(req->precision);
        char has[160] = "";
        size_t used = 0;
        for (int d = 0; req->tensor_cores && d < SIMT_DTYPE_COUNT && used < sizeof has; d++)
            if (simt_figure_get(figures, (enum simt_figure_id)(SIMT_FIG_TENSOR_FIRST + d)) > 0.0)
                used += (size_t)snprintf(has + used, sizeof has - used, "%s%s", used > 0 ? ", " : "",
                                         simt_dtype_name((enum simt_dtype)d));
        return simt_diag_fail(diag, SIMT_EUNSAT, "precision", "this GPU has no %s%s peak in its record%s%s",
                              name != NULL ? name : "such", req->tensor_cores ? " tensor-core" : "",
                              used > 0 ? "; its tensor cores take " : "", has);
    }
    r.figures_used |= SIMT_FIG_BIT(r.peak_figure);
    r.compute_time_s = req->flops / r.peak_flops_per_s;
    r.time_s = r.compute_time_s;
    r.bound = SIMT_ROOF_COMPUTE;
    r.headline_level = -1;

    for (int l = 0; l < SIMT_LEVEL_COUNT; l++) {
        struct simt_roofline_level *lv = &r.levels[l];
        if (!req->level_given[l])
            continue;
        double bandwidth = simt_figure_get(figures, level_figures[l]);
        if (!(bandwidth > 0.0)) {
            char field[32], message[160];
            snprintf(field, sizeof field, "bytes.%s", level_names[l]);
            snprintf(message, sizeof message, "this GPU has no %s bandwidth in its record (%s)",
                     level_names[l], simt_figure_name(level_figures[l]));
            return fail(diag, SIMT_EUNSAT, field, message);
        }
        r.figures_used |= SIMT_FIG_BIT(level_figures[l]);
        lv->given = 1;
        lv->bytes = req->bytes[l];
        lv->bandwidth_bytes_per_s = bandwidth;
        lv->time_s = req->bytes[l] / bandwidth;
        lv->intensity = req->bytes[l] > 0.0 ? req->flops / req->bytes[l] : (double)INFINITY;
        lv->ridge_point = r.peak_flops_per_s / bandwidth;
        lv->attainable_flops_per_s = fmin(r.peak_flops_per_s, lv->intensity * bandwidth);
        if (lv->time_s > r.time_s) {
            r.time_s = lv->time_s;
            r.bound = l;
        }
    }
    if (r.levels[SIMT_LEVEL_DRAM].given) {
        r.headline_level = SIMT_LEVEL_DRAM;
    } else {
        for (int l = 0; l < SIMT_LEVEL_COUNT; l++)
            if (r.levels[l].given &&
                (r.headline_level < 0 || r.levels[l].time_s > r.levels[r.headline_level].time_s))
                r.headline_level = l;
    }
    if (r.headline_level >= 0) {
        r.arithmetic_intensity = r.levels[r.headline_level].intensity;
        r.ridge_point = r.levels[r.headline_level].ridge_point;
    } else {
        r.arithmetic_intensity = (double)INFINITY;
        r.ridge_point = 0.0;
    }
    r.attainable_flops_per_s = r.time_s > 0.0 ? req->flops / r.time_s : r.peak_flops_per_s;
    *out = r;
    return SIMT_OK;
}
