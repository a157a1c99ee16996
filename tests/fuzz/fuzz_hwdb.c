/* fuzz_hwdb.c - libFuzzer target for the hardware database loader. Each
 * input is one YAML file put into a small database tree beside a real file
 * of the bundled database, and loaded with simt_hwdb_load_dir:
 *   - an input with an indented `id:` line is a GPU file, written as
 *     gpus/<id>.yaml (gpus/g1.yaml when the id is no valid file name) next
 *     to a copy of the real arch/<arch>.yaml its `arch:` names (sm_90 when
 *     none matches);
 *   - any other input is an architecture file, written as arch/<arch>.yaml
 *     next to a real GPU file of that architecture.
 * The load must either succeed (one GPU, whose id is the file name; the API
 * then answers a few requests about it within the contract) or fail with a
 * negative code and a diag that names one of the two files, starts its
 * message with that file's relative path, and points (1-based line and
 * column) inside that file's bytes. Seeds are plain YAML: corpus/hwdb. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "hwdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "fuzz_hwdb: %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                             \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

#define MAX_ARCHS 32
#define NAME_MAX_LEN 63

/* snprintf that refuses to truncate (a cut path would test the wrong file) */
static void format(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void format(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    CHECK(n >= 0 && (size_t)n < size, "path or text too long for its buffer (%s)", fmt);
}

struct buffer {
    char *bytes;
    size_t size;
};

/* One architecture of the bundled database and the two trees built for it. */
struct arch_tree {
    char name[NAME_MAX_LEN + 1];       /* "sm_90" */
    char gpu_name[NAME_MAX_LEN + 1];   /* a real GPU of it: "h100-pcie" */
    struct buffer arch_file, gpu_file; /* their bytes, for the bounds check */
    char gpu_dir[1200];                /* <tmp>/g-sm_90: arch/sm_90.yaml + gpus/<input> */
    char arch_dir[1200];               /* <tmp>/a-sm_90: gpus/h100-pcie.yaml + arch/<input> */
};

static struct arch_tree trees[MAX_ARCHS];
static size_t tree_count;
static char base_dir[1024];

static struct buffer read_all(const char *path)
{
    struct buffer b = {NULL, 0};
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open %s", path);
    size_t capacity = 0;
    for (;;) {
        if (b.size == capacity) {
            capacity = capacity ? capacity * 2 : 4096;
            b.bytes = realloc(b.bytes, capacity);
            CHECK(b.bytes != NULL, "out of memory");
        }
        size_t got = fread(b.bytes + b.size, 1, capacity - b.size, f);
        if (got == 0)
            break;
        b.size += got;
    }
    fclose(f);
    return b;
}

static void write_all(const char *path, const void *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot create %s", path);
    CHECK(size == 0 || fwrite(bytes, 1, size, f) == size, "cannot write %s", path);
    CHECK(fclose(f) == 0, "cannot write %s", path);
}

static void make_dir(const char *path)
{
    CHECK(mkdir(path, 0700) == 0, "cannot create %s", path);
}

static int valid_name(const char *s, size_t n)
{
    if (n == 0 || n > NAME_MAX_LEN || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
            return 0;
    }
    return 1;
}

/* The value of the first line of text that starts with `key` (after
 * `indent_min` or more spaces): up to whitespace or '#'. 0 when absent. */
static int line_value(const char *text, size_t size, const char *key, int indented, char *out,
                      size_t out_size)
{
    size_t key_len = strlen(key);
    for (size_t at = 0; at < size;) {
        size_t i = at;
        while (indented && i < size && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if ((i > at) == (indented != 0) && size - i > key_len && memcmp(text + i, key, key_len) == 0) {
            i += key_len;
            while (i < size && (text[i] == ' ' || text[i] == '\t'))
                i++;
            size_t n = 0;
            while (i + n < size && text[i + n] != ' ' && text[i + n] != '\t' && text[i + n] != '\n' &&
                   text[i + n] != '\r' && text[i + n] != '#' && n + 1 < out_size)
                n++;
            memcpy(out, text + i, n);
            out[n] = '\0';
            return 1;
        }
        const char *newline = memchr(text + at, '\n', size - at);
        if (newline == NULL)
            break;
        at = (size_t)(newline - text) + 1;
    }
    return 0;
}

static void remove_trees(void)
{
    char path[8192];
    for (size_t i = 0; i < tree_count; i++) {
        format(path, sizeof path, "%s/arch/%s.yaml", trees[i].gpu_dir, trees[i].name);
        unlink(path);
        format(path, sizeof path, "%s/gpus/%s.yaml", trees[i].arch_dir, trees[i].gpu_name);
        unlink(path);
        const char *subs[] = {"arch", "gpus"};
        for (int s = 0; s < 2; s++) {
            format(path, sizeof path, "%s/%s", trees[i].gpu_dir, subs[s]);
            rmdir(path);
            format(path, sizeof path, "%s/%s", trees[i].arch_dir, subs[s]);
            rmdir(path);
        }
        rmdir(trees[i].gpu_dir);
        rmdir(trees[i].arch_dir);
        free(trees[i].arch_file.bytes);
        free(trees[i].gpu_file.bytes);
    }
    rmdir(base_dir);
}

/* Builds one pair of trees per architecture of the bundled database. */
static void setup(void)
{
    const char *tmp = getenv("TMPDIR");
    format(base_dir, sizeof base_dir, "%s/fuzz_hwdb.XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    CHECK(mkdtemp(base_dir) != NULL, "mkdtemp %s", base_dir);
    DIR *d = opendir(SIMT_SOURCE_DIR "/hwdb/arch");
    CHECK(d != NULL, "cannot open %s", SIMT_SOURCE_DIR "/hwdb/arch");
    struct dirent *e;
    while ((e = readdir(d)) != NULL && tree_count < MAX_ARCHS) {
        size_t n = strlen(e->d_name);
        if (n <= 5 || strcmp(e->d_name + n - 5, ".yaml") != 0 || n - 5 > NAME_MAX_LEN)
            continue;
        struct arch_tree *t = &trees[tree_count];
        memcpy(t->name, e->d_name, n - 5);
        t->name[n - 5] = '\0';
        char path[8192];
        format(path, sizeof path, "%s/hwdb/arch/%s", SIMT_SOURCE_DIR, e->d_name);
        t->arch_file = read_all(path);
        tree_count++;
    }
    closedir(d);
    CHECK(tree_count > 0, "no architecture files");

    /* a real GPU file for each architecture */
    d = opendir(SIMT_SOURCE_DIR "/hwdb/gpus");
    CHECK(d != NULL, "cannot open %s", SIMT_SOURCE_DIR "/hwdb/gpus");
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n <= 5 || strcmp(e->d_name + n - 5, ".yaml") != 0 || n - 5 > NAME_MAX_LEN)
            continue;
        char path[8192], arch[NAME_MAX_LEN + 1];
        format(path, sizeof path, "%s/hwdb/gpus/%s", SIMT_SOURCE_DIR, e->d_name);
        struct buffer b = read_all(path);
        int used = 0;
        if (line_value(b.bytes, b.size, "arch:", 0, arch, sizeof arch)) {
            for (size_t i = 0; i < tree_count; i++) {
                if (strcmp(trees[i].name, arch) == 0 && trees[i].gpu_file.bytes == NULL) {
                    memcpy(trees[i].gpu_name, e->d_name, n - 5);
                    trees[i].gpu_name[n - 5] = '\0';
                    trees[i].gpu_file = b;
                    used = 1;
                }
            }
        }
        if (!used)
            free(b.bytes);
    }
    closedir(d);

    for (size_t i = 0; i < tree_count; i++) {
        struct arch_tree *t = &trees[i];
        CHECK(t->gpu_file.bytes != NULL, "no GPU of architecture %s in the bundled database", t->name);
        char path[8192];
        format(t->gpu_dir, sizeof t->gpu_dir, "%s/g-%s", base_dir, t->name);
        format(t->arch_dir, sizeof t->arch_dir, "%s/a-%s", base_dir, t->name);
        make_dir(t->gpu_dir);
        make_dir(t->arch_dir);
        format(path, sizeof path, "%s/arch", t->gpu_dir);
        make_dir(path);
        format(path, sizeof path, "%s/gpus", t->gpu_dir);
        make_dir(path);
        format(path, sizeof path, "%s/arch", t->arch_dir);
        make_dir(path);
        format(path, sizeof path, "%s/gpus", t->arch_dir);
        make_dir(path);
        format(path, sizeof path, "%s/arch/%s.yaml", t->gpu_dir, t->name);
        write_all(path, t->arch_file.bytes, t->arch_file.size);
        format(path, sizeof path, "%s/gpus/%s.yaml", t->arch_dir, t->gpu_name);
        write_all(path, t->gpu_file.bytes, t->gpu_file.size);
    }
    atexit(remove_trees);
}

/* Is the 1-based (line, column) inside text, splitting lines at every YAML
 * line break (\r\n, \r, \n, U+0085, U+2028, U+2029), or at '\n' alone (the
 * loader counts '\n' for reader errors, which only give a byte offset)?
 * The position just past the last byte is inside. Columns count characters,
 * which are never more than bytes. */
static int position_inside(const struct buffer *text, int line, int column, int yaml_breaks)
{
    const unsigned char *s = (const unsigned char *)text->bytes;
    size_t n = text->size;
    int current = 1;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        size_t width = 0;
        if (i < n && s[i] == '\n')
            width = 1;
        else if (yaml_breaks && i < n && s[i] == '\r')
            width = i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
        else if (yaml_breaks && i + 1 < n && s[i] == 0xc2 && s[i + 1] == 0x85)
            width = 2;
        else if (yaml_breaks && i + 2 < n && s[i] == 0xe2 && s[i + 1] == 0x80 &&
                 (s[i + 2] == 0xa8 || s[i + 2] == 0xa9))
            width = 3;
        if (width == 0 && i < n)
            continue;
        if (current == line)
            return column >= 1 && (size_t)column <= i - start + 1;
        current++;
        i += width - 1;
        start = i + 1;
    }
    return 0;
}

static int utf16(const struct buffer *text)
{
    const unsigned char *s = (const unsigned char *)text->bytes;
    return text->size >= 2 && ((s[0] == 0xff && s[1] == 0xfe) || (s[0] == 0xfe && s[1] == 0xff));
}

static void check_position(const struct simt_diag *diag, const struct buffer *text, const char *what)
{
    CHECK(diag->line >= 1, "%s: a diag about %s has no line: %s", diag->file, what, diag->message);
    if (utf16(text)) { /* libyaml decodes UTF-16: lines and columns count characters */
        CHECK((size_t)diag->line <= text->size + 1 && diag->column >= 1 &&
                  (size_t)diag->column <= text->size + 1,
              "%d:%d outside the %zu bytes of %s: %s", diag->line, diag->column, text->size, what,
              diag->message);
        return;
    }
    CHECK(position_inside(text, diag->line, diag->column, 1) ||
              position_inside(text, diag->line, diag->column, 0),
          "%d:%d lies outside %s (%zu bytes): %s", diag->line, diag->column, what, text->size, diag->message);
}

/* A loaded GPU must be safe for the API: a few requests, answered within
 * the contract's statuses with JSON bodies. */
static void check_api(const struct simt_hwdb *db, const char *id)
{
    static const char *const bodies[][2] = {
        {"GET", NULL},
        {"POST /v1/occupancy", "\"block_size\":256,\"registers_per_thread\":64,\"grid_size\":1000}"},
        {"POST /v1/occupancy/sweep", "\"block_size\":256,\"registers_per_thread\":32,"
                                     "\"vary\":\"block_size\"}"},
        {"POST /v1/launch/suggest", "\"registers_per_thread\":40}"},
        {"POST /v1/roofline", "\"flops\":1e12,\"precision\":\"fp16\",\"tensor_cores\":true,"
                              "\"bytes\":{\"dram\":4e9,\"l2\":1.2e10}}"},
        {"POST /v1/memory/coalescing", "\"element_bytes\":4,\"lane_stride_elements\":3}"},
        {"POST /v1/memory/banks", "\"element_bytes\":8,\"lane_stride_elements\":2}"},
        {"POST /v1/memory/constant", "\"distinct_addresses\":4}"},
        {"POST /v1/latency-hiding", "\"warps_per_sm\":16,\"ilp\":2,\"bytes_per_lane\":16,"
                                    "\"level\":\"dram\"}"},
        {"POST /v1/gemm", "\"m\":4096,\"n\":4096,\"k\":4096,\"dtype\":\"fp16\"}"},
        {"POST /v1/collective", "\"op\":\"all_reduce\",\"bytes\":1e8,\"gpus\":8}"},
        {"POST /v1/kernel",
         "\"launch\":{\"grid\":[256,256],\"block\":[32,8]},\"resources\":{"
         "\"registers_per_thread\":26,\"static_shared_bytes\":4224},\"per_thread\":{\"flops\":{\"fp32\":8},"
         "\"accesses\":[{\"space\":\"global\",\"op\":\"load\",\"count\":4,\"element_bytes\":4,"
         "\"lane_stride_elements\":1},{\"space\":\"shared\",\"op\":\"load\",\"count\":4,\"element_bytes\":4,"
         "\"lane_stride_elements\":33}]}}"},
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char path[256], body[1024];
        const char *method = "POST";
        if (bodies[i][1] == NULL) {
            method = "GET";
            format(path, sizeof path, "/v1/gpus/%s", id);
            body[0] = '\0';
        } else {
            format(path, sizeof path, "%s", bodies[i][0] + strlen("POST "));
            format(body, sizeof body, "{\"gpu\":\"%s\",%s", id, bodies[i][1]);
        }
        struct simt_api_request req = {method, path, "application/json", body, strlen(body)};
        struct simt_api_response resp;
        CHECK(simt_api_handle(db, &req, &resp) == SIMT_OK, "simt_api_handle %s", path);
        CHECK(resp.status == 200 || resp.status == 400 || resp.status == 422, "%s %s on a loaded GPU: %d %s",
              method, path, resp.status, resp.body);
        json_error_t jerr;
        json_t *answer = json_loadb(resp.body, resp.body_len, JSON_REJECT_DUPLICATES, &jerr);
        CHECK(json_is_object(answer), "%s: not a JSON object (%s): %s", path, jerr.text, resp.body);
        json_decref(answer);
        simt_api_response_clear(&resp);
    }
}

/* SIMT_FUZZ_VERBOSE=1: one line per input (for reading a replay) */
static int verbose(void)
{
    static int cached = -1;
    if (cached < 0)
        cached = getenv("SIMT_FUZZ_VERBOSE") != NULL;
    return cached;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (tree_count == 0)
        setup();
    const char *text = (const char *)data;
    char arch[NAME_MAX_LEN + 2] = "", id[NAME_MAX_LEN + 2] = "";
    int has_arch = line_value(text, size, "arch:", 0, arch, sizeof arch);
    int is_gpu = line_value(text, size, "id:", 1, id, sizeof id);

    const struct arch_tree *tree = &trees[0];
    for (size_t i = 0; i < tree_count; i++) {
        if ((has_arch && strcmp(trees[i].name, arch) == 0) ||
            (!has_arch && strcmp(trees[i].name, "sm_90") == 0))
            tree = &trees[i];
    }
    if (has_arch && strcmp(tree->name, arch) != 0) {
        for (size_t i = 0; i < tree_count; i++) {
            if (strcmp(trees[i].name, "sm_90") == 0)
                tree = &trees[i];
        }
    }
    char name[NAME_MAX_LEN + 1];
    if (is_gpu)
        format(name, sizeof name, "%s", valid_name(id, strlen(id)) ? id : "g1");
    else
        format(name, sizeof name, "%s", has_arch && valid_name(arch, strlen(arch)) ? arch : tree->name);
    const char *dir = is_gpu ? tree->gpu_dir : tree->arch_dir;
    const char *sub = is_gpu ? "gpus" : "arch";
    char path[8192], rel[128], other_path[8192], other_rel[128];
    format(path, sizeof path, "%s/%s/%s.yaml", dir, sub, name);
    format(rel, sizeof rel, "%s/%s.yaml", sub, name);
    if (is_gpu)
        format(other_rel, sizeof other_rel, "arch/%s.yaml", tree->name);
    else
        format(other_rel, sizeof other_rel, "gpus/%s.yaml", tree->gpu_name);
    format(other_path, sizeof other_path, "%s/%s", dir, other_rel);
    /* arch mode with the input named as the real arch: it replaces nothing
     * (the tree holds no arch file), so both names can differ only by content */
    write_all(path, data, size);

    struct simt_hwdb *db = NULL;
    struct simt_diag diag;
    memset(&diag, 0x55, sizeof diag); /* a loader that forgets a field is caught below */
    int rc = simt_hwdb_load_dir(dir, &db, &diag);
    CHECK(unlink(path) == 0, "cannot remove %s", path);

    if (verbose())
        printf("%s: %s\n", rel, rc == SIMT_OK ? "loaded" : diag.message);
    if (rc == SIMT_OK) {
        CHECK(db != NULL, "success without a database");
        CHECK(simt_hwdb_count(db) == 1, "%zu GPUs from one GPU file", simt_hwdb_count(db));
        const struct simt_hwdb_gpu *gpu = simt_hwdb_at(db, 0);
        const char *want = is_gpu ? name : tree->gpu_name;
        CHECK(strcmp(gpu->id, want) == 0, "loaded id %s from %s.yaml", gpu->id, want);
        CHECK(simt_hwdb_find(db, want) == gpu, "find %s", want);
        CHECK(memchr(gpu->name, '\0', sizeof gpu->name) && memchr(gpu->vendor, '\0', sizeof gpu->vendor) &&
                  memchr(gpu->architecture, '\0', sizeof gpu->architecture) &&
                  memchr(gpu->compute_capability, '\0', sizeof gpu->compute_capability) &&
                  memchr(gpu->measured_method, '\0', sizeof gpu->measured_method),
              "unterminated text in the record");
        check_api(db, gpu->id);
        simt_hwdb_unref(db);
        return 0;
    }
    CHECK(db == NULL, "failure %d with a database", rc);
    CHECK(rc == SIMT_EINVAL || rc == SIMT_EUNSAT || rc == SIMT_ENOENT || rc == SIMT_EIO ||
              rc == SIMT_EPARSE || rc == SIMT_ETOOBIG,
          "unexpected code %d: %s", rc, diag.message);
    CHECK(memchr(diag.file, '\0', sizeof diag.file) && memchr(diag.field, '\0', sizeof diag.field) &&
              memchr(diag.message, '\0', sizeof diag.message),
          "diag text not terminated");
    CHECK(diag.message[0] != '\0', "failure %d without a message", rc);
    int about_input = strcmp(diag.file, path) == 0;
    CHECK(about_input || strcmp(diag.file, other_path) == 0, "diag names %s, neither %s nor %s: %s",
          diag.file, path, other_path, diag.message);
    const char *want_rel = about_input ? rel : other_rel;
    CHECK(strncmp(diag.message, want_rel, strlen(want_rel)) == 0 && diag.message[strlen(want_rel)] == ':',
          "message does not start with %s: %s", want_rel, diag.message);
    struct buffer input = {(char *)(uintptr_t)text, size};
    check_position(&diag,
                   about_input ? &input
                   : is_gpu    ? &tree->arch_file
                               : &tree->gpu_file,
                   about_input ? "the input" : other_rel);
    return 0;
}
