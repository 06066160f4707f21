/* Mapping and binding, from hwloc's view of the machine.
 *
 * Each rank gets a slot: a core (a PU under --bind-to hwthread, so that hardware threads can
 * be bound one rank each). --map-by chooses the slot: core takes them in order; socket and numa
 * go round-robin over the packages or NUMA nodes, each rank taking the first free slot of its
 * object, so rank 0 lands on socket 0, rank 1 on socket 1, rank 2 on socket 0 again. This is
 * Open MPI's mapping, and its default too: core for up to two ranks, socket beyond, which
 * spreads memory bandwidth over the sockets. --bind-to then binds the rank to its slot's core,
 * to that one PU, or to the whole package or NUMA node holding the slot.
 *
 * The slots counted are those with a PU in mpirun's own allowed cpuset (so "taskset -c 0
 * mpirun -n 2" is oversubscribed). More ranks than slots run unbound, and the runtime notices
 * local size > cpus and stops spinning: like MPICH, and unlike Open MPI, which refuses unless
 * --oversubscribe is given (--nooversubscribe restores that refusal). Users expect
 * "mpirun -n 4 ./hello" to work on a laptop, and a rank that yields costs little there. An
 * explicit --bind-to with more ranks than slots is refused, as Open MPI refuses to overload.
 *
 * hwloc may read a topology that is not this machine's (HWLOC_SYNTHETIC, HWLOC_XMLFILE): the
 * plan can then be shown (--do-not-launch --report-bindings, how the tests check mappings of
 * machines they do not run on) but not applied, since its cpus are not this machine's. */
#include "config.h"

#include "vbt_bind.h"
#include "vbt_log.h"
#include "vbt_msg.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the plan is made from. */
typedef struct {
    hwloc_topology_t topo;
    int thissystem;         /* the topology is this machine's: its cpus can be bound to */
    hwloc_bitmap_t allowed; /* the PUs mpirun may use */
    hwloc_obj_t *slots;     /* cores (PUs) with an allowed PU, in the order they are handed out */
    int nslots;
    const char *slot_noun; /* "core" or "hwthread", for messages */
} bind_machine_t;

typedef struct {
    hwloc_obj_t pu;
    int thread; /* how many allowed PUs of the same core come before it */
    int index;  /* logical order */
} bind_pu_key_t;

static int bind_pu_key_cmp(const void *a, const void *b)
{
    const bind_pu_key_t *x = a, *y = b;

    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* PUs as slots: the first hardware thread of every core before any core gets a second rank,
 * as Open MPI's round-robin over cores does, since two ranks on one core share its units. */
static vbt_status_t bind_order_pus(bind_machine_t *m)
{
    bind_pu_key_t *keys = calloc((size_t)m->nslots + 1, sizeof(*keys));
    hwloc_obj_t prev_core = NULL;

    if (keys == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < m->nslots; i++) {
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(m->topo, HWLOC_OBJ_CORE, m->slots[i]);

        /* Logical order keeps the PUs of a core together. */
        keys[i].thread = core != NULL && core == prev_core ? keys[i - 1].thread + 1 : 0;
        keys[i].pu = m->slots[i];
        keys[i].index = i;
        prev_core = core;
    }
    qsort(keys, (size_t)m->nslots, sizeof(*keys), bind_pu_key_cmp);
    for (int i = 0; i < m->nslots; i++)
        m->slots[i] = keys[i].pu;
    free(keys);
    return VBT_OK;
}

static void bind_machine_cleanup(bind_machine_t *m)
{
    free(m->slots);
    hwloc_bitmap_free(m->allowed);
    hwloc_topology_destroy(m->topo);
}

static vbt_status_t bind_machine_load(bind_machine_t *m, hwloc_obj_type_t slot_type)
{
    vbt_status_t status = VBT_ERR_NO_MEMORY;
    hwloc_bitmap_t own = NULL;
    int nobjs;

    memset(m, 0, sizeof(*m));
    if (hwloc_topology_init(&m->topo) != 0) {
        vbt_error("hwloc_topology_init failed: %m");
        return VBT_ERR_IO;
    }
    if (hwloc_topology_load(m->topo) != 0) {
        vbt_error("hwloc cannot read this machine's topology: %m");
        hwloc_topology_destroy(m->topo);
        return VBT_ERR_IO;
    }
    m->thissystem = hwloc_topology_is_thissystem(m->topo);
    m->allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(m->topo));
    own = hwloc_bitmap_alloc();
    if (m->allowed == NULL || own == NULL)
        goto err_cleanup;
    /* mpirun's own binding (taskset, a batch system's cgroup) limits what the ranks may use.
     * Another machine's topology has nothing to do with this process's binding. */
    if (m->thissystem && hwloc_get_cpubind(m->topo, own, HWLOC_CPUBIND_PROCESS) == 0)
        hwloc_bitmap_and(m->allowed, m->allowed, own);

    /* Some virtual machines expose no cores; their PUs are the cores then. */
    m->slot_noun = slot_type == HWLOC_OBJ_CORE ? "core" : "hwthread";
    if (hwloc_get_nbobjs_by_type(m->topo, slot_type) <= 0)
        slot_type = HWLOC_OBJ_PU;
    nobjs = hwloc_get_nbobjs_by_type(m->topo, slot_type);
    m->slots = calloc(nobjs > 0 ? (size_t)nobjs : 1, sizeof(*m->slots));
    if (m->slots == NULL)
        goto err_cleanup;
    for (int i = 0; i < nobjs; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(m->topo, slot_type, (unsigned)i);

        if (obj != NULL && obj->cpuset != NULL && hwloc_bitmap_intersects(obj->cpuset, m->allowed))
            m->slots[m->nslots++] = obj;
    }
    if (slot_type == HWLOC_OBJ_PU && hwloc_get_nbobjs_by_type(m->topo, HWLOC_OBJ_CORE) > 0) {
        status = bind_order_pus(m);
        if (status != VBT_OK)
            goto err_cleanup;
    }
    vbt_debug("%d %ss in mpirun's allowed cpuset (topology %s this machine's)", m->nslots,
              m->slot_noun, m->thissystem ? "is" : "is not");
    hwloc_bitmap_free(own);
    return VBT_OK;

err_cleanup:
    hwloc_bitmap_free(own);
    bind_machine_cleanup(m);
    return status;
}

/* The package or NUMA node (type) holding a slot, NULL when hwloc finds none. */
static hwloc_obj_t bind_holder(const bind_machine_t *m, hwloc_obj_type_t type, hwloc_obj_t slot)
{
    hwloc_obj_t numa = NULL;
    int pu = -1;

    if (slot->type == type)
        return slot;
    if (type != HWLOC_OBJ_NUMANODE)
        return hwloc_get_ancestor_obj_by_type(m->topo, type, slot);
    /* In hwloc 2 NUMA nodes hang beside the cpus (memory children), not above them: take the
     * first whose cpus hold the slot's first allowed PU. Where several do (DDR and HBM of one
     * package) the first is the ordinary memory; nodes without cpus (CXL) hold none. */
    do
        pu = hwloc_bitmap_next(slot->cpuset, pu);
    while (pu >= 0 && !hwloc_bitmap_isset(m->allowed, (unsigned)pu));
    if (pu < 0)
        return NULL;
    while ((numa = hwloc_get_next_obj_by_type(m->topo, HWLOC_OBJ_NUMANODE, numa)) != NULL) {
        if (numa->cpuset != NULL && hwloc_bitmap_isset(numa->cpuset, (unsigned)pu))
            return numa;
    }
    return NULL;
}

/* order[r] is the slot of rank r; nprocs <= nslots. For socket and numa, slots that hwloc
 * places in no package or NUMA node form one more object after the others. */
static vbt_status_t bind_map(const bind_machine_t *m, vbt_map_policy_t map, int nprocs, int *order)
{
    hwloc_obj_type_t type = map == VBT_MAP_NUMA ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_PACKAGE;
    int nobjs, ngroups, g = 0;
    int *group, *cursor;

    if (map == VBT_MAP_CORE) {
        for (int r = 0; r < nprocs; r++)
            order[r] = r;
        return VBT_OK;
    }
    nobjs = hwloc_get_nbobjs_by_type(m->topo, type);
    if (nobjs < 0)
        nobjs = 0;
    ngroups = nobjs + 1;
    group = calloc((size_t)m->nslots + 1, sizeof(*group));
    cursor = calloc((size_t)ngroups, sizeof(*cursor));
    if (group == NULL || cursor == NULL) {
        free(cursor);
        free(group);
        return VBT_ERR_NO_MEMORY;
    }
    for (int i = 0; i < m->nslots; i++) {
        hwloc_obj_t holder = bind_holder(m, type, m->slots[i]);

        group[i] = holder != NULL && holder->logical_index < (unsigned)nobjs
                       ? (int)holder->logical_index
                       : nobjs;
    }
    /* Round-robin over the objects, skipping those with no free slot left. cursor[g] only
     * moves forward, so the whole mapping reads the slots once per object. */
    for (int r = 0; r < nprocs; r++) {
        int i = m->nslots;

        for (int tries = 0; tries < ngroups && i == m->nslots; tries++) {
            i = cursor[g];
            while (i < m->nslots && group[i] != g)
                i++;
            cursor[g] = i < m->nslots ? i + 1 : i;
            g = (g + 1) % ngroups;
        }
        order[r] = i < m->nslots ? i : 0; /* always found: nprocs <= nslots */
    }
    free(cursor);
    free(group);
    return VBT_OK;
}

/* What a rank on slot is bound to under --bind-to bind. */
static hwloc_obj_t bind_target(const bind_machine_t *m, vbt_bind_policy_t bind, hwloc_obj_t slot)
{
    hwloc_obj_t obj;

    if (bind == VBT_BIND_SOCKET)
        obj = bind_holder(m, HWLOC_OBJ_PACKAGE, slot);
    else if (bind == VBT_BIND_NUMA)
        obj = bind_holder(m, HWLOC_OBJ_NUMANODE, slot);
    else
        return slot; /* its core, or its PU under hwthread */
    /* A machine where hwloc finds no package (some VMs) is one socket. */
    return obj != NULL ? obj : hwloc_get_root_obj(m->topo);
}

/* "socket 0 core 3", "socket 1 core 5 hwthread 10", "numa 1": lstopo's logical numbers. */
static void bind_describe(const bind_machine_t *m, hwloc_obj_t obj, char *text, size_t size)
{
    hwloc_obj_t pkg, core;
    int len = 0;

    if (obj->type == HWLOC_OBJ_NUMANODE) {
        snprintf(text, size, "numa %u", obj->logical_index);
        return;
    }
    if (obj->type == HWLOC_OBJ_MACHINE) {
        snprintf(text, size, "machine");
        return;
    }
    pkg = obj->type == HWLOC_OBJ_PACKAGE
              ? obj
              : hwloc_get_ancestor_obj_by_type(m->topo, HWLOC_OBJ_PACKAGE, obj);
    core = obj->type == HWLOC_OBJ_CORE
               ? obj
               : hwloc_get_ancestor_obj_by_type(m->topo, HWLOC_OBJ_CORE, obj);
    text[0] = '\0';
    if (pkg != NULL)
        len += snprintf(text + len, size - (size_t)len, "socket %u", pkg->logical_index);
    if (core != NULL && (size_t)len < size)
        len += snprintf(text + len, size - (size_t)len, "%score %u", len > 0 ? " " : "",
                        core->logical_index);
    if (obj->type == HWLOC_OBJ_PU && (size_t)len < size)
        snprintf(text + len, size - (size_t)len, "%shwthread %u", len > 0 ? " " : "",
                 obj->logical_index);
}

/* Bind b to the allowed PUs of obj. Returns 0 when a PU lies beyond what a cpu_set_t holds. */
static int bind_fill(const bind_machine_t *m, hwloc_obj_t obj, hwloc_bitmap_t set, vbt_binding_t *b)
{
    int pu;

    hwloc_bitmap_and(set, obj->cpuset, m->allowed);
    if (hwloc_bitmap_last(set) >= CPU_SETSIZE)
        return 0;
    CPU_ZERO(&b->cpus);
    for (pu = hwloc_bitmap_first(set); pu >= 0; pu = hwloc_bitmap_next(set, pu))
        CPU_SET((unsigned)pu, &b->cpus);
    hwloc_bitmap_list_snprintf(b->cpus_text, sizeof(b->cpus_text), set);
    bind_describe(m, obj, b->where, sizeof(b->where));
    b->bound = 1;
    return 1;
}

/* Which variable made hwloc read another topology, for the message. */
static const char *bind_topology_source(void)
{
    static const char *const vars[] = {"HWLOC_SYNTHETIC", "HWLOC_XMLFILE", "HWLOC_FSROOT",
                                       "HWLOC_CPUID_PATH", "HWLOC_COMPONENTS"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v != '\0')
            return vars[i];
    }
    return NULL;
}

vbt_status_t vbt_bind_plan(const vbt_opts_t *opts, vbt_binding_t *bindings)
{
    vbt_bind_policy_t bind = opts->bind;
    vbt_map_policy_t map = opts->map;
    int nprocs = opts->nprocs, beyond = 0;
    hwloc_bitmap_t set = NULL;
    bind_machine_t m;
    vbt_status_t status;
    int *order = NULL;

    memset(bindings, 0, sizeof(*bindings) * (size_t)nprocs);
    status = bind_machine_load(&m, bind == VBT_BIND_HWTHREAD ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE);
    if (status == VBT_ERR_NO_MEMORY)
        vbt_msg_print("out of memory reading the machine's topology");
    if (status != VBT_OK)
        return status;

    if (nprocs > m.nslots && opts->oversubscribe == 0) {
        vbt_msg_print("%d ranks requested but only %d %s%s available to mpirun on %s, and "
                      "--nooversubscribe was given; drop it to run more ranks than %ss (they "
                      "are then not bound)",
                      nprocs, m.nslots, m.slot_noun, m.nslots == 1 ? " is" : "s are",
                      vbt_msg_host(), m.slot_noun);
        status = VBT_ERR_NO_RESOURCE;
        goto out_cleanup;
    }
    if (nprocs > m.nslots && bind != VBT_BIND_AUTO && bind != VBT_BIND_NONE) {
        vbt_msg_print("--bind-to %s cannot place %d ranks one per %s: only %d %s%s available "
                      "on %s; drop --bind-to %s to run them unbound",
                      vbt_opts_bind_name(bind), nprocs, m.slot_noun, m.nslots, m.slot_noun,
                      m.nslots == 1 ? " is" : "s are", vbt_msg_host(), vbt_opts_bind_name(bind));
        status = VBT_ERR_INVALID_PARAM;
        goto out_cleanup;
    }
    if (bind == VBT_BIND_NONE || nprocs > m.nslots) {
        if (bind != VBT_BIND_NONE)
            vbt_info("%d ranks on %d %ss: oversubscribed, ranks are not bound", nprocs, m.nslots,
                     m.slot_noun);
        goto out_cleanup;
    }
    if (!m.thissystem && !opts->do_not_launch) {
        const char *var = bind_topology_source();

        vbt_msg_print("hwloc's topology is not this machine's%s%s%s, so the ranks cannot be "
                      "bound to its cpus; add --do-not-launch to only show the plan, or "
                      "--bind-to none",
                      var != NULL ? " (" : "", var != NULL ? var : "",
                      var != NULL ? " is set)" : "");
        status = VBT_ERR_INVALID_PARAM;
        goto out_cleanup;
    }

    if (bind == VBT_BIND_AUTO)
        bind = VBT_BIND_CORE;
    if (map == VBT_MAP_AUTO)
        map = nprocs <= 2 ? VBT_MAP_CORE : VBT_MAP_SOCKET;
    vbt_debug("mapping %d ranks by %s, binding to %s", nprocs, vbt_opts_map_name(map),
              vbt_opts_bind_name(bind));
    order = calloc((size_t)nprocs, sizeof(*order));
    set = hwloc_bitmap_alloc();
    if (order == NULL || set == NULL) {
        status = VBT_ERR_NO_MEMORY;
        goto out_cleanup;
    }
    status = bind_map(&m, map, nprocs, order);
    if (status != VBT_OK)
        goto out_cleanup;
    for (int r = 0; r < nprocs; r++) {
        if (!bind_fill(&m, bind_target(&m, bind, m.slots[order[r]]), set, &bindings[r]))
            beyond++;
    }
    if (beyond > 0)
        vbt_msg_print("warning: %d rank%s left unbound: cpus numbered %d and up do not fit "
                      "in sched_setaffinity's cpu_set_t",
                      beyond, beyond == 1 ? "" : "s", CPU_SETSIZE);

out_cleanup:
    /* The one failure not named where it happened (the allocations above and in bind_map). */
    if (status == VBT_ERR_NO_MEMORY)
        vbt_msg_print("out of memory planning the bindings of %d ranks", nprocs);
    hwloc_bitmap_free(set);
    free(order);
    bind_machine_cleanup(&m);
    return status;
}

void vbt_bind_report(const vbt_binding_t *bindings, int nprocs)
{
    for (int r = 0; r < nprocs; r++) {
        if (bindings[r].bound)
            fprintf(stderr, "[%s] rank %d bound to %s (cpus %s)\n", vbt_msg_host(), r,
                    bindings[r].where, bindings[r].cpus_text);
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
