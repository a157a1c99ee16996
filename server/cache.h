/* cache.h - memoized answers. simt_api_handle is a pure function of the
 * database and the request (method, path, content type, body), so an answer
 * once built can be queued again for the same request until the database is
 * swapped. Entries hold finished microhttpd responses, which microhttpd lets
 * many connections send at once; a hit costs a hash, a compare and a queue.
 *
 * Bounded: `entries` slots in sets of 4 (least recently used goes), answers
 * up to 16 KiB and requests up to 4 KiB only. Thread-safe (one lock per set).
 * simt_cache_invalidate makes every entry stale at once (after a reload). */
#ifndef SIMT_SERVER_CACHE_H
#define SIMT_SERVER_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "simt_error.h"

#define SIMT_CACHE_MAX_ANSWER_BYTES ((size_t)16 * 1024)
#define SIMT_CACHE_MAX_REQUEST_BYTES ((size_t)4 * 1024)

struct simt_cache;

/* What identifies a request. content_type may be NULL; body need not be
 * NUL-terminated. */
struct simt_cache_key {
    const char *method;
    const char *path;
    const char *content_type;
    const char *body;
    size_t body_len;
    uint64_t hash;       /* filled by simt_cache_key_hash */
    uint64_t generation; /* likewise: the generation current when hashed */
};

/* entries == 0 gives a cache that never holds anything. Returns 0, or
 * SIMT_ENOMEM (and *out NULL) when out of memory. */
int simt_cache_create(size_t entries, struct simt_cache **out) SIMT_WARN_UNUSED;
void simt_cache_destroy(struct simt_cache *cache); /* NULL is a no-op */

/* 1 when the request may be cached (size limits), after hashing it and
 * noting the current generation. Hash before taking the database the answer
 * is built from: an answer stored under a generation that has since passed
 * is never served. */
int simt_cache_key_hash(struct simt_cache *cache, struct simt_cache_key *key);

/* On a hit, queues the stored answer on conn and returns 1 with its status,
 * route and body size; *queued is microhttpd's verdict. 0 on a miss. */
int simt_cache_serve(struct simt_cache *cache, const struct simt_cache_key *key, struct MHD_Connection *conn,
                     enum MHD_Result *queued, int *status, const char **route, size_t *body_bytes);

/* Stores an answer, taking over the caller's reference to response (the
 * cache destroys it on eviction). route must be static. When the answer is
 * not kept, the reference is dropped here. */
void simt_cache_store(struct simt_cache *cache, const struct simt_cache_key *key,
                      struct MHD_Response *response, int status, const char *route, size_t body_bytes);

/* Every entry stored before this call is stale from now on. */
void simt_cache_invalidate(struct simt_cache *cache);

#endif
