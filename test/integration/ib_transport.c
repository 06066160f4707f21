/* White-box test of transport-ib on a real verbs device (a NIC, or Soft-RoCE in test/rxevm). It
 * drives the instance through vbt_ib_tl_ops by hand, as the runtime does (runtime/vbt_tl.c):
 * init with our job and upcalls, the address blob published and the peers' fetched through the
 * modex by this program itself, the fence, wireup, then sends through the interface's send and
 * the other ops; the instance's internals (vbt_ib_int.h) are read through its pointer.
 *
 *   ib_transport [all]    ping-pong of every size 0..eager limit between rank pairs, a
 *                         10,000-message flood from each even rank to the next odd one,
 *                         all-to-all among all ranks, a closing exchange; every byte checked
 *   ib_transport rnr      2 ranks: rank 0 ignores its credits while rank 1 sleeps; the
 *                         receiver-not-ready error must surface at once as a clear failure
 *   ib_transport gone     2 ranks: rank 1 closes its endpoints; rank 0's sends to it must
 *                         fail with a sentence naming the likely cause (peer exited)
 *   ib_transport lazy     connections are made on first use: the published address has the
 *                         same size at any world size; a rank that talks to one peer connects
 *                         to that peer only; then every rank sends to every other at once
 *                         (connections cross), every byte checked
 *   ib_transport grow     4+ ranks (7 in verbs_ib_transport.sh), receive buffers posted at init
 *                         for 2 peers: rank 0 connects to the others one by one and each
 *                         streams 3 credit windows to it; the posted buffers stay at the first
 *                         chunk while 1-2 peers are connected, then grow by doubling, and
 *                         every chunk's buffers carry messages; then all send to rank 0 at
 *                         once while it does not poll (the grown CQ holds it all); then all
 *                         to all (every rank grows); every byte checked
 *   ib_transport busy     2 ranks: rank 1 sleeps 2 s before it polls at all; rank 0's first
 *                         send to it must still get through (connection request retransmitted)
 *   ib_transport access   2 ranks: rank 0 registers a send buffer and a receive buffer the way
 *                         a rendezvous does and gives rank 1 both keys; rank 1's RDMA WRITE
 *                         into the receive buffer must land, its WRITE into the send buffer
 *                         must be refused by the NIC (remote access error, reported with the
 *                         rank, the operation and the cause) and leave the buffer untouched
 *   ib_transport idle     2 ranks, liveness probes (vbt_ib_liveness.c): while rank 0 streams
 *                         300 messages to rank 1, both probe each other as often as a probe
 *                         may be out: no probe fails, every one is retired, every byte
 *                         arrives; then rank 1 destroys its QP without a FIN (as a dead
 *                         process's is) and rank 0, with nothing outstanding, only waits: its
 *                         probe must fail within 10 s, naming rank 1 and the cause
 *   ib_transport hello    one message from every rank to every other (connects everything)
 *   ib_transport init     init + wireup + finalize only (a singleton checks the device part)
 *   ib_transport describe the describe op on stdout, as verbatim-info prints it
 *
 * Every message from rank s carries bytes pattern(s, n, i), n counting the messages s sent to
 * this rank, so a lost, duplicated, reordered or corrupted message is caught by content.
 * Exit: 0 pass, 77 no usable device (skip), 1 fail. */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vbt_config.h"
#include "vbt_ib.h"
#include "vbt_ib_int.h"
#include "vbt_log.h"
#include "vbt_pmix.h"

#define FLOOD_COUNT    10000
#define ALLTOALL_COUNT 100
#define WAIT_SECONDS   180
#define ADDR_KEY       "ib.addr" /* what the runtime publishes it as: "<name>.addr" */

static const vbt_tl_ops_t *ops = &vbt_ib_tl_ops;
static vbt_tl_iface_t *tl; /* the instance, as the runtime holds it */
static vbt_ib_iface_t *ib; /* the same, white-box */
static vbt_proc_info_t proc;
static long *rx_count, *tx_count;
static unsigned long long *rx_bytes, *tx_bytes;
/* What each peer will have sent us by the end of the current phase. Messages of the next phase
 * may arrive while we still wait for this one, so phases add to these, never reset. */
static long *exp_count;
static unsigned long long *exp_bytes;
static size_t *rx_last_len;
static long errors;
static size_t max_send;
static uint8_t *txbuf;
static long idle_blocks;
static long chunk_hits[VBT_IB_RX_CHUNKS_MAX]; /* grow: messages received per receive chunk */
static int count_chunks;

static inline uint8_t pattern(int src, long n, size_t i)
{
    return (uint8_t)(src * 31 + n * 7 + (long)i * 13 + (long)(i >> 8) * 3 + 1);
}

/* access: the keys rank 0 hands out, and what became of rank 1's WRITEs. */
typedef struct {
    uint64_t send_addr, recv_addr;
    uint32_t send_rkey, recv_rkey;
} access_msg_t;
static int access_mode;
static access_msg_t access_msg;
static int puts_done;
static vbt_status_t put_status;

static void rma_up(void *arg, void *cookie, vbt_status_t status)
{
    (void)cookie;
    puts_done++;
    put_status = status;
}

static void recv_up(void *arg, int src, const void *data, size_t len)
{
    const uint8_t *d = data;
    long n = rx_count[src];

    if (access_mode) {
        if (len == sizeof(access_msg))
            memcpy(&access_msg, data, len);
        rx_count[src]++;
        return;
    }

    for (size_t i = 0; i < len; i++) {
        if (d[i] != pattern(src, n, i)) {
            if (errors < 10)
                fprintf(stderr,
                        "rank %d: message %ld from rank %d (%zu bytes): byte %zu is 0x%02x, "
                        "expected 0x%02x\n",
                        proc.rank, n, src, len, i, d[i], pattern(src, n, i));
            errors++;
            break;
        }
    }
    rx_count[src]++;
    rx_bytes[src] += len;
    rx_last_len[src] = len;
    for (int i = 0; count_chunks && i < ib->rx_nchunks; i++) {
        const vbt_ib_rx_chunk_t *ch = &ib->rx_chunk[i];
        if (d >= (const uint8_t *)ch->base &&
            d < (const uint8_t *)ch->base + (size_t)ch->count * ib->stride)
            chunk_hits[i]++;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fail(const char *what, int rc)
{
    fprintf(stderr, "rank %d: FAIL: %s (%d: %s)\n", proc.rank, what, rc,
            vbt_status_string((vbt_status_t)rc));
    vbt_pmix_abort(1, what);
}

/* The peers' blobs, as the runtime's upcall fetches them (runtime/vbt_tl.c). */
static vbt_status_t peer_addr_up(void *arg, int peer, void **blob_p, size_t *len_p)
{
    return vbt_modex_get(peer, ADDR_KEY, blob_p, len_p);
}

/* Sleep on the instance's wake-up fd at most timeout_ms, as the runtime's vbt_tl_block does:
 * sleep_begin (it may find work and call the sleep off), poll(), sleep_end. */
static vbt_status_t block_on(vbt_tl_iface_t *t, int timeout_ms)
{
    struct pollfd pfd;
    int sleep = 0, max, rc;
    vbt_status_t st = t->ops->sleep_begin(t, &sleep);

    if (st != VBT_OK || !sleep)
        return st;
    max = t->ops->max_sleep_ms(t);
    if (max >= 0 && (timeout_ms < 0 || timeout_ms > max))
        timeout_ms = max;
    pfd = (struct pollfd){.fd = t->ops->wait_fd(t), .events = POLLIN};
    rc = poll(&pfd, 1, timeout_ms);
    return t->ops->sleep_end(t, rc > 0 && (pfd.revents & POLLIN), rc == 0);
}

static vbt_status_t block(int timeout_ms)
{
    return block_on(tl, timeout_ms);
}

/* Progress once; after a while without anything, sleep on the completion channel (this also
 * tests the sleep ops, and keeps oversubscribed ranks in the VM from starving each other). */
static void progress(long *idle)
{
    int n = ops->progress(tl);
    if (n < 0)
        fail("progress", n);
    if (n > 0) {
        *idle = 0;
        return;
    }
    if (++*idle > 200) {
        vbt_status_t st = block(50);
        if (st != VBT_OK)
            fail("block", st);
        idle_blocks++;
    }
}

static void send_msg(int dst, size_t total, size_t hdr_pref)
{
    long n = tx_count[dst], idle = 0;
    size_t hdr_len = total < hdr_pref ? total : hdr_pref;
    double start = now_s();
    vbt_status_t st;

    for (size_t i = 0; i < total; i++)
        txbuf[i] = pattern(proc.rank, n, i);
    for (;;) {
        st = tl->send(tl, dst, txbuf, hdr_len, txbuf + hdr_len, total - hdr_len);
        if (st == VBT_OK)
            break;
        if (st != VBT_ERR_NO_RESOURCE)
            fail("send", st);
        progress(&idle);
        if (now_s() - start > WAIT_SECONDS)
            fail("no send credit for too long", VBT_ERR_TIMED_OUT);
    }
    memset(txbuf, 0xee, total); /* the caller may reuse its buffers at once */
    tx_count[dst]++;
    tx_bytes[dst] += total;
}

static void expect(int src, size_t len)
{
    exp_count[src]++;
    exp_bytes[src] += len;
}

static void wait_for(int src, long count)
{
    double start = now_s();
    long idle = 0;

    while (rx_count[src] < count) {
        progress(&idle);
        if (now_s() - start > WAIT_SECONDS) {
            fprintf(stderr, "rank %d: FAIL: waited %d s for message %ld from rank %d (have %ld)\n",
                    proc.rank, WAIT_SECONDS, count, src, rx_count[src]);
            vbt_pmix_abort(1, "timeout");
        }
    }
}

static void check_len(int src, size_t want)
{
    if (rx_last_len[src] != want) {
        fprintf(stderr, "rank %d: message from rank %d has %zu bytes, expected %zu\n", proc.rank,
                src, rx_last_len[src], want);
        errors++;
    }
}

static int pingpong(void)
{
    int peer = proc.rank ^ 1, sizes = 0;
    size_t s;

    if (peer >= proc.size)
        return 0;
    for (s = 0; s <= max_send;) {
        expect(peer, s);
        if (proc.rank % 2 == 0) {
            send_msg(peer, s, s % 65);
            wait_for(peer, exp_count[peer]);
            check_len(peer, s);
        } else {
            wait_for(peer, exp_count[peer]);
            check_len(peer, s);
            send_msg(peer, s, (s * 7) % 65);
        }
        sizes++;
        /* Every size around the inline limit, then growing steps, then the limit itself. */
        if (s < 320)
            s++;
        else if (s < max_send - 1 && s * 5 / 4 + 7 < max_send - 1)
            s = s * 5 / 4 + 7;
        else
            s = s < max_send - 1 ? max_send - 1 : s + 1;
    }
    return sizes;
}

static size_t flood_len(long k)
{
    return k % 10 == 0 ? (size_t)(k * 7919) % (max_send + 1) : (size_t)(k * 31) % 200;
}

static void flood(void)
{
    int peer = proc.rank ^ 1;

    if (peer >= proc.size)
        return;
    if (proc.rank % 2 == 0) {
        for (long k = 0; k < FLOOD_COUNT; k++)
            send_msg(peer, flood_len(k), (size_t)k % 65);
        return;
    }
    for (long k = 0; k < FLOOD_COUNT; k++)
        expect(peer, flood_len(k));
    wait_for(peer, exp_count[peer]); /* never sending back: credits return explicitly */
}

static size_t alltoall_len(long k, int dst)
{
    return (size_t)(k * 37 + dst * 101) % (max_send + 1);
}

static void alltoall(void)
{
    for (int r = 0; r < proc.size; r++) {
        for (long k = 0; r != proc.rank && k < ALLTOALL_COUNT; k++)
            expect(r, alltoall_len(k, proc.rank));
    }
    for (long k = 0; k < ALLTOALL_COUNT; k++) {
        for (int i = 1; i < proc.size; i++) {
            int dst = (proc.rank + i) % proc.size;
            send_msg(dst, alltoall_len(k, dst), (size_t)k % 65);
        }
    }
    for (int i = 1; i < proc.size; i++) {
        int src = (proc.rank + proc.size - i) % proc.size;
        wait_for(src, exp_count[src]);
    }
}

/* A zero-byte message to everyone, then one from everyone: nobody finalizes while a peer
 * still expects data from it. */
static void closing(void)
{
    for (int r = 0; r < proc.size; r++) {
        if (r != proc.rank) {
            expect(r, 0);
            send_msg(r, 0, 0);
        }
    }
    for (int r = 0; r < proc.size; r++) {
        if (r != proc.rank)
            wait_for(r, exp_count[r]);
    }
    for (int r = 0; r < proc.size; r++) {
        if (rx_count[r] != exp_count[r] || rx_bytes[r] != exp_bytes[r]) {
            fprintf(stderr, "rank %d: from rank %d: %ld messages, %llu bytes; expected %ld, %llu\n",
                    proc.rank, r, rx_count[r], rx_bytes[r], exp_count[r], exp_bytes[r]);
            errors++;
        }
    }
}

/* One message from every rank to every other, and wait for them: connects every pair. */
static void hello(void)
{
    closing();
}

/* Rank 0 sends one message to rank 1 and rank 1 waits for it: the pair is connected (a test
 * that needs rank 1 silent afterwards must connect first: connections need both sides). */
static void connect_pair(void)
{
    if (proc.rank == 0) {
        send_msg(1, 16, 8);
        return;
    }
    expect(0, 16);
    wait_for(0, exp_count[0]);
}

static int connected_count(void)
{
    int n = 0;
    for (int r = 0; r < proc.size; r++)
        n += ib->peers[r].qp != NULL;
    return n;
}

static size_t storm_len(long k, int src, int dst)
{
    return (size_t)(k * 613 + src * 97 + dst * 31) % (max_send + 1);
}

static int lazy(void)
{
    int partner = proc.rank ^ 1, bad = 0;
    const int pair_count = 10, storm_count = 20;

    /* (a) what every rank published: the same, fixed size whatever the world size. */
    for (int r = 0; r < proc.size; r++) {
        void *data;
        size_t len;
        vbt_status_t st = vbt_modex_get(r, ADDR_KEY, &data, &len);
        if (st != VBT_OK)
            fail("vbt_modex_get(ib.addr)", st);
        if (len != sizeof(vbt_ib_addr_t)) {
            fprintf(stderr, "rank %d: rank %d's ib.addr has %zu bytes, expected %zu\n", proc.rank,
                    r, len, sizeof(vbt_ib_addr_t));
            bad++;
        }
        if (r == proc.rank && proc.rank == 0)
            printf("rank 0: lazy: ib.addr is %zu bytes at %d ranks\n", len, proc.size);
        free(data);
    }
    if (connected_count() != 0 || ib->nconnected != 0) {
        fprintf(stderr, "rank %d: %d QPs exist before any send\n", proc.rank, connected_count());
        bad++;
    }

    /* (b) talk to one peer only, both sending first at once: only that pair is connected. */
    if (partner < proc.size) {
        for (int k = 0; k < pair_count; k++) {
            expect(partner, (size_t)k * 101);
            send_msg(partner, (size_t)k * 101, (size_t)k % 65);
        }
        wait_for(partner, exp_count[partner]);
    }
    for (int r = 0; r < proc.size; r++) {
        int want = r == partner;
        if ((ib->peers[r].qp != NULL) != want) {
            fprintf(stderr, "rank %d: a QP towards rank %d %s\n", proc.rank, r,
                    want ? "is missing" : "exists though we never talked to it");
            bad++;
        }
    }
    printf("rank %d: lazy: after talking to %d peer(s): %d QP(s), %d connected\n", proc.rank,
           partner < proc.size, connected_count(), ib->nconnected);
    /* Nobody starts the storm (connecting to us) before every rank has checked. */
    vbt_status_t st = vbt_modex_fence();
    if (st != VBT_OK)
        fail("vbt_modex_fence", st);

    /* (c) every rank sends to every other at once: the connections cross. */
    for (int r = 0; r < proc.size; r++) {
        for (long k = 0; r != proc.rank && k < storm_count; k++)
            expect(r, storm_len(k, r, proc.rank));
    }
    for (long k = 0; k < storm_count; k++) {
        for (int i = 1; i < proc.size; i++) {
            int dst = (proc.rank + i) % proc.size;
            send_msg(dst, storm_len(k, proc.rank, dst), (size_t)k % 65);
        }
    }
    for (int r = 0; r < proc.size; r++) {
        if (r != proc.rank)
            wait_for(r, exp_count[r]);
    }
    if (connected_count() != proc.size - 1 || ib->nconnected != proc.size - 1) {
        fprintf(stderr, "rank %d: %d QPs, %d connected after the storm; expected %d\n", proc.rank,
                connected_count(), ib->nconnected, proc.size - 1);
        bad++;
    }
    closing();
    printf("rank %d: lazy: %s, %ld errors\n", proc.rank, bad || errors ? "FAILED" : "OK", errors);
    return bad || errors;
}

/* The peers the receive pool covers once k peers are connected, starting from `first`: the
 * rule of vbt_ib_rx_reserve (double, at least k, at most the world), counting the chunks. */
static int grow_cover(int first, int k, int n, int *chunks_p)
{
    int cover = first < n ? first : n, chunks = 1;

    for (int j = 1; j <= k; j++) { /* peers connect one at a time */
        if (j <= cover)
            continue;
        cover = cover * 2 > j ? cover * 2 : j;
        if (cover > n)
            cover = n;
        chunks++;
    }
    *chunks_p = chunks;
    return cover;
}

/* Check the pool against k connected peers; name says when. 0 when right. */
static int grow_check(const char *when, int k)
{
    const vbt_ib_iface_t *c = ib;
    const vbt_ib_sizes_t *s = &c->sizes;
    int chunks, cover = grow_cover(s->first_peers, k, proc.size - 1, &chunks);
    uint32_t want = (uint32_t)cover * s->rx_per_peer;

    if (c->nqps != k || c->rx_peers != cover || c->rx_posted != want || c->rx_nchunks != chunks ||
        c->cq_cap < vbt_ib_cq_entries(s, cover) ||
        (c->cq_resizable && c->cq_cap != vbt_ib_cq_entries(s, cover) && cover > s->first_peers)) {
        fprintf(stderr,
                "rank %d: grow: %s: %d QPs, %u buffers posted for %d peers in %d chunks, CQ %u "
                "(resizable %d); expected %d QPs, %u buffers for %d peers in %d chunks, CQ %u\n",
                proc.rank, when, c->nqps, c->rx_posted, c->rx_peers, c->rx_nchunks, c->cq_cap,
                c->cq_resizable, k, want, cover, chunks, vbt_ib_cq_entries(s, cover));
        return 1;
    }
    return 0;
}

static size_t grow_len(long k, int src)
{
    return (size_t)(k * 389 + src * 57) % (max_send + 1);
}

static int grow(void)
{
    vbt_ib_iface_t *c = ib;
    const vbt_ib_sizes_t *s = &c->sizes;
    long window = c->credits_max;
    int n = proc.size - 1, bad = 0;
    vbt_status_t st;

    if (proc.size < 4 || s->first_peers != 2) {
        fprintf(stderr, "grow: needs 4 ranks or more and a first chunk for 2 peers\n");
        return 1;
    }
    bad += grow_check("at init", 0);
    if (c->rx_posted != s->rx_first || c->pinned != s->pinned_bytes) {
        fprintf(stderr, "rank %d: grow: at init %u buffers, %zu bytes pinned; expected %u, %zu\n",
                proc.rank, c->rx_posted, c->pinned, s->rx_first, s->pinned_bytes);
        bad++;
    }
    count_chunks = proc.rank == 0;

    /* (a) rank 0 connects to 1, 2, ... n in turn; each streams 3 windows to it. */
    for (int r = 1; r <= n; r++) {
        if (proc.rank == 0) {
            char when[64];
            send_msg(r, 16, 8);
            for (long k = 0; k < 3 * window; k++)
                expect(r, grow_len(k, r));
            wait_for(r, exp_count[r]);
            snprintf(when, sizeof(when), "%d peer(s) connected", r);
            bad += grow_check(when, r);
            printf("rank 0: grow: %d peer(s) connected: %u receive buffers for %d peers in %d "
                   "chunk(s), CQ %u entries, about %zu KiB pinned\n",
                   r, c->rx_posted, c->rx_peers, c->rx_nchunks, c->cq_cap, c->pinned / 1024);
        } else if (proc.rank == r) {
            expect(0, 16);
            wait_for(0, exp_count[0]);
            for (long k = 0; k < 3 * window; k++)
                send_msg(0, grow_len(k, r), (size_t)k % 65);
        }
    }
    st = vbt_modex_fence(); /* nobody starts (b) before rank 0 has connected to all */
    if (st != VBT_OK)
        fail("vbt_modex_fence", st);

    /* (b) all at once towards rank 0, which sends a window to each and then does not poll for
     * a second: every completion waits in the grown CQ. */
    if (proc.rank == 0) {
        for (int r = 1; r <= n; r++) {
            for (long k = 0; k < window; k++)
                expect(r, grow_len(k + 7, r));
        }
        for (long k = 0; k < window; k++) {
            for (int r = 1; r <= n; r++)
                send_msg(r, grow_len(k + 11, 0), (size_t)k % 65);
        }
        sleep(1);
        for (int r = 1; r <= n; r++)
            wait_for(r, exp_count[r]);
        for (int i = 0; i < c->rx_nchunks; i++) {
            printf("rank 0: grow: chunk %d: %u buffers, %ld messages received in them\n", i,
                   c->rx_chunk[i].count, chunk_hits[i]);
            if (chunk_hits[i] == 0) {
                fprintf(stderr, "rank 0: grow: no message arrived in chunk %d\n", i);
                bad++;
            }
        }
        bad += grow_check("after all sent at once", n);
    } else {
        for (long k = 0; k < window; k++)
            expect(0, grow_len(k + 11, 0));
        for (long k = 0; k < window; k++)
            send_msg(0, grow_len(k + 7, proc.rank), (size_t)k % 65);
        wait_for(0, exp_count[0]);
        /* Only rank 0 is connected: still the first chunk. */
        bad += grow_check("1 peer connected", 1);
    }
    count_chunks = 0;

    /* (c) everyone to everyone: every rank grows now, while connections cross. */
    closing();
    bad += grow_check("all connected", n);
    printf("rank %d: grow: %s, %ld errors\n", proc.rank, bad || errors ? "FAILED" : "OK", errors);
    return bad || errors;
}

/* (d) rank 1 is busy (does not poll) for 2 s; rank 0 sends at once. */
static int busy(void)
{
    double t0 = now_s();
    const int count = 5;

    if (proc.size != 2) {
        fprintf(stderr, "busy: needs exactly 2 ranks\n");
        return 1;
    }
    if (proc.rank == 1) {
        sleep(2);
        for (int k = 0; k < count; k++)
            expect(0, (size_t)k * 1000 % (max_send + 1));
        wait_for(0, exp_count[0]);
        send_msg(0, 7, 3);
    } else {
        for (int k = 0; k < count; k++)
            send_msg(1, (size_t)k * 1000 % (max_send + 1), 8);
        expect(1, 7);
        wait_for(1, exp_count[1]);
        printf("rank 0: busy: answered after %.1f s\n", now_s() - t0);
    }
    closing();
    printf("rank %d: busy: %s, %ld errors\n", proc.rank, errors ? "FAILED" : "OK", errors);
    return errors != 0;
}

static int rnr(void)
{
    vbt_ib_iface_t *c = ib;
    long idle = 0;
    double start;

    if (proc.size != 2) {
        fprintf(stderr, "rnr: needs exactly 2 ranks\n");
        return 1;
    }
    connect_pair();
    if (proc.rank == 1) {
        /* Do not poll: the SRQ holds credits + reserve buffers, then the NIC must refuse. */
        sleep(5);
        start = now_s();
        while (now_s() - start < 2)
            progress(&idle);
        printf("rank 1: rnr: received %ld messages (SRQ held %u)\n", rx_count[0], c->rx_posted);
        /* connect_pair's message, and what its last poll took of the flood (one batch) with
         * it, were re-posted before the sleep: those buffers were used twice. */
        return rx_count[0] <= (long)c->rx_posted + 1 + VBT_IB_POLL_BATCH ? 0 : 1;
    }
    c->peers[1].credits = 1 << 20; /* the bug: ignore flow control */
    start = now_s();
    for (long k = 0; now_s() - start < 60; k++) {
        vbt_status_t st;
        long n = tx_count[1];
        for (size_t i = 0; i < 16; i++)
            txbuf[i] = pattern(proc.rank, n, i);
        st = tl->send(tl, 1, txbuf, 8, txbuf + 8, 8);
        if (st == VBT_OK)
            tx_count[1]++;
        else if (st != VBT_ERR_NO_RESOURCE) {
            printf("rank 0: rnr: send failed as expected after %ld messages: %s\n", tx_count[1],
                   vbt_status_string(st));
            return 0;
        }
        int n2 = ops->progress(tl);
        if (n2 < 0) {
            printf("rank 0: rnr: progress failed as expected after %ld messages: %s\n", tx_count[1],
                   vbt_status_string((vbt_status_t)n2));
            return n2 == VBT_ERR_PEER_FAILED ? 0 : 1;
        }
        (void)idle;
    }
    printf("rank 0: rnr: FAIL: %ld messages past the credits and no receiver-not-ready error\n",
           tx_count[1]);
    return 1;
}

/* Rank 1 closes its endpoints at once; rank 0's sends to it must fail within the retry budget
 * with a sentence naming the likely cause. */
static int gone(void)
{
    double start;

    if (proc.size != 2) {
        fprintf(stderr, "gone: needs exactly 2 ranks\n");
        return 1;
    }
    connect_pair();
    if (proc.rank == 1) {
        ops->finalize(tl);
        tl = NULL;
        ib = NULL;
        return 0;
    }
    sleep(2);
    start = now_s();
    while (now_s() - start < 60) {
        vbt_status_t st = VBT_OK;
        int n;
        if (tx_count[1] < 10) {
            st = tl->send(tl, 1, txbuf, 8, txbuf + 8, 8);
            if (st == VBT_OK)
                tx_count[1]++;
        }
        n = ops->progress(tl);
        if ((st != VBT_OK && st != VBT_ERR_NO_RESOURCE) || n < 0) {
            printf("rank 0: gone: failed as expected after %.1f s: %s\n", now_s() - start,
                   vbt_status_string(st != VBT_OK && st != VBT_ERR_NO_RESOURCE ? st
                                                                               : (vbt_status_t)n));
            return 0;
        }
    }
    printf("rank 0: gone: FAIL: no error within 60 s\n");
    return 1;
}

/* Probe peer as often as one probe may be out, for a live peer. */
static void idle_probe(long *probes, uint32_t *last_seq)
{
    const vbt_ib_peer_t *p = &ib->peers[1 - proc.rank];
    vbt_status_t st;

    ib->live_at = 0; /* due now */
    st = ops->check_liveness(tl);
    if (st != VBT_OK)
        fail("check_liveness towards a live peer", st);
    if (p->live_posted && (*probes == 0 || p->live_seq != *last_seq)) {
        (*probes)++;
        *last_seq = p->live_seq;
    }
}

static int idle_test(void)
{
    enum { COUNT = 300 };
    int peer = 1 - proc.rank;
    const vbt_ib_peer_t *p = &ib->peers[peer];
    uint32_t last_seq = 0;
    long probes = 0, idle = 0;
    double start;

    if (proc.size != 2) {
        fprintf(stderr, "idle: needs exactly 2 ranks\n");
        return 1;
    }
    connect_pair();
    /* Live: probes between and among eager messages of every size class. */
    for (long k = 0; k < COUNT; k++) {
        size_t len = 8 + (size_t)(k * 37) % (max_send - 7); /* a runtime header and more */
        if (proc.rank == 0) {
            idle_probe(&probes, &last_seq);
            send_msg(1, len, 8);
            for (int i = 0; i < 10; i++) { /* ~10 ms, polling: the probe is retired */
                int n = ops->progress(tl);
                if (n < 0)
                    fail("progress", n);
                usleep(1000);
            }
        } else {
            expect(0, len);
        }
    }
    if (proc.rank == 1) {
        while (rx_count[0] < exp_count[0]) {
            idle_probe(&probes, &last_seq);
            progress(&idle);
        }
    }
    start = now_s();
    while (!p->live_posted || (int32_t)(p->sq_tail - p->live_seq) <= 0) {
        progress(&idle);
        if (now_s() - start > 10) {
            printf("rank %d: idle: FAIL: the last probe (WR %u) was not retired within 10 s "
                   "(send queue %u..%u)\n",
                   proc.rank, p->live_seq, p->sq_tail, p->sq_head);
            return 1;
        }
    }
    if (errors != 0 || rx_count[peer] != exp_count[peer] || probes < 10) {
        printf("rank %d: idle: FAIL: %ld probes, %ld of %ld messages, %ld errors\n", proc.rank,
               probes, rx_count[peer], exp_count[peer], errors);
        return 1;
    }
    printf("rank %d: idle: %ld probes to a live peer, all retired; %ld messages intact\n",
           proc.rank, probes, proc.rank == 0 ? tx_count[1] : rx_count[0]);

    /* Dead: rank 1's QP goes as a killed process's does, without a goodbye. */
    if (vbt_pmix_barrier() != VBT_OK)
        fail("vbt_pmix_barrier", VBT_ERR_PMIX);
    if (proc.rank == 1) {
        vbt_ib_peer_t *q = &ib->peers[0];
        ibv_destroy_qp(q->qp);
        q->qp = NULL;
        q->state = VBT_IB_PEER_NONE;
    }
    if (vbt_pmix_barrier() != VBT_OK)
        fail("vbt_pmix_barrier", VBT_ERR_PMIX);
    if (proc.rank == 0) {
        int n = 0;
        start = now_s();
        while (now_s() - start < 30) {
            vbt_status_t st = ops->check_liveness(tl); /* at its own pace: once a second */
            if (st != VBT_OK) {
                n = (int)st;
                break;
            }
            n = ops->progress(tl);
            if (n < 0)
                break;
            if (n == 0 && (st = block(100)) != VBT_OK) {
                n = (int)st;
                break;
            }
        }
        if (n != VBT_ERR_PEER_FAILED || now_s() - start > 10) {
            printf("rank 0: idle: FAIL: after %.1f s: %s (expected %s within 10 s)\n",
                   now_s() - start, vbt_status_string((vbt_status_t)n),
                   vbt_status_string(VBT_ERR_PEER_FAILED));
            return 1;
        }
        printf("rank 0: idle: the dead peer was noticed after %.1f s: %s\n", now_s() - start,
               vbt_status_string((vbt_status_t)n));
    }
    if (vbt_pmix_barrier() != VBT_OK)
        fail("vbt_pmix_barrier", VBT_ERR_PMIX);
    return 0;
}

#define ACCESS_PAGES 4

static int access_fill_check(uint8_t *buf, size_t len, uint8_t (*want)(size_t), int check)
{
    for (size_t i = 0; i < len; i++) {
        if (!check) {
            buf[i] = want(i);
        } else if (buf[i] != want(i)) {
            printf("rank %d: access: FAIL: byte %zu is 0x%02x, expected 0x%02x\n", proc.rank, i,
                   buf[i], want(i));
            return 1;
        }
    }
    return 0;
}

static uint8_t access_untouched(size_t i)
{
    return (uint8_t)(0xa5 ^ i);
}

static uint8_t access_written(size_t i)
{
    return pattern(1, 0, i);
}

/* Rank 1 WRITEs [buf, buf + len) to rank 0's raddr (rkey) and waits for the completion. */
static vbt_status_t access_put(void *buf, size_t len, uint64_t raddr, uint32_t rkey)
{
    vbt_tl_mem_t *mem;
    size_t off = 0, posted;
    vbt_status_t st;
    double start = now_s();
    int done = puts_done;

    st = ops->mem_get(tl, buf, len, 0, &mem);
    if (st != VBT_OK)
        fail("mem_get (source)", st);
    while (off < len) {
        int n;
        st = ops->put(tl, 0, (uint8_t *)buf + off, len - off, mem, raddr + off, rkey, &puts_done,
                      &posted);
        off += posted;
        if (st != VBT_OK && st != VBT_ERR_NO_RESOURCE)
            break;
        if (off < len && (n = ops->progress(tl)) < 0) {
            st = (vbt_status_t)n;
            break;
        }
    }
    while (st == VBT_OK && puts_done == done && now_s() - start < 60) {
        int n = ops->progress(tl);
        if (n < 0) {
            st = (vbt_status_t)n;
            break;
        }
    }
    ops->mem_put(tl, mem);
    if (puts_done != done && put_status != VBT_OK)
        return put_status;
    if (puts_done == done && st == VBT_OK)
        return VBT_ERR_TIMED_OUT;
    return st;
}

static int access_test(void)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), len = ACCESS_PAGES * page;
    /* The send and receive buffers are pages apart, so the cache never merges them. */
    uint8_t *mem = aligned_alloc(page, 3 * len);
    long idle = 0;
    vbt_status_t st;
    int rc = 0;

    if (proc.size != 2 || mem == NULL) {
        fprintf(stderr, "access: needs exactly 2 ranks and memory\n");
        return 1;
    }
    access_mode = 1;
    connect_pair(); /* rx_count[0] / tx_count[1] is 1 now */
    if (proc.rank == 0) {
        uint8_t *sbuf = mem, *rbuf = mem + 2 * len;
        vbt_tl_mem_t *smem, *rmem;
        access_msg_t m;

        access_fill_check(sbuf, len, access_untouched, 0);
        memset(rbuf, 0, len);
        st = ops->mem_get(tl, sbuf, len, 0, &smem); /* a rendezvous sender's registration */
        if (st == VBT_OK)                           /* a receiver's */
            st = ops->mem_get(tl, rbuf, len, VBT_TL_MEM_REMOTE_WRITE, &rmem);
        if (st != VBT_OK)
            fail("mem_get", st);
        m = (access_msg_t){(uintptr_t)sbuf, (uintptr_t)rbuf, (uint32_t)ops->mem_rkey(tl, smem),
                           (uint32_t)ops->mem_rkey(tl, rmem)};
        while ((st = tl->send(tl, 1, &m, sizeof(m), NULL, 0)) == VBT_ERR_NO_RESOURCE)
            progress(&idle);
        if (st != VBT_OK)
            fail("send (keys)", st);
        while (rx_count[1] < 1) /* "written" */
            progress(&idle);
        rc |= access_fill_check(rbuf, len, access_written, 1);
        if (rc == 0)
            printf("rank 0: access: the WRITE into the receive buffer landed\n");
        if (vbt_modex_fence() != VBT_OK || vbt_modex_fence() != VBT_OK) /* the bad WRITE between */
            fail("vbt_modex_fence", VBT_ERR_IO);
        rc |= access_fill_check(sbuf, len, access_untouched, 1);
        if (rc == 0)
            printf("rank 0: access: the send buffer is untouched\n");
        ops->mem_put(tl, smem);
        ops->mem_put(tl, rmem);
    } else {
        uint8_t *src = mem;
        int marker = 1;

        while (rx_count[0] < 2)
            progress(&idle);
        access_fill_check(src, len, access_written, 0);
        st = access_put(src, len, access_msg.recv_addr, access_msg.recv_rkey);
        if (st != VBT_OK) {
            printf("rank 1: access: FAIL: the WRITE into the receive buffer failed: %s\n",
                   vbt_status_string(st));
            rc = 1;
        }
        while ((st = tl->send(tl, 0, &marker, sizeof(marker), NULL, 0)) == VBT_ERR_NO_RESOURCE)
            progress(&idle);
        if (st != VBT_OK)
            fail("send (written)", st);
        if (vbt_modex_fence() != VBT_OK)
            fail("vbt_modex_fence", VBT_ERR_IO);
        memset(src, 0x3c, len);
        st = access_put(src, len, access_msg.send_addr, access_msg.send_rkey);
        if (st == VBT_ERR_PEER_FAILED) {
            printf("rank 1: access: the WRITE into the send buffer was refused as expected: %s\n",
                   vbt_status_string(st));
        } else {
            printf("rank 1: access: FAIL: the WRITE into the send buffer ended with %s\n",
                   vbt_status_string(st));
            rc = 1;
        }
        if (vbt_modex_fence() != VBT_OK)
            fail("vbt_modex_fence", VBT_ERR_IO);
    }
    free(mem);
    return rc;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    vbt_status_t st;
    double t0;
    int rc = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (vbt_config_load() != VBT_OK)
        return 1;
    if (strcmp(mode, "describe") == 0) {
        ops->describe(stdout);
        return 0;
    }
    st = vbt_pmix_init(&proc);
    if (st != VBT_OK)
        fail("vbt_pmix_init", st);
    vbt_log_set_identity("ib_transport", proc.rank);

    {
        vbt_tl_job_t job = {.rank = proc.rank,
                            .size = proc.size,
                            .local_peers = proc.local_peers,
                            .local_size = proc.local_size,
                            .job_name = ""};
        vbt_tl_upcalls_t up = {.recv = recv_up, .rma_done = rma_up, .peer_addr = peer_addr_up};
        vbt_ib_params_t params = VBT_IB_PARAMS_DEFAULT;
        unsigned char addr[VBT_TL_ADDR_MAX];
        size_t addr_len = sizeof(addr);
        char why[832] = "";

        /* The ops' init, or with a small first chunk, so that small jobs grow. */
        if (strcmp(mode, "grow") == 0)
            params.rx_first_peers = 2;
        if (params.rx_first_peers == VBT_IB_RX_FIRST_PEERS)
            st = ops->init(&job, &up, &tl, addr, &addr_len, why, sizeof(why));
        else
            st = vbt_ib_open(&job, &up, &params, &tl, addr, &addr_len, why, sizeof(why));
        if (st == VBT_ERR_NO_DEVICE) {
            printf("SKIP: %s\n", why);
            vbt_modex_fence();
            vbt_pmix_finalize();
            return 77;
        }
        if (st != VBT_OK) {
            printf("rank %d: init: %s\n", proc.rank, vbt_status_string(st));
            if (proc.size > 1)
                vbt_pmix_abort(1, "init failed");
            return 1;
        }
        ib = vbt_ib_of(tl);
        if (tl->ops != ops || tl->send != ops->send || addr_len != sizeof(vbt_ib_addr_t) ||
            tl->max_send != vbt_cfg.eager_limit || tl->rndv_threshold != vbt_cfg.rndv_threshold ||
            (tl->caps & (VBT_TL_CAP_PUT | VBT_TL_CAP_STREAM)) !=
                (VBT_TL_CAP_PUT | VBT_TL_CAP_STREAM) ||
            (tl->caps & VBT_TL_CAP_READ_PEER) || ops->read_peer != NULL) {
            fprintf(stderr,
                    "rank %d: FAIL: the interface: ops %p send %p, blob %zu bytes, max_send %zu, "
                    "rndv_threshold %zu, caps 0x%x\n",
                    proc.rank, (void *)tl->ops, (void *)tl->send, addr_len, tl->max_send,
                    tl->rndv_threshold, tl->caps);
            vbt_pmix_abort(1, "interface");
        }
        st = vbt_modex_put(ADDR_KEY, addr, addr_len);
        if (st != VBT_OK)
            fail("vbt_modex_put", st);
    }
    st = vbt_modex_fence();
    if (st != VBT_OK)
        fail("vbt_modex_fence", st);
    st = ops->wireup(tl);
    if (st != VBT_OK)
        fail("wireup", st);
    for (int r = 0; r < proc.size; r++) {
        if (ops->reaches(tl, r) != (r != proc.rank)) {
            fprintf(stderr, "rank %d: FAIL: reaches(%d) is %d\n", proc.rank, r,
                    ops->reaches(tl, r));
            vbt_pmix_abort(1, "reaches");
        }
    }

    max_send = tl->max_send;
    rx_count = calloc((size_t)proc.size, sizeof(*rx_count));
    tx_count = calloc((size_t)proc.size, sizeof(*tx_count));
    rx_bytes = calloc((size_t)proc.size, sizeof(*rx_bytes));
    tx_bytes = calloc((size_t)proc.size, sizeof(*tx_bytes));
    rx_last_len = calloc((size_t)proc.size, sizeof(*rx_last_len));
    exp_count = calloc((size_t)proc.size, sizeof(*exp_count));
    exp_bytes = calloc((size_t)proc.size, sizeof(*exp_bytes));
    txbuf = malloc(max_send + 1);
    if (!rx_count || !tx_count || !rx_bytes || !tx_bytes || !rx_last_len || !exp_count ||
        !exp_bytes || !txbuf)
        fail("out of memory", VBT_ERR_NO_MEMORY);

    if (proc.rank == 0)
        printf("ib_transport: %d ranks on %s port %u, eager limit %zu, %u bytes inline, %d credits "
               "per peer, %u receive / %u bounce buffers, send queue %u, signal 1 in %u (bounce "
               "1 in %u)\n",
               proc.size, ib->choice.name, ib->choice.port, max_send, ib->max_inline,
               ib->credits_max, ib->rx_posted, ib->sizes.bounce_count, ib->sq_depth, ib->sig_every,
               ib->sig_every_bounce);

    if (strcmp(mode, "init") == 0) {
        printf("rank %d: init: OK\n", proc.rank);
    } else if (strcmp(mode, "hello") == 0) {
        hello();
        printf("rank %d: hello: %s\n", proc.rank, errors ? "FAILED" : "OK");
        rc = errors != 0;
    } else if (strcmp(mode, "lazy") == 0) {
        rc = lazy();
    } else if (strcmp(mode, "busy") == 0) {
        rc = busy();
    } else if (strcmp(mode, "grow") == 0) {
        rc = grow();
    } else if (strcmp(mode, "rnr") == 0) {
        rc = rnr();
    } else if (strcmp(mode, "gone") == 0) {
        rc = gone();
    } else if (strcmp(mode, "idle") == 0) {
        rc = idle_test();
    } else if (strcmp(mode, "access") == 0) {
        rc = access_test();
    } else if (strcmp(mode, "all") == 0) {
        int sizes;
        t0 = now_s();
        sizes = pingpong();
        printf("rank %d: pingpong: %d sizes 0..%zu in %.2f s\n", proc.rank, sizes, max_send,
               now_s() - t0);
        t0 = now_s();
        flood();
        printf("rank %d: flood: %d messages in %.2f s\n", proc.rank, FLOOD_COUNT, now_s() - t0);
        t0 = now_s();
        alltoall();
        printf("rank %d: alltoall: %d messages to each of %d peers in %.2f s\n", proc.rank,
               ALLTOALL_COUNT, proc.size - 1, now_s() - t0);
        closing();
        for (int r = 0; r < proc.size; r++) {
            if (r != proc.rank && ib->peers[r].credits < 0) {
                fprintf(stderr, "rank %d: negative credits towards rank %d\n", proc.rank, r);
                errors++;
            }
        }
        long rx = 0, tx = 0;
        for (int r = 0; r < proc.size; r++) {
            rx += rx_count[r];
            tx += tx_count[r];
        }
        printf("rank %d: ib_transport %s: sent %ld, received %ld messages, %ld errors, %ld "
               "blocking waits\n",
               proc.rank, errors ? "FAILED" : "OK", tx, rx, errors, idle_blocks);
        rc = errors != 0;
    } else {
        fprintf(stderr,
                "ib_transport: unknown mode '%s' (all, lazy, grow, busy, hello, rnr, gone, idle, "
                "access, init, describe)\n",
                mode);
        rc = 1;
    }

    if (tl != NULL)
        ops->finalize(tl);
    st = vbt_pmix_finalize();
    if (st != VBT_OK && rc == 0)
        rc = 1;
    return rc;
}
