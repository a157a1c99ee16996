/* call.c - one request's state: its start and release, the error it
 * records (the contract's error body), its assumptions and the answer
 * object every handler starts from. */
#include "call.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read.h"

void simt_call_init(struct simt_call *call, const struct simt_hwdb *db)
{
    memset(call, 0, sizeof *call);
    call->db = db;
    call->policy = SIMT_POLICY_PREFER_MEASURED;
    call->assumptions = json_array();
}

void simt_call_release(struct simt_call *call)
{
    if (call->own_writer != NULL) {
        simt_jsonw_release(call->own_writer);
        free(call->own_writer);
        call->own_writer = NULL;
        call->writer = NULL;
    }
    json_decref(call->assumptions);
    call->assumptions = NULL;
    if (call->has_gpu)
        json_decref(call->gpu.overridden);
    call->has_gpu = 0;
    memset(&call->gpu, 0, sizeof call->gpu);
}

/* Well-formed UTF-8 as RFC 3629 (and jansson) define it: no overlong forms,
 * no surrogates (U+D800..DFFF), nothing above U+10FFFF. Returns the length
 * of the sequence at p, or 0 when it is not well-formed. */
static int utf8_sequence(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    int extra;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        extra = 1;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        extra = 2;
        if (p[0] == 0xe0)
            lo = 0xa0; /* overlong */
        else if (p[0] == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        extra = 3;
        if (p[0] == 0xf0)
            lo = 0x90; /* overlong */
        else if (p[0] == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0; /* a continuation byte, C0/C1 (overlong) or F5..FF */
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i <= extra; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    }
    return extra + 1;
}

void simt_call_utf8_repair(char *text)
{
    unsigned char *p = (unsigned char *)text;
    while (*p != 0) {
        int length = utf8_sequence(p); /* stops at the NUL: it is no continuation byte */
        if (length == 0)
            *p++ = '?';
        else
            p += length;
    }
}

/* The SIMT_E* code of an HTTP status the contract uses. */
static int status_code(int status)
{
    switch (status) {
    case 404:
        return SIMT_ENOENT;
    case 422:
        return SIMT_EUNSAT;
    case 500:
        return SIMT_ENOMEM;
    default:
        return SIMT_EINVAL;
    }
}

int simt_call_fail(struct simt_call *call, int status, const char *code, const char *field, const char *fmt,
                   ...)
{
    if (call->failed)
        return status_code(call->error.status);
    struct simt_call_error *error = &call->error;
    call->failed = 1;
    error->status = status;
    snprintf(error->code, sizeof error->code, "%s", code);
    snprintf(error->field, sizeof error->field, "%s", field != NULL ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error->message, sizeof error->message, fmt, ap);
    va_end(ap);
    /* a message may quote request bytes, cut mid-character by a precision */
    simt_call_utf8_repair(error->message);
    simt_call_utf8_repair(error->field);
    return status_code(status);
}

int simt_call_fail_diag(struct simt_call *call, int rc, const char *prefix, const struct simt_diag *diag)
{
    char field[160];
    /* A figure the GPU lacks is named as the what-if field that would supply
     * it ("gpu.dram_latency_cycles"), whatever the request's own prefix. */
    char base[128];
    snprintf(base, sizeof base, "%s", diag->field);
    char *dot = strchr(base, '.');
    if (dot != NULL)
        *dot = '\0';
    if (diag->field[0] != '\0' && simt_hwdb_field_find(base) != NULL) {
        snprintf(field, sizeof field, "gpu.%.120s", diag->field);
        return simt_call_fail(call, rc == SIMT_EUNSAT ? 422 : 400,
                              rc == SIMT_EUNSAT ? "unsatisfiable" : "invalid_argument", field, "%s",
                              diag->message);
    }
    simt_read_path(field, sizeof field, prefix, diag->field);
    if (rc == SIMT_EUNSAT)
        return simt_call_fail(call, 422, "unsatisfiable", diag->field[0] != '\0' ? field : NULL, "%s",
                              diag->message);
    return simt_call_fail(call, 400, "invalid_argument", diag->field[0] != '\0' ? field : NULL, "%s",
                          diag->message);
}

void simt_call_assume(struct simt_call *call, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_array_append_new(call->assumptions, json_string(text));
}

void simt_call_assume_figures(struct simt_call *call, const struct simt_figure_set *figures,
                              simt_figure_mask used)
{
    call->figures_used |= used;
    if (call->has_gpu)
        figures = &call->gpu.figures;
    for (int id = 0; id < SIMT_FIG_COUNT; id++) {
        if (!(used & SIMT_FIG_BIT(id)))
            continue;
        char line[256];
        if (simt_figure_describe(figures, (enum simt_figure_id)id, line, sizeof line) >= 0)
            simt_call_assume(call, "%s", line);
    }
}

json_t *simt_call_answer_from(struct simt_call *call, int rc, const struct simt_diag *diag)
{
    if (rc != SIMT_OK) {
        simt_call_fail_diag(call, rc, "", diag);
        return NULL;
    }
    return simt_call_answer(call);
}

json_t *simt_call_answer(struct simt_call *call)
{
    json_t *answer = json_object();
    if (answer == NULL || !call->has_gpu)
        return answer;
    json_object_set_new(answer, "gpu", json_string(call->gpu.record->id));
    if (call->gpu.overridden != NULL)
        json_object_set(answer, "overridden", call->gpu.overridden);
    return answer;
}

struct simt_jsonw *simt_call_write_begin(struct simt_call *call)
{
    if (call->writer == NULL) {
        call->own_writer = malloc(sizeof *call->own_writer);
        if (call->own_writer == NULL) {
            simt_call_fail(call, 500, "internal", NULL, "out of memory");
            return NULL;
        }
        simt_jsonw_init(call->own_writer, 0);
        call->writer = call->own_writer;
    }
    struct simt_jsonw *w = call->writer;
    simt_jsonw_object_begin(w);
    if (call->has_gpu) {
        simt_jsonw_key_string(w, "gpu", call->gpu.record->id);
        if (call->gpu.overridden != NULL) {
            simt_jsonw_key(w, "overridden");
            simt_jsonw_value(w, call->gpu.overridden);
        }
    }
    return w;
}

json_t *simt_call_write_end(struct simt_call *call)
{
    if (call->own_writer == NULL) {
        call->written = 1;
        return json_null();
    }
    simt_jsonw_object_end(call->own_writer);
    size_t len = 0;
    char *text = simt_jsonw_take(call->own_writer, &len);
    json_t *answer = text != NULL ? json_loadb(text, len, 0, NULL) : NULL;
    free(text);
    if (answer == NULL)
        simt_call_fail(call, 500, "internal", NULL, "out of memory");
    return answer;
}

void simt_call_set_real(json_t *obj, const char *key, double value)
{
    /* JSON has no infinity: an unbounded figure is null. Answers are dumped
     * with 12 significant digits, which hides float noise. */
    json_object_set_new(obj, key, isfinite(value) ? json_real(value) : json_null());
}

void simt_call_set_int(json_t *obj, const char *key, int64_t value)
{
    json_object_set_new(obj, key, json_integer((json_int_t)value));
}

/* The record's text for a source group, or NULL. */
static const char *record_source(const struct simt_hwdb_gpu *record, const char *group)
{
    for (int i = 0; i < record->source_count && i < SIMT_HWDB_MAX_SOURCES; i++)
        if (strcmp(record->sources[i].group, group) == 0)
            return record->sources[i].text;
    return NULL;
}

/* What a figure of a kind the five sources do not name says of itself. */
static const char *figure_note(const struct simt_figure_set *set, enum simt_figure_id id)
{
    switch (set->source[id]) {
    case SIMT_FIGURE_DOCUMENTED:
        return "a documented constant of the technology (see the assumptions)";
    case SIMT_FIGURE_STAND_IN:
        return id == SIMT_FIG_DRAM_COPY_BANDWIDTH
                   ? "no copy figure: read and write combined with no bus-turnaround cost"
               : id == SIMT_FIG_L2_WRITE_BANDWIDTH ? "no L2 write figure: the L2 read figure stands in"
               : id == SIMT_FIG_LAUNCH_INTERVAL
                   ? "no back-to-back figure: the single launch's overhead stands in"
               : id == SIMT_FIG_FP64_FMA_LATENCY ? "no FP64 FMA latency: the FP32 FMA's stands in"
               : id == SIMT_FIG_DRAM_PARTIAL_STORES
                   ? "no read-modify-write figure: half the row activations stand in (the read and the "
                     "write-back each open the row)"
                   : "no write figure: the DRAM read figure stands in";
    case SIMT_FIGURE_DERIVED:
        return "the datasheet per-clock rate at the measured clock";
    case SIMT_FIGURE_DATASHEET:
        return id == SIMT_FIG_TENSOR_SINGLE_CALL || id == SIMT_FIG_TENSOR_BOOST_WINDOW
                   ? "not a datasheet figure: a sibling card's measurement (the record's sources.throughput "
                     "says whose)"
                   : NULL;
    default:
        return NULL;
    }
}

static json_t *figure_entry(const struct simt_call *call, enum simt_figure_id id)
{
    const struct simt_figure_set *set = &call->gpu.figures;
    const char *source = simt_figure_api_source(set, id);
    if (source == NULL)
        return NULL;
    json_t *entry = json_object();
    simt_call_set_real(entry, "value", set->value[id]);
    json_object_set_new(entry, "source", json_string(source));
    if (set->source[id] == SIMT_FIGURE_ACHIEVABLE) {
        simt_call_set_real(entry, "datasheet", set->datasheet[id]);
        simt_call_set_real(entry, "fraction", set->fraction[id]);
        const char *why = simt_figure_fraction_source(set, id);
        if (why == NULL && (set->overrides.fraction & SIMT_FIG_BIT(id)))
            why = "override";
        if (why == NULL)
            why = record_source(call->gpu.record, "achievable");
        json_object_set_new(entry, "fraction_source", json_string(why != NULL ? why : "the GPU record"));
        if (set->overrides.datasheet & SIMT_FIG_BIT(id))
            json_object_set_new(entry, "datasheet_source", json_string("override"));
    }
    const char *note = figure_note(set, id);
    if (note != NULL)
        json_object_set_new(entry, "note", json_string(note));
    return entry;
}

json_t *simt_call_figures_used(const struct simt_call *call)
{
    if (!call->has_gpu)
        return NULL;
    json_t *used = json_object();
    for (int id = 0; id < SIMT_FIG_COUNT; id++) {
        if (!(call->figures_used & SIMT_FIG_BIT(id)))
            continue;
        json_t *entry = figure_entry(call, (enum simt_figure_id)id);
        if (entry != NULL)
            json_object_set_new(used, simt_figure_name((enum simt_figure_id)id), entry);
    }
    return used;
}
