/* rows.h - shorthands for the rows of an endpoint's field table
 * (endpoint.h), so that a descriptor reads one field a line. A STORED row
 * names the request struct and member the generic reader fills; whether an
 * integer is stored as int or int64_t follows from the member's size, and a
 * choice is stored as an int index into a member of int's size (an enum
 * whose order is the choices' order), which the build checks. Not
 * installed; static data only. */
#ifndef SIMT_API_ROWS_H
#define SIMT_API_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "endpoint.h"

#define SIMT_MEMBER_SIZE(T, MEMBER) sizeof(((T *)0)->MEMBER)

/* An integer stored in T.MEMBER (int or int64_t). */
#define SIMT_ROW_INT(NAME, FLAGS, MIN, MAX, DFLT, T, MEMBER, DOC)                                            \
    {                                                                                                        \
        .name = NAME, .type = SIMT_API_INTEGER,                                                              \
        .flags = (FLAGS) | SIMT_API_STORED |                                                                 \
                 (SIMT_MEMBER_SIZE(T, MEMBER) == sizeof(int64_t) ? SIMT_API_INT64 : 0u),                     \
        .min = (double)(MIN), .max = (double)(MAX), .dflt = (double)(DFLT), .offset = offsetof(T, MEMBER),   \
        .doc = DOC                                                                                           \
    }

/* A number stored in the double T.MEMBER. */
#define SIMT_ROW_NUMBER(NAME, FLAGS, MIN, MAX, DFLT, T, MEMBER, DOC)                                         \
    {                                                                                                        \
        .name = NAME, .type = SIMT_API_NUMBER, .flags = (FLAGS) | SIMT_API_STORED, .min = (MIN),             \
        .max = (MAX), .dflt = (DFLT),                                                                        \
        .offset =                                                                                            \
            offsetof(T, MEMBER) + 0 * sizeof(char[SIMT_MEMBER_SIZE(T, MEMBER) == sizeof(double) ? 1 : -1]),  \
        .doc = DOC                                                                                           \
    }

/* A boolean stored in the int T.MEMBER. */
#define SIMT_ROW_BOOL(NAME, FLAGS, DFLT, T, MEMBER, DOC)                                                     \
    {                                                                                                        \
        .name = NAME, .type = SIMT_API_BOOLEAN, .flags = (FLAGS) | SIMT_API_STORED, .dflt = (DFLT),          \
        .offset =                                                                                            \
            offsetof(T, MEMBER) + 0 * sizeof(char[SIMT_MEMBER_SIZE(T, MEMBER) == sizeof(int) ? 1 : -1]),     \
        .doc = DOC                                                                                           \
    }

/* One of CHOICES, its index stored in T.MEMBER (of int's size). */
#define SIMT_ROW_CHOICE(NAME, FLAGS, CHOICES, DFLT, T, MEMBER, DOC)                                          \
    {                                                                                                        \
        .name = NAME, .type = SIMT_API_STRING, .flags = (FLAGS) | SIMT_API_STORED, .dflt = (DFLT),           \
        .choices = CHOICES,                                                                                  \
        .offset =                                                                                            \
            offsetof(T, MEMBER) + 0 * sizeof(char[SIMT_MEMBER_SIZE(T, MEMBER) == sizeof(int) ? 1 : -1]),     \
        .doc = DOC                                                                                           \
    }

/* Rows a handler or a special reader reads itself: a range (INTEGER,
 * NUMBER), choices (STRING), or a shape (GPU, OBJECT, ARRAY, SHAPE). */
#define SIMT_ROW_RANGE(NAME, TYPE, FLAGS, MIN, MAX, DFLT, DOC)                                               \
    {                                                                                                        \
        .name = NAME, .type = TYPE, .flags = (FLAGS), .min = (double)(MIN), .max = (double)(MAX),            \
        .dflt = (double)(DFLT), .doc = DOC                                                                   \
    }
#define SIMT_ROW_CHOICES(NAME, FLAGS, CHOICES, DFLT, DOC)                                                    \
    {                                                                                                        \
        .name = NAME, .type = SIMT_API_STRING, .flags = (FLAGS), .dflt = (DFLT), .choices = CHOICES,         \
        .doc = DOC                                                                                           \
    }
#define SIMT_ROW_SHAPE(NAME, TYPE, FLAGS, DOC)                                                               \
    {                                                                                                        \
        .name = NAME, .type = TYPE, .flags = (FLAGS), .doc = DOC                                             \
    }
#define SIMT_ROW_OBJECT(NAME, TYPE, FLAGS, MEMBERS, DOC)                                                     \
    {                                                                                                        \
        .name = NAME, .type = TYPE, .flags = (FLAGS), .members = MEMBERS,                                    \
        .member_count = sizeof MEMBERS / sizeof MEMBERS[0], .doc = DOC                                       \
    }

/* The "gpu" row every model endpoint has. */
#define SIMT_ROW_GPU(FLAGS)                                                                                  \
    SIMT_ROW_SHAPE("gpu", SIMT_API_GPU, FLAGS,                                                               \
                   "A GPU id (GET /v1/gpus) or a what-if {\"base\": id, <field>: value}")

#define SIMT_COUNT_OF(ROWS) (sizeof ROWS / sizeof ROWS[0])

/* A model endpoint /v1/compare may ask: POST ROUTE, answered by HANDLER,
 * its body's fields the array FIELDS. */
#define SIMT_MODEL_ENDPOINT(ROUTE, HANDLER, FIELDS, DOC)                                                     \
    {                                                                                                        \
        .method = "POST", .route = ROUTE, .flags = SIMT_API_MODEL | SIMT_API_COMPARABLE, .handler = HANDLER, \
        .fields = FIELDS, .field_count = SIMT_COUNT_OF(FIELDS), .doc = DOC                                   \
    }

#endif
