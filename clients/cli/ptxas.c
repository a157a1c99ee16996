/* ptxas.c - the resource-line reader behind `simt ptxas`: a line-at-a-time
 * state machine over `nvcc -Xptxas -v` and `cuobjdump --dump-resource-usage`
 * output. Tolerant of the variants ptxas has printed over the years
 * ("1024+16 bytes smem", "bytes lmem", "used N barriers", cmem banks,
 * cumulative stack size) and of unrelated lines mixed in. Pure. */
#include "ptxas.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NOT_SEEN (-1)

struct parser {
    struct simt_ptxas_report *report;
    long current;             /* index of the kernel lines apply to, or -1 */
    char properties_for[512]; /* "Function properties for X": the X */
    char arch[16];            /* cuobjdump's "arch = sm_90" */
};

static struct simt_ptxas_kernel *kernel_at(struct parser *p)
{
    return p->current >= 0 ? &p->report->kernels[p->current] : NULL;
}

/* Starts (or restarts, when name and arch were seen before) a kernel. */
static int begin_kernel(struct parser *p, const char *name, size_t name_len, const char *arch,
                        size_t arch_len, int source)
{
    struct simt_ptxas_report *r = p->report;
    if (name_len >= sizeof r->kernels[0].name)
        name_len = sizeof r->kernels[0].name - 1;
    if (arch_len >= sizeof r->kernels[0].arch)
        arch_len = sizeof r->kernels[0].arch - 1;
    for (size_t i = 0; i < r->count; i++) {
        struct simt_ptxas_kernel *k = &r->kernels[i];
        if (strlen(k->name) == name_len && memcmp(k->name, name, name_len) == 0 &&
            strlen(k->arch) == arch_len && memcmp(k->arch, arch, arch_len) == 0) {
            memmove(k, k + 1, (r->count - i - 1) * sizeof *k);
            r->count--;
            break;
        }
    }
    if (r->count == r->capacity) {
        size_t capacity = r->capacity ? r->capacity * 2 : 16;
        struct simt_ptxas_kernel *bigger = realloc(r->kernels, capacity * sizeof *bigger);
        if (bigger == NULL)
            return SIMT_ENOMEM;
        r->kernels = bigger;
        r->capacity = capacity;
    }
    struct simt_ptxas_kernel *k = &r->kernels[r->count];
    memset(k, 0, sizeof *k);
    memcpy(k->name, name, name_len);
    memcpy(k->arch, arch, arch_len);
    k->registers = NOT_SEEN;
    k->barriers = NOT_SEEN;
    k->source = source;
    p->current = (long)r->count;
    r->count++;
    return SIMT_OK;
}

/* The number just before `word` in [line, end) ("256 bytes stack frame"
 * -> 256), or -1 when the phrase is absent. "a+b" sums (old smem form). */
static int64_t number_before(const char *line, const char *end, const char *word)
{
    size_t word_len = strlen(word);
    for (const char *at = line; at + word_len <= end; at++) {
        if (memcmp(at, word, word_len) != 0)
            continue;
        const char *q = at;
        while (q > line && q[-1] == ' ')
            q--;
        const char *digits_end = q;
        while (q > line && (isdigit((unsigned char)q[-1]) || q[-1] == '+'))
            q--;
        if (q == digits_end)
            continue;
        int64_t total = 0, term = 0;
        for (const char *d = q; d < digits_end; d++) {
            if (*d == '+') {
                total += term;
                term = 0;
            } else if (term < ((int64_t)1 << 50)) {
                term = term * 10 + (*d - '0');
            }
        }
        return total + term;
    }
    return -1;
}

/* The number after "KEY:" in [line, end) (cuobjdump), or -1. */
static int64_t number_after(const char *line, const char *end, const char *key)
{
    size_t key_len = strlen(key);
    for (const char *at = line; at + key_len < end; at++) {
        if (memcmp(at, key, key_len) != 0 || (at > line && !isspace((unsigned char)at[-1])))
            continue;
        const char *d = at + key_len;
        if (!isdigit((unsigned char)*d))
            continue;
        int64_t value = 0;
        while (d < end && isdigit((unsigned char)*d) && value < ((int64_t)1 << 50))
            value = value * 10 + (*d++ - '0');
        return value;
    }
    return -1;
}

/* Finds the quoted text after `marker`; sets text and text_len. 1 when found. */
static int quoted_after(const char *line, const char *end, const char *marker, const char **text,
                        size_t *text_len)
{
    size_t marker_len = strlen(marker);
    for (const char *at = line; at + marker_len <= end; at++) {
        if (memcmp(at, marker, marker_len) != 0)
            continue;
        const char *open = memchr(at + marker_len, '\'', (size_t)(end - at - (long)marker_len));
        if (open == NULL)
            return 0;
        const char *close = memchr(open + 1, '\'', (size_t)(end - open - 1));
        if (close == NULL)
            return 0;
        *text = open + 1;
        *text_len = (size_t)(close - open - 1);
        return 1;
    }
    return 0;
}

static const char *find_in(const char *line, const char *end, const char *word)
{
    size_t word_len = strlen(word);
    for (const char *at = line; at + word_len <= end; at++)
        if (memcmp(at, word, word_len) == 0)
            return at;
    return NULL;
}

static int parse_line(struct parser *p, const char *line, const char *end)
{
    while (line < end && isspace((unsigned char)*line))
        line++;
    while (end > line && isspace((unsigned char)end[-1]))
        end--;
    if (line == end)
        return SIMT_OK;

    /* ptxas -v */
    const char *name = NULL;
    size_t name_len = 0;
    if (quoted_after(line, end, "Compiling entry function", &name, &name_len)) {
        const char *arch = "";
        size_t arch_len = 0;
        const char *for_at = find_in(name + name_len, end, " for ");
        if (for_at != NULL && !quoted_after(for_at, end, " for ", &arch, &arch_len))
            arch_len = 0;
        p->properties_for[0] = '\0';
        return begin_kernel(p, name, name_len, arch, arch_len, 0);
    }
    const char *props = find_in(line, end, "Function properties for ");
    if (props != NULL) {
        const char *n = props + strlen("Function properties for ");
        size_t n_len = (size_t)(end - n);
        if (n_len >= sizeof p->properties_for)
            n_len = sizeof p->properties_for - 1;
        memcpy(p->properties_for, n, n_len);
        p->properties_for[n_len] = '\0';
        return SIMT_OK;
    }
    struct simt_ptxas_kernel *k = kernel_at(p);
    if (find_in(line, end, "bytes stack frame") != NULL) {
        /* applies to the entry being compiled only, not to device functions */
        if (k != NULL && k->source == 0 && strcmp(p->properties_for, k->name) == 0) {
            int64_t v;
            if ((v = number_before(line, end, "bytes stack frame")) >= 0)
                k->stack_bytes = v;
            if ((v = number_before(line, end, "bytes spill stores")) >= 0)
                k->spill_store_bytes = v;
            if ((v = number_before(line, end, "bytes spill loads")) >= 0)
                k->spill_load_bytes = v;
        }
        return SIMT_OK;
    }
    if (find_in(line, end, "Used ") != NULL && find_in(line, end, " registers") != NULL) {
        if (k == NULL || k->source != 0 || k->registers != NOT_SEEN)
            return SIMT_OK; /* a usage line of no entry we know (or seen twice) */
        int64_t v = number_before(line, end, "registers");
        k->registers = v >= 0 && v < (1 << 20) ? (int)v : 0;
        if ((v = number_before(line, end, "barriers")) >= 0 && v < 1024)
            k->barriers = (int)v;
        if ((v = number_before(line, end, "bytes smem")) >= 0)
            k->shared_bytes = v;
        if ((v = number_before(line, end, "bytes lmem")) >= 0)
            k->local_bytes = v;
        if ((v = number_before(line, end, "bytes cmem[0]")) >= 0)
            k->constant_bytes = v;
        return SIMT_OK;
    }

    /* cuobjdump --dump-resource-usage */
    if ((size_t)(end - line) > 7 && memcmp(line, "arch = ", 7) == 0) {
        size_t n = (size_t)(end - line - 7);
        if (n >= sizeof p->arch)
            n = sizeof p->arch - 1;
        memcpy(p->arch, line + 7, n);
        p->arch[n] = '\0';
        return SIMT_OK;
    }
    if ((size_t)(end - line) > 9 && memcmp(line, "Function ", 9) == 0) {
        const char *n = line + 9;
        const char *colon = memchr(n, ':', (size_t)(end - n));
        const char *space = memchr(n, ' ', (size_t)(end - n));
        if (colon == NULL || colon == n || (space != NULL && space < colon))
            return SIMT_OK; /* "Function : k" is cuobjdump -sass, not a resource line */
        int rc = begin_kernel(p, n, (size_t)(colon - n), p->arch, strlen(p->arch), 1);
        if (rc != SIMT_OK)
            return rc;
        line = colon + 1; /* REG:... may follow on the same line */
        k = kernel_at(p);
    }
    if (k != NULL && k->source == 1) {
        int64_t v;
        if ((v = number_after(line, end, "REG:")) >= 0 && v < (1 << 20))
            k->registers = (int)v;
        if ((v = number_after(line, end, "STACK:")) >= 0)
            k->stack_bytes = v;
        if ((v = number_after(line, end, "SHARED:")) >= 0)
            k->shared_bytes = v;
        if ((v = number_after(line, end, "LOCAL:")) >= 0)
            k->local_bytes = v;
        if ((v = number_after(line, end, "CONSTANT[0]:")) >= 0)
            k->constant_bytes = v;
        if ((v = number_after(line, end, "BARRIERS:")) >= 0 && v < 1024)
            k->barriers = (int)v;
    }
    return SIMT_OK;
}

int simt_ptxas_parse(const char *text, size_t len, struct simt_ptxas_report *report)
{
    struct parser p;
    memset(&p, 0, sizeof p);
    p.report = report;
    p.current = -1;
    const char *end = text + len;
    const char *line = text;
    while (line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (eol == NULL)
            eol = end;
        int rc = parse_line(&p, line, eol);
        if (rc != SIMT_OK)
            return rc;
        line = eol + 1;
    }
    /* drop entries that never reported their usage */
    size_t kept = 0;
    for (size_t i = 0; i < report->count; i++)
        if (report->kernels[i].registers != NOT_SEEN)
            report->kernels[kept++] = report->kernels[i];
    report->count = kept;
    return SIMT_OK;
}

void simt_ptxas_report_free(struct simt_ptxas_report *report)
{
    free(report->kernels);
    memset(report, 0, sizeof *report);
}
