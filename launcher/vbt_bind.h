/* Binding plan (hwloc): how many cores mpirun may use, whether the job fits, and which core
 * each rank is bound to. The child applies its binding with sched_setaffinity between fork and
 * exec, so the plan holds plain cpu_set_t masks computed up front in the parent. */
#ifndef VBT_BIND_H
#define VBT_BIND_H

/* cpu_set_t needs _GNU_SOURCE, which config.h (AC_USE_SYSTEM_EXTENSIONS) defines first. */
#include <sched.h>

#include "vbt_opts.h"
#include "vbt_status.h"

typedef struct {
    int bound;      /* 0: the rank runs wherever the kernel puts it */
    int core;       /* hwloc logical index of the core (as lstopo numbers them) */
    cpu_set_t cpus; /* the first PU of that core that mpirun may use */
    char cpus_text[64];
} vbt_binding_t;

/* Decide the bindings of nprocs ranks (array of nprocs). Fails with VBT_ERR_NO_RESOURCE, after
 * telling the user how many ranks and cores and what to add, when the ranks do not fit the
 * cores and --oversubscribe was not given; VBT_ERR_INVALID_PARAM for --bind-to core with more
 * ranks than cores. */
vbt_status_t vbt_bind_plan(const vbt_opts_t *opts, vbt_binding_t *bindings);

/* --report-bindings: one line per rank on stderr. */
void vbt_bind_report(const vbt_binding_t *bindings, int nprocs);

/* In the child after fork: apply the binding (async-signal-safe: one syscall). */
int vbt_bind_apply(const vbt_binding_t *binding);

#endif
