/* The shared-memory transport's instance (transport-shm/vbt_shm.c) through its ops table alone,
 * with no MPI ranks and no launcher: the contract's promise that an instance keeps all of its
 * state, so that two of them are independent. Two instances in this one process play ranks 0
 * and 1 of a job of 3 (rank 2 on another node) and map each other's segments through
 * /proc/self/fd: messages both ways with every byte checked, a full ring, a sleep ended by the
 * other's post, CMA reads, counters that stay apart, and a send to the one that finalized. And
 * the edges of init: alone on the node (nothing to publish, nobody reached, no sleep limit),
 * the resources refused (no file descriptor left: VBT_ERR_NO_DEVICE with a reason, nothing
 * returned), and upcalls or a job that break the contract. */
#include <check.h>
#include "vbt_check.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "vbt_config.h"
#include "vbt_shm.h"
#include "vbt_shm_int.h"

#define NRANKS 3
#define NMSG   64

/* What the runtime would keep for one rank: the published blobs (the "modex" of this process)
 * and what arrived. */
typedef struct {
    unsigned char blob[VBT_TL_ADDR_MAX];
    size_t len; /* 0: nothing published */
} pub_t;

static pub_t pub[NRANKS];

typedef struct {
    int rank;
    int count;           /* messages arrived */
    int src[NMSG];       /* their senders */
    size_t len[NMSG];    /* their lengths */
    uint8_t first[NMSG]; /* their first bytes */
    uint8_t last[NMSG];  /* their last bytes */
    int bad;             /* a message whose bytes were not the pattern */
} rank_t;

static uint8_t pattern(int src, size_t len, size_t i)
{
    return (uint8_t)(src * 17 + len * 3 + i * 7 + 1);
}

static void on_recv(void *arg, int src, const void *data, size_t len)
{
    rank_t *r = arg;
    const uint8_t *d = data;

    for (size_t i = 0; i < len; i++)
        r->bad += d[i] != pattern(src, len, i);
    if (r->count < NMSG) {
        r->src[r->count] = src;
        r->len[r->count] = len;
        r->first[r->count] = len > 0 ? d[0] : 0;
        r->last[r->count] = len > 0 ? d[len - 1] : 0;
    }
    r->count++;
}

static vbt_status_t on_peer_addr(void *arg, int peer, void **blob_p, size_t *len_p)
{
    void *b;

    if (peer < 0 || peer >= NRANKS || pub[peer].len == 0)
        return VBT_ERR_NOT_FOUND;
    b = malloc(pub[peer].len);
    ck_assert_ptr_nonnull(b);
    memcpy(b, pub[peer].blob, pub[peer].len);
    *blob_p = b;
    *len_p = pub[peer].len;
    return VBT_OK;
}

static const int local_peers[] = {0, 1}; /* rank 2 is on another node */

/* Open rank r's instance and publish its blob. */
static vbt_tl_iface_t *open_rank(rank_t *r, int rank)
{
    vbt_tl_job_t job = {.rank = rank, .size = NRANKS, .local_peers = local_peers, .local_size = 2};
    vbt_tl_upcalls_t up = {.recv = on_recv, .peer_addr = on_peer_addr, .arg = r};
    vbt_tl_iface_t *iface = NULL;
    size_t len = sizeof(pub[rank].blob);
    char why[128] = "";

    memset(r, 0, sizeof(*r));
    r->rank = rank;
    ck_assert_int_eq(vbt_shm_tl_ops.init(&job, &up, &iface, pub[rank].blob, &len, why, sizeof(why)),
                     VBT_OK);
    ck_assert_ptr_nonnull(iface);
    ck_assert_uint_eq(len, sizeof(vbt_shm_addr_t));
    ck_assert_uint_le(len, VBT_TL_ADDR_MAX);
    pub[rank].len = len;
    /* The interface the runtime reads. */
    ck_assert_ptr_eq(iface->ops, &vbt_shm_tl_ops);
    ck_assert_ptr_eq(iface->send, vbt_shm_tl_ops.send);
    ck_assert_uint_eq(iface->max_send, VBT_SHM_CELL_DATA);
    ck_assert_uint_eq(iface->rndv_threshold, vbt_cfg.shm_rndv_threshold);
    ck_assert_int_eq(iface->spin_polls, 0);
    ck_assert(iface->caps & VBT_TL_CAP_STREAM);
    ck_assert(!(iface->caps & VBT_TL_CAP_READ_PEER)); /* not before the probe at wireup */
    return iface;
}

static vbt_status_t send_pattern(vbt_tl_iface_t *tl, int from, int to, size_t len)
{
    uint8_t buf[VBT_SHM_CELL_DATA];
    size_t hdr = len < 24 ? len : 24;

    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(from, len, i);
    return tl->send(tl, to, buf, hdr, buf + hdr, len - hdr);
}

/* _i 0: the instances register for membarrier, and send and drain without fences; 1: they do
 * not (VBT_SHM_MEMBARRIER=0), and fence. */
START_TEST(test_two_instances)
{
    static const size_t sizes[] = {0, 1, 63, 64, 4096, VBT_SHM_CELL_DATA};
    const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
    rank_t ra, rb;
    vbt_tl_iface_t *a, *b;
    vbt_shm_iface_t *sa, *sb;
    int go = -1, n;

    vbt_cfg.shm_membarrier = _i == 0;
    memset(pub, 0, sizeof(pub));
    a = open_rank(&ra, 0);
    b = open_rank(&rb, 1);
    sa = vbt_shm_iface(a);
    sb = vbt_shm_iface(b);
    ck_assert_ptr_ne(a, b);
    ck_assert_ptr_ne(sa->seg, sb->seg);
    ck_assert_int_ne(sa->bell_fd, sb->bell_fd);
    /* The fence would be here: both blobs are published. */
    ck_assert_int_eq(vbt_shm_tl_ops.wireup(a), VBT_OK);
    ck_assert_int_eq(vbt_shm_tl_ops.wireup(b), VBT_OK);
    ck_assert_int_eq(vbt_shm_tl_ops.reaches(a, 1), 1);
    ck_assert_int_eq(vbt_shm_tl_ops.reaches(a, 2), 0); /* another node */
    ck_assert_int_eq(vbt_shm_tl_ops.reaches(b, 0), 1);
    ck_assert_int_eq(vbt_shm_tl_ops.reaches(b, 2), 0);
    if (_i == 1 || !sa->asym) /* the kernel may refuse membarrier: then they fence too */
        ck_assert_int_eq(sa->peers[1].send_fence + sb->peers[0].send_fence, 2);
    else
        ck_assert_int_eq(sa->peers[1].send_fence + sb->peers[0].send_fence, 0);
    ck_assert_int_eq(!!(a->caps & VBT_TL_CAP_READ_PEER), sa->cma_available && vbt_cfg.shm_cma);
    ck_assert_int_eq(vbt_shm_tl_ops.max_sleep_ms(a), VBT_SHM_BLOCK_MAX_MS);
    ck_assert_int_eq(vbt_shm_tl_ops.wait_fd(a), sa->bell_fd);

    /* Every size both ways, each delivered by the receiver's progress alone, in order. */
    for (size_t k = 0; k < nsizes; k++) {
        ck_assert_int_eq(send_pattern(a, 0, 1, sizes[k]), VBT_OK);
        ck_assert_int_eq(send_pattern(b, 1, 0, sizes[k]), VBT_OK);
    }
    ck_assert_int_eq(vbt_shm_tl_ops.progress(a), (int)nsizes);
    ck_assert_int_eq(ra.count, (int)nsizes);
    ck_assert_int_eq(rb.count, 0); /* a's progress reads a's rings only */
    ck_assert_int_eq(vbt_shm_tl_ops.progress(b), (int)nsizes);
    ck_assert_int_eq(rb.count, (int)nsizes);
    for (size_t k = 0; k < nsizes; k++) {
        ck_assert_int_eq(ra.src[k], 1);
        ck_assert_int_eq(rb.src[k], 0);
        ck_assert_uint_eq(ra.len[k], sizes[k]);
        ck_assert_uint_eq(rb.len[k], sizes[k]);
    }
    ck_assert_int_eq(ra.bad + rb.bad, 0);
    ck_assert_int_eq(vbt_shm_tl_ops.progress(a), 0);
    ck_assert_int_eq(vbt_shm_tl_ops.progress(b), 0);
    /* Too long, and not a peer: refused, nothing sent. */
    ck_assert_int_eq(a->send(a, 1, "h", 1, ra.src, VBT_SHM_CELL_DATA), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(a->send(a, 2, "h", 1, NULL, 0), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_shm_tl_ops.progress(b), 0);

    /* A full ring: back-pressure, then the receiver drains it a batch per call. */
    rb.count = 0;
    for (n = 0; n < 2 * VBT_SHM_RING_DEPTH; n++) {
        vbt_status_t st = send_pattern(a, 0, 1, 100);
        if (st == VBT_ERR_NO_RESOURCE)
            break;
        ck_assert_int_eq(st, VBT_OK);
    }
    ck_assert_int_eq(n, VBT_SHM_RING_DEPTH);
    ck_assert_uint_eq(sa->stats.full, 1);
    /* a sleeps on it (nothing else to wait for); b's drain frees cells and rings a's doorbell,
     * with a fence or without one (both registered for membarrier: a's sleep fenced for b). */
    ck_assert_int_eq(vbt_shm_tl_ops.sleep_begin(a, &go), VBT_OK);
    ck_assert_int_eq(go, 1);
    ck_assert_int_eq(vbt_shm_tl_ops.progress(b), VBT_SHM_POLL_BATCH);
    {
        struct pollfd pfd = {.fd = vbt_shm_tl_ops.wait_fd(a), .events = POLLIN};
        ck_assert_int_eq(poll(&pfd, 1, 2000), 1);
        ck_assert_int_eq(vbt_shm_tl_ops.sleep_end(a, 1, 0), VBT_OK);
    }
    ck_assert_uint_eq(sa->stats.rung, 1);
    ck_assert_uint_eq(sb->stats.wakes, 1);
    ck_assert_int_eq(send_pattern(a, 0, 1, 100), VBT_OK);
    while ((n = vbt_shm_tl_ops.progress(b)) > 0)
        ;
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(rb.count, VBT_SHM_RING_DEPTH + 1);
    ck_assert_int_eq(rb.bad, 0);

    /* b sleeps; a's post rings b's doorbell, which b polls as the runtime would. */
    ck_assert_int_eq(vbt_shm_tl_ops.sleep_begin(b, &go), VBT_OK);
    ck_assert_int_eq(go, 1);
    ck_assert_int_eq(send_pattern(a, 0, 1, 8), VBT_OK);
    {
        struct pollfd pfd = {.fd = vbt_shm_tl_ops.wait_fd(b), .events = POLLIN};
        int rc = poll(&pfd, 1, 2000);
        ck_assert_int_eq(rc, 1);
        ck_assert_int_eq(vbt_shm_tl_ops.sleep_end(b, 1, 0), VBT_OK);
    }
    ck_assert_uint_eq(sb->stats.rung, 1);
    ck_assert_uint_eq(sa->stats.wakes, 1);
    ck_assert_int_eq(vbt_shm_tl_ops.progress(b), 1);
    /* With a message waiting, sleep_begin calls the sleep off and delivers it. */
    ck_assert_int_eq(send_pattern(b, 1, 0, 8), VBT_OK);
    ck_assert_int_eq(vbt_shm_tl_ops.sleep_begin(a, &go), VBT_OK);
    ck_assert_int_eq(go, 0);
    ck_assert_uint_eq(sa->stats.called_off, 1);
    ck_assert_uint_eq(sb->stats.called_off, 0);
    ck_assert_int_eq(vbt_shm_tl_ops.check_liveness(a), VBT_OK);
    ck_assert_int_eq(vbt_shm_tl_ops.check_liveness(b), VBT_OK);

    /* CMA: one copy out of the "peer" (this process) when the probe said yes. */
    if (a->caps & VBT_TL_CAP_READ_PEER) {
        static uint8_t src[100000], dst[100000 + 1];
        for (size_t i = 0; i < sizeof(src); i++)
            src[i] = (uint8_t)(i * 13 + 5);
        ck_assert_int_eq(vbt_shm_tl_ops.read_peer(a, 1, dst, (uintptr_t)src, sizeof(src)), VBT_OK);
        ck_assert_int_eq(memcmp(dst, src, sizeof(src)), 0);
        ck_assert_int_eq(vbt_shm_tl_ops.read_peer(a, 1, dst, 8, 8), VBT_ERR_INVALID_PARAM);
        ck_assert(a->caps & VBT_TL_CAP_READ_PEER);
    }
    ck_assert_int_eq(vbt_shm_tl_ops.read_peer(a, 2, ra.src, 0, 8), VBT_ERR_INVALID_PARAM);

    /* Each instance counts its own traffic. */
    ck_assert_uint_eq(vbt_shm_sends(sa), nsizes + VBT_SHM_RING_DEPTH + 2);
    ck_assert_uint_eq(vbt_shm_sends(sb), nsizes + 1);
    ck_assert_uint_eq(sa->stats.recvs, nsizes + 1);
    ck_assert_uint_eq(sb->stats.recvs, nsizes + VBT_SHM_RING_DEPTH + 2);

    /* b finalizes: a's sends to it fail from then on, a itself goes on. */
    vbt_shm_tl_ops.finalize(b);
    ck_assert_int_eq(send_pattern(a, 0, 1, 8), VBT_ERR_PEER_FAILED);
    ck_assert_int_eq(send_pattern(a, 0, 1, 8), VBT_ERR_PEER_FAILED);
    ck_assert_int_eq(vbt_shm_tl_ops.progress(a), 0);
    vbt_shm_tl_ops.finalize(a);
}
END_TEST

/* Alone on the node: VBT_OK, nothing to publish, nobody reached, nothing to wait on. */
START_TEST(test_alone)
{
    const int me[] = {1};
    vbt_tl_job_t job = {.rank = 1, .size = 2, .local_peers = me, .local_size = 1};
    vbt_tl_upcalls_t up = {.recv = on_recv, .peer_addr = on_peer_addr};
    vbt_tl_iface_t *iface = NULL;
    unsigned char addr[VBT_TL_ADDR_MAX];
    size_t len = sizeof(addr);
    char why[128] = "";
    int go = -1;

    ck_assert_int_eq(vbt_shm_tl_ops.init(&job, &up, &iface, addr, &len, why, sizeof(why)), VBT_OK);
    ck_assert_ptr_nonnull(iface);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(vbt_shm_tl_ops.wireup(iface), VBT_OK);
    ck_assert_int_eq(vbt_shm_tl_ops.reaches(iface, 0), 0);
    ck_assert_int_eq(iface->send(iface, 0, "x", 1, NULL, 0), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_shm_tl_ops.progress(iface), 0);
    ck_assert_int_eq(vbt_shm_tl_ops.wait_fd(iface), -1);
    ck_assert_int_eq(vbt_shm_tl_ops.max_sleep_ms(iface), -1);
    ck_assert_int_eq(vbt_shm_tl_ops.sleep_begin(iface, &go), VBT_OK);
    ck_assert_int_eq(go, 1);
    ck_assert_int_eq(vbt_shm_tl_ops.sleep_end(iface, 0, 1), VBT_OK);
    ck_assert_int_eq(vbt_shm_tl_ops.check_liveness(iface), VBT_OK);
    ck_assert(!(iface->caps & VBT_TL_CAP_READ_PEER));
    vbt_shm_tl_ops.finalize(iface);
}
END_TEST

/* No file descriptor left for the segment: not the job's failure, VBT_ERR_NO_DEVICE with a
 * reason, and no output argument touched. */
START_TEST(test_no_device)
{
    vbt_tl_job_t job = {.rank = 0, .size = 2, .local_peers = local_peers, .local_size = 2};
    vbt_tl_upcalls_t up = {.recv = on_recv, .peer_addr = on_peer_addr};
    vbt_tl_iface_t *iface = (vbt_tl_iface_t *)&job; /* must stay as it is */
    unsigned char addr[VBT_TL_ADDR_MAX];
    size_t len = 12345;
    char why[128] = "";
    struct rlimit old, none;
    int lowest = open("/dev/null", O_RDONLY | O_CLOEXEC); /* the lowest free fd */
    vbt_status_t st;

    ck_assert_int_ge(lowest, 0);
    close(lowest);
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
    none = old;
    none.rlim_cur = (rlim_t)lowest; /* every new fd would be >= the limit */
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &none), 0);
    st = vbt_shm_tl_ops.init(&job, &up, &iface, addr, &len, why, sizeof(why));
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
    ck_assert_int_eq(st, VBT_ERR_NO_DEVICE);
    ck_assert_str_ne(why, "");
    ck_assert_ptr_eq(iface, (vbt_tl_iface_t *)&job);
    ck_assert_uint_eq(len, 12345);
}
END_TEST

/* A job or upcalls that break the contract: VBT_ERR_INVALID_PARAM (a bug above, fatal). */
START_TEST(test_invalid)
{
    const int others[] = {0, 2};
    const int out_of_range[] = {0, 7};
    vbt_tl_job_t job = {.rank = 1, .size = 3, .local_peers = others, .local_size = 2};
    vbt_tl_upcalls_t up = {.recv = on_recv, .peer_addr = on_peer_addr};
    vbt_tl_upcalls_t no_recv = {.peer_addr = on_peer_addr};
    vbt_tl_iface_t *iface = NULL;
    unsigned char addr[VBT_TL_ADDR_MAX];
    size_t len = sizeof(addr);
    char why[128];

    /* Not in its own node's list. */
    ck_assert_int_eq(vbt_shm_tl_ops.init(&job, &up, &iface, addr, &len, why, sizeof(why)),
                     VBT_ERR_INVALID_PARAM);
    job.local_peers = out_of_range;
    job.rank = 0;
    ck_assert_int_eq(vbt_shm_tl_ops.init(&job, &up, &iface, addr, &len, why, sizeof(why)),
                     VBT_ERR_INVALID_PARAM);
    job.local_peers = local_peers;
    ck_assert_int_eq(vbt_shm_tl_ops.init(&job, &no_recv, &iface, addr, &len, why, sizeof(why)),
                     VBT_ERR_INVALID_PARAM);
    ck_assert_ptr_null(iface);
    ck_assert_uint_eq(len, sizeof(addr));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shm_iface");
    TCase *tc = tcase_create("instance");

    tcase_add_loop_test(tc, test_two_instances, 0, 2);
    tcase_add_test(tc, test_alone);
    tcase_add_test(tc, test_no_device);
    tcase_add_test(tc, test_invalid);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
