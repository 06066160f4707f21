/* Binomial trees rooted at member 0: a reduction (or a gather of contiguous blocks) up the tree,
 * then a broadcast down it; 2 * ceil(log2 n) rounds for any n. The trees are the same as the
 * ones MPICH uses for its binomial reduce and broadcast: member m's parent is m minus its lowest
 * set bit. Each phase has its own tag, so successive agreements between the same two members
 * stay apart even if one of them runs ahead (matching is in order per source, tag and context). */
#include "vbt_comm_agree.h"
#include "vbt_p2p.h"

#include <stdlib.h>
#include <string.h>

enum { PHASE_UP = 0, PHASE_DOWN = 1 };

static int phase_tag(const vbt_agree_t *a, int phase)
{
    return VBT_AGREE_TAG_BASE + ((a->tag & VBT_AGREE_TAG_MASK) << 1) + phase;
}

static int parent_rank(const vbt_agree_t *a, int member)
{
    return a->ranks != NULL ? a->ranks[member] : member;
}

static vbt_status_t wait_release(vbt_request_t *req, int check_len, size_t bytes)
{
    vbt_status_t status = vbt_p2p_wait_flag(&req->complete);

    if (status == VBT_OK && check_len &&
        (req->status_error != MPI_SUCCESS || req->status_bytes != bytes))
        status = VBT_ERR_TRUNCATE; /* a peer disagrees on the sizes: a bug, not user error */
    vbt_request_release(req);
    return status;
}

static vbt_status_t send_to(const vbt_agree_t *a, int member, int phase, const void *buf,
                            size_t bytes)
{
    vbt_request_t *req;
    vbt_status_t status = vbt_p2p_isend(a->parent, VBT_CTX_COLL, buf, bytes, parent_rank(a, member),
                                        phase_tag(a, phase), 0, &req);

    return status == VBT_OK ? wait_release(req, 0, bytes) : status;
}

static vbt_status_t recv_from(const vbt_agree_t *a, int member, int phase, void *buf, size_t bytes)
{
    vbt_request_t *req;
    vbt_status_t status = vbt_p2p_irecv(a->parent, VBT_CTX_COLL, buf, bytes, parent_rank(a, member),
                                        phase_tag(a, phase), &req);

    return status == VBT_OK ? wait_release(req, 1, bytes) : status;
}

vbt_status_t vbt_agree_bcast(const vbt_agree_t *a, void *buf, size_t bytes)
{
    int mask = 1;
    vbt_status_t status;

    while (mask < a->n && !(a->me & mask))
        mask <<= 1;
    if (a->me != 0) {
        status = recv_from(a, a->me - mask, PHASE_DOWN, buf, bytes);
        if (status != VBT_OK)
            return status;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (a->me + mask < a->n) {
            status = send_to(a, a->me + mask, PHASE_DOWN, buf, bytes);
            if (status != VBT_OK)
                return status;
        }
    }
    return VBT_OK;
}

vbt_status_t vbt_agree_and(const vbt_agree_t *a, uint64_t *bits, size_t nwords)
{
    size_t bytes = nwords * sizeof(uint64_t);
    uint64_t *tmp;
    vbt_status_t status = VBT_OK;

    if (a->n == 1)
        return VBT_OK;
    tmp = malloc(bytes);
    if (tmp == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int mask = 1; mask < a->n; mask <<= 1) {
        if (a->me & mask) {
            status = send_to(a, a->me - mask, PHASE_UP, bits, bytes);
            break;
        }
        if (a->me + mask < a->n) {
            status = recv_from(a, a->me + mask, PHASE_UP, tmp, bytes);
            if (status != VBT_OK)
                break;
            for (size_t i = 0; i < nwords; i++)
                bits[i] &= tmp[i];
        }
    }
    free(tmp);
    return status == VBT_OK ? vbt_agree_bcast(a, bits, bytes) : status;
}

vbt_status_t vbt_agree_allgather(const vbt_agree_t *a, const void *mine, size_t bytes, void *all)
{
    char *blocks = all;
    vbt_status_t status = VBT_OK;

    memcpy(blocks + (size_t)a->me * bytes, mine, bytes);
    if (a->n == 1)
        return VBT_OK;
    /* Up: member m collects the blocks of its subtree, members m .. m + lowbit(m) - 1. */
    for (int mask = 1; mask < a->n; mask <<= 1) {
        if (a->me & mask) {
            int end = a->me + mask < a->n ? a->me + mask : a->n;
            status = send_to(a, a->me - mask, PHASE_UP, blocks + (size_t)a->me * bytes,
                             (size_t)(end - a->me) * bytes);
            break;
        }
        if (a->me + mask < a->n) {
            int from = a->me + mask, end = from + mask < a->n ? from + mask : a->n;
            status = recv_from(a, from, PHASE_UP, blocks + (size_t)from * bytes,
                               (size_t)(end - from) * bytes);
            if (status != VBT_OK)
                break;
        }
    }
    return status == VBT_OK ? vbt_agree_bcast(a, all, (size_t)a->n * bytes) : status;
}

/* Wait for n requests and release them; the first failure wins. */
static vbt_status_t wait_all(vbt_request_t **reqs, int n)
{
    vbt_status_t status = VBT_OK;

    for (int i = 0; i < n; i++) {
        vbt_status_t st;
        if (reqs[i] == NULL)
            continue;
        st = vbt_p2p_wait_flag(&reqs[i]->complete);
        if (st == VBT_OK && reqs[i]->status_error != MPI_SUCCESS)
            st = VBT_ERR_TRUNCATE;
        if (status == VBT_OK)
            status = st;
        vbt_request_release(reqs[i]);
        reqs[i] = NULL;
    }
    return status;
}

/* One round: receive rbytes[i] into rbufs[i] from and send sbytes[i] from sbufs[i] to every
 * member i. */
static vbt_status_t exchange(const vbt_agree_t *a, int phase, const size_t *sbytes,
                             const void *const *sbufs, const size_t *rbytes, void **rbufs,
                             vbt_request_t **reqs)
{
    vbt_status_t status = VBT_OK;
    int n = a->n, k = 0;

    for (int i = 0; i < n && status == VBT_OK; i++, k++)
        status = vbt_p2p_irecv(a->parent, VBT_CTX_COLL, rbufs[i], rbytes[i], parent_rank(a, i),
                               phase_tag(a, phase), &reqs[k]);
    for (int i = 0; i < n && status == VBT_OK; i++, k++)
        status = vbt_p2p_isend(a->parent, VBT_CTX_COLL, sbufs[i], sbytes[i], parent_rank(a, i),
                               phase_tag(a, phase), 0, &reqs[k]);
    if (status != VBT_OK) {
        for (int i = 0; i < n && i < k; i++) {
            if (reqs[i] != NULL && !reqs[i]->complete)
                vbt_p2p_cancel(reqs[i]);
        }
        wait_all(reqs, k);
        return status;
    }
    return wait_all(reqs, 2 * n);
}

vbt_status_t vbt_agree_alltoallv(const vbt_agree_t *a, const size_t *sendbytes,
                                 const void *const *sendbufs, size_t *recvbytes, void **recvbufs)
{
    int n = a->n;
    uint64_t *counts = calloc((size_t)(2 * n), sizeof(uint64_t));
    vbt_request_t **reqs = calloc((size_t)(2 * n), sizeof(*reqs));
    const void **sp = calloc((size_t)n, sizeof(*sp));
    void **rp = calloc((size_t)n, sizeof(*rp));
    size_t *eight_s = calloc((size_t)n, sizeof(size_t)),
           *eight_r = calloc((size_t)n, sizeof(size_t));
    vbt_status_t status = VBT_ERR_NO_MEMORY;

    for (int i = 0; i < n; i++)
        recvbufs[i] = NULL;
    if (counts == NULL || reqs == NULL || sp == NULL || rp == NULL || eight_s == NULL ||
        eight_r == NULL)
        goto out;
    /* First the sizes, then the data. */
    for (int i = 0; i < n; i++) {
        counts[i] = sendbytes[i];
        sp[i] = &counts[i];
        rp[i] = &counts[n + i];
        eight_s[i] = eight_r[i] = sizeof(uint64_t);
    }
    status = exchange(a, PHASE_UP, eight_s, sp, eight_r, rp, reqs);
    if (status != VBT_OK)
        goto out;
    for (int i = 0; i < n; i++) {
        recvbytes[i] = (size_t)counts[n + i];
        recvbufs[i] = malloc(recvbytes[i] ? recvbytes[i] : 1);
        if (recvbufs[i] == NULL) {
            status = VBT_ERR_NO_MEMORY; /* the others are left waiting: as fatal as it gets */
            goto out;
        }
    }
    status = exchange(a, PHASE_DOWN, sendbytes, sendbufs, recvbytes, recvbufs, reqs);
out:
    if (status != VBT_OK) {
        for (int i = 0; i < n; i++) {
            free(recvbufs[i]);
            recvbufs[i] = NULL;
        }
    }
    free(counts);
    free(reqs);
    free(sp);
    free(rp);
    free(eight_s);
    free(eight_r);
    return status;
}
