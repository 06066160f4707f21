/* Group objects and their set operations. Lookups by world rank go through a map built for the
 * call (world rank -> group rank), so every operation is linear in the sizes involved. */
#include "vbt_group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vbt_group_t vbt_group_empty = {
    .magic = VBT_GROUP_MAGIC, .refcount = 1, .size = 0, .ranks = NULL, .session = MPI_SESSION_NULL};

/* Groups alive at once: 1 Mi (32 MiB of address space, mapped as they come). */
vbt_objpool_t vbt_group_pool = VBT_OBJPOOL_INITIALIZER(vbt_group_t, "group", 1u << 20, ranks);

vbt_status_t vbt_group_create(int n, const int *world_ranks, vbt_group_t **group_p)
{
    vbt_group_t *g;

    if (n == 0) {
        *group_p = &vbt_group_empty;
        return VBT_OK;
    }
    g = vbt_objpool_alloc(&vbt_group_pool);
    if (g == NULL)
        return VBT_ERR_NO_MEMORY;
    g->ranks = malloc((size_t)n * sizeof(int));
    if (g->ranks == NULL) {
        vbt_objpool_free(&vbt_group_pool, g);
        return VBT_ERR_NO_MEMORY;
    }
    memcpy(g->ranks, world_ranks, (size_t)n * sizeof(int));
    g->magic = VBT_GROUP_MAGIC;
    g->refcount = 1;
    g->size = n;
    g->session = MPI_SESSION_NULL;
    *group_p = g;
    return VBT_OK;
}

void vbt_group_retain(vbt_group_t *g)
{
    if (g != &vbt_group_empty)
        g->refcount++;
}

void vbt_group_release(vbt_group_t *g)
{
    if (g == &vbt_group_empty || --g->refcount > 0)
        return;
    free(g->ranks);
    vbt_objpool_free(&vbt_group_pool, g); /* zeroes the magic: a stale handle is refused */
}

void vbt_group_cleanup(void)
{
    VBT_OBJPOOL_FOREACH(&vbt_group_pool, vbt_group_t, g, VBT_GROUP_MAGIC)
    {
        free(g->ranks);
    }
    vbt_objpool_destroy(&vbt_group_pool);
}

int vbt_group_rank_of(const vbt_group_t *g, int w)
{
    for (int i = 0; i < g->size; i++) {
        if (g->ranks[i] == w)
            return i;
    }
    return MPI_UNDEFINED;
}

/* map[w] = rank of world rank w in g, or -1; *len_p = largest world rank + 1. */
static int *rank_map(const vbt_group_t *g, int *len_p)
{
    int len = 0, *map;

    for (int i = 0; i < g->size; i++) {
        if (g->ranks[i] >= len)
            len = g->ranks[i] + 1;
    }
    map = malloc((size_t)(len ? len : 1) * sizeof(int));
    if (map == NULL)
        return NULL;
    memset(map, 0xff, (size_t)len * sizeof(int));
    for (int i = 0; i < g->size; i++)
        map[g->ranks[i]] = i;
    *len_p = len;
    return map;
}

static int map_has(const int *map, int len, int w)
{
    return w < len && map[w] >= 0;
}

int vbt_group_check_ranks(const vbt_group_t *g, int n, const int *ranks, char *why, size_t len)
{
    char *seen = calloc((size_t)(g->size ? g->size : 1), 1);

    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size) {
            snprintf(why, len, "ranks[%d] is %d, but the group has %d members (0..%d)", i, ranks[i],
                     g->size, g->size - 1);
            free(seen);
            return i;
        }
        if (seen != NULL && seen[ranks[i]]) {
            snprintf(why, len, "ranks[%d] is %d, which appears earlier in the list too", i,
                     ranks[i]);
            free(seen);
            return i;
        }
        if (seen != NULL)
            seen[ranks[i]] = 1;
    }
    free(seen);
    return -1;
}

vbt_status_t vbt_group_expand_ranges(const vbt_group_t *g, int n, int ranges[][3], int **list_p,
                                     int *count_p, char *why, size_t len)
{
    char *seen = calloc((size_t)(g->size ? g->size : 1), 1);
    size_t total = 0;
    int *list = NULL, k = 0;

    if (seen == NULL)
        return VBT_ERR_NO_MEMORY;
    /* First pass: check every triplet and count, so the list is allocated once. */
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0) {
            snprintf(why, len, "ranges[%d] has stride 0", i);
            goto err_invalid;
        }
        if (first < 0 || first >= g->size || last < 0 || last >= g->size) {
            snprintf(why, len,
                     "ranges[%d] is (%d, %d, %d), but the group has %d members (0..%d): first "
                     "and last must be ranks of it",
                     i, first, last, stride, g->size, g->size - 1);
            goto err_invalid;
        }
        if ((stride > 0 && first > last) || (stride < 0 && first < last)) {
            /* Empty triplets are allowed by the standard only when they name no rank; we
             * accept them and they contribute nothing. */
            continue;
        }
        total += (size_t)((last - first) / stride) + 1;
    }
    list = malloc((total ? total : 1) * sizeof(int));
    if (list == NULL) {
        free(seen);
        return VBT_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            continue;
        for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (seen[r]) {
                snprintf(why, len,
                         "ranges[%d] = (%d, %d, %d) names rank %ld, which an earlier "
                         "triplet names too",
                         i, first, last, stride, r);
                free(list);
                goto err_invalid;
            }
            seen[r] = 1;
            list[k++] = (int)r;
        }
    }
    free(seen);
    *list_p = list;
    *count_p = k;
    return VBT_OK;

err_invalid:
    free(seen);
    return VBT_ERR_INVALID_PARAM;
}

vbt_status_t vbt_group_incl(const vbt_group_t *g, int n, const int *ranks, vbt_group_t **out_p)
{
    int *w = malloc((size_t)(n ? n : 1) * sizeof(int));
    vbt_status_t status;

    if (w == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < n; i++)
        w[i] = g->ranks[ranks[i]];
    status = vbt_group_create(n, w, out_p);
    free(w);
    return status;
}

vbt_status_t vbt_group_excl(const vbt_group_t *g, int n, const int *ranks, vbt_group_t **out_p)
{
    char *drop = calloc((size_t)(g->size ? g->size : 1), 1);
    int *w = malloc((size_t)(g->size ? g->size : 1) * sizeof(int));
    vbt_status_t status = VBT_ERR_NO_MEMORY;
    int k = 0;

    if (drop == NULL || w == NULL)
        goto out;
    for (int i = 0; i < n; i++)
        drop[ranks[i]] = 1;
    for (int i = 0; i < g->size; i++) {
        if (!drop[i])
            w[k++] = g->ranks[i];
    }
    status = vbt_group_create(k, w, out_p);
out:
    free(drop);
    free(w);
    return status;
}

/* The members of a (in a's order) whose presence in b equals want (-1: all of them), then, for
 * a union, the members of b missing from a, in b's order. */
static vbt_status_t combine(const vbt_group_t *a, const vbt_group_t *b, int want, int add_b,
                            vbt_group_t **out_p)
{
    int *w = malloc((size_t)(a->size + b->size + 1) * sizeof(int));
    int len_a = 0, len_b = 0, k = 0;
    int *map_a = rank_map(a, &len_a), *map_b = rank_map(b, &len_b);
    vbt_status_t status = VBT_ERR_NO_MEMORY;

    if (w == NULL || map_a == NULL || map_b == NULL)
        goto out;
    for (int i = 0; i < a->size; i++) {
        if (want < 0 || map_has(map_b, len_b, a->ranks[i]) == want)
            w[k++] = a->ranks[i];
    }
    if (add_b) {
        for (int i = 0; i < b->size; i++) {
            if (!map_has(map_a, len_a, b->ranks[i]))
                w[k++] = b->ranks[i];
        }
    }
    status = vbt_group_create(k, w, out_p);
out:
    free(w);
    free(map_a);
    free(map_b);
    return status;
}

vbt_status_t vbt_group_union(const vbt_group_t *a, const vbt_group_t *b, vbt_group_t **out_p)
{
    return combine(a, b, -1, 1, out_p);
}

vbt_status_t vbt_group_intersection(const vbt_group_t *a, const vbt_group_t *b, vbt_group_t **out_p)
{
    return combine(a, b, 1, 0, out_p);
}

vbt_status_t vbt_group_difference(const vbt_group_t *a, const vbt_group_t *b, vbt_group_t **out_p)
{
    return combine(a, b, 0, 0, out_p);
}

vbt_status_t vbt_group_translate(const vbt_group_t *a, int n, const int *ranks_a,
                                 const vbt_group_t *b, int *ranks_b)
{
    int len_b = 0, *map_b = rank_map(b, &len_b);

    if (map_b == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < n; i++) {
        int w;
        if (ranks_a[i] == MPI_PROC_NULL) {
            ranks_b[i] = MPI_PROC_NULL;
            continue;
        }
        w = a->ranks[ranks_a[i]];
        ranks_b[i] = map_has(map_b, len_b, w) ? map_b[w] : MPI_UNDEFINED;
    }
    free(map_b);
    return VBT_OK;
}

int vbt_group_is_subset(const vbt_group_t *a, const vbt_group_t *b)
{
    int len_b = 0, *map_b = rank_map(b, &len_b), ok = 1;

    if (map_b == NULL) {
        for (int i = 0; i < a->size && ok; i++)
            ok = vbt_group_rank_of(b, a->ranks[i]) != MPI_UNDEFINED;
        return ok;
    }
    for (int i = 0; i < a->size && ok; i++)
        ok = map_has(map_b, len_b, a->ranks[i]);
    free(map_b);
    return ok;
}

int vbt_group_compare(const vbt_group_t *a, const vbt_group_t *b)
{
    if (a->size != b->size)
        return MPI_UNEQUAL;
    if (a->size == 0 || memcmp(a->ranks, b->ranks, (size_t)a->size * sizeof(int)) == 0)
        return MPI_IDENT;
    /* Same size and no repeats within a group: equal as sets iff a is a subset of b. */
    return vbt_group_is_subset(a, b) ? MPI_SIMILAR : MPI_UNEQUAL;
}
