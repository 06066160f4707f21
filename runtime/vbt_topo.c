/* Topology objects and the grid arithmetic behind MPI_Cart_* and MPI_Dims_create. */
#include "vbt_topo.h"

#include <stdlib.h>
#include <string.h>

int vbt_cart_size(int ndims, const int *dims)
{
    int n = 1;

    for (int i = 0; i < ndims; i++)
        n *= dims[i];
    return n;
}

void vbt_cart_coords(int ndims, const int *dims, int rank, int *coords)
{
    for (int i = ndims - 1; i >= 0; i--) {
        coords[i] = rank % dims[i];
        rank /= dims[i];
    }
}

vbt_status_t vbt_cart_rank(int ndims, const int *dims, const int *periods, const int *coords,
                           int *rank_p)
{
    int rank = 0;

    for (int i = 0; i < ndims; i++) {
        int c = coords[i];
        if (c < 0 || c >= dims[i]) {
            if (!periods[i])
                return VBT_ERR_INVALID_PARAM;
            c %= dims[i];
            if (c < 0)
                c += dims[i];
        }
        rank = rank * dims[i] + c;
    }
    *rank_p = rank;
    return VBT_OK;
}

/* The rank at coords with dimension dir moved by d, or MPI_PROC_NULL off a non-periodic edge. */
static int moved(int ndims, const int *dims, const int *periods, const int *coords, int dir, int d)
{
    int c[ndims > 0 ? ndims : 1], rank;

    memcpy(c, coords, (size_t)ndims * sizeof(int));
    /* In 64 bits: coordinate plus a displacement near INT_MAX must not wrap. */
    long long x = (long long)c[dir] + d;
    if (x < 0 || x >= dims[dir]) {
        if (!periods[dir])
            return MPI_PROC_NULL;
        x %= dims[dir];
        if (x < 0)
            x += dims[dir];
    }
    c[dir] = (int)x;
    return vbt_cart_rank(ndims, dims, periods, c, &rank) == VBT_OK ? rank : MPI_PROC_NULL;
}

void vbt_cart_shift(int ndims, const int *dims, const int *periods, const int *coords, int dir,
                    int disp, int *source_p, int *dest_p)
{
    *source_p = moved(ndims, dims, periods, coords, dir, -disp);
    *dest_p = moved(ndims, dims, periods, coords, dir, disp);
}

/* Is x^k at least n? (In 64 bits, stopping as soon as it is.) */
static int pow_reaches(long long x, int k, long long n)
{
    long long p = 1;

    for (int i = 0; i < k; i++) {
        p *= x;
        if (p >= n)
            return 1;
    }
    return p >= n;
}

/* The largest x with x^k <= n (n >= 1). */
static int iroot(int n, int k)
{
    int lo = 1, hi = n;

    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (pow_reaches(mid, k, (long long)n + 1))
            hi = mid - 1;
        else
            lo = mid;
    }
    return lo;
}

typedef struct {
    const int *divs; /* the divisors of the number to split, largest first */
    int ndivs;
    int *cur, *best;
    int best_spread; /* -1 until a first factorisation is found */
} dims_search_t;

/* Whether the non-increasing factorisation cur beats best of the same spread: the one whose
 * smallest factor is larger wins, then the one whose second smallest is, and so on (MPICH's
 * choice: 5616 in 4 is 13 x 9 x 8 x 6, not 13 x 12 x 6 x 6). */
static int dims_better_tie(const int *cur, const int *best, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (cur[i] != best[i])
            return cur[i] > best[i];
    }
    return 0;
}

/* Depth-first search over non-increasing factorisations of rem into k more factors (each at
 * most maxd), keeping the one whose largest and smallest factors are closest (ties: above).
 * Branches that cannot reach the best spread so far are cut: the smallest factor left is at
 * most the k-th root of rem. */
static void dims_search(dims_search_t *s, int rem, int k, int maxd, int depth)
{
    if (k == 0) {
        int spread = s->cur[0] - s->cur[depth - 1];
        if (rem == 1 && (s->best_spread < 0 || spread < s->best_spread ||
                         (spread == s->best_spread && dims_better_tie(s->cur, s->best, depth)))) {
            s->best_spread = spread;
            memcpy(s->best, s->cur, (size_t)depth * sizeof(int));
        }
        return;
    }
    if (depth > 0 && s->best_spread >= 0 && s->cur[0] - iroot(rem, k) > s->best_spread)
        return;
    if (k == 1) {
        if (rem <= maxd) {
            s->cur[depth] = rem;
            dims_search(s, 1, 0, rem, depth + 1);
        }
        return;
    }
    for (int i = 0; i < s->ndivs; i++) {
        int d = s->divs[i];
        if (d > maxd || rem % d != 0)
            continue;
        if (!pow_reaches(d, k, rem))
            break; /* k factors of at most d cannot make rem, nor of any smaller d */
        s->cur[depth] = d;
        dims_search(s, rem / d, k - 1, d, depth + 1);
    }
}

vbt_status_t vbt_dims_create(int nnodes, int ndims, int *dims)
{
    long long fixed = 1;
    int free_dims = 0, m, nsmall = 0, k = 0, *divs;
    dims_search_t s = {.best_spread = -1};

    for (int i = 0; i < ndims; i++) {
        if (dims[i] > 0)
            fixed *= dims[i];
        else
            free_dims++;
        if (fixed > nnodes)
            return VBT_ERR_INVALID_PARAM;
    }
    if (fixed <= 0 || nnodes % fixed != 0)
        return VBT_ERR_INVALID_PARAM;
    if (free_dims == 0)
        return nnodes == fixed ? VBT_OK : VBT_ERR_INVALID_PARAM;
    m = (int)(nnodes / fixed);
    for (int d = 1; (long long)d * d <= m; d++)
        nsmall += m % d == 0;
    divs = malloc((size_t)(2 * nsmall) * sizeof(int));
    s.cur = calloc((size_t)free_dims, sizeof(int));
    s.best = calloc((size_t)free_dims, sizeof(int));
    if (divs == NULL || s.cur == NULL || s.best == NULL) {
        free(divs);
        free(s.cur);
        free(s.best);
        return VBT_ERR_NO_MEMORY;
    }
    /* The divisors of m, largest first: the partners m/d of the small ones d <= sqrt(m) in
     * ascending d, then the small ones, descending. */
    for (int d = 1; (long long)d * d <= m; d++) {
        if (m % d == 0 && m / d != d)
            divs[k++] = m / d;
    }
    for (int d = iroot(m, 2); d >= 1; d--) {
        if (m % d == 0)
            divs[k++] = d;
    }
    s.divs = divs;
    s.ndivs = k;
    dims_search(&s, m, free_dims, m, 0);
    for (int i = 0, j = 0; i < ndims; i++) {
        if (dims[i] == 0)
            dims[i] = s.best[j++];
    }
    free(divs);
    free(s.cur);
    free(s.best);
    return VBT_OK;
}

static int *dup_ints(const int *src, int n)
{
    int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));

    if (p != NULL && n > 0)
        memcpy(p, src, (size_t)n * sizeof(int));
    return p;
}

void vbt_topo_free(vbt_topo_t *topo)
{
    if (topo == NULL)
        return;
    free(topo->dims);
    free(topo->periods);
    free(topo->coords);
    free(topo->index);
    free(topo->edges);
    free(topo->sources);
    free(topo->destinations);
    free(topo->sourceweights);
    free(topo->destweights);
    free(topo);
}

vbt_status_t vbt_topo_cart(int ndims, const int *dims, const int *periods, int rank,
                           vbt_topo_t **topo_p)
{
    vbt_topo_t *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return VBT_ERR_NO_MEMORY;
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = dup_ints(dims, ndims);
    t->periods = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
    t->coords = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
    t->indegree = t->outdegree = 2 * ndims;
    t->sources = malloc((size_t)(2 * ndims + 1) * sizeof(int));
    t->destinations = malloc((size_t)(2 * ndims + 1) * sizeof(int));
    if (t->dims == NULL || t->periods == NULL || t->coords == NULL || t->sources == NULL ||
        t->destinations == NULL) {
        vbt_topo_free(t);
        return VBT_ERR_NO_MEMORY;
    }
    for (int i = 0; i < ndims; i++)
        t->periods[i] = periods[i] != 0;
    vbt_cart_coords(ndims, dims, rank, t->coords);
    for (int i = 0; i < ndims; i++) {
        vbt_cart_shift(ndims, t->dims, t->periods, t->coords, i, 1, &t->sources[2 * i],
                       &t->sources[2 * i + 1]);
        t->destinations[2 * i] = t->sources[2 * i];
        t->destinations[2 * i + 1] = t->sources[2 * i + 1];
    }
    *topo_p = t;
    return VBT_OK;
}

vbt_status_t vbt_topo_graph(int nnodes, const int *index, const int *edges, int rank,
                            vbt_topo_t **topo_p)
{
    vbt_topo_t *t = calloc(1, sizeof(*t));
    int first, nedges = nnodes > 0 ? index[nnodes - 1] : 0;

    if (t == NULL)
        return VBT_ERR_NO_MEMORY;
    t->kind = MPI_GRAPH;
    t->nnodes = nnodes;
    t->index = dup_ints(index, nnodes);
    t->edges = dup_ints(edges, nedges);
    first = rank > 0 ? index[rank - 1] : 0;
    t->indegree = t->outdegree = index[rank] - first;
    t->sources = dup_ints(edges + first, t->indegree);
    t->destinations = dup_ints(edges + first, t->outdegree);
    if (t->index == NULL || t->edges == NULL || t->sources == NULL || t->destinations == NULL) {
        vbt_topo_free(t);
        return VBT_ERR_NO_MEMORY;
    }
    *topo_p = t;
    return VBT_OK;
}

vbt_status_t vbt_topo_dist_graph(int indegree, const int *sources, const int *sourceweights,
                                 int outdegree, const int *destinations, const int *destweights,
                                 vbt_topo_t **topo_p)
{
    vbt_topo_t *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return VBT_ERR_NO_MEMORY;
    t->kind = MPI_DIST_GRAPH;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->sources = dup_ints(sources, indegree);
    t->destinations = dup_ints(destinations, outdegree);
    t->weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    if (t->weighted) {
        /* MPI_WEIGHTS_EMPTY (degree 0) and real arrays alike: copy degree entries. */
        t->sourceweights = indegree > 0 ? dup_ints(sourceweights, indegree) : dup_ints(NULL, 0);
        t->destweights = outdegree > 0 ? dup_ints(destweights, outdegree) : dup_ints(NULL, 0);
    }
    if (t->sources == NULL || t->destinations == NULL ||
        (t->weighted && (t->sourceweights == NULL || t->destweights == NULL))) {
        vbt_topo_free(t);
        return VBT_ERR_NO_MEMORY;
    }
    *topo_p = t;
    return VBT_OK;
}

vbt_status_t vbt_topo_dup(const vbt_topo_t *topo, int rank, vbt_topo_t **topo_p)
{
    switch (topo->kind) {
    case MPI_CART:
        return vbt_topo_cart(topo->ndims, topo->dims, topo->periods, rank, topo_p);
    case MPI_GRAPH:
        return vbt_topo_graph(topo->nnodes, topo->index, topo->edges, rank, topo_p);
    default:
        return vbt_topo_dist_graph(topo->indegree, topo->sources,
                                   topo->weighted ? topo->sourceweights : MPI_UNWEIGHTED,
                                   topo->outdegree, topo->destinations,
                                   topo->weighted ? topo->destweights : MPI_UNWEIGHTED, topo_p);
    }
}

vbt_status_t vbt_topo_neighbors(const vbt_comm_t *comm, int *indegree_p, const int **sources_p,
                                int *outdegree_p, const int **destinations_p)
{
    const vbt_topo_t *t = comm->topo;

    if (t == NULL)
        return VBT_ERR_INVALID_PARAM;
    *indegree_p = t->indegree;
    *sources_p = t->sources;
    *outdegree_p = t->outdegree;
    *destinations_p = t->destinations;
    return VBT_OK;
}
