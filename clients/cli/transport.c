/* transport.c - how `simt` gets an answer: over HTTP from a running simtd,
 * or with --offline from the bundled database through simt_api_handle, the
 * very function the daemon calls, so both paths give the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cli.h"

static json_t *parse_answer(const char *text, size_t len)
{
    json_error_t jerr;
    json_t *answer = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
    if (answer == NULL)
        answer = json_stringn(text, len);
    return answer;
}

static int call_offline(struct simt_cli *cli, const char *method, const char *path, const char *body_text,
                        size_t body_len, int *status, json_t **answer, char *error, size_t error_size)
{
    if (cli->db == NULL) {
        const char *dir = cli->hwdb_dir != NULL ? cli->hwdb_dir : simt_cli_default_hwdb();
        struct simt_diag diag;
        memset(&diag, 0, sizeof diag);
        int rc = simt_hwdb_load_dir(dir, &cli->db, &diag);
        if (rc != 0) {
            snprintf(error, error_size, "cannot load the hardware database %s: %s%s%s", dir,
                     diag.file[0] ? diag.file : "", diag.file[0] ? ": " : "", diag.message);
            return rc;
        }
    }
    struct simt_api_request req = {
        .method = method,
        .path = path,
        .content_type = body_text != NULL ? "application/json" : NULL,
        .body = body_text,
        .body_len = body_len,
    };
    struct simt_api_response resp;
    int rc = simt_api_handle(cli->db, &req, &resp);
    if (rc != 0) {
        snprintf(error, error_size, "out of memory");
        return rc;
    }
    *status = resp.status;
    *answer = parse_answer(resp.body != NULL ? resp.body : "", resp.body_len);
    simt_api_response_clear(&resp);
    return *answer != NULL ? SIMT_OK : SIMT_ENOMEM;
}

int simt_cli_call(struct simt_cli *cli, const char *method, const char *path, json_t *body, int *status,
                  json_t **answer, char *error, size_t error_size)
{
    *answer = NULL;
    char *body_text = NULL;
    size_t body_len = 0;
    if (body != NULL) {
        body_text = json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY);
        if (body_text == NULL) {
            snprintf(error, error_size, "out of memory");
            return SIMT_ENOMEM;
        }
        body_len = strlen(body_text);
    }
    int rc;
    if (cli->offline) {
        rc = call_offline(cli, method, path, body_text, body_len, status, answer, error, error_size);
    } else {
        char *text = NULL;
        size_t text_len = 0;
        struct simt_http_target target = {cli->server, cli->token, cli->timeout_s};
        rc = simt_http_request(&target, method, path, body_text, body_len, status, &text, &text_len, error,
                               error_size);
        if (rc == SIMT_OK) {
            *answer = parse_answer(text, text_len);
            if (*answer == NULL)
                rc = SIMT_ENOMEM;
        }
        free(text);
    }
    free(body_text);
    return rc;
}

void simt_cli_close(struct simt_cli *cli)
{
    simt_hwdb_unref(cli->db);
    cli->db = NULL;
    if (cli->token != NULL)
        memset(cli->token, 0, strlen(cli->token));
    free(cli->token);
    cli->token = NULL;
}
