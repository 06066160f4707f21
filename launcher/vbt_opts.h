/* mpirun's command line: Open MPI and MPICH spellings of the common options, MPMD colon syntax.
 * Everything after the program name (up to a lone ":") belongs to the program. */
#ifndef VBT_OPTS_H
#define VBT_OPTS_H

#include "vbt_status.h"

/* --bind-to: what each rank is bound to, around the slot --map-by gave it. */
typedef enum {
    VBT_BIND_AUTO,     /* core when the ranks fit the cores, none when oversubscribed */
    VBT_BIND_HWTHREAD, /* one PU; the slots are then PUs, not cores */
    VBT_BIND_CORE,     /* every PU of the rank's core */
    VBT_BIND_NUMA,     /* every PU of the NUMA node holding the rank's core */
    VBT_BIND_SOCKET,   /* every PU of the package holding the rank's core */
    VBT_BIND_NONE,
} vbt_bind_policy_t;

/* --map-by: which slot (core, or PU under --bind-to hwthread) each rank gets. */
typedef enum {
    VBT_MAP_AUTO,   /* core for up to 2 ranks, socket beyond: Open MPI's default */
    VBT_MAP_CORE,   /* slots in order: rank i on core i */
    VBT_MAP_NUMA,   /* round-robin over NUMA nodes, the next free slot in each */
    VBT_MAP_SOCKET, /* round-robin over packages, the next free slot in each */
} vbt_map_policy_t;

/* --launcher: who starts the ranks. */
typedef enum {
    VBT_LAUNCHER_AUTO,  /* srun inside a Slurm allocation of more than one node, else local */
    VBT_LAUNCHER_LOCAL, /* mpirun forks them on this machine, with its own PMIx server */
    VBT_LAUNCHER_SLURM, /* mpirun execs srun --mpi=pmix */
} vbt_launcher_t;

typedef enum {
    VBT_TAG_NONE,
    VBT_TAG_OUTPUT, /* --tag-output: "[1,R]<stdout>: " like Open MPI */
    VBT_TAG_RANK,   /* -l: "[R] " like MPICH */
} vbt_tag_style_t;

/* One application context: "-n N prog args" between colons. */
typedef struct {
    int nprocs;
    int nprocs_given; /* -n was given (else nprocs is a default srun may know better) */
    int first_rank;
    char **argv; /* malloc'd, NULL-terminated; strings point into main's argv */
    char *path;  /* resolved executable, malloc'd (vbt_spawn_resolve) */
} vbt_app_t;

typedef struct {
    vbt_app_t *apps;
    int napps;
    int nprocs; /* total over all apps */
    char **env; /* "NAME=value" strings from -x/--env/-genv, malloc'd, applied in order */
    int nenv;
    vbt_bind_policy_t bind;
    vbt_map_policy_t map;
    int report_bindings;
    int do_not_launch; /* plan (and report) the bindings, start nothing */
    int oversubscribe; /* -1 allowed by default, 1 --oversubscribe, 0 --nooversubscribe */
    vbt_tag_style_t tag;
    int timeout;      /* seconds, 0 for none */
    const char *wdir; /* NULL: mpirun's working directory */
    vbt_launcher_t launcher;
    char *hosts;          /* --host/-H lists, joined with ',' (malloc'd), NULL when none */
    const char *hostfile; /* --hostfile/--machinefile, NULL when none */
    int npernode;         /* --npernode/-N/-ppn/--map-by ppr:N:node, 0 when not given */
    int help;
    int version;
} vbt_opts_t;

/* Parse argv into opts. On a usage error prints one message naming the problem and pointing
 * to --help, and returns VBT_ERR_INVALID_PARAM. */
vbt_status_t vbt_opts_parse(int argc, char **argv, vbt_opts_t *opts);
void vbt_opts_cleanup(vbt_opts_t *opts);
void vbt_opts_print_help(void);

/* The canonical names, for messages ("socket" for VBT_BIND_SOCKET). */
const char *vbt_opts_bind_name(vbt_bind_policy_t bind);
const char *vbt_opts_map_name(vbt_map_policy_t map);
const char *vbt_opts_launcher_name(vbt_launcher_t launcher);

#endif
