/* endpoint.h - every endpoint of the API described once, as data: its
 * method and route, whether it is a model endpoint, its handler, and the
 * request's fields (JSON type, range or choices, default, whether required,
 * where the generic reader stores it, a one-line doc). The router, the key
 * checks, the readers, /v1/compare's questions and the OpenAPI agreement
 * test all read this table, so they cannot drift apart; a client (the CLI's
 * flags) may read it too. No jansson or microhttpd types are needed to read
 * it: the handler is opaque to clients.
 *
 * Ownership: the table and everything it points to are static and
 * immutable; nothing here is ever freed. */
#ifndef SIMT_API_ENDPOINT_H
#define SIMT_API_ENDPOINT_H

#include <stddef.h>

struct simt_call; /* api/call.h: one request's state */
struct json_t;    /* jansson's json_t */

enum simt_api_type {
    SIMT_API_INTEGER, /* a JSON integer (an integral real is accepted) */
    SIMT_API_NUMBER,  /* any finite JSON number */
    SIMT_API_BOOLEAN,
    SIMT_API_STRING, /* one of `choices` */
    SIMT_API_GPU,    /* a GPU id or a what-if object {"base": id, <field>: value} */
    SIMT_API_OBJECT, /* an object of `members` */
    SIMT_API_ARRAY,  /* a list; of objects of `members` when members is set */
    SIMT_API_SHAPE   /* more than one shape (a number or an object, an integer or a list): see doc */
};

/* Field flags. */
#define SIMT_API_REQUIRED (1u << 0) /* absent: 400 missing_field */
#define SIMT_API_REQUIRED_IN_FORM                                                                            \
    (1u << 1)                     /* required once its alternative form is chosen; optional in the schema */
#define SIMT_API_STORED (1u << 2) /* the generic reader stores it at `offset` */
#define SIMT_API_INT64                                                                                       \
    (1u << 3) /* an INTEGER stored as int64_t (else int); STRING: stored as an int index                     \
               */
#define SIMT_API_KEEP                                                                                        \
    (1u << 4) /* absent: the request keeps what the handler put there (a default that depends on the GPU) */
#define SIMT_API_GROUP(n)                                                                                    \
    ((unsigned)(n) << 8) /* which pass of the generic reader reads it (0 unless a handler reads in parts) */
#define SIMT_API_GROUP_OF(flags) ((flags) >> 8)

struct simt_api_field {
    const char *name;
    enum simt_api_type type;
    unsigned flags;
    double min, max;                      /* INTEGER, NUMBER: the accepted range, inclusive */
    double dflt;                          /* absent and optional: the value (STRING: index into choices) */
    const char *const *choices;           /* STRING: NULL-terminated */
    size_t offset;                        /* STORED: the byte offset in the handler's request struct */
    const struct simt_api_field *members; /* OBJECT (and ARRAY of objects): the members */
    size_t member_count;
    const char *doc; /* one line */
};

/* Endpoint flags. */
#define SIMT_API_MODEL (1u << 0)      /* the answer carries "assumptions"; the body may carry "figures" */
#define SIMT_API_COMPARABLE (1u << 1) /* /v1/compare may ask it */

struct simt_api_endpoint {
    const char *method; /* "GET" or "POST" */
    const char *route;  /* exact path, or ending in "{id}" */
    unsigned flags;
    struct json_t *(*handler)(struct simt_call *call);
    const struct simt_api_field
        *fields; /* the body's top-level fields (POST), in the order errors list them */
    size_t field_count;
    const char *doc;
};

/* The table, in the router's order: i below simt_api_endpoint_count(),
 * else NULL. */
size_t simt_api_endpoint_count(void);
const struct simt_api_endpoint *simt_api_endpoint_at(size_t i);

#endif
