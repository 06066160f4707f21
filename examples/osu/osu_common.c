/* osu_common.c: options, buffers, validation, statistics and output of the vbt_osu_*
 * benchmarks (see osu_common.h and README.md). Standard MPI and POSIX only. */
#define _POSIX_C_SOURCE 200809L
#include "osu_common.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The tag of osu_gather's messages; the benchmarks use tags 1 to 3. */
#define OSU_TAG_GATHER 99

/* The collectives: every rank takes part; figures are each rank's average time per call. */
static int is_coll(osu_kind_t kind)
{
    return kind == OSU_BARRIER || kind == OSU_ALLREDUCE || kind == OSU_BCAST ||
           kind == OSU_REDUCE || kind == OSU_GATHER || kind == OSU_SCATTER ||
           kind == OSU_ALLGATHER || kind == OSU_ALLTOALL || kind == OSU_REDUCE_SCATTER ||
           kind == OSU_GATHERV || kind == OSU_SCATTERV || kind == OSU_ALLGATHERV ||
           kind == OSU_ALLTOALLV;
}

/* The reductions: -c checks elements (floats), not bytes. */
static int is_reduction(osu_kind_t kind)
{
    return kind == OSU_ALLREDUCE || kind == OSU_REDUCE || kind == OSU_REDUCE_SCATTER;
}

/* The one-sided ones (osu_rma.c): -w, -s; no -c, no -f, as OSU's. */
static int is_rma(osu_kind_t kind)
{
    return kind == OSU_RMA_LATENCY || kind == OSU_RMA_BW || kind == OSU_RMA_ATOMIC;
}

static int is_latency(osu_kind_t kind)
{
    return kind == OSU_LATENCY || kind == OSU_MULTI_LAT || kind == OSU_RMA_LATENCY ||
           kind == OSU_RMA_ATOMIC || is_coll(kind);
}

/* Whether the benchmark has message sizes (-m) and payloads (-c): all but the barrier. */
static int has_sizes(osu_kind_t kind)
{
    return kind != OSU_BARRIER;
}

/* Whether -m sets the sizes: the atomics have one, 8 bytes. */
static int has_size_opt(osu_kind_t kind)
{
    return has_sizes(kind) && kind != OSU_RMA_ATOMIC;
}

static int has_window(osu_kind_t kind)
{
    return kind == OSU_BW || kind == OSU_BIBW || kind == OSU_MBW_MR || kind == OSU_RMA_BW;
}

static int multi_pair(osu_kind_t kind)
{
    return kind == OSU_MBW_MR || kind == OSU_MULTI_LAT;
}

static void usage(const osu_opts_t *o, FILE *f)
{
    int lat = is_latency(o->kind), coll = is_coll(o->kind);

    fprintf(f, "usage: %s [options]   (OSU-style %s)\n", o->prog, o->title);
    if (has_size_opt(o->kind))
        fprintf(f,
                "  -m, --message-size [MIN:]MAX  sizes MIN, 2*MIN, 4*MIN ... up to MAX bytes\n"
                "                            (default %s; a k or m suffix multiplies by "
                "1024 or 1048576)\n",
                coll                      ? "4:1048576"
                : lat && !is_rma(o->kind) ? "0:4194304"
                                          : "1:4194304");
    if (!has_sizes(o->kind) && o->nbc)
        fprintf(f, "  -i, --iterations ITER     timed iterations (default 100)\n");
    else if (has_sizes(o->kind))
        fprintf(f,
                "  -i, --iterations ITER     timed iterations per size (default %d; sizes above "
                "%d bytes\n"
                "                            run ITER/%d, at least 1)\n",
                coll  ? 1000
                : lat ? 10000
                      : 100,
                OSU_LARGE_SIZE, lat ? 10 : 5);
    else
        fprintf(f, "  -i, --iterations ITER     timed iterations (default 1000)\n");
    if (has_sizes(o->kind))
        fprintf(f,
                "  -x, --warmup WARMUP       untimed iterations before them (default %d; above "
                "%d bytes WARMUP/%d)\n",
                lat ? 100 : 10, OSU_LARGE_SIZE, lat ? 10 : 5);
    else
        fprintf(f, "  -x, --warmup WARMUP       untimed iterations before them (default %d)\n",
                o->nbc ? 10 : 100);
    if (has_window(o->kind))
        fprintf(f, "  -W, --window-size WINDOW  %s (default 64)\n",
                is_rma(o->kind) ? "operations per synchronization"
                                : "messages in flight per iteration");
    if (is_rma(o->kind))
        ; /* no -c, as OSU's one-sided benchmarks */
    else if (is_reduction(o->kind))
        fprintf(f, "  -c, --validation          check every element of every result; a "
                   "mismatch names the\n"
                   "                            size, iteration and element, and aborts the "
                   "job\n");
    else if (has_sizes(o->kind))
        fprintf(f, "  -c, --validation          check every byte of every message; a mismatch "
                   "names the\n"
                   "                            size, iteration and byte, and aborts the job\n");
    if (o->nbc)
        fprintf(f, "  -f, --full                also print the time of the post (Coll. Init), of "
                   "the MPI_Test\n"
                   "                            calls and of the MPI_Wait, and the minimum and "
                   "maximum pure\n"
                   "                            communication time over the ranks\n"
                   "  -t, --num-test-calls CALLS  MPI_Test calls spread over each iteration's "
                   "compute\n"
                   "                            (default 0: compute, then MPI_Wait)\n");
    else if (!is_rma(o->kind))
        fprintf(f, "  -f, --full                also print the minimum and maximum %s\n",
                coll                  ? "over the ranks' averages"
                : multi_pair(o->kind) ? "over the pairs"
                                      : "over the iterations");
    if (o->extra && o->extra->usage)
        fputs(o->extra->usage, f);
    if (o->nbc)
        fprintf(f,
                "      --csv                 print CSV instead: a header row, then one row per "
                "size:\n"
                "                            "
                "benchmark,library,size,overall_us,compute_us,pure_comm_us,\n"
                "                            overlap_pct[,init_us,test_us,wait_us,min_comm_us,"
                "max_comm_us]\n"
                "                            ([...]: with -f%s)\n",
                has_sizes(o->kind) ? "" : "; one row, of size 0");
    else if (is_rma(o->kind))
        fprintf(f,
                "      --csv                 print CSV instead: a header row, then one row per "
                "size:\n"
                "                            benchmark,library,size,%s\n",
                lat ? "latency_us" : "bandwidth_MBps");
    else
        fprintf(f,
                "      --csv                 print CSV instead: a header row, then one row per "
                "size:\n"
                "                            benchmark,library,size,%s[,%s]%s\n"
                "                            ([...]: with -f%s)\n",
                lat ? "latency_us" : "bandwidth_MBps", lat ? "min_us,max_us" : "min_MBps,max_MBps",
                o->kind == OSU_MBW_MR ? ",messages_per_s" : "",
                has_sizes(o->kind) ? "" : "; one row, of size 0");
    fprintf(f, "  -h, --help                this help\n");
    fprintf(f, "Ranks: %s.\n",
            coll                  ? "2 or more"
            : multi_pair(o->kind) ? "an even number; rank i pairs with rank i + n/2"
                                  : "exactly 2");
}

/* A size or count: digits with an optional k/m suffix. Returns 0 and sets *v, or -1. */
static int parse_size(const char *s, unsigned long long *v)
{
    char *end;
    unsigned long long x;

    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno)
        return -1;
    if (*end == 'k' || *end == 'K') {
        x <<= 10;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        x <<= 20;
        end++;
    }
    if (*end != '\0' || x > INT_MAX)
        return -1;
    *v = x;
    return 0;
}

static int parse_count(const char *s, int min, int *v)
{
    unsigned long long x;

    if (parse_size(s, &x) || x < (unsigned long long)min)
        return -1;
    *v = (int)x;
    return 0;
}

/* "[MIN:]MAX", "MIN:" */
static int parse_range(const char *s, osu_opts_t *o)
{
    char buf[64], *colon;
    unsigned long long lo, hi;

    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    colon = strchr(buf, ':');
    if (colon == NULL) {
        if (parse_size(buf, &hi))
            return -1;
        o->max_size = hi;
        return 0;
    }
    *colon = '\0';
    if (parse_size(buf, &lo))
        return -1;
    o->min_size = lo;
    if (colon[1] != '\0') {
        if (parse_size(colon + 1, &hi))
            return -1;
        o->max_size = hi;
    }
    return 0;
}

/* The library column: the first line up to a comma or parenthesis, without "Version:", blanks
 * collapsed ("Open MPI v4.1.4", "MPICH 4.0.2", "Verbatim 0.1"). */
static void make_label(osu_opts_t *o)
{
    char word[128], *w = word;
    size_t n = 0;
    const char *p;

    o->label[0] = '\0';
    for (p = o->library;; p++) {
        if (*p == '\0' || *p == ',' || *p == '(' || isspace((unsigned char)*p)) {
            *w = '\0';
            if (w > word && strcmp(word, "Version:") != 0 && strcmp(word, "version:") != 0 &&
                n + strlen(word) + 2 < sizeof(o->label)) {
                if (n)
                    o->label[n++] = ' ';
                strcpy(o->label + n, word);
                n += strlen(word);
            }
            w = word;
            if (*p == '\0' || *p == ',' || *p == '(')
                break;
        } else if (w < word + sizeof(word) - 1 && *p != '"') {
            *w++ = *p;
        }
    }
    if (n == 0)
        strcpy(o->label, "unknown MPI");
}

static void get_library(osu_opts_t *o)
{
    char *v = malloc(MPI_MAX_LIBRARY_VERSION_STRING + 1);
    int len = 0;
    size_t n;

    strcpy(o->library, "unknown MPI");
    if (v && MPI_Get_library_version(v, &len) == MPI_SUCCESS) {
        v[len < 0 ? 0 : len] = '\0';
        n = strcspn(v, "\r\n");
        while (n > 0 && isspace((unsigned char)v[n - 1]))
            n--;
        if (n >= sizeof(o->library))
            n = sizeof(o->library) - 1;
        if (n > 0) {
            memcpy(o->library, v, n);
            o->library[n] = '\0';
            for (char *p = o->library; *p; p++)
                if (*p == '\t')
                    *p = ' ';
        }
    }
    free(v);
    make_label(o);
}

/* Returns an option's value: "-mX", "-m X", "--opt=X", "--opt X"; NULL when missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *arg, size_t namelen)
{
    if (arg[namelen] == '=' && arg[1] == '-')
        return arg + namelen + 1;
    if (arg[namelen] != '\0' && arg[1] != '-')
        return arg + namelen;
    if (arg[namelen] != '\0')
        return NULL;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

/* Whether arg is the short option c (possibly with an attached value) or the long one. */
static int is_opt(const char *arg, char c, const char *lng, size_t *namelen)
{
    size_t l = strlen(lng);

    if (arg[0] == '-' && arg[1] == c) {
        *namelen = 2;
        return 1;
    }
    if (strncmp(arg, lng, l) == 0 && (arg[l] == '\0' || arg[l] == '=')) {
        *namelen = l;
        return 1;
    }
    return 0;
}

static int bad(const osu_opts_t *o, const char *fmt, const char *what)
{
    if (o->rank == 0) {
        fprintf(stderr, "%s: ", o->prog);
        fprintf(stderr, fmt, what);
        fprintf(stderr, "\n");
        usage(o, stderr);
    }
    return 2;
}

static int init_opts(osu_opts_t *o, osu_kind_t kind, int nbc, const char *prog, const char *title,
                     const osu_extra_opts_t *extra, int argc, char **argv);

int osu_init(osu_opts_t *o, osu_kind_t kind, const char *prog, const char *title, int argc,
             char **argv)
{
    return init_opts(o, kind, 0, prog, title, NULL, argc, argv);
}

int osu_init_extra(osu_opts_t *o, osu_kind_t kind, const char *prog, const char *title,
                   const osu_extra_opts_t *extra, int argc, char **argv)
{
    return init_opts(o, kind, 0, prog, title, extra, argc, argv);
}

int osu_init_nbc(osu_opts_t *o, osu_kind_t kind, const char *prog, const char *title, int argc,
                 char **argv)
{
    return init_opts(o, kind, is_coll(kind), prog, title, NULL, argc, argv);
}

static int init_opts(osu_opts_t *o, osu_kind_t kind, int nbc, const char *prog, const char *title,
                     const osu_extra_opts_t *extra, int argc, char **argv)
{
    int lat = is_latency(kind), coll = is_coll(kind), iters = -1, warmup = -1, i, rc;
    char msg[256];

    memset(o, 0, sizeof(*o));
    o->kind = kind;
    o->prog = prog;
    o->title = title;
    o->extra = extra;
    o->nbc = nbc;
    /* OSU's defaults: point-to-point 0 (latency) or 1 to 4 MiB; collectives 4 B (one float)
     * to 1 MiB, 1000 iterations and 100 warm-up (100 and 10 above 8 KiB). */
    /* One-sided: 1 B to 4 MiB (OSU's one-sided latency tests start at 1, not 0); the atomics
     * one 8-byte element. */
    o->min_size = coll ? 4 : lat && !is_rma(kind) ? 0 : 1;
    o->max_size = (size_t)1 << (coll ? 20 : 22);
    if (!has_sizes(kind))
        o->min_size = o->max_size = 0;
    if (kind == OSU_RMA_ATOMIC)
        o->min_size = o->max_size = 8;
    o->iters = coll ? 1000 : lat ? 10000 : 100;
    o->warmup = lat ? 100 : 10;
    o->iters_large = coll ? 100 : lat ? 1000 : 20;
    o->warmup_large = lat ? 10 : 2;
    o->window = 64;
    if (nbc && !has_sizes(kind)) {
        /* OSU's ibarrier runs its large-message counts */
        o->iters = 100;
        o->warmup = 10;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->nranks);
    get_library(o);

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *val;
        size_t nl;

        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            if (o->rank == 0)
                usage(o, stdout);
            return 0;
        } else if (has_sizes(kind) && !is_rma(kind) &&
                   (strcmp(arg, "-c") == 0 || strcmp(arg, "--validation") == 0)) {
            o->validate = 1;
        } else if (!is_rma(kind) && (strcmp(arg, "-f") == 0 || strcmp(arg, "--full") == 0)) {
            o->full = 1;
        } else if (strcmp(arg, "--csv") == 0) {
            o->csv = 1;
        } else if (has_size_opt(kind) && is_opt(arg, 'm', "--message-size", &nl)) {
            val = opt_value(argc, argv, &i, arg, nl);
            if (val == NULL || parse_range(val, o))
                return bad(o, "bad message sizes '%s': expected [MIN:]MAX in bytes",
                           val ? val : "");
        } else if (is_opt(arg, 'i', "--iterations", &nl)) {
            val = opt_value(argc, argv, &i, arg, nl);
            if (val == NULL || parse_count(val, 1, &iters))
                return bad(o, "bad iteration count '%s': expected a number >= 1", val ? val : "");
        } else if (is_opt(arg, 'x', "--warmup", &nl)) {
            val = opt_value(argc, argv, &i, arg, nl);
            if (val == NULL || parse_count(val, 0, &warmup))
                return bad(o, "bad warm-up count '%s': expected a number >= 0", val ? val : "");
        } else if (nbc && (is_opt(arg, 't', "--num-test-calls", &nl) ||
                           is_opt(arg, 't', "--num_test_calls", &nl))) {
            val = opt_value(argc, argv, &i, arg, nl);
            if (val == NULL || parse_count(val, 0, &o->test_calls) || o->test_calls > 1000000)
                return bad(o, "bad MPI_Test call count '%s': expected 0 to 1000000",
                           val ? val : "");
        } else if (has_window(kind) && is_opt(arg, 'W', "--window-size", &nl)) {
            val = opt_value(argc, argv, &i, arg, nl);
            if (val == NULL || parse_count(val, 1, &o->window) || o->window > 65536)
                return bad(o, "bad window '%s': expected 1 to 65536", val ? val : "");
        } else if (extra && (rc = extra->parse(extra->ctx, argc, argv, &i, msg, sizeof(msg)))) {
            if (rc < 0)
                return bad(o, "%s", msg);
        } else {
            return bad(o, "unknown option or argument '%s'", arg);
        }
    }
    if (o->min_size > o->max_size) {
        char range[64];
        snprintf(range, sizeof(range), "%zu:%zu", o->min_size, o->max_size);
        return bad(o, "bad message sizes '%s': MIN is larger than MAX", range);
    }
    if (iters > 0) {
        o->iters = iters;
        o->iters_large = iters / (lat ? 10 : 5) > 0 ? iters / (lat ? 10 : 5) : 1;
    }
    if (warmup >= 0) {
        o->warmup = warmup;
        o->warmup_large = warmup / (lat ? 10 : 5);
    }
    if (coll               ? o->nranks < 2
        : multi_pair(kind) ? (o->nranks < 2 || o->nranks % 2)
                           : o->nranks != 2) {
        if (o->rank == 0)
            fprintf(stderr, "%s: needs %s ranks, not %d\n", o->prog,
                    coll               ? "at least 2"
                    : multi_pair(kind) ? "an even number of"
                                       : "exactly 2",
                    o->nranks);
        return 2;
    }
    return -1;
}

size_t osu_next_size(size_t s)
{
    return s ? s * 2 : 1;
}

int osu_iterations(const osu_opts_t *o, size_t size, int *warmup_p)
{
    if (size > OSU_LARGE_SIZE) {
        *warmup_p = o->warmup_large;
        return o->iters_large;
    }
    *warmup_p = o->warmup;
    return o->iters;
}

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

void *osu_alloc(const osu_opts_t *o, size_t bytes)
{
    size_t page = page_size();
    void *p = NULL;
    int rc;

    bytes = bytes ? (bytes + page - 1) / page * page : page;
    rc = posix_memalign(&p, page, bytes);
    if (rc != 0) {
        fprintf(stderr, "%s: rank %d: cannot allocate %zu bytes: %s\n", o->prog, o->rank, bytes,
                strerror(rc));
        sleep(1);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 0xa5, bytes); /* fault every page in now, not while timing */
    return p;
}

size_t osu_slot_stride(size_t size)
{
    size_t page = page_size();
    return size ? (size + page - 1) / page * page : page;
}

unsigned osu_seed(size_t size, int iter, int src)
{
    return (unsigned)(size * 2654435761u) ^ (unsigned)iter * 40503u ^ (unsigned)src * 2246822519u;
}

/* The pattern is a hash of (seed, word index) per 8-byte word (splitmix64), so a message shifted
 * by any number of bytes, a stale one or another's is caught. */
static uint64_t pattern_word(unsigned seed, size_t j)
{
    uint64_t x = ((uint64_t)seed << 32 ^ (uint64_t)j) + 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void osu_fill(void *buf, size_t len, unsigned seed)
{
    unsigned char *p = buf;
    size_t j, words = len / 8;
    uint64_t w;

    for (j = 0; j < words; j++) {
        w = pattern_word(seed, j);
        memcpy(p + 8 * j, &w, 8);
    }
    if (len % 8) {
        w = pattern_word(seed, words);
        memcpy(p + 8 * words, &w, len % 8);
    }
}

void osu_check(const osu_opts_t *o, const void *buf, size_t len, unsigned seed, size_t size,
               int iter, int src)
{
    const unsigned char *p = buf;
    size_t j, k, words = (len + 7) / 8;

    for (j = 0; j < words; j++) {
        uint64_t w = pattern_word(seed, j);
        const unsigned char *want = (const unsigned char *)&w;
        size_t n = len - 8 * j < 8 ? len - 8 * j : 8;

        if (memcmp(p + 8 * j, want, n) == 0)
            continue;
        for (k = 0; k < n && p[8 * j + k] == want[k]; k++)
            ;
        fprintf(stderr,
                "%s: validation failed on rank %d: size %zu, iteration %d, byte %zu: got 0x%02x, "
                "expected 0x%02x (message from rank %d)\n",
                o->prog, o->rank, size, iter, 8 * j + k, p[8 * j + k], want[k], src);
        fflush(stderr);
        sleep(1); /* launchers drop the output of a job that aborts at once */
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

void osu_stat_reset(osu_stat_t *s)
{
    s->sum = 0;
    s->min = 0;
    s->max = 0;
    s->n = 0;
}

void osu_stat_add(osu_stat_t *s, double v)
{
    if (s->n == 0 || v < s->min)
        s->min = v;
    if (s->n == 0 || v > s->max)
        s->max = v;
    s->sum += v;
    s->n++;
}

void osu_gather(const osu_opts_t *o, int contributes, double v, osu_stat_t *all_p)
{
    double msg[2] = {contributes ? 1.0 : 0.0, v};
    int r;

    if (o->rank != 0) {
        MPI_Send(msg, 2, MPI_DOUBLE, 0, OSU_TAG_GATHER, MPI_COMM_WORLD);
        return;
    }
    osu_stat_reset(all_p);
    if (contributes)
        osu_stat_add(all_p, v);
    for (r = 1; r < o->nranks; r++) {
        MPI_Recv(msg, 2, MPI_DOUBLE, r, OSU_TAG_GATHER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (msg[0] != 0.0)
            osu_stat_add(all_p, msg[1]);
    }
}

void osu_gather_vec(const osu_opts_t *o, int n, const double *v, osu_stat_t *all_p)
{
    double msg[16];
    int r, k;

    if (n > (int)(sizeof(msg) / sizeof(msg[0])))
        MPI_Abort(MPI_COMM_WORLD, 1); /* a caller's bug: more figures than one message holds */
    if (o->rank != 0) {
        MPI_Send((void *)v, n, MPI_DOUBLE, 0, OSU_TAG_GATHER, MPI_COMM_WORLD);
        return;
    }
    for (k = 0; k < n; k++) {
        osu_stat_reset(&all_p[k]);
        osu_stat_add(&all_p[k], v[k]);
    }
    for (r = 1; r < o->nranks; r++) {
        MPI_Recv(msg, n, MPI_DOUBLE, r, OSU_TAG_GATHER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (k = 0; k < n; k++)
            osu_stat_add(&all_p[k], msg[k]);
    }
}

double osu_nbc_overlap(const osu_nbc_row_t *r)
{
    double ov;

    if (r->comm <= 0)
        return 0;
    ov = 100 * (1 - (r->overall - r->compute) / r->comm);
    return ov > 0 ? ov : 0;
}

static const char *short_name(const osu_opts_t *o)
{
    return strncmp(o->prog, "vbt_", 4) == 0 ? o->prog + 4 : o->prog;
}

void osu_print_header(const osu_opts_t *o)
{
    int lat = is_latency(o->kind);

    if (o->rank != 0)
        return;
    if (o->csv && o->nbc) {
        printf("benchmark,library,size,overall_us,compute_us,pure_comm_us,overlap_pct%s\n",
               o->full ? ",init_us,test_us,wait_us,min_comm_us,max_comm_us" : "");
        fflush(stdout);
        return;
    }
    if (o->csv) {
        printf("benchmark,library,size,%s%s%s\n", lat ? "latency_us" : "bandwidth_MBps",
               o->full ? (lat ? ",min_us,max_us" : ",min_MBps,max_MBps") : "",
               o->kind == OSU_MBW_MR ? ",messages_per_s" : "");
        fflush(stdout);
        return;
    }
    printf("# OSU-style %s (%s)\n", o->title, o->prog);
    printf("# Library: %s\n", o->library);
    printf("# Ranks: %d", o->nranks);
    if (multi_pair(o->kind))
        printf(" (%d pairs)", o->nranks / 2);
    if (o->nbc) {
        /* OSU's nonblocking collectives: the iteration's parts, then the columns (the
         * ibarrier's without a size). */
        if (has_sizes(o->kind))
            printf(", iterations: %d (%d above %d bytes), warm-up: %d (%d)", o->iters,
                   o->iters_large, OSU_LARGE_SIZE, o->warmup, o->warmup_large);
        else
            printf(", iterations: %d, warm-up: %d", o->iters, o->warmup);
        printf(", MPI_Test calls: %d%s\n", o->test_calls,
               has_sizes(o->kind) ? (o->validate ? ", validation: on" : ", validation: off") : "");
        printf("# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n");
        if (has_sizes(o->kind))
            printf("%-10s%18s", "# Size", "Overall(us)");
        else
            printf("%-18s", "# Overall(us)");
        if (o->full)
            printf("%18s%18s%18s%18s%18s%18s%18s%18s\n", "Compute(us)", "Coll. Init(us)",
                   "MPI_Test(us)", "MPI_Wait(us)", "Pure Comm.(us)", "Min Comm.(us)",
                   "Max Comm.(us)", "Overlap(%)");
        else
            printf("%18s%18s%18s\n", "Compute(us)", "Pure Comm.(us)", "Overlap(%)");
        fflush(stdout);
        return;
    }
    if (!has_sizes(o->kind)) {
        /* OSU's barrier: no size column; -f adds min, max (over the ranks) and iterations. */
        printf(", iterations: %d, warm-up: %d\n", o->iters, o->warmup);
        if (o->full)
            printf("%-18s%18s%18s%12s\n", "# Avg Latency(us)", "Min Latency(us)", "Max Latency(us)",
                   "Iterations");
        else
            printf("# Avg Latency(us)\n");
        fflush(stdout);
        return;
    }
    printf(", iterations: %d (%d above %d bytes), warm-up: %d (%d)", o->iters, o->iters_large,
           OSU_LARGE_SIZE, o->warmup, o->warmup_large);
    if (has_window(o->kind))
        printf(", window: %d", o->window);
    if (is_rma(o->kind))
        printf("\n%s", o->header_extra ? o->header_extra : "");
    else
        printf(", validation: %s\n%s", o->validate ? "on" : "off",
               o->header_extra ? o->header_extra : "");
    if (is_coll(o->kind) && o->full)
        printf("%-10s%18s%18s%18s%12s\n", "# Size", "Avg Latency(us)", "Min Latency(us)",
               "Max Latency(us)", "Iterations");
    else if (is_coll(o->kind))
        printf("%-10s%18s\n", "# Size", "Avg Latency(us)");
    else if (lat && o->full)
        printf("%-10s%18s%18s%18s\n", "# Size", "Avg Latency(us)", "Min Latency(us)",
               "Max Latency(us)");
    else if (lat)
        printf("%-10s%18s\n", "# Size", "Latency (us)");
    else if (o->kind == OSU_MBW_MR)
        printf("%-10s%18s%18s%s\n", "# Size", "Bandwidth (MB/s)", "Messages/s",
               o->full ? "        Min (MB/s)        Max (MB/s)" : "");
    else
        printf("%-10s%18s%s\n", "# Size", "Bandwidth (MB/s)",
               o->full ? "        Min (MB/s)        Max (MB/s)" : "");
    fflush(stdout);
}

void osu_print_row(const osu_opts_t *o, size_t size, double value, double min, double max,
                   double rate)
{
    if (o->rank != 0)
        return;
    if (o->csv) {
        printf("%s,%s,%zu,%.3f", short_name(o), o->label, size, value);
        if (o->full)
            printf(",%.3f,%.3f", min, max);
        if (o->kind == OSU_MBW_MR)
            printf(",%.1f", rate);
    } else if (is_coll(o->kind)) {
        int warmup, iters = osu_iterations(o, size, &warmup);

        if (has_sizes(o->kind))
            printf("%-10zu", size);
        printf("%18.2f", value);
        if (o->full)
            printf("%18.2f%18.2f%12d", min, max, iters);
    } else {
        printf("%-10zu%18.2f", size, value);
        if (o->kind == OSU_MBW_MR)
            printf("%18.2f", rate);
        if (o->full)
            printf("%18.2f%18.2f", min, max);
    }
    printf("\n");
    fflush(stdout);
}

void osu_print_nbc_row(const osu_opts_t *o, size_t size, const osu_nbc_row_t *r)
{
    double ov = osu_nbc_overlap(r);

    if (o->rank != 0)
        return;
    if (o->csv) {
        printf("%s,%s,%zu,%.3f,%.3f,%.3f,%.2f", short_name(o), o->label, size, r->overall,
               r->compute, r->comm, ov);
        if (o->full)
            printf(",%.3f,%.3f,%.3f,%.3f,%.3f", r->init, r->test, r->wait, r->comm_min,
                   r->comm_max);
    } else {
        if (has_sizes(o->kind))
            printf("%-10zu", size);
        printf("%18.2f%18.2f", r->overall, r->compute);
        if (o->full)
            printf("%18.2f%18.2f%18.2f%18.2f%18.2f%18.2f", r->init, r->test, r->wait, r->comm,
                   r->comm_min, r->comm_max);
        else
            printf("%18.2f", r->comm);
        printf("%18.2f", ov);
    }
    printf("\n");
    fflush(stdout);
}
