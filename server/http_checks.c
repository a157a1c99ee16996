/* http_checks.c - framing rules for requests: see http_checks.h. */
#include "http_checks.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

struct header_counts {
    unsigned content_length, host, transfer_encoding;
    const char *first_length;
    int lengths_differ;
    int length_malformed;
    const char *coding; /* the Transfer-Encoding value */
};

static int all_digits(const char *s)
{
    if (s == NULL || *s == '\0')
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    struct header_counts *n = cls;
    (void)kind;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (n->content_length++ == 0)
            n->first_length = value;
        else if (value == NULL || n->first_length == NULL || strcmp(value, n->first_length) != 0)
            n->lengths_differ = 1;
        if (!all_digits(value))
            n->length_malformed = 1;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0) {
        n->host++;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        n->transfer_encoding++;
        n->coding = value;
    }
    return MHD_YES;
}

static int refuse(struct simt_http_refusal *out, int status, const char *code, const char *message)
{
    out->status = status;
    out->code = code;
    snprintf(out->message, sizeof out->message, "%s", message);
    return 1;
}

int simt_http_check_headers(struct MHD_Connection *mc, const char *version, struct simt_http_refusal *out)
{
    struct header_counts n;
    memset(&n, 0, sizeof n);
    MHD_get_connection_values(mc, MHD_HEADER_KIND, &count_header, &n);
    if (n.content_length > 0 && n.transfer_encoding > 0)
        return refuse(out, 400, "bad_request", "Content-Length together with Transfer-Encoding is refused");
    if (n.lengths_differ)
        return refuse(out, 400, "bad_request", "more than one Content-Length, and they differ");
    if (n.length_malformed)
        return refuse(out, 400, "bad_request", "Content-Length must be decimal digits only");
    if (n.transfer_encoding > 1 ||
        (n.transfer_encoding == 1 && (n.coding == NULL || strcasecmp(n.coding, "chunked") != 0)))
        return refuse(out, 501, "not_implemented", "the only transfer coding accepted is chunked");
    int http11 = version != NULL && strcmp(version, MHD_HTTP_VERSION_1_1) == 0;
    if (n.host > 1 || (http11 && n.host == 0))
        return refuse(out, 400, "bad_request", "an HTTP/1.1 request needs exactly one Host header");
    return 0;
}

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

int simt_http_target_has_control(const char *raw_target)
{
    for (const unsigned char *p = (const unsigned char *)raw_target; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            return 1;
        if (*p == '%' && p[1] != '\0' && p[2] != '\0') {
            int hi = hex_value((char)p[1]), lo = hex_value((char)p[2]);
            if (hi >= 0 && lo >= 0 && (hi * 16 + lo < 0x20 || hi * 16 + lo == 0x7f))
                return 1;
        }
    }
    return 0;
}

const char *simt_http_path_of(const char *target)
{
    const char *rest = NULL;
    if (strncasecmp(target, "http://", 7) == 0)
        rest = target + 7;
    else if (strncasecmp(target, "https://", 8) == 0)
        rest = target + 8;
    if (rest == NULL)
        return target;
    const char *slash = strchr(rest, '/');
    return slash != NULL ? slash : "/";
}
