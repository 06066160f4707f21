/* Control variables: one per knob of the knob table (vbt_config.c), so a new knob is a cvar
 * without a line here. What the table does not say is decided here: the enumeration of a knob
 * that takes names, the scope (which knobs take effect when written after MPI_Init), the
 * verbosity and the category.
 *
 * Writable after MPI_Init, because the library reads them where they act, each time:
 *   VBT_LOG               every log call compares with the level (scope local);
 *   VBT_WIN_ALLOCATE_SHM  each MPI_Win_allocate (local: ranks may differ);
 *   VBT_RMA_NIC_ATOMICS   each window's choice of NIC atomics (all-eq: ranks must agree);
 *   VBT_COLL_<NAME>       each collective's choice of algorithm (all-eq: every rank of a
 *                         communicator must choose the same one).
 * The others are read-only: fixed when MPI_Init sets the transports up. Knobs only the build
 * and test scripts read are constant. Before the library is set up a write could not take
 * effect (MPI_Init reads the knobs from the environment): MPI_T_ERR_CVAR_SET_NOT_NOW. */
#include "vbt_coll.h"
#include "vbt_log.h"
#include "vbt_mpit.h"
#include "vbt_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ENUM_LOG, ENUM_BOOL, ENUM_PROGRESS, ENUM_FIXED };

typedef struct {
    const char *name;
    int verbosity;
    int scope;
    int category;
} cvar_rule_t;

/* Knobs by name or name prefix (ending in '_'); the first match wins. */
static const cvar_rule_t rules[] = {
    {"VBT_LOG", MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_LOCAL, VBT_MPIT_CAT_RUNTIME},
    {"VBT_TRANSPORTS", MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_RUNTIME},
    {"VBT_IB_DEVICE", MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_IB},
    {"VBT_IB_GID_INDEX", MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_IB},
    {"VBT_IB_WRITE_MAX", MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_IB},
    {"VBT_EAGER_LIMIT", MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_IB},
    {"VBT_RNDV_THRESHOLD", MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_IB},
    {"VBT_RCACHE_MAX", MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_RCACHE},
    {"VBT_PROGRESS", MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_PROGRESS},
    {"VBT_SHM_RNDV_THRESHOLD", MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_SHM},
    {"VBT_SHM_", MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_SHM},
    {"VBT_WIN_ALLOCATE_SHM", MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_LOCAL,
     VBT_MPIT_CAT_ONESIDED},
    {"VBT_RMA_NIC_ATOMICS", MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_ALL_EQ,
     VBT_MPIT_CAT_ONESIDED},
    {"VBT_COLL_TMP_CACHE", MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_READONLY, VBT_MPIT_CAT_COLL},
    {"VBT_COLL_", MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_ALL_EQ, VBT_MPIT_CAT_COLL},
};

static const cvar_rule_t *rule_of(const char *name)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        size_t n = strlen(rules[i].name);
        if (rules[i].name[n - 1] == '_' ? strncmp(name, rules[i].name, n) == 0
                                        : strcmp(name, rules[i].name) == 0)
            return &rules[i];
    }
    return NULL;
}

static void enum_set(vbt_mpit_enum_t *e, const char *name, const char *const *items, int n)
{
    snprintf(e->name, sizeof(e->name), "%s", name);
    e->n = n;
    for (int i = 0; i < n; i++)
        e->items[i] = items[i];
}

int vbt_mpit_cvars_build(vbt_mpit_t *t)
{
    static const char *const log_items[] = {"error", "warn", "info", "debug", "trace"};
    static const char *const bool_items[] = {"false", "true"};
    static const char *const progress_items[] = {"auto", "spin", "hybrid", "block"};
    size_t nknobs;
    const vbt_knob_t *knobs = vbt_config_knobs(&nknobs);

    t->cvars = calloc(nknobs, sizeof(*t->cvars));
    t->enums = calloc(ENUM_FIXED + nknobs, sizeof(*t->enums));
    if (t->cvars == NULL || t->enums == NULL)
        return vbt_mpit_error("MPI_T_init_thread", MPI_T_ERR_MEMORY, "out of memory");
    enum_set(&t->enums[ENUM_LOG], "log_level", log_items, 5);
    enum_set(&t->enums[ENUM_BOOL], "boolean", bool_items, 2);
    enum_set(&t->enums[ENUM_PROGRESS], "progress_mode", progress_items, 4);
    t->nenums = ENUM_FIXED;

    for (size_t i = 0; i < nknobs; i++) {
        const vbt_knob_t *k = &knobs[i];
        const cvar_rule_t *r = rule_of(k->name);
        vbt_mpit_cvar_t *c = &t->cvars[t->ncvars++];
        const char *algs[VBT_MPIT_ENUM_MAX];
        int nalgs = vbt_coll_knob_values(k->name, algs, VBT_MPIT_ENUM_MAX);

        c->knob = k;
        c->count = 1;
        c->enum_index = -1;
        if (r != NULL && k->dest.i != NULL) {
            c->verbosity = r->verbosity;
            c->scope = r->scope;
            c->category = r->category;
        } else { /* read by the build and test scripts only */
            c->verbosity = MPI_T_VERBOSITY_MPIDEV_ALL;
            c->scope = MPI_T_SCOPE_CONSTANT;
            c->category = VBT_MPIT_CAT_TESTS;
        }
        switch (k->type) {
        case VBT_KNOB_SIZE:
            c->datatype = MPI_UNSIGNED_LONG_LONG;
            break;
        case VBT_KNOB_INT:
            c->datatype = MPI_INT;
            break;
        case VBT_KNOB_BOOL:
            c->datatype = MPI_INT;
            c->enum_index = ENUM_BOOL;
            break;
        case VBT_KNOB_LOG_LEVEL:
            c->datatype = MPI_INT;
            c->enum_index = ENUM_LOG;
            break;
        default:
            c->datatype = MPI_CHAR;
            c->count = VBT_MPIT_STR_MAX;
            if (strcmp(k->name, "VBT_PROGRESS") == 0) {
                c->datatype = MPI_INT;
                c->count = 1;
                c->enum_index = ENUM_PROGRESS;
            } else if (nalgs > 0) {
                char name[48];
                int e = t->nenums++;
                /* VBT_COLL_BCAST: "coll_bcast_algorithm" */
                snprintf(name, sizeof(name), "%.30s_algorithm", k->name + 4);
                for (char *p = name; *p != '\0'; p++)
                    *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
                enum_set(&t->enums[e], name, algs, nalgs);
                c->datatype = MPI_INT;
                c->count = 1;
                c->enum_index = e;
            }
            break;
        }
    }
    return MPI_SUCCESS;
}

const vbt_mpit_enum_t *vbt_mpit_enum_check(const vbt_mpit_t *t, MPI_T_enum handle)
{
    for (int i = 0; i < t->nenums; i++)
        if ((MPI_T_enum)&t->enums[i] == handle)
            return &t->enums[i];
    return NULL;
}

/* A knob's value as the environment sets it (before MPI_Init, and for the scripts' knobs). */
static const char *env_text(const vbt_knob_t *k)
{
    const char *text = getenv(k->name);
    return text != NULL && *text != '\0' ? text : k->default_value;
}

static int64_t env_value(const vbt_knob_t *k)
{
    int64_t v = 0;

    if (vbt_config_parse_value(k->type, env_text(k), &v) != VBT_OK)
        vbt_config_parse_value(k->type, k->default_value, &v);
    return v;
}

static int item_index(const vbt_mpit_enum_t *e, const char *text)
{
    for (int i = 0; i < e->n; i++)
        if (text != NULL && strcmp(e->items[i], text) == 0)
            return i;
    return 0; /* an unknown name fails MPI_Init: not seen while the library is up */
}

int vbt_mpit_cvar_read(const vbt_mpit_t *t, int index, void *buf)
{
    const vbt_mpit_cvar_t *c = &t->cvars[index];
    const vbt_knob_t *k = c->knob;
    int live = vbt_rt.users > 0 && k->dest.i != NULL; /* vbt_cfg holds what MPI_Init read */

    switch (k->type) {
    case VBT_KNOB_STRING: {
        const char *text = live ? *k->dest.str : env_text(k);
        if (c->enum_index >= 0)
            *(int *)buf = item_index(&t->enums[c->enum_index], text);
        else
            snprintf(buf, VBT_MPIT_STR_MAX, "%s", text != NULL ? text : "");
        break;
    }
    case VBT_KNOB_SIZE:
        *(unsigned long long *)buf = live ? *k->dest.size : (unsigned long long)env_value(k);
        break;
    default:
        *(int *)buf = live ? *k->dest.i : (int)env_value(k);
        break;
    }
    return MPI_SUCCESS;
}

int vbt_mpit_cvar_write(vbt_mpit_t *t, int index, const void *buf, const char *call)
{
    const vbt_mpit_cvar_t *c = &t->cvars[index];
    const vbt_knob_t *k = c->knob;
    const vbt_mpit_enum_t *e = c->enum_index >= 0 ? &t->enums[c->enum_index] : NULL;
    int v;

    if (c->scope == MPI_T_SCOPE_CONSTANT || c->scope == MPI_T_SCOPE_READONLY)
        return vbt_mpit_error(call, MPI_T_ERR_CVAR_SET_NEVER,
                              "%s is %s: set it in the environment before MPI_Init", k->name,
                              c->scope == MPI_T_SCOPE_CONSTANT ? "constant (read by scripts)"
                                                               : "read-only after MPI_Init");
    if (vbt_rt.users == 0)
        return vbt_mpit_error(call, MPI_T_ERR_CVAR_SET_NOT_NOW,
                              "%s can be written between MPI_Init (or MPI_Session_init) and "
                              "MPI_Finalize; before, set it in the environment",
                              k->name);
    v = *(const int *)buf;
    if (e != NULL && (v < 0 || v >= e->n))
        return vbt_mpit_error(call, MPI_T_ERR_INVALID,
                              "value %d for %s is not an item of enumeration %s (0 to %d)", v,
                              k->name, e->name, e->n - 1);
    switch (k->type) {
    case VBT_KNOB_STRING: /* VBT_COLL_<NAME>: the algorithm's name, checked by vbt_coll_init */
        *k->dest.str = e->items[v];
        if (vbt_coll_init() != VBT_OK)
            return vbt_mpit_error(call, MPI_T_ERR_INVALID, "%s=%s refused", k->name, e->items[v]);
        break;
    case VBT_KNOB_LOG_LEVEL:
        *k->dest.i = v;
        vbt_log_level = (vbt_log_level_t)v;
        break;
    default:
        *k->dest.i = v;
        break;
    }
    vbt_debug("MPI_T: %s set to %s", k->name, e != NULL ? e->items[v] : "a new value");
    return MPI_SUCCESS;
}
