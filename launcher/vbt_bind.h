/* Binding plan (hwloc): how many cores mpirun may use, whether the job fits, where --map-by
 * puts each rank and what --bind-to binds it to. The child applies its binding with
 * sched_setaffinity between fork and exec, so the plan holds plain cpu_set_t masks computed up
 * front in the parent. */
#ifndef VBT_BIND_H
#define VBT_BIND_H

/* cpu_set_t needs _GNU_SOURCE, which config.h (AC_USE_SYSTEM_EXTENSIONS) defines first. */
#include <sched.h>

#include "vbt_opts.h"
#include "vbt_status.h"

typedef struct {
    int bound;           /* 0: the rank runs wherever the kernel puts it */
    char where[64];      /* what it is bound to, lstopo's logical numbers: "socket 0 core 3" */
    cpu_set_t cpus;      /* the PUs of that object that mpirun may use */
    char cpus_text[256]; /* the same as the kernel lists them in Cpus_allowed_list: "0-3,8" */
} vbt_binding_t;

/* Decide the bindings of opts->nprocs ranks (array of nprocs). Fails, after telling the user
 * how many ranks and cores and what to change, with VBT_ERR_NO_RESOURCE when the ranks do not
 * fit the cores under --nooversubscribe, and with VBT_ERR_INVALID_PARAM (a usage error) for an
 * explicit --bind-to with more ranks than cores, or for binding to a topology that is not this
 * machine's (HWLOC_SYNTHETIC, HWLOC_XMLFILE) without --do-not-launch. */
vbt_status_t vbt_bind_plan(const vbt_opts_t *opts, vbt_binding_t *bindings);

/* --report-bindings: one line per rank on stderr. */
void vbt_bind_report(const vbt_binding_t *bindings, int nprocs);

/* In the child after fork: apply the binding (async-signal-safe: one syscall). */
int vbt_bind_apply(const vbt_binding_t *binding);

#endif
