/* merge.c - one GPU record out of two layers: the architecture file's
 * values, then the GPU file's on top (per data type for tensor rates). It
 * requires what the vendor needs, checks the identity (vendor, compute
 * capability, the amd group), joins the sources, copies the measured
 * provenance, and cross-checks the relations between fields
 * (simt_hwdb_spec_check), each failure placed at the line that set the
 * value at fault. */
#define _POSIX_C_SOURCE 200809L

#include "hwdb_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- merging */

static int parse_compute_capability(const char *cc, enum simt_vendor vendor, int *major, int *minor)
{
    if (vendor == SIMT_VENDOR_NVIDIA) {
        /* "9.0", "12.0" */
        char *end;
        if (!isdigit((unsigned char)cc[0]))
            return 0;
        long ma = strtol(cc, &end, 10);
        if (*end != '.' || !isdigit((unsigned char)end[1]))
            return 0;
        long mi = strtol(end + 1, &end, 10);
        if (*end != '\0' || ma < 7 || ma > 12 || mi < 0 || mi > 9)
            return 0;
        *major = (int)ma;
        *minor = (int)mi;
        return 1;
    }
    /* AMD: gfx<major><minor><stepping>, minor and stepping one hex digit each: gfx942 -> 9, 4 */
    if (strncmp(cc, "gfx", 3) != 0)
        return 0;
    const char *digits = cc + 3;
    size_t n = strlen(digits);
    if (n < 3 || n > 5)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!isxdigit((unsigned char)digits[i]) || isupper((unsigned char)digits[i]))
            return 0;
    }
    int ma = 0;
    for (size_t i = 0; i + 2 < n; i++) {
        if (!isdigit((unsigned char)digits[i]))
            return 0;
        ma = ma * 10 + (digits[i] - '0');
    }
    char m = digits[n - 2];
    *major = ma;
    *minor = isdigit((unsigned char)m) ? m - '0' : m - 'a' + 10;
    return ma > 0;
}

struct merged_pos {
    const struct layer *layer;
    struct pos at;
};

/* where the value of field fi came from: the GPU file if it sets it, else the arch file */
static struct merged_pos field_origin(const struct layer *arch, const struct layer *gpu, size_t fi)
{
    struct merged_pos m;
    if (gpu->present[fi]) {
        m.layer = gpu;
        m.at = gpu->field_at[fi];
    } else if (arch->present[fi]) {
        m.layer = arch;
        m.at = arch->field_at[fi];
    } else {
        m.layer = gpu;
        m.at = gpu->top;
    }
    return m;
}

static const char *merged_text(const struct layer *arch, const struct layer *gpu, int t)
{
    if (gpu->has_text[t])
        return gpu->text[t];
    if (arch->has_text[t])
        return arch->text[t];
    return NULL;
}

static int fail_merged(struct simt_diag *diag, struct merged_pos m, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) SIMT_WARN_UNUSED;

static int fail_merged(struct simt_diag *diag, struct merged_pos m, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = hwdb_report_v(diag, SIMT_EINVAL, m.layer->path, m.layer->rel, m.at, field, fmt, ap);
    va_end(ap);
    return rc;
}

static size_t field_index(const struct simt_hwdb_field *fields, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(fields[i].name, name) == 0)
            return i;
    }
    return count;
}

/* Relations between fields that a typo would break: simt_hwdb_spec_check
 * names the field at fault, placed here at the line that set it. */
static SIMT_WARN_UNUSED int cross_check(const struct layer *arch, const struct layer *gpu,
                                        const struct simt_gpu_spec *s, const struct simt_hwdb_field *fields,
                                        size_t count, struct simt_diag *diag)
{
    struct simt_diag why;
    memset(&why, 0, sizeof why);
    if (simt_hwdb_spec_check(s, &why, NULL) == SIMT_OK && simt_hwdb_spec_complete(s, &why) == SIMT_OK)
        return SIMT_OK;
    const struct simt_hwdb_field *f = simt_hwdb_field_find(why.field);
    char path[128];
    hwdb_bprintf(path, sizeof path, "%s.%s", f != NULL ? f->group : "?", why.field);
    return fail_merged(diag, field_origin(arch, gpu, field_index(fields, count, why.field)), path, "%s",
                       why.message);
}

/* What the identity group settles for the numbers that follow. */
struct identity {
    const char *vendor_text; /* "nvidia" | "amd" */
    enum simt_vendor vendor;
    const char *compute_capability;
    int major;
    int minor;
};

/* The identity: required strings, vendor (the same in both files when both
 * give it), compute capability, and the amd group for AMD only. */
static SIMT_WARN_UNUSED int merge_identity(const struct layer *arch, const struct layer *gpu,
                                           struct identity *id, struct simt_diag *diag)
{
    struct merged_pos gpu_top = {gpu, gpu->has_group[G_IDENTITY] ? gpu->group_at[G_IDENTITY] : gpu->top};
    static const int required_text[] = {T_NAME, T_VENDOR, T_ARCHITECTURE, T_COMPUTE_CAPABILITY,
                                        T_FORM_FACTOR};
    for (size_t i = 0; i < sizeof required_text / sizeof required_text[0]; i++) {
        int t = required_text[i];
        if (!merged_text(arch, gpu, t)) {
            char path[64];
            hwdb_bprintf(path, sizeof path, "identity.%s", hwdb_text_slots[t].key);
            return fail_merged(diag, gpu_top, path, "required, given neither here nor in %s", arch->rel);
        }
    }
    const char *vendor = merged_text(arch, gpu, T_VENDOR);
    enum simt_vendor v;
    struct merged_pos vendor_at = {gpu->has_text[T_VENDOR] ? gpu : arch, gpu->has_text[T_VENDOR]
                                                                             ? gpu->text_at[T_VENDOR]
                                                                             : arch->text_at[T_VENDOR]};
    if (strcmp(vendor, "nvidia") == 0)
        v = SIMT_VENDOR_NVIDIA;
    else if (strcmp(vendor, "amd") == 0)
        v = SIMT_VENDOR_AMD;
    else
        return fail_merged(diag, vendor_at, "identity.vendor", "expected nvidia or amd, got \"%s\"", vendor);
    if (gpu->has_text[T_VENDOR] && arch->has_text[T_VENDOR] &&
        strcmp(gpu->text[T_VENDOR], arch->text[T_VENDOR]) != 0)
        return fail_merged(diag, vendor_at, "identity.vendor", "\"%s\" differs from %s's \"%s\"",
                           gpu->text[T_VENDOR], arch->rel, arch->text[T_VENDOR]);
    const char *cc = merged_text(arch, gpu, T_COMPUTE_CAPABILITY);
    struct merged_pos cc_at = {gpu->has_text[T_COMPUTE_CAPABILITY] ? gpu : arch,
                               gpu->has_text[T_COMPUTE_CAPABILITY] ? gpu->text_at[T_COMPUTE_CAPABILITY]
                                                                   : arch->text_at[T_COMPUTE_CAPABILITY]};
    int major = 0, minor = 0;
    if (!parse_compute_capability(cc, v, &major, &minor))
        return fail_merged(diag, cc_at, "identity.compute_capability",
                           v == SIMT_VENDOR_NVIDIA
                               ? "expected a compute capability 7.0..12.9 (\"9.0\"), got \"%s\""
                               : "expected an AMD target gfx<major><minor><stepping> (\"gfx942\"), "
                                 "got \"%s\"",
                           cc);
    for (int g = 0; g < G_COUNT; g++) {
        if (g == G_AMD && v != SIMT_VENDOR_AMD && (gpu->has_group[g] || arch->has_group[g])) {
            const struct layer *l = gpu->has_group[g] ? gpu : arch;
            return fail_merged(diag, (struct merged_pos){l, l->group_at[g]}, "amd",
                               "the amd group is for vendor amd only (this GPU's vendor is %s)", vendor);
        }
    }
    id->vendor_text = vendor;
    id->vendor = v;
    id->compute_capability = cc;
    id->major = major;
    id->minor = minor;
    return SIMT_OK;
}

/* Copies one field's value from a layer that sets it (per data type for DTYPES). */
static void copy_field(const struct simt_hwdb_field *f, unsigned present, const struct simt_gpu_spec *from,
                       struct simt_gpu_spec *to)
{
    if (f->type == SIMT_FIELD_DTYPES) {
        const double *src = (const double *)(const void *)((const char *)from + f->offset);
        double *dst = (double *)(void *)((char *)to + f->offset);
        for (int d = 0; d < SIMT_DTYPE_COUNT; d++) {
            if (present & (1u << d))
                dst[d] = src[d];
        }
    } else if (f->type == SIMT_FIELD_CARVEOUTS) {
        memcpy((char *)to + f->offset, (const char *)from + f->offset, sizeof(int64_t) * SIMT_MAX_CARVEOUTS);
        to->shared_carveout_count = from->shared_carveout_count;
    } else if (f->type == SIMT_FIELD_INT_LIST) {
        memcpy((char *)to + f->offset, (const char *)from + f->offset, sizeof(int) * SIMT_HWDB_MAX_LIST);
    } else {
        size_t size = f->type == SIMT_FIELD_INT     ? sizeof(int)
                      : f->type == SIMT_FIELD_INT64 ? sizeof(int64_t)
                                                    : sizeof(double);
        memcpy((char *)to + f->offset, (const char *)from + f->offset, size);
    }
}

/* numbers: the arch's, then the GPU's on top; a field the vendor requires
 * must come from one of them */
static SIMT_WARN_UNUSED int merge_numbers(const struct layer *arch, const struct layer *gpu,
                                          const struct identity *id, struct simt_gpu_spec *s,
                                          struct simt_diag *diag)
{
    size_t count;
    const struct simt_hwdb_field *fields = simt_hwdb_fields(&count);
    for (size_t fi = 0; fi < count; fi++) {
        const struct simt_hwdb_field *f = &fields[fi];
        const struct layer *layers[2] = {arch, gpu};
        for (int li = 0; li < 2; li++) {
            if (layers[li]->present[fi])
                copy_field(f, layers[li]->present[fi], &layers[li]->spec, s);
        }
        unsigned need = id->vendor == SIMT_VENDOR_NVIDIA ? 1u : 2u;
        if ((f->required & need) && !arch->present[fi] && !gpu->present[fi]) {
            char path[160];
            hwdb_bprintf(path, sizeof path, "%s.%s", f->group, f->key);
            int g = hwdb_group_find(f->group);
            struct merged_pos at = {gpu, (g >= 0 && gpu->has_group[g]) ? gpu->group_at[g] : gpu->top};
            return fail_merged(diag, at, path, "required for %s GPUs, given neither here nor in %s",
                               id->vendor_text, arch->rel);
        }
    }
    s->vendor = id->vendor;
    s->compute_major = id->major;
    s->compute_minor = id->minor;
    return cross_check(arch, gpu, s, fields, count, diag);
}

/* The thread-block cluster layout (sm.gpc_sms and the cluster limits):
 * all of it or none; for NVIDIA 9.0 on; the GPCs' SMs add up to sm_count;
 * a portable cluster no larger than the largest. Checked when loading only:
 * a what-if that changes sm_count leaves the layout behind, and the API
 * refuses cluster questions on it instead of refusing the what-if. */
static SIMT_WARN_UNUSED int check_clusters(const struct layer *arch, const struct layer *gpu,
                                           const struct simt_gpu_spec *s, struct simt_diag *diag)
{
    static const char *const names[] = {"gpc_sms", "cluster_max_blocks_per_sm", "cluster_max_portable_size",
                                        "cluster_max_size"};
    size_t count;
    const struct simt_hwdb_field *fields = simt_hwdb_fields(&count);
    size_t at[4];
    int given = 0;
    for (size_t i = 0; i < 4; i++) {
        at[i] = field_index(fields, count, names[i]);
        given += at[i] < count && (arch->present[at[i]] || gpu->present[at[i]]);
    }
    if (given == 0)
        return SIMT_OK;
    for (size_t i = 0; i < 4; i++) {
        if (!arch->present[at[i]] && !gpu->present[at[i]]) {
            size_t other = i == 0 ? 1 : 0;
            char path[80];
            hwdb_bprintf(path, sizeof path, "sm.%s", names[i]);
            return fail_merged(
                diag, field_origin(arch, gpu, at[other]), path,
                "required with sm.%s: a cluster layout gives gpc_sms, cluster_max_blocks_per_sm, "
                "cluster_max_portable_size and cluster_max_size together",
                names[other]);
        }
    }
    struct merged_pos layout_at = field_origin(arch, gpu, at[0]);
    if (s->vendor != SIMT_VENDOR_NVIDIA || s->compute_major < 9)
        return fail_merged(diag, layout_at, "sm.gpc_sms",
                           "thread-block clusters need an NVIDIA GPU of compute capability 9.0 or later");
    const int *sms = NULL;
    int groups = simt_hwdb_field_get_list(s, &fields[at[0]], &sms);
    long total = 0;
    for (int i = 0; i < groups; i++)
        total += sms[i];
    if (total != s->sm_count)
        return fail_merged(diag, layout_at, "sm.gpc_sms", "the GPCs' SMs add up to %ld, but sm_count is %d",
                           total, s->sm_count);
    if (s->cluster_max_portable_size > s->cluster_max_size)
        return fail_merged(diag, field_origin(arch, gpu, at[2]), "sm.cluster_max_portable_size",
                           "larger than cluster_max_size (%d)", s->cluster_max_size);
    return SIMT_OK;
}

/* sources: the arch's text, then the GPU's, joined */
static SIMT_WARN_UNUSED int merge_sources(const struct layer *arch, const struct layer *gpu,
                                          struct simt_hwdb_gpu *out, struct simt_diag *diag)
{
    for (int g = 0; g < G_COUNT; g++) {
        if (!arch->has_source[g] && !gpu->has_source[g])
            continue;
        if (out->source_count == SIMT_HWDB_MAX_SOURCES)
            break;
        struct simt_hwdb_source *src = &out->sources[out->source_count++];
        hwdb_copy_text(src->group, sizeof src->group, hwdb_group_names[g]);
        if (arch->has_source[g] && gpu->has_source[g]) {
            size_t la = strlen(arch->source[g]), lg = strlen(gpu->source[g]);
            if (la + 2 + lg > sizeof src->text - 1) {
                char path[64];
                hwdb_bprintf(path, sizeof path, "sources.%s", hwdb_group_names[g]);
                return fail_merged(diag, (struct merged_pos){gpu, gpu->source_at[g]}, path,
                                   "together with %s's text (%zu characters) longer than %zu characters",
                                   arch->rel, la, sizeof src->text - 1);
            }
            memcpy(src->text, arch->source[g], la);
            memcpy(src->text + la, "; ", 2);
            memcpy(src->text + la + 2, gpu->source[g], lg + 1);
        } else {
            hwdb_copy_text(src->text, sizeof src->text,
                           arch->has_source[g] ? arch->source[g] : gpu->source[g]);
        }
    }
    return SIMT_OK;
}

int hwdb_merge(const struct layer *arch, const struct layer *gpu, struct simt_hwdb_gpu *out,
               struct simt_diag *diag)
{
    memset(out, 0, sizeof *out);
    struct identity id;
    int rc = merge_identity(arch, gpu, &id, diag);
    if (rc == SIMT_OK)
        rc = merge_numbers(arch, gpu, &id, &out->spec, diag);
    if (rc == SIMT_OK)
        rc = check_clusters(arch, gpu, &out->spec, diag);
    if (rc != SIMT_OK)
        return rc;

    /* strings */
    hwdb_copy_text(out->id, sizeof out->id, gpu->text[T_ID]);
    hwdb_copy_text(out->name, sizeof out->name, merged_text(arch, gpu, T_NAME));
    hwdb_copy_text(out->vendor, sizeof out->vendor, id.vendor_text);
    hwdb_copy_text(out->architecture, sizeof out->architecture, merged_text(arch, gpu, T_ARCHITECTURE));
    hwdb_copy_text(out->arch_id, sizeof out->arch_id, arch->name);
    hwdb_copy_text(out->compute_capability, sizeof out->compute_capability, id.compute_capability);
    hwdb_copy_text(out->form_factor, sizeof out->form_factor, merged_text(arch, gpu, T_FORM_FACTOR));

    rc = merge_sources(arch, gpu, out, diag);
    if (rc != SIMT_OK)
        return rc;

    /* measured provenance */
    if (gpu->has_group[G_MEASURED]) {
        out->has_measured = 1;
        hwdb_copy_text(out->measured_method, sizeof out->measured_method, gpu->text[T_METHOD]);
        hwdb_copy_text(out->measured_date, sizeof out->measured_date, gpu->text[T_DATE]);
        hwdb_copy_text(out->measured_device, sizeof out->measured_device, gpu->text[T_DEVICE]);
        hwdb_copy_text(out->measured_driver, sizeof out->measured_driver, gpu->text[T_DRIVER]);
    }
    return SIMT_OK;
}
