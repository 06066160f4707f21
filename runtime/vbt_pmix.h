/* The runtime's view of the process manager: who we are, who is on our node, and a small
 * modex (publish a blob under a key, fence once, read any peer's blob). Backed by PMIx; this
 * header hides it so only vbt_pmix.c includes <pmix.h>. */
#ifndef VBT_PMIX_H
#define VBT_PMIX_H

#include <stddef.h>

#include "vbt_status.h"

typedef struct {
    int rank;
    int size;
    int local_rank;
    int local_size;
    int node_rank;
    int appnum;
    int *local_peers; /* world ranks on this node, local_size of them, ascending */
    int singleton;    /* started without a process manager: a world of one */
    char hostname[256];
} vbt_proc_info_t;

/* Connect to the process manager (or become a singleton) and fill in *info_p. An *info_p
 * filled by an earlier call (size > 0) is kept: then only the connection is made again. */
vbt_status_t vbt_pmix_init(vbt_proc_info_t *info_p);
/* Wait until every rank has called it (collective; no data). */
vbt_status_t vbt_pmix_barrier(void);
/* Wait until the ranks listed (world ranks of this node, ours among them, the same list on
 * each) have all called it. No-op for fewer than two. */
vbt_status_t vbt_pmix_barrier_local(const int *ranks, int n);
/* A fence without data, then disconnect: at once, or, with keep set and the fence passed, at
 * exit (the library may come up again on the same connection; see vbt_pmix.c). */
vbt_status_t vbt_pmix_finalize(int keep);
/* Ask the process manager to end the whole job with this exit code; does not return. */
void vbt_pmix_abort(int code, const char *msg) __attribute__((noreturn));

/* Publish a blob under key for every peer to read after the next vbt_modex_fence(). */
vbt_status_t vbt_modex_put(const char *key, const void *data, size_t len);
/* Commit what was put and wait until every rank has done the same (collective). */
vbt_status_t vbt_modex_fence(void);
/* Read the blob rank published under key; *data_p is malloc'ed, the caller frees it. */
vbt_status_t vbt_modex_get(int rank, const char *key, void **data_p, size_t *len_p);

#endif
