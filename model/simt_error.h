/* simt_error.h - the error codes every simtd library returns, and the
 * diagnostic a caller passes in to learn what went wrong and where.
 * Functions that can fail return int: 0 on success, a negative SIMT_E* code
 * on failure; results travel through out-parameters. Pure. */
#ifndef SIMT_ERROR_H
#define SIMT_ERROR_H

#define SIMT_OK 0
#define SIMT_EINVAL (-1)  /* an argument is out of its documented range */
#define SIMT_EUNSAT (-2)  /* well-formed but impossible on this GPU (HTTP 422) */
#define SIMT_ENOENT (-3)  /* no such GPU, file or key */
#define SIMT_ENOMEM (-4)  /* allocation failed */
#define SIMT_EIO (-5)     /* a file could not be read */
#define SIMT_EPARSE (-6)  /* a file or body is malformed */
#define SIMT_ETOOBIG (-7) /* input over a configured limit */

#define SIMT_WARN_UNUSED __attribute__((warn_unused_result))

/* Filled by a failing call, like jansson's json_error_t. Line and column are
 * 1-based; 0 where they do not apply. `field` is the request field or
 * database key at fault (a JSON path such as "launch.block"), or "". */
struct simt_diag {
    char file[256];
    int line;
    int column;
    char field[128];
    char message[512];
};

/* Fills diag (when not NULL) with the field at fault and a printf-style
 * message, clearing the rest, and returns rc, so that a model can write
 * `return simt_diag_fail(diag, SIMT_EINVAL, "flops", "...")`. */
int simt_diag_fail(struct simt_diag *diag, int rc, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
