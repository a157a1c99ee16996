/* cache.c - a set-associative table of finished answers. A set is found by
 * the request's hash and holds 4 entries under its own lock; the least
 * recently used of a full set is replaced. Staleness is a generation
 * number: entries are tagged with the generation current when their request
 * began, and only entries of the current generation are served. */
#define _GNU_SOURCE
#include "cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define WAYS 4

struct entry {
    uint64_t generation; /* 0: empty */
    uint64_t hash;
    uint64_t last_used;
    struct MHD_Response *response;
    int status;
    const char *route;
    size_t body_bytes;
    /* the request: method, path, content type, body, back to back */
    char *key;
    size_t method_len, path_len, type_len, body_len;
    int has_type;
};

struct set {
    pthread_mutex_t lock;
    uint64_t clock;
    struct entry way[WAYS];
};

struct simt_cache {
    size_t set_mask;
    struct set *sets; /* NULL: caching off */
    atomic_uint_fast64_t generation;
};

int simt_cache_create(size_t entries, struct simt_cache **out)
{
    *out = NULL;
    struct simt_cache *cache = calloc(1, sizeof *cache);
    if (cache == NULL)
        return SIMT_ENOMEM;
    atomic_init(&cache->generation, 1);
    if (entries > 0) {
        size_t sets = 1;
        while (sets * WAYS < entries)
            sets *= 2;
        cache->sets = calloc(sets, sizeof *cache->sets);
        if (cache->sets == NULL) {
            free(cache);
            return SIMT_ENOMEM;
        }
        cache->set_mask = sets - 1;
        for (size_t i = 0; i < sets; i++)
            pthread_mutex_init(&cache->sets[i].lock, NULL);
    }
    *out = cache;
    return SIMT_OK;
}

static void entry_clear(struct entry *e)
{
    if (e->response != NULL)
        MHD_destroy_response(e->response);
    free(e->key);
    memset(e, 0, sizeof *e);
}

void simt_cache_destroy(struct simt_cache *cache)
{
    if (cache == NULL)
        return;
    if (cache->sets != NULL) {
        for (size_t i = 0; i <= cache->set_mask; i++) {
            for (int w = 0; w < WAYS; w++)
                entry_clear(&cache->sets[i].way[w]);
            pthread_mutex_destroy(&cache->sets[i].lock);
        }
        free(cache->sets);
    }
    free(cache);
}

/* FNV-1a, 64-bit, over each part with its length folded in so that the
 * parts' boundaries count. */
static uint64_t mix(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    for (int i = 0; i < 8; i++) {
        h ^= (unsigned char)(len >> (8 * i));
        h *= 0x100000001b3ULL;
    }
    return h;
}

int simt_cache_key_hash(struct simt_cache *cache, struct simt_cache_key *key)
{
    if (cache->sets == NULL)
        return 0;
    size_t method_len = strlen(key->method), path_len = strlen(key->path);
    size_t type_len = key->content_type ? strlen(key->content_type) : 0;
    if (method_len + path_len + type_len + key->body_len > SIMT_CACHE_MAX_REQUEST_BYTES)
        return 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    h = mix(h, key->method, method_len);
    h = mix(h, key->path, path_len);
    h = mix(h, key->content_type ? key->content_type : "", type_len);
    h ^= key->content_type ? 1u : 0u; /* absent differs from empty */
    h = mix(h, key->body ? key->body : "", key->body_len);
    key->hash = h;
    key->generation = atomic_load_explicit(&cache->generation, memory_order_acquire);
    return 1;
}

static int key_equal(const struct entry *e, const struct simt_cache_key *key)
{
    size_t method_len = strlen(key->method), path_len = strlen(key->path);
    size_t type_len = key->content_type ? strlen(key->content_type) : 0;
    if (e->method_len != method_len || e->path_len != path_len || e->type_len != type_len ||
        e->body_len != key->body_len || e->has_type != (key->content_type != NULL))
        return 0;
    const char *p = e->key;
    if (memcmp(p, key->method, method_len) != 0)
        return 0;
    p += method_len;
    if (memcmp(p, key->path, path_len) != 0)
        return 0;
    p += path_len;
    if (type_len > 0 && memcmp(p, key->content_type, type_len) != 0)
        return 0;
    p += type_len;
    return key->body_len == 0 || memcmp(p, key->body, key->body_len) == 0;
}

int simt_cache_serve(struct simt_cache *cache, const struct simt_cache_key *key, struct MHD_Connection *conn,
                     enum MHD_Result *queued, int *status, const char **route, size_t *body_bytes)
{
    if (cache->sets == NULL)
        return 0;
    uint64_t generation = atomic_load_explicit(&cache->generation, memory_order_acquire);
    struct set *set = &cache->sets[key->hash & cache->set_mask];
    int hit = 0;
    pthread_mutex_lock(&set->lock);
    for (int w = 0; w < WAYS; w++) {
        struct entry *e = &set->way[w];
        if (e->generation != generation || e->hash != key->hash || !key_equal(e, key))
            continue;
        /* queued under the lock: the entry cannot be evicted meanwhile, and
         * the queue holds its own reference afterwards */
        *queued = MHD_queue_response(conn, (unsigned)e->status, e->response);
        *status = e->status;
        *route = e->route;
        *body_bytes = e->body_bytes;
        e->last_used = ++set->clock;
        hit = 1;
        break;
    }
    pthread_mutex_unlock(&set->lock);
    return hit;
}

void simt_cache_store(struct simt_cache *cache, const struct simt_cache_key *key,
                      struct MHD_Response *response, int status, const char *route, size_t body_bytes)
{
    /* tagged with the generation its request began under, not the current
     * one: an answer built from a database swapped out meanwhile is stale */
    uint64_t generation = key->generation;
    if (cache->sets == NULL || body_bytes > SIMT_CACHE_MAX_ANSWER_BYTES || generation == 0) {
        MHD_destroy_response(response);
        return;
    }
    struct entry fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.method_len = strlen(key->method);
    fresh.path_len = strlen(key->path);
    fresh.type_len = key->content_type ? strlen(key->content_type) : 0;
    fresh.body_len = key->body_len;
    fresh.has_type = key->content_type != NULL;
    size_t total = fresh.method_len + fresh.path_len + fresh.type_len + fresh.body_len;
    fresh.key = malloc(total ? total : 1);
    if (fresh.key == NULL) {
        MHD_destroy_response(response);
        return;
    }
    char *p = fresh.key;
    memcpy(p, key->method, fresh.method_len);
    p += fresh.method_len;
    memcpy(p, key->path, fresh.path_len);
    p += fresh.path_len;
    if (fresh.type_len)
        memcpy(p, key->content_type, fresh.type_len);
    p += fresh.type_len;
    if (fresh.body_len)
        memcpy(p, key->body, fresh.body_len);
    fresh.generation = generation;
    fresh.hash = key->hash;
    fresh.response = response;
    fresh.status = status;
    fresh.route = route;
    fresh.body_bytes = body_bytes;

    struct set *set = &cache->sets[key->hash & cache->set_mask];
    struct entry old;
    pthread_mutex_lock(&set->lock);
    struct entry *victim = NULL;
    for (int w = 0; w < WAYS && victim == NULL; w++) {
        struct entry *e = &set->way[w];
        if (e->generation == generation && e->hash == key->hash && key_equal(e, key))
            victim = e; /* a concurrent miss stored it first: replace */
    }
    for (int w = 0; w < WAYS && victim == NULL; w++)
        if (set->way[w].generation != generation)
            victim = &set->way[w]; /* empty or stale */
    if (victim == NULL) {
        victim = &set->way[0];
        for (int w = 1; w < WAYS; w++)
            if (set->way[w].last_used < victim->last_used)
                victim = &set->way[w];
    }
    old = *victim;
    *victim = fresh;
    victim->last_used = ++set->clock;
    pthread_mutex_unlock(&set->lock);
    entry_clear(&old);
}

void simt_cache_invalidate(struct simt_cache *cache)
{
    atomic_fetch_add_explicit(&cache->generation, 1, memory_order_acq_rel);
}
