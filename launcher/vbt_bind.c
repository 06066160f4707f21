/* Cores and bindings. The cores counted are those of mpirun's own allowed cpuset (so
 * "taskset -c 0 mpirun -n 2" is oversubscribed). Ranks that fit are bound one per core by
 * default. More ranks than cores run unbound, and the runtime notices local size > cores and
 * stops spinning: like MPICH, and unlike Open MPI, which refuses unless --oversubscribe is given
 * (--nooversubscribe restores that refusal). Users expect "mpirun -n 4 ./hello" to work on a
 * laptop, and a rank that yields costs little there. */
#include "config.h"

#include "vbt_bind.h"
#include "vbt_log.h"
#include "vbt_msg.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    unsigned core; /* hwloc logical index of the core, as lstopo shows it */
    unsigned pu;   /* OS index of its first PU mpirun may use */
} bind_core_t;

/* Every core mpirun may use, in logical order. */
static vbt_status_t bind_find_cores(bind_core_t **cores_p, int *ncores_p)
{
    vbt_status_t status = VBT_ERR_IO;
    hwloc_topology_t topo;
    hwloc_bitmap_t allowed, pu_set;
    hwloc_obj_type_t type = HWLOC_OBJ_CORE;
    bind_core_t *cores;
    int nobjs, ncores = 0;

    if (hwloc_topology_init(&topo) != 0) {
        vbt_error("hwloc_topology_init failed: %m");
        return VBT_ERR_IO;
    }
    if (hwloc_topology_load(topo) != 0) {
        vbt_error("hwloc cannot read this machine's topology: %m");
        goto err_destroy_topology;
    }
    allowed = hwloc_bitmap_alloc();
    pu_set = hwloc_bitmap_alloc();
    if (allowed == NULL || pu_set == NULL) {
        status = VBT_ERR_NO_MEMORY;
        goto err_free_bitmaps;
    }
    /* mpirun's own binding (taskset, a batch system's cgroup) limits what the ranks may use. */
    if (hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_PROCESS) != 0)
        hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo));
    hwloc_bitmap_and(allowed, allowed, hwloc_topology_get_allowed_cpuset(topo));

    /* Some virtual machines expose no cores; their PUs are the cores then. */
    nobjs = hwloc_get_nbobjs_by_type(topo, type);
    if (nobjs <= 0) {
        type = HWLOC_OBJ_PU;
        nobjs = hwloc_get_nbobjs_by_type(topo, type);
    }
    cores = calloc(nobjs > 0 ? (size_t)nobjs : 1, sizeof(*cores));
    if (cores == NULL) {
        status = VBT_ERR_NO_MEMORY;
        goto err_free_bitmaps;
    }
    for (int i = 0; i < nobjs; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, (unsigned)i);
        int first;

        if (obj == NULL || obj->cpuset == NULL)
            continue;
        hwloc_bitmap_and(pu_set, obj->cpuset, allowed);
        first = hwloc_bitmap_first(pu_set);
        if (first < 0)
            continue;
        cores[ncores].core = obj->logical_index;
        cores[ncores++].pu = (unsigned)first;
    }
    vbt_debug("%d cores in mpirun's allowed cpuset", ncores);
    *cores_p = cores;
    *ncores_p = ncores;
    status = VBT_OK;

err_free_bitmaps:
    hwloc_bitmap_free(pu_set);
    hwloc_bitmap_free(allowed);
err_destroy_topology:
    hwloc_topology_destroy(topo);
    return status;
}

vbt_status_t vbt_bind_plan(const vbt_opts_t *opts, vbt_binding_t *bindings)
{
    vbt_status_t status;
    bind_core_t *cores = NULL;
    int ncores = 0, bind;

    status = bind_find_cores(&cores, &ncores);
    if (status != VBT_OK)
        return status;

    if (opts->nprocs > ncores && opts->oversubscribe == 0) {
        vbt_msg_print("%d ranks requested but only %d core%s available to mpirun on %s, and "
                      "--nooversubscribe was given; drop it to run more ranks than cores (they "
                      "are then not bound)",
                      opts->nprocs, ncores, ncores == 1 ? " is" : "s are", vbt_msg_host());
        status = VBT_ERR_NO_RESOURCE;
        goto out_free_cores;
    }
    if (opts->nprocs > ncores && opts->bind == VBT_BIND_CORE) {
        vbt_msg_print("--bind-to core cannot give %d ranks a core each: only %d core%s available "
                      "on %s; drop --bind-to core (oversubscribed ranks are not bound)",
                      opts->nprocs, ncores, ncores == 1 ? " is" : "s are", vbt_msg_host());
        status = VBT_ERR_INVALID_PARAM;
        goto out_free_cores;
    }

    bind = opts->bind != VBT_BIND_NONE && opts->nprocs <= ncores;
    for (int r = 0; r < opts->nprocs; r++) {
        vbt_binding_t *b = &bindings[r];

        CPU_ZERO(&b->cpus);
        b->bound = bind && cores[r].pu < CPU_SETSIZE; /* bind implies r < ncores */
        b->core = -1;
        b->cpus_text[0] = '\0';
        if (b->bound) {
            b->core = (int)cores[r].core;
            CPU_SET(cores[r].pu, &b->cpus);
            snprintf(b->cpus_text, sizeof(b->cpus_text), "%u", cores[r].pu);
        }
    }
    if (!bind && opts->nprocs > ncores)
        vbt_info("%d ranks on %d cores: oversubscribed, ranks are not bound", opts->nprocs, ncores);

out_free_cores:
    free(cores);
    return status;
}

void vbt_bind_report(const vbt_binding_t *bindings, int nprocs)
{
    for (int r = 0; r < nprocs; r++) {
        if (bindings[r].bound)
            fprintf(stderr, "[%s] rank %d bound to core %d (cpus %s)\n", vbt_msg_host(), r,
                    bindings[r].core, bindings[r].cpus_text);
        else
            fprintf(stderr, "[%s] rank %d not bound\n", vbt_msg_host(), r);
    }
    fflush(stderr);
}

int vbt_bind_apply(const vbt_binding_t *binding)
{
    if (!binding->bound)
        return 0;
    return sched_setaffinity(0, sizeof(binding->cpus), &binding->cpus);
}
