/* Command-line parsing for mpirun. Options may be spelled with one or two dashes (Open MPI
 * accepts "-np" and "--np", MPICH "-genv"); "--name=value" works for options with one value.
 * Options are read until the first word that is not an option: that is the program, and every
 * word after it up to a lone ":" is its argument list. An unknown option is an error, never
 * ignored: a mistyped --bind-to silently running unbound is the Open MPI trap STYLE.md names. */
#include "config.h"

#include "vbt_opts.h"
#include "vbt_string.h"
#include "vbt_msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define VBT_OPTS_MAX_PROCS 65536

typedef enum {
    OPT_NP,
    OPT_X,
    OPT_ENV,
    OPT_GENV,
    OPT_BIND_TO,
    OPT_MAP_BY,
    OPT_REPORT_BINDINGS,
    OPT_DO_NOT_LAUNCH,
    OPT_OVERSUBSCRIBE,
    OPT_NOOVERSUBSCRIBE,
    OPT_TAG_OUTPUT,
    OPT_RANK_PREFIX,
    OPT_TIMEOUT,
    OPT_WDIR,
    OPT_LAUNCHER,
    OPT_MCA,
    OPT_HOST,
    OPT_HOSTFILE,
    OPT_NPERNODE,
    OPT_VERSION,
    OPT_HELP,
} vbt_opt_id_t;

typedef struct {
    const char *name;
    vbt_opt_id_t id;
    int nargs;
} vbt_opt_def_t;

static const vbt_opt_def_t opt_defs[] = {
    {"n", OPT_NP, 1},
    {"np", OPT_NP, 1},
    {"x", OPT_X, 1},
    {"env", OPT_ENV, 1},
    {"genv", OPT_GENV, 2},
    {"bind-to", OPT_BIND_TO, 1},
    {"map-by", OPT_MAP_BY, 1},
    {"report-bindings", OPT_REPORT_BINDINGS, 0},
    {"do-not-launch", OPT_DO_NOT_LAUNCH, 0},
    {"oversubscribe", OPT_OVERSUBSCRIBE, 0},
    {"nooversubscribe", OPT_NOOVERSUBSCRIBE, 0},
    {"tag-output", OPT_TAG_OUTPUT, 0},
    {"l", OPT_RANK_PREFIX, 0},
    {"prepend-rank", OPT_RANK_PREFIX, 0},
    {"timeout", OPT_TIMEOUT, 1},
    {"wdir", OPT_WDIR, 1},
    {"wd", OPT_WDIR, 1},
    {"launcher", OPT_LAUNCHER, 1},
    {"mca", OPT_MCA, 2},
    {"host", OPT_HOST, 1},
    {"H", OPT_HOST, 1},
    {"hostfile", OPT_HOSTFILE, 1},
    {"machinefile", OPT_HOSTFILE, 1},
    {"npernode", OPT_NPERNODE, 1},
    {"N", OPT_NPERNODE, 1},
    {"ppn", OPT_NPERNODE, 1},
    {"version", OPT_VERSION, 0},
    {"V", OPT_VERSION, 0},
    {"h", OPT_HELP, 0},
    {"help", OPT_HELP, 0},
};

#define NUM_OPT_DEFS (sizeof(opt_defs) / sizeof(opt_defs[0]))

/* The values --bind-to and --map-by take, Open MPI's words (case does not matter, as there).
 * The first word of each value is its canonical name. "package" is PRRTE's name for a
 * socket; on a single node, "slot" and "node" place ranks as "core" does. */
typedef struct {
    const char *word;
    int value;
} vbt_opt_word_t;

static const vbt_opt_word_t bind_words[] = {
    {"core", VBT_BIND_CORE}, {"hwthread", VBT_BIND_HWTHREAD}, {"socket", VBT_BIND_SOCKET},
    {"numa", VBT_BIND_NUMA}, {"none", VBT_BIND_NONE},         {"package", VBT_BIND_SOCKET},
};

static const vbt_opt_word_t map_words[] = {
    {"core", VBT_MAP_CORE}, {"socket", VBT_MAP_SOCKET}, {"numa", VBT_MAP_NUMA},
    {"slot", VBT_MAP_CORE}, {"node", VBT_MAP_CORE},     {"package", VBT_MAP_SOCKET},
};

/* Open MPI's --mca plm names the launcher: slurm, or isolated (this machine only). */
static const vbt_opt_word_t launcher_words[] = {
    {"auto", VBT_LAUNCHER_AUTO},
    {"local", VBT_LAUNCHER_LOCAL},
    {"slurm", VBT_LAUNCHER_SLURM},
    {"isolated", VBT_LAUNCHER_LOCAL},
};

#define NUM_WORDS(words) (sizeof(words) / sizeof(words[0]))

static const char *word_name(const vbt_opt_word_t *words, size_t nwords, int value)
{
    for (size_t i = 0; i < nwords; i++) {
        if (words[i].value == value)
            return words[i].word;
    }
    return "default";
}

const char *vbt_opts_bind_name(vbt_bind_policy_t bind)
{
    return word_name(bind_words, NUM_WORDS(bind_words), (int)bind);
}

const char *vbt_opts_map_name(vbt_map_policy_t map)
{
    return word_name(map_words, NUM_WORDS(map_words), (int)map);
}

const char *vbt_opts_launcher_name(vbt_launcher_t launcher)
{
    return word_name(launcher_words, NUM_WORDS(launcher_words), (int)launcher);
}

void vbt_opts_print_help(void)
{
    const char *p = vbt_msg_program();

    printf("Usage: %s [options] program [args] [: [options] program [args] ...]\n"
           "Start an MPI job of Verbatim on this node, or through srun inside a Slurm\n"
           "allocation of several nodes.\n"
           "\n"
           "Options (one or two leading dashes are accepted):\n"
           "  -n, -np N            number of ranks for this program (default 1)\n"
           "  -x VAR[=value]       export VAR to the ranks, with its value in mpirun's\n"
           "                       environment or the one given\n"
           "  --env VAR=value      set VAR to value in the ranks\n"
           "  -genv VAR value      same, MPICH spelling\n"
           "  --map-by WHAT        which core each rank gets: core fills cores 0, 1, 2...;\n"
           "                       socket and numa go round-robin over the packages or\n"
           "                       NUMA nodes, taking the next free core of each (default:\n"
           "                       core for up to 2 ranks, socket beyond, as Open MPI);\n"
           "                       package means socket, slot and node mean core\n"
           "  --bind-to WHAT       bind each rank to its core (the default when the ranks\n"
           "                       fit the cores), hwthread (one hardware thread), socket\n"
           "                       or numa (the package or NUMA node of its core), or none\n"
           "  --report-bindings    print each rank's binding on stderr\n"
           "  --do-not-launch      plan the job but start nothing (see --report-bindings)\n"
           "  --oversubscribe      allow more ranks than cores (the default): ranks are\n"
           "                       then not bound and wait without spinning\n"
           "  --nooversubscribe    refuse more ranks than cores (Open MPI's default)\n"
           "  --tag-output         prefix output lines with [1,rank]<stdout>: (Open MPI)\n"
           "  -l, --prepend-rank   prefix output lines with [rank] (MPICH)\n"
           "  --timeout SECONDS    terminate the job after SECONDS (exit code 124);\n"
           "                       MPIEXEC_TIMEOUT in the environment does the same\n"
           "  --wdir, -wdir DIR    run the ranks in DIR\n"
           "  --launcher WHO       local: fork the ranks here, with mpirun's own PMIx\n"
           "                       server; slurm: exec srun --mpi=pmix with the matching\n"
           "                       options; auto (default): slurm inside a Slurm allocation\n"
           "                       of more than one node (SLURM_JOB_ID, SLURM_JOB_NUM_NODES),\n"
           "                       else local. --mca plm slurm|isolated says the same\n"
           "  -H, --host LIST      hosts, as name[:slots],...: outside an allocation only\n"
           "                       this machine (localhost, its name or address); the\n"
           "                       slots add up to the default -n\n"
           "  --hostfile FILE      the same from a file: a host per line, \"name slots=N\"\n"
           "                       (Open MPI) or \"name:N\" (MPICH); --machinefile too\n"
           "  --npernode, -N, -ppn N  N ranks per node (Slurm: --ntasks-per-node);\n"
           "                       --map-by ppr:N:node says the same\n"
           "  --version            print the version and exit\n"
           "  -h, --help           print this help and exit\n"
           "\n"
           "Through srun, -n, --npernode, --host, --map-by, --bind-to, -x/--env, --wdir,\n"
           "--tag-output and --timeout become srun's options; output and exit status are\n"
           "srun's; MPMD is not supported (srun --multi-prog is).\n"
           "\n"
           "MPMD: \"%s -n 1 ./a : -n 3 ./b args\" starts ranks 0 (./a) and 1-3 (./b);\n"
           "PMIX_APPNUM is 0 for ./a and 1 for ./b. -n belongs to its program; the other\n"
           "options apply to the whole job wherever they appear.\n"
           "\n"
           "mpirun's stdin goes to rank 0; other ranks read /dev/null. SIGINT and SIGTERM\n"
           "are forwarded to the ranks; a second SIGINT, or 2 seconds, ends them with SIGKILL.\n"
           "\n"
           "Exit status: 0 when every rank exits 0; otherwise the first failing rank's exit\n"
           "code, 128+N for a rank killed by signal N, the code given to MPI_Abort, 1 for a\n"
           "rank that exited before MPI_Finalize while others ran, 124 on --timeout,\n"
           "127 for a program not found, 126 for one not executable, 2 for a usage error,\n"
           "1 for a launcher error.\n",
           p, p);
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void usage_error(const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    vbt_msg_print("%s; see '%s --help'", text, vbt_msg_program());
}

static void unknown_option(const char *arg, const char *name)
{
    const char *best = NULL;
    unsigned best_d = 3;
    if (strlen(name) > 2) {
        for (size_t i = 0; i < NUM_OPT_DEFS; i++) {
            unsigned d;
            if (strlen(opt_defs[i].name) < 3)
                continue;
            d = vbt_edit_distance(name, opt_defs[i].name);
            if (d < best_d) {
                best_d = d;
                best = opt_defs[i].name;
            }
        }
    }
    if (best != NULL)
        usage_error("unknown option '%s' (did you mean '--%s'?)", arg, best);
    else
        usage_error("unknown option '%s'", arg);
}

/* A positive integer no larger than max, or -1. */
static long parse_count(const char *text, long max)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v <= 0 || v > max)
        return -1;
    return v;
}

/* One of words (any case), or a usage error naming the option, the value and every word. */
static vbt_status_t parse_word(const char *option, const char *text, const vbt_opt_word_t *words,
                               size_t nwords, int *value_p)
{
    char expected[256] = "";
    size_t len = 0;

    for (size_t i = 0; i < nwords; i++) {
        if (strcasecmp(text, words[i].word) == 0) {
            *value_p = words[i].value;
            return VBT_OK;
        }
    }
    for (size_t i = 0; i < nwords && len < sizeof(expected); i++) {
        const char *sep = i == 0 ? "" : i + 1 == nwords ? " or " : ", ";
        len += (size_t)snprintf(expected + len, sizeof(expected) - len, "%s%s", sep, words[i].word);
    }
    /* Open MPI's modifiers ("socket:PE=2", "core:overload-allowed") would change the plan. */
    usage_error("%s '%s': expected %s%s", option, text, expected,
                strchr(text, ':') != NULL ? " (modifiers after ':' are not supported)" : "");
    return VBT_ERR_INVALID_PARAM;
}

static vbt_status_t env_append(vbt_opts_t *opts, const char *name, size_t name_len,
                               const char *value)
{
    char **grown = realloc(opts->env, sizeof(char *) * (size_t)(opts->nenv + 1));
    char *entry;
    size_t len = name_len + 1 + strlen(value) + 1;

    if (grown == NULL)
        return VBT_ERR_NO_MEMORY;
    opts->env = grown;
    entry = malloc(len);
    if (entry == NULL)
        return VBT_ERR_NO_MEMORY;
    snprintf(entry, len, "%.*s=%s", (int)name_len, name, value);
    opts->env[opts->nenv++] = entry;
    return VBT_OK;
}

static vbt_status_t handle_x(vbt_opts_t *opts, const char *spec)
{
    const char *eq = strchr(spec, '=');
    const char *value;

    if (*spec == '\0' || eq == spec) {
        usage_error("-x needs a variable name, as in -x VAR or -x VAR=value");
        return VBT_ERR_INVALID_PARAM;
    }
    if (eq != NULL)
        return env_append(opts, spec, (size_t)(eq - spec), eq + 1);
    value = getenv(spec);
    if (value == NULL) {
        /* Open MPI behaves the same; say so rather than drop it quietly. */
        vbt_msg_print("warning: -x %s: %s is not set in mpirun's environment; not exported", spec,
                      spec);
        return VBT_OK;
    }
    return env_append(opts, spec, strlen(spec), value);
}

/* Open MPI's launcher choice; Verbatim has no other MCA parameters, and silently ignoring
 * one would hide that it does nothing. */
static vbt_status_t handle_mca(vbt_opts_t *opts, const char *name, const char *value)
{
    int word;

    if (strcmp(name, "plm") != 0) {
        usage_error("--mca %s: Verbatim has no MCA parameters (only --mca plm slurm|isolated, "
                    "the same as --launcher)",
                    name);
        return VBT_ERR_INVALID_PARAM;
    }
    if (parse_word("--mca plm", value, launcher_words, NUM_WORDS(launcher_words), &word) != VBT_OK)
        return VBT_ERR_INVALID_PARAM;
    opts->launcher = (vbt_launcher_t)word;
    return VBT_OK;
}

/* --host may be given several times (Open MPI accepts that): the lists add up. Their syntax
 * is checked with the hostfile's, when mpirun reads them (vbt_hosts.c). */
static vbt_status_t handle_host(vbt_opts_t *opts, const char *arg, const char *list)
{
    size_t old = opts->hosts != NULL ? strlen(opts->hosts) : 0;
    char *grown;

    if (*list == '\0') {
        usage_error("%s '': expected host names, as in %s a:2,b:2", arg, arg);
        return VBT_ERR_INVALID_PARAM;
    }
    grown = realloc(opts->hosts, old + 1 + strlen(list) + 1);
    if (grown == NULL)
        return VBT_ERR_NO_MEMORY;
    if (old > 0)
        grown[old++] = ',';
    strcpy(grown + old, list);
    opts->hosts = grown;
    return VBT_OK;
}

/* --map-by ppr:N:node: N ranks per node, Open MPI's spelling of --npernode. */
static vbt_status_t handle_ppr(vbt_opts_t *opts, const char *text)
{
    char count[32];
    const char *colon = strchr(text + 4, ':');
    long v = -1;

    if (colon != NULL && (size_t)(colon - (text + 4)) < sizeof(count)) {
        snprintf(count, sizeof(count), "%.*s", (int)(colon - (text + 4)), text + 4);
        v = parse_count(count, VBT_OPTS_MAX_PROCS);
    }
    if (v < 0 || colon == NULL || strcasecmp(colon + 1, "node") != 0) {
        usage_error("--map-by '%s': expected ppr:N:node (N ranks per node)", text);
        return VBT_ERR_INVALID_PARAM;
    }
    opts->npernode = (int)v;
    return VBT_OK;
}

static vbt_status_t handle_option(vbt_opts_t *opts, vbt_app_t *app, const vbt_opt_def_t *def,
                                  const char *arg, char **vals)
{
    long v;
    int word;

    switch (def->id) {
    case OPT_NP:
        v = parse_count(vals[0], VBT_OPTS_MAX_PROCS);
        if (v < 0) {
            usage_error("%s '%s': the number of ranks must be a positive integer", arg, vals[0]);
            return VBT_ERR_INVALID_PARAM;
        }
        app->nprocs = (int)v;
        app->nprocs_given = 1;
        return VBT_OK;
    case OPT_X:
        return handle_x(opts, vals[0]);
    case OPT_ENV:
        if (strchr(vals[0], '=') == NULL || vals[0][0] == '=') {
            usage_error("%s '%s': expected VAR=value (MPICH's two-word form is -genv VAR value)",
                        arg, vals[0]);
            return VBT_ERR_INVALID_PARAM;
        }
        return handle_x(opts, vals[0]);
    case OPT_GENV:
        if (vals[0][0] == '\0' || strchr(vals[0], '=') != NULL) {
            usage_error("%s '%s': expected a variable name, then its value", arg, vals[0]);
            return VBT_ERR_INVALID_PARAM;
        }
        return env_append(opts, vals[0], strlen(vals[0]), vals[1]);
    case OPT_BIND_TO:
        if (parse_word("--bind-to", vals[0], bind_words, NUM_WORDS(bind_words), &word) != VBT_OK)
            return VBT_ERR_INVALID_PARAM;
        opts->bind = (vbt_bind_policy_t)word;
        return VBT_OK;
    case OPT_MAP_BY:
        if (strncasecmp(vals[0], "ppr:", 4) == 0)
            return handle_ppr(opts, vals[0]);
        if (parse_word("--map-by", vals[0], map_words, NUM_WORDS(map_words), &word) != VBT_OK)
            return VBT_ERR_INVALID_PARAM;
        opts->map = (vbt_map_policy_t)word;
        return VBT_OK;
    case OPT_REPORT_BINDINGS:
        opts->report_bindings = 1;
        return VBT_OK;
    case OPT_DO_NOT_LAUNCH:
        opts->do_not_launch = 1;
        return VBT_OK;
    case OPT_OVERSUBSCRIBE:
        opts->oversubscribe = 1;
        return VBT_OK;
    case OPT_NOOVERSUBSCRIBE:
        opts->oversubscribe = 0;
        return VBT_OK;
    case OPT_TAG_OUTPUT:
        opts->tag = VBT_TAG_OUTPUT;
        return VBT_OK;
    case OPT_RANK_PREFIX:
        opts->tag = VBT_TAG_RANK;
        return VBT_OK;
    case OPT_TIMEOUT:
        v = parse_count(vals[0], 1000000000L);
        if (v < 0) {
            usage_error("%s '%s': expected a positive number of seconds", arg, vals[0]);
            return VBT_ERR_INVALID_PARAM;
        }
        opts->timeout = (int)v;
        return VBT_OK;
    case OPT_WDIR:
        opts->wdir = vals[0];
        return VBT_OK;
    case OPT_LAUNCHER:
        if (parse_word("--launcher", vals[0], launcher_words, NUM_WORDS(launcher_words), &word) !=
            VBT_OK)
            return VBT_ERR_INVALID_PARAM;
        opts->launcher = (vbt_launcher_t)word;
        return VBT_OK;
    case OPT_MCA:
        return handle_mca(opts, vals[0], vals[1]);
    case OPT_HOST:
        return handle_host(opts, arg, vals[0]);
    case OPT_HOSTFILE:
        opts->hostfile = vals[0];
        return VBT_OK;
    case OPT_NPERNODE:
        v = parse_count(vals[0], VBT_OPTS_MAX_PROCS);
        if (v < 0) {
            usage_error("%s '%s': expected a positive number of ranks per node", arg, vals[0]);
            return VBT_ERR_INVALID_PARAM;
        }
        opts->npernode = (int)v;
        return VBT_OK;
    case OPT_VERSION:
        opts->version = 1;
        return VBT_OK;
    case OPT_HELP:
        opts->help = 1;
        return VBT_OK;
    }
    return VBT_ERR_INVALID_PARAM;
}

/* Parse the option at argv[*i], advancing *i past it and its values. */
static vbt_status_t parse_option(vbt_opts_t *opts, vbt_app_t *app, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t name_len = eq != NULL ? (size_t)(eq - name) : strlen(name);
    const vbt_opt_def_t *def = NULL;
    char *vals[2];
    char digits[32];
    char shown[128];

    for (size_t k = 0; k < NUM_OPT_DEFS; k++) {
        if (strlen(opt_defs[k].name) == name_len &&
            strncmp(opt_defs[k].name, name, name_len) == 0) {
            def = &opt_defs[k];
            break;
        }
    }
    /* "-n4" and "-np4", as Open MPI and MPICH accept. */
    if (def == NULL && arg[1] != '-' && name[0] == 'n' && eq == NULL) {
        const char *num = name[1] == 'p' ? name + 2 : name + 1;
        if (*num >= '0' && *num <= '9' && strlen(num) < sizeof(digits)) {
            snprintf(digits, sizeof(digits), "%s", num);
            vals[0] = digits;
            (*i)++;
            return handle_option(opts, app, &opt_defs[0], "-n", vals);
        }
    }
    if (def == NULL) {
        snprintf(shown, sizeof(shown), "%.*s", (int)name_len, name);
        unknown_option(arg, shown);
        return VBT_ERR_INVALID_PARAM;
    }

    if (eq != NULL) {
        /* Name the option without its "=value" in messages. */
        snprintf(shown, sizeof(shown), "%.*s", (int)(eq - arg), arg);
        if (def->nargs != 1) {
            usage_error("option '%s' does not take a value", shown);
            return VBT_ERR_INVALID_PARAM;
        }
        vals[0] = (char *)eq + 1;
        (*i)++;
        return handle_option(opts, app, def, shown, vals);
    } else {
        if (*i + def->nargs >= argc) {
            usage_error("option '%s' needs %s", arg, def->nargs == 2 ? "two values" : "a value");
            return VBT_ERR_INVALID_PARAM;
        }
        for (int k = 0; k < def->nargs; k++)
            vals[k] = argv[*i + 1 + k];
        *i += 1 + def->nargs;
    }
    return handle_option(opts, app, def, arg, vals);
}

static vbt_status_t app_append(vbt_opts_t *opts, int nprocs, char **argv, int argc)
{
    vbt_app_t *grown = realloc(opts->apps, sizeof(*grown) * (size_t)(opts->napps + 1));
    vbt_app_t *app;

    if (grown == NULL)
        return VBT_ERR_NO_MEMORY;
    opts->apps = grown;
    app = &opts->apps[opts->napps];
    memset(app, 0, sizeof(*app));
    app->argv = calloc((size_t)argc + 1, sizeof(char *));
    if (app->argv == NULL)
        return VBT_ERR_NO_MEMORY;
    memcpy(app->argv, argv, sizeof(char *) * (size_t)argc);
    app->nprocs = nprocs;
    app->first_rank = opts->nprocs;
    opts->nprocs += nprocs;
    opts->napps++;
    if (opts->nprocs > VBT_OPTS_MAX_PROCS) {
        usage_error("too many ranks in total (at most %d)", VBT_OPTS_MAX_PROCS);
        return VBT_ERR_INVALID_PARAM;
    }
    return VBT_OK;
}

static vbt_status_t apply_env_timeout(vbt_opts_t *opts)
{
    /* Both Open MPI and MPICH honour MPIEXEC_TIMEOUT; --timeout wins when both are given. */
    const char *text = getenv("MPIEXEC_TIMEOUT");
    long v;

    if (opts->timeout > 0 || text == NULL || *text == '\0')
        return VBT_OK;
    v = parse_count(text, 1000000000L);
    if (v < 0) {
        usage_error("MPIEXEC_TIMEOUT='%s' in the environment is not a positive number of seconds",
                    text);
        return VBT_ERR_INVALID_PARAM;
    }
    opts->timeout = (int)v;
    return VBT_OK;
}

vbt_status_t vbt_opts_parse(int argc, char **argv, vbt_opts_t *opts)
{
    vbt_status_t status;
    int i = 1;

    memset(opts, 0, sizeof(*opts));
    opts->bind = VBT_BIND_AUTO;
    opts->map = VBT_MAP_AUTO;
    opts->oversubscribe = -1;

    for (;;) {
        vbt_app_t app = {.nprocs = 0};
        int start;

        while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
            if (strcmp(argv[i], "--") == 0) {
                i++;
                break;
            }
            status = parse_option(opts, &app, argc, argv, &i);
            if (status != VBT_OK)
                return status;
            if (opts->help || opts->version)
                return VBT_OK;
        }
        if (i >= argc || strcmp(argv[i], ":") == 0) {
            if (opts->napps == 0 && i >= argc)
                usage_error("no program to run given");
            else
                usage_error("no program given %s ':'", i >= argc ? "after" : "before");
            return VBT_ERR_INVALID_PARAM;
        }
        start = i;
        while (i < argc && strcmp(argv[i], ":") != 0)
            i++;
        status = app_append(opts, app.nprocs > 0 ? app.nprocs : 1, argv + start, i - start);
        if (status != VBT_OK)
            return status;
        opts->apps[opts->napps - 1].nprocs_given = app.nprocs_given;
        if (i >= argc)
            break;
        i++; /* the ":" */
        if (i >= argc) {
            usage_error("no program given after ':'");
            return VBT_ERR_INVALID_PARAM;
        }
    }
    return apply_env_timeout(opts);
}

void vbt_opts_cleanup(vbt_opts_t *opts)
{
    for (int i = 0; i < opts->napps; i++) {
        free(opts->apps[i].argv);
        free(opts->apps[i].path);
    }
    free(opts->apps);
    for (int i = 0; i < opts->nenv; i++)
        free(opts->env[i]);
    free(opts->env);
    free(opts->hosts);
    memset(opts, 0, sizeof(*opts));
}
