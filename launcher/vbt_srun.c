/* mpirun through srun. What each option becomes:
 *   -n N                  --ntasks=N (no -n: the --host slots, else the allocation's tasks)
 *   --npernode N          --ntasks-per-node=N
 *   --host/--hostfile     --nodelist=a,b,...
 *   --map-by core|socket  --distribution=block|block:cyclic
 *   --bind-to X           --cpu-bind=cores|threads|sockets|ldoms|none (verbose, with
 *                         --report-bindings)
 *   --oversubscribe       --overcommit
 *   --tag-output, -l      --label (srun's "R: " prefix)
 *   -x/--env/-genv        set in the environment srun passes on whole (--export=ALL); this
 *                         way a value may hold commas, which --export=VAR=value cannot
 *   --wdir DIR            --chdir=DIR (absolute)
 *   --timeout S           srun under timeout(1): SIGTERM after S seconds, exit status 124
 * and always --input=0 (stdin to rank 0, as mpirun does) and --kill-on-bad-exit=1 (the job
 * ends at the first rank to fail, as under mpirun). Output and the exit status are srun's. */
#include "config.h"

#include "vbt_srun.h"
#include "vbt_log.h"
#include "vbt_msg.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VBT_SRUN_EXIT_USAGE     2
#define VBT_SRUN_EXIT_NOT_FOUND 127
#define VBT_SRUN_EXIT_ERROR     1

extern char **environ;

static const char srun_advice[] = "outside a Slurm allocation mpirun starts ranks on this "
                                  "machine only; run it inside one (salloc or sbatch), or "
                                  "start the ranks with srun --mpi=pmix";

/* The allocation's node count: SLURM_JOB_NUM_NODES, or SLURM_NNODES (older Slurm). */
static int srun_alloc_nodes(void)
{
    const char *names[] = {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && *v != '\0')
            return atoi(v);
    }
    return 1;
}

/* The ranks asked for, or 0 when srun is to decide: one program without -n and no slots. */
static int srun_nprocs(const vbt_opts_t *opts, const vbt_hostlist_t *hosts)
{
    if (opts->napps != 1 || opts->apps[0].nprocs_given)
        return opts->nprocs;
    return hosts->slots;
}

vbt_status_t vbt_srun_choose(const vbt_opts_t *opts, const vbt_hostlist_t *hosts, int *use_srun_p)
{
    const char *remote = vbt_hosts_first_remote(hosts);
    const char *jobid = getenv("SLURM_JOB_ID");
    int in_alloc = jobid != NULL && *jobid != '\0';
    int nprocs = srun_nprocs(opts, hosts);
    int multi_node = opts->npernode > 0 && nprocs > opts->npernode;
    const char *why = opts->launcher == VBT_LAUNCHER_LOCAL
                          ? "--launcher local starts ranks on this machine only"
                          : srun_advice;

    switch (opts->launcher) {
    case VBT_LAUNCHER_SLURM:
        *use_srun_p = 1;
        return VBT_OK;
    case VBT_LAUNCHER_AUTO:
        if (in_alloc && (srun_alloc_nodes() > 1 || remote != NULL || multi_node)) {
            vbt_debug("inside Slurm job %s of %d nodes: starting the ranks with srun", jobid,
                      srun_alloc_nodes());
            *use_srun_p = 1;
            return VBT_OK;
        }
        break;
    case VBT_LAUNCHER_LOCAL:
        break;
    }
    if (remote != NULL) {
        vbt_msg_print("host %s is not this machine (%s): %s", remote, vbt_msg_host(), why);
        return VBT_ERR_INVALID_PARAM;
    }
    if (multi_node) {
        vbt_msg_print("%d ranks at %d per node need %d nodes: %s", nprocs, opts->npernode,
                      (nprocs + opts->npernode - 1) / opts->npernode, why);
        return VBT_ERR_INVALID_PARAM;
    }
    *use_srun_p = 0;
    return VBT_OK;
}

typedef struct {
    char **argv;
    int argc;
    int failed;
} vbt_srun_argv_t;

static void srun_arg(vbt_srun_argv_t *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void srun_arg(vbt_srun_argv_t *a, const char *fmt, ...)
{
    char **grown;
    char *word;
    va_list ap;
    int n;

    if (a->failed)
        return;
    va_start(ap, fmt);
    n = vasprintf(&word, fmt, ap);
    va_end(ap);
    grown = n >= 0 ? realloc(a->argv, sizeof(char *) * (size_t)(a->argc + 2)) : NULL;
    if (grown == NULL) {
        if (n >= 0)
            free(word);
        a->failed = 1;
        return;
    }
    a->argv = grown;
    a->argv[a->argc++] = word;
    a->argv[a->argc] = NULL;
}

static void srun_argv_free(vbt_srun_argv_t *a)
{
    for (int i = 0; i < a->argc; i++)
        free(a->argv[i]);
    free(a->argv);
}

static const char *srun_cpu_bind(vbt_bind_policy_t bind)
{
    switch (bind) {
    case VBT_BIND_CORE:
        return "cores";
    case VBT_BIND_HWTHREAD:
        return "threads";
    case VBT_BIND_SOCKET:
        return "sockets";
    case VBT_BIND_NUMA:
        return "ldoms";
    case VBT_BIND_NONE:
        return "none";
    case VBT_BIND_AUTO:
        break;
    }
    return NULL;
}

static const char *srun_distribution(vbt_map_policy_t map)
{
    switch (map) {
    case VBT_MAP_CORE:
        return "block";
    case VBT_MAP_SOCKET:
    case VBT_MAP_NUMA:
        return "block:cyclic";
    case VBT_MAP_AUTO:
        break;
    }
    return NULL;
}

static vbt_status_t srun_build(const vbt_opts_t *opts, const vbt_hostlist_t *hosts,
                               vbt_srun_argv_t *a)
{
    const vbt_app_t *app = &opts->apps[0];
    const char *bind = srun_cpu_bind(opts->bind);
    const char *dist = srun_distribution(opts->map);
    int nprocs = srun_nprocs(opts, hosts);

    if (opts->timeout > 0) {
        srun_arg(a, "timeout");
        srun_arg(a, "--kill-after=10");
        srun_arg(a, "%d", opts->timeout);
    }
    srun_arg(a, "srun");
    srun_arg(a, "--mpi=pmix");
    if (nprocs > 0)
        srun_arg(a, "--ntasks=%d", nprocs);
    if (opts->npernode > 0)
        srun_arg(a, "--ntasks-per-node=%d", opts->npernode);
    if (hosts->nhosts > 0) {
        size_t len = 0;
        char *list;

        for (int i = 0; i < hosts->nhosts; i++)
            len += strlen(hosts->hosts[i].name) + 1;
        list = calloc(1, len + 1);
        if (list == NULL)
            return VBT_ERR_NO_MEMORY;
        for (int i = 0; i < hosts->nhosts; i++) {
            if (i > 0)
                strcat(list, ",");
            strcat(list, hosts->hosts[i].name);
        }
        srun_arg(a, "--nodelist=%s", list);
        free(list);
    }
    if (dist != NULL)
        srun_arg(a, "--distribution=%s", dist);
    if (bind != NULL || opts->report_bindings)
        srun_arg(a, "--cpu-bind=%s%s%s", opts->report_bindings ? "verbose" : "",
                 opts->report_bindings && bind != NULL ? "," : "", bind != NULL ? bind : "");
    if (opts->oversubscribe == 1)
        srun_arg(a, "--overcommit");
    if (opts->tag != VBT_TAG_NONE)
        srun_arg(a, "--label");
    if (opts->wdir != NULL) {
        char abs[PATH_MAX];

        if (realpath(opts->wdir, abs) == NULL) {
            vbt_msg_print("--wdir %s: %s", opts->wdir, strerror(errno));
            return VBT_ERR_INVALID_PARAM;
        }
        srun_arg(a, "--chdir=%s", abs);
    }
    srun_arg(a, "--input=0");
    srun_arg(a, "--export=ALL");
    srun_arg(a, "--kill-on-bad-exit=1");
    srun_arg(a, "%s", app->path != NULL ? app->path : app->argv[0]);
    for (int i = 1; app->argv[i] != NULL; i++)
        srun_arg(a, "%s", app->argv[i]);
    return a->failed ? VBT_ERR_NO_MEMORY : VBT_OK;
}

/* A word as a POSIX shell reads it back. */
static void srun_print_word(FILE *out, const char *word)
{
    if (*word != '\0' && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                      "0123456789_./:=,@%+-") == strlen(word)) {
        fputs(word, out);
        return;
    }
    fputc('\'', out);
    for (const char *p = word; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else
            fputc(*p, out);
    }
    fputc('\'', out);
}

/* --do-not-launch: the command, with the -x/--env settings as "env VAR=value" in front. */
static void srun_print(const vbt_opts_t *opts, const vbt_srun_argv_t *a)
{
    if (opts->nenv > 0) {
        fputs("env ", stdout);
        for (int i = 0; i < opts->nenv; i++) {
            srun_print_word(stdout, opts->env[i]);
            fputc(' ', stdout);
        }
    }
    for (int i = 0; i < a->argc; i++) {
        if (i > 0)
            fputc(' ', stdout);
        srun_print_word(stdout, a->argv[i]);
    }
    fputc('\n', stdout);
    fflush(stdout);
}

/* The ranks' environment is srun's: mpirun's own with the -x/--env settings, and without
 * the PMIx variables of an enclosing job (Slurm's PMIx plugin sets its own; PMIX_MCA_* are
 * the user's tuning and stay), as vbt_spawn_env_create does for local ranks. */
static vbt_status_t srun_setup_env(const vbt_opts_t *opts)
{
    for (;;) {
        char **e;
        for (e = environ; *e != NULL; e++) {
            if (strncmp(*e, "PMIX_", 5) == 0 && strncmp(*e, "PMIX_MCA_", 9) != 0)
                break;
        }
        if (*e == NULL)
            break;
        {
            char name[256];
            size_t len = strcspn(*e, "=");

            snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : 0), *e);
            if (name[0] == '\0' || unsetenv(name) != 0)
                return VBT_ERR_INVALID_PARAM;
        }
    }
    for (int i = 0; i < opts->nenv; i++) {
        char *copy = strdup(opts->env[i]);
        char *eq = copy != NULL ? strchr(copy, '=') : NULL;

        if (eq == NULL) {
            free(copy);
            return VBT_ERR_NO_MEMORY;
        }
        *eq = '\0';
        if (setenv(copy, eq + 1, 1) != 0) {
            free(copy);
            return VBT_ERR_NO_MEMORY;
        }
        free(copy);
    }
    return VBT_OK;
}

int vbt_srun_run(const vbt_opts_t *opts, const vbt_hostlist_t *hosts)
{
    vbt_srun_argv_t a = {NULL, 0, 0};
    vbt_status_t status;
    int err;

    if (opts->napps > 1) {
        vbt_msg_print("MPMD (':') is not supported when mpirun starts the job through srun; "
                      "use srun --mpi=pmix --multi-prog");
        return VBT_SRUN_EXIT_USAGE;
    }
    status = srun_build(opts, hosts, &a);
    if (status != VBT_OK) {
        srun_argv_free(&a);
        if (status == VBT_ERR_NO_MEMORY)
            vbt_msg_print("out of memory building the srun command");
        return status == VBT_ERR_INVALID_PARAM ? VBT_SRUN_EXIT_USAGE : VBT_SRUN_EXIT_ERROR;
    }
    if (opts->do_not_launch) {
        srun_print(opts, &a);
        srun_argv_free(&a);
        return 0;
    }
    if (srun_setup_env(opts) != VBT_OK) {
        vbt_msg_print("cannot set up the environment for srun");
        srun_argv_free(&a);
        return VBT_SRUN_EXIT_ERROR;
    }
    vbt_debug("exec %s %s %s ...", a.argv[0], a.argv[1], a.argc > 2 ? a.argv[2] : "");
    fflush(NULL);
    execvp(a.argv[0], a.argv);
    err = errno;
    vbt_msg_print("cannot run %s: %s%s", a.argv[0], strerror(err),
                  err == ENOENT ? " (Slurm's srun must be in PATH)" : "");
    srun_argv_free(&a);
    return err == ENOENT ? VBT_SRUN_EXIT_NOT_FOUND : VBT_SRUN_EXIT_ERROR;
}
