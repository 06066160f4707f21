/* Which algorithm each collective runs: forced by a VBT_COLL_<NAME> knob, or chosen from the
 * message size and the group size: latency-bound trees and recursive doubling for short
 * messages, bandwidth-optimal rings and scatter-allgather schemes for long ones. The switch
 * points are MPICH's CVAR defaults (tuned on real clusters) for bcast, allreduce, allgather and
 * alltoall; gather/scatter and reduce-scatter ones are ours. The rules are documented in
 * README's Collectives section; keep the two in step. */
#include "vbt_coll_int.h"
#include "vbt_config.h"
#include "vbt_log.h"

#include <string.h>

/* Switch points (bytes). */
#define BCAST_SHORT        12288  /* below: binomial */
#define BCAST_MIN_RANKS    8      /* fewer ranks: binomial at any size */
#define ALLREDUCE_SHORT    2048   /* up to: recursive doubling */
#define ALLREDUCE_LONG     524288 /* above, n not a power of two: ring */
#define GATHER_SHORT       4096   /* blocks below: binomial (gather and scatter) */
#define ALLGATHER_SHORT    81920  /* whole result below: Bruck (n not a power of two) */
#define ALLGATHER_LONG     524288 /* whole result below, n a power of two: recursive doubling */
#define ALLTOALL_SHORT     256    /* blocks up to, with ALLTOALL_MIN_RANKS or more: Bruck */
#define ALLTOALL_MIN_RANKS 8
#define RSCATTER_SHORT     2048 /* whole vector up to: reduce + scatterv */

typedef struct {
    const char *knob;
    const char *const *value; /* in vbt_cfg */
    vbt_coll_alg_t algs[4];   /* the ones the knob may name, besides auto */
    vbt_coll_alg_t forced;
} coll_knob_t;

static const char *const alg_names[] = {
    [VBT_COLL_ALG_AUTO] = "auto",
    [VBT_COLL_ALG_BINOMIAL] = "binomial",
    [VBT_COLL_ALG_SCATTER_ALLGATHER] = "scatter_allgather",
    [VBT_COLL_ALG_RECURSIVE_DOUBLING] = "recursive_doubling",
    [VBT_COLL_ALG_RABENSEIFNER] = "rabenseifner",
    [VBT_COLL_ALG_RING] = "ring",
    [VBT_COLL_ALG_LINEAR] = "linear",
    [VBT_COLL_ALG_BRUCK] = "bruck",
    [VBT_COLL_ALG_PAIRWISE] = "pairwise",
    [VBT_COLL_ALG_REDUCE_SCATTERV] = "reduce_scatterv",
};

enum { K_BCAST, K_ALLREDUCE, K_GATHER, K_SCATTER, K_ALLGATHER, K_ALLTOALL, K_RSCATTER, K_COUNT };

static coll_knob_t knobs[K_COUNT] = {
    [K_BCAST] = {"VBT_COLL_BCAST",
                 &vbt_cfg.coll_bcast,
                 {VBT_COLL_ALG_BINOMIAL, VBT_COLL_ALG_SCATTER_ALLGATHER},
                 VBT_COLL_ALG_AUTO},
    [K_ALLREDUCE] = {"VBT_COLL_ALLREDUCE",
                     &vbt_cfg.coll_allreduce,
                     {VBT_COLL_ALG_RECURSIVE_DOUBLING, VBT_COLL_ALG_RABENSEIFNER,
                      VBT_COLL_ALG_RING},
                     VBT_COLL_ALG_AUTO},
    [K_GATHER] = {"VBT_COLL_GATHER",
                  &vbt_cfg.coll_gather,
                  {VBT_COLL_ALG_LINEAR, VBT_COLL_ALG_BINOMIAL},
                  VBT_COLL_ALG_AUTO},
    [K_SCATTER] = {"VBT_COLL_SCATTER",
                   &vbt_cfg.coll_scatter,
                   {VBT_COLL_ALG_LINEAR, VBT_COLL_ALG_BINOMIAL},
                   VBT_COLL_ALG_AUTO},
    [K_ALLGATHER] = {"VBT_COLL_ALLGATHER",
                     &vbt_cfg.coll_allgather,
                     {VBT_COLL_ALG_BRUCK, VBT_COLL_ALG_RECURSIVE_DOUBLING, VBT_COLL_ALG_RING},
                     VBT_COLL_ALG_AUTO},
    [K_ALLTOALL] = {"VBT_COLL_ALLTOALL",
                    &vbt_cfg.coll_alltoall,
                    {VBT_COLL_ALG_BRUCK, VBT_COLL_ALG_PAIRWISE},
                    VBT_COLL_ALG_AUTO},
    [K_RSCATTER] = {"VBT_COLL_REDUCE_SCATTER",
                    &vbt_cfg.coll_reduce_scatter,
                    {VBT_COLL_ALG_RING, VBT_COLL_ALG_REDUCE_SCATTERV},
                    VBT_COLL_ALG_AUTO},
};

vbt_status_t vbt_coll_init(void)
{
    vbt_status_t status = VBT_OK;

    for (int k = 0; k < K_COUNT; k++) {
        coll_knob_t *kn = &knobs[k];
        const char *v = *kn->value;
        char known[128] = "auto";

        kn->forced = VBT_COLL_ALG_AUTO;
        if (v == NULL || strcmp(v, "auto") == 0)
            continue;
        for (int i = 0; i < 4 && kn->algs[i] != VBT_COLL_ALG_AUTO; i++) {
            if (strcmp(v, alg_names[kn->algs[i]]) == 0)
                kn->forced = kn->algs[i];
            strcat(known, ", ");
            strcat(known, alg_names[kn->algs[i]]);
        }
        if (kn->forced == VBT_COLL_ALG_AUTO) {
            vbt_error("%s=%s: unknown algorithm (known: %s)", kn->knob, v, known);
            status = VBT_ERR_INVALID_PARAM;
        }
    }
    return status;
}

int vbt_coll_knob_values(const char *knob, const char **names, int max)
{
    for (int k = 0; k < K_COUNT; k++) {
        int n = 0;

        if (strcmp(knobs[k].knob, knob) != 0)
            continue;
        if (n < max)
            names[n++] = alg_names[VBT_COLL_ALG_AUTO];
        for (int i = 0; i < 4 && knobs[k].algs[i] != VBT_COLL_ALG_AUTO && n < max; i++)
            names[n++] = alg_names[knobs[k].algs[i]];
        return n;
    }
    return 0;
}

static int is_pof2(int n)
{
    return (n & (n - 1)) == 0;
}

vbt_coll_alg_t vbt_coll_select_bcast(int n, size_t bytes)
{
    if (knobs[K_BCAST].forced != VBT_COLL_ALG_AUTO)
        return knobs[K_BCAST].forced;
    if (bytes < BCAST_SHORT || n < BCAST_MIN_RANKS)
        return VBT_COLL_ALG_BINOMIAL;
    return VBT_COLL_ALG_SCATTER_ALLGATHER;
}

vbt_coll_alg_t vbt_coll_select_allreduce(int n, size_t count, size_t bytes, int commutative)
{
    vbt_coll_alg_t alg = knobs[K_ALLREDUCE].forced;
    int pof2 = 1;

    while (pof2 * 2 <= n)
        pof2 *= 2;
    /* Ring and Rabenseifner combine blocks out of rank order. */
    if (!commutative)
        return VBT_COLL_ALG_RECURSIVE_DOUBLING;
    if (alg != VBT_COLL_ALG_AUTO)
        return alg;
    if (bytes <= ALLREDUCE_SHORT || count < (size_t)pof2)
        return VBT_COLL_ALG_RECURSIVE_DOUBLING;
    if (bytes > ALLREDUCE_LONG && !is_pof2(n))
        return VBT_COLL_ALG_RING;
    return VBT_COLL_ALG_RABENSEIFNER;
}

vbt_coll_alg_t vbt_coll_select_gather(int n, size_t block)
{
    (void)n;
    if (knobs[K_GATHER].forced != VBT_COLL_ALG_AUTO)
        return knobs[K_GATHER].forced;
    return block < GATHER_SHORT ? VBT_COLL_ALG_BINOMIAL : VBT_COLL_ALG_LINEAR;
}

vbt_coll_alg_t vbt_coll_select_scatter(int n, size_t block)
{
    (void)n;
    if (knobs[K_SCATTER].forced != VBT_COLL_ALG_AUTO)
        return knobs[K_SCATTER].forced;
    return block < GATHER_SHORT ? VBT_COLL_ALG_BINOMIAL : VBT_COLL_ALG_LINEAR;
}

vbt_coll_alg_t vbt_coll_select_allgather(int n, size_t block)
{
    size_t total = block * (size_t)n;

    if (knobs[K_ALLGATHER].forced != VBT_COLL_ALG_AUTO)
        return knobs[K_ALLGATHER].forced;
    if (total < ALLGATHER_LONG && is_pof2(n))
        return VBT_COLL_ALG_RECURSIVE_DOUBLING;
    if (total < ALLGATHER_SHORT)
        return VBT_COLL_ALG_BRUCK;
    return VBT_COLL_ALG_RING;
}

vbt_coll_alg_t vbt_coll_select_alltoall(int n, size_t block)
{
    if (knobs[K_ALLTOALL].forced != VBT_COLL_ALG_AUTO)
        return knobs[K_ALLTOALL].forced;
    if (block <= ALLTOALL_SHORT && n >= ALLTOALL_MIN_RANKS)
        return VBT_COLL_ALG_BRUCK;
    return VBT_COLL_ALG_PAIRWISE;
}

vbt_coll_alg_t vbt_coll_select_reduce_scatter(int n, size_t bytes, int commutative)
{
    if (!commutative) /* the ring's partial results wrap around */
        return VBT_COLL_ALG_REDUCE_SCATTERV;
    if (knobs[K_RSCATTER].forced != VBT_COLL_ALG_AUTO)
        return knobs[K_RSCATTER].forced;
    /* At 2 ranks the ring is one exchange, reduce + scatterv two messages one after the other:
     * 8 bytes 0.60 against 0.96 us, 1 KiB 0.73 against 1.38 (README, 2026-12-07). */
    if (n == 2)
        return VBT_COLL_ALG_RING;
    return bytes <= RSCATTER_SHORT ? VBT_COLL_ALG_REDUCE_SCATTERV : VBT_COLL_ALG_RING;
}
