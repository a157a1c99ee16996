/* diag.c - filling a caller's struct simt_diag on failure, one way for every
 * model: the field at fault and a formatted message. Pure (no I/O). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "simt_error.h"

int simt_diag_fail(struct simt_diag *diag, int rc, const char *field, const char *fmt, ...)
{
    if (diag == NULL)
        return rc;
    memset(diag, 0, sizeof *diag);
    snprintf(diag->field, sizeof diag->field, "%s", field != NULL ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(diag->message, sizeof diag->message, fmt, ap);
    va_end(ap);
    return rc;
}
