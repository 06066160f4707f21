/* mpirun's command line: Open MPI and MPICH spellings of the common options, MPMD colon syntax.
 * Everything after the program name (up to a lone ":") belongs to the program. */
#ifndef VBT_OPTS_H
#define VBT_OPTS_H

#include "vbt_status.h"

typedef enum {
    VBT_BIND_AUTO, /* core when the ranks fit the cores, none when oversubscribed */
    VBT_BIND_CORE,
    VBT_BIND_NONE,
} vbt_bind_policy_t;

typedef enum {
    VBT_TAG_NONE,
    VBT_TAG_OUTPUT, /* --tag-output: "[1,R]<stdout>: " like Open MPI */
    VBT_TAG_RANK,   /* -l: "[R] " like MPICH */
} vbt_tag_style_t;

/* One application context: "-n N prog args" between colons. */
typedef struct {
    int nprocs;
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
    int report_bindings;
    int oversubscribe; /* -1 allowed by default, 1 --oversubscribe, 0 --nooversubscribe */
    vbt_tag_style_t tag;
    int timeout;      /* seconds, 0 for none */
    const char *wdir; /* NULL: mpirun's working directory */
    int help;
    int version;
} vbt_opts_t;

/* Parse argv into opts. On a usage error prints one message naming the problem and pointing
 * to --help, and returns VBT_ERR_INVALID_PARAM. */
vbt_status_t vbt_opts_parse(int argc, char **argv, vbt_opts_t *opts);
void vbt_opts_cleanup(vbt_opts_t *opts);
void vbt_opts_print_help(void);

#endif
