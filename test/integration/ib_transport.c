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
 *   ib_transport rma      2+ ranks (2 and 4 in verbs_ib_transport.sh): every other rank reads
 *                         rank 0's buffer with get() whole (three READs or more) and an unaligned
 *                         piece; adds to one counter with 64 FADDs in flight each: the counter
 *                         must come out exact and every old value must come back exactly once
 *                         (one FADD with a NULL cookie completes too); races for a word with
 *                         CSWAP (one winner, everyone else sees it); counts on another word by
 *                         compare-and-swap retries (exact)
 *   ib_transport deny-get, deny-atomic
 *                         2 ranks: rank 1's get() / FADD of memory rank 0 registered for it
 *                         works; of a rendezvous receive buffer (remote write only) the NIC must
 *                         refuse it (remote access error, with the rank, the operation and the
 *                         cause) and change nothing
 *   ib_transport pair     no MPI ranks (run as a singleton): two instances in this process, each
 *                         the other's peer, their blobs published in-process: messages both
 *                         ways, a flood, a put with a message after it that must find the data
 *                         in place, a get, FADDs and CSWAPs with their old values checked; the
 *                         second instance's registration cache must not take the memory hooks
 *   ib_transport credits  2 ranks: rank 1 returns, in a message whose credit field is well
 *                         inside a window, 2 credits more than rank 0 has messages outstanding
 *                         to it: rank 0 must refuse it, naming rank 1, and close the connection
 *   ib_transport forge    3 ranks: rank 2 sends rank 0's connection manager a REQ claiming to
 *                         be rank 1 (rank 1's published LID, GID, MTU), a REQ as itself with
 *                         another GID, and a REP claiming to be rank 1: each dropped, naming
 *                         the rank and the field; no QP for rank 1 made; rank 1 then connects
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
/* rma, deny-*: the last non-empty message from each rank, kept whole, and how many came
 * (raw_mode; empty ones count as usual: hello()). */
#define RAW_MAX 8192
static int raw_mode;
static uint8_t (*raw_msg)[RAW_MAX];
static size_t *raw_len;
static long *raw_count;
static long rma_null; /* operations completed with a NULL cookie */

/* A one-sided operation finished: its cookie, when not NULL, is an int counting them. */
static void rma_up(void *arg, void *cookie, vbt_status_t status)
{
    if (cookie != NULL)
        ++*(int *)cookie;
    else
        rma_null++;
    if (status != VBT_OK || put_status == VBT_OK)
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
    if (raw_mode && len > 0) {
        raw_len[src] = len < RAW_MAX ? len : RAW_MAX;
        memcpy(raw_msg[src], data, raw_len[src]);
        raw_count[src]++;
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

/* QPs towards peers (our own slot holds the loopback of one-sided operations on our own
 * memory, made at wireup where the device has atomics: not a connection). */
static int connected_count(void)
{
    int n = 0;
    for (int r = 0; r < proc.size; r++)
        n += r != proc.rank && ib->peers[r].qp != NULL;
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
        if (r != proc.rank && (ib->peers[r].qp != NULL) != want) {
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
    /* Nobody starts (c), connecting to others, before every rank has checked (b). */
    st = vbt_modex_fence();
    if (st != VBT_OK)
        fail("vbt_modex_fence", st);

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

/* ---- one-sided: get and atomics (rma, deny-get, deny-atomic) ---------------------------- */

/* What rank 0 exposes to the others. */
typedef struct {
    uint64_t src_addr, cnt_addr, wonly_addr;
    uint64_t src_rkey, cnt_rkey, wonly_rkey;
    uint64_t src_len;
} rma_keys_t;

#define RMA_FADDS  64 /* per rank, each +1 on the shared counter */
#define RMA_CSWAPS 16 /* per rank, each +1 on another counter by compare-and-swap */

static uint8_t rma_pattern(size_t i)
{
    return (uint8_t)(i * 7 + (i >> 9) * 5 + 3);
}

static void *page_alloc(size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = aligned_alloc(page, (len + page - 1) / page * page);

    if (p == NULL)
        fail("out of memory", VBT_ERR_NO_MEMORY);
    return p;
}

static vbt_tl_mem_t *reg(void *buf, size_t len, unsigned access)
{
    vbt_tl_mem_t *mem;
    vbt_status_t st = ops->mem_get(tl, buf, len, access, &mem);

    if (st != VBT_OK)
        fail("mem_get", st);
    return mem;
}

/* Send len bytes to dst (whole, as one message), progressing while refused for credit. */
static void send_raw(int dst, const void *buf, size_t len)
{
    long idle = 0;
    vbt_status_t st;

    while ((st = tl->send(tl, dst, buf, len < 64 ? len : 64, (const uint8_t *)buf + 64,
                          len < 64 ? 0 : len - 64)) == VBT_ERR_NO_RESOURCE)
        progress(&idle);
    if (st != VBT_OK)
        fail("send", st);
}

static void wait_raw(int src, long count)
{
    long idle = 0;
    double start = now_s();

    while (raw_count[src] < count) {
        progress(&idle);
        if (now_s() - start > WAIT_SECONDS)
            fail("no message for too long", VBT_ERR_TIMED_OUT);
    }
}

/* Progress until *done reaches want and rma_null null_want; the operations' status (VBT_OK or
 * the first failure). */
static vbt_status_t rma_wait_null(const int *done, int want, long null_want)
{
    long idle = 0;
    double start = now_s();

    while (*done < want || rma_null < null_want) {
        int n = ops->progress(tl);
        if (n < 0)
            return (vbt_status_t)n;
        if (n == 0 && ++idle > 200 && block(50) != VBT_OK)
            fail("block", VBT_ERR_IO);
        if (now_s() - start > 60)
            return VBT_ERR_TIMED_OUT;
    }
    return put_status;
}

static vbt_status_t rma_wait(const int *done, int want)
{
    return rma_wait_null(done, want, 0);
}

/* get() of len bytes from peer's raddr into laddr (inside mem), all of it posted, then waited. */
static vbt_status_t rma_get(int peer, void *laddr, size_t len, vbt_tl_mem_t *mem, uint64_t raddr,
                            uint64_t rkey)
{
    int done = 0;
    size_t off = 0, posted;
    vbt_status_t st;

    put_status = VBT_OK;
    while (off < len) {
        st = ops->get(tl, peer, (uint8_t *)laddr + off, len - off, mem, raddr + off, rkey, &done,
                      &posted);
        off += posted;
        if (st != VBT_OK && st != VBT_ERR_NO_RESOURCE)
            return st;
        if (off < len) {
            int n = ops->progress(tl);
            if (n < 0)
                return (vbt_status_t)n;
        }
    }
    return rma_wait(&done, 1);
}

/* One atomic, posted (progressing while refused for room) but not waited for. */
static vbt_status_t rma_atomic_post(int peer, vbt_tl_atomic_op_t op, uint64_t operand,
                                    uint64_t compare, uint64_t *result, vbt_tl_mem_t *rmem,
                                    uint64_t raddr, uint64_t rkey, int *done)
{
    vbt_status_t st;

    while ((st = ops->atomic(tl, peer, op, operand, compare, result, rmem, raddr, rkey, done)) ==
           VBT_ERR_NO_RESOURCE) {
        int n = ops->progress(tl);
        if (n < 0)
            return (vbt_status_t)n;
    }
    return st;
}

static vbt_status_t rma_atomic(int peer, vbt_tl_atomic_op_t op, uint64_t operand, uint64_t compare,
                               uint64_t *result, vbt_tl_mem_t *rmem, uint64_t raddr, uint64_t rkey)
{
    int done = 0;
    vbt_status_t st;

    put_status = VBT_OK;
    st = rma_atomic_post(peer, op, operand, compare, result, rmem, raddr, rkey, &done);
    return st != VBT_OK ? st : rma_wait(&done, 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* What each other rank reports to rank 0. */
typedef struct {
    uint64_t fadd_old[RMA_FADDS];
    uint64_t winner_old; /* what its CSWAP(0 -> its rank) found */
    uint64_t cswap_retries;
} rma_report_t;

/* rma: every other rank reads rank 0's buffer whole and in part (get), adds to one counter
 * (FADD, pipelined, every old value must come back exactly once), races for a word (CSWAP: one
 * winner, the others see it) and counts on another by compare-and-swap retries. */
static int rma_test(void)
{
    const size_t len = 2 * ib->max_put + 12345; /* three READs at least */
    rma_keys_t keys;
    long bad = 0;

    if ((tl->caps & (VBT_TL_CAP_GET | VBT_TL_CAP_ATOMIC_FADD64 | VBT_TL_CAP_ATOMIC_CSWAP64)) !=
        (VBT_TL_CAP_GET | VBT_TL_CAP_ATOMIC_FADD64 | VBT_TL_CAP_ATOMIC_CSWAP64)) {
        printf("rank %d: rma: SKIP: %s offers caps 0x%x (no get or atomics)\n", proc.rank,
               ib->choice.name, tl->caps);
        return proc.rank == 0 ? 77 : 0;
    }
    raw_mode = 1;
    hello(); /* connects every pair: nothing below waits for a connection */
    if (proc.rank == 0) {
        uint8_t *src = page_alloc(len);
        uint64_t *cnt = page_alloc(4096);
        vbt_tl_mem_t *smem, *cmem;
        uint64_t *olds = calloc((size_t)(proc.size - 1) * RMA_FADDS, sizeof(*olds));
        int winners = 0, winner = -1;

        for (size_t i = 0; i < len; i++)
            src[i] = rma_pattern(i);
        memset(cnt, 0, 4096);
        smem = reg(src, len, VBT_TL_MEM_REMOTE_READ);
        cmem = reg(cnt, 4096, VBT_TL_MEM_REMOTE_ATOMIC);
        keys = (rma_keys_t){(uintptr_t)src,
                            (uintptr_t)cnt,
                            0,
                            ops->mem_rkey(tl, smem),
                            ops->mem_rkey(tl, cmem),
                            0,
                            len};
        for (int r = 1; r < proc.size; r++)
            send_raw(r, &keys, sizeof(keys));
        for (int r = 1; r < proc.size; r++) {
            const rma_report_t *rep = (const rma_report_t *)raw_msg[r];
            wait_raw(r, 1);
            if (raw_len[r] != sizeof(*rep)) {
                printf("rank 0: rma: FAIL: rank %d reported %zu bytes\n", r, raw_len[r]);
                return 1;
            }
            memcpy(olds + (size_t)(r - 1) * RMA_FADDS, rep->fadd_old, sizeof(rep->fadd_old));
            if (rep->winner_old == 0) {
                winners++;
                winner = r;
            }
        }
        /* The FADDs' old values: each of 0 .. total - 1 exactly once. */
        qsort(olds, (size_t)(proc.size - 1) * RMA_FADDS, sizeof(*olds), cmp_u64);
        for (long i = 0; i < (long)(proc.size - 1) * RMA_FADDS; i++)
            bad += olds[i] != (uint64_t)i;
        if (bad || cnt[0] != (uint64_t)(proc.size - 1) * RMA_FADDS) {
            printf("rank 0: rma: FAIL: counter %llu after %d FADDs, %ld old values not each "
                   "once\n",
                   (unsigned long long)cnt[0], (proc.size - 1) * RMA_FADDS, bad);
            return 1;
        }
        for (int r = 1; r < proc.size; r++) {
            const rma_report_t *rep = (const rma_report_t *)raw_msg[r];
            if (r != winner && rep->winner_old != (uint64_t)winner)
                bad++;
        }
        if (winners != 1 || cnt[1] != (uint64_t)winner || bad ||
            cnt[2] != (uint64_t)(proc.size - 1) * RMA_CSWAPS) {
            printf("rank 0: rma: FAIL: %d CSWAP winners (word %llu), %ld losers saw another, "
                   "CSWAP counter %llu (expected %d)\n",
                   winners, (unsigned long long)cnt[1], bad, (unsigned long long)cnt[2],
                   (proc.size - 1) * RMA_CSWAPS);
            return 1;
        }
        for (size_t i = 0; i < len; i++) {
            if (src[i] != rma_pattern(i)) {
                printf("rank 0: rma: FAIL: the read buffer changed at byte %zu\n", i);
                return 1;
            }
        }
        printf("rank 0: rma: %d rank(s) read %zu bytes each, intact; FADD counter %llu exact "
               "(every old value once); CSWAP: 1 winner (rank %d), counter %llu exact\n",
               proc.size - 1, len, (unsigned long long)cnt[0], winner, (unsigned long long)cnt[2]);
        hello(); /* nobody finalizes while another still reads our memory */
        ops->mem_put(tl, smem);
        ops->mem_put(tl, cmem);
        free(src);
        free(cnt);
        free(olds);
    } else {
        uint8_t *dst = page_alloc(len + 64);
        uint64_t *res = page_alloc(4096);
        vbt_tl_mem_t *dmem, *rmem;
        rma_report_t rep;
        int done = 0;
        long null0 = rma_null;
        size_t off = 4097 + (size_t)proc.rank * 3, part = 1000;
        vbt_status_t st;

        wait_raw(0, 1);
        memcpy(&keys, raw_msg[0], sizeof(keys));
        memset(dst, 0, len + 64);
        dmem = reg(dst, len + 64, VBT_TL_MEM_LOCAL_WRITE);
        rmem = reg(res, 4096, VBT_TL_MEM_LOCAL_WRITE);
        /* get: the whole buffer, then an unaligned piece into an unaligned place. */
        st = rma_get(0, dst, len, dmem, keys.src_addr, keys.src_rkey);
        if (st != VBT_OK)
            fail("get", st);
        for (size_t i = 0; i < len; i++)
            bad += dst[i] != rma_pattern(i);
        memset(dst, 0, len + 64);
        st = rma_get(0, dst + 3, part, dmem, keys.src_addr + off, keys.src_rkey);
        if (st != VBT_OK)
            fail("get (part)", st);
        for (size_t i = 0; i < part; i++)
            bad += dst[3 + i] != rma_pattern(off + i);
        bad += dst[2] != 0 || dst[3 + part] != 0;
        if (bad) {
            printf("rank %d: rma: FAIL: %ld bytes read wrong\n", proc.rank, bad);
            return 1;
        }
        /* FADD: all in flight at once (as many as the window takes), each its own result. */
        put_status = VBT_OK;
        memset(res, 0xff, 4096);
        for (int k = 0; k < RMA_FADDS; k++) {
            /* One with a NULL cookie: it completes all the same (as NULL). */
            st = rma_atomic_post(0, VBT_TL_ATOMIC_FADD, 1, 0, &res[k], rmem, keys.cnt_addr,
                                 keys.cnt_rkey, k == RMA_FADDS / 2 ? NULL : &done);
            if (st != VBT_OK)
                fail("atomic (FADD)", st);
        }
        st = rma_wait_null(&done, RMA_FADDS - 1, null0 + 1);
        if (st != VBT_OK)
            fail("atomic (FADD) completion", st);
        memcpy(rep.fadd_old, res, sizeof(rep.fadd_old));
        /* CSWAP: one winner among the ranks; then +1 by compare-and-swap, retried. */
        st = rma_atomic(0, VBT_TL_ATOMIC_CSWAP, (uint64_t)proc.rank, 0, &res[RMA_FADDS], rmem,
                        keys.cnt_addr + 8, keys.cnt_rkey);
        if (st != VBT_OK)
            fail("atomic (CSWAP)", st);
        rep.winner_old = res[RMA_FADDS];
        rep.cswap_retries = 0;
        for (int k = 0; k < RMA_CSWAPS; k++) {
            uint64_t guess = 0;
            for (;;) {
                st = rma_atomic(0, VBT_TL_ATOMIC_CSWAP, guess + 1, guess, &res[RMA_FADDS + 1], rmem,
                                keys.cnt_addr + 16, keys.cnt_rkey);
                if (st != VBT_OK)
                    fail("atomic (CSWAP counter)", st);
                if (res[RMA_FADDS + 1] == guess)
                    break;
                guess = res[RMA_FADDS + 1];
                rep.cswap_retries++;
            }
        }
        send_raw(0, &rep, sizeof(rep));
        printf("rank %d: rma: read %zu + %zu bytes intact; %d FADDs, CSWAP found %llu, %llu "
               "CSWAP retries\n",
               proc.rank, len, part, RMA_FADDS, (unsigned long long)rep.winner_old,
               (unsigned long long)rep.cswap_retries);
        hello();
        ops->mem_put(tl, dmem);
        ops->mem_put(tl, rmem);
        free(dst);
        free(res);
    }
    raw_mode = 0;
    printf("rank %d: rma: OK\n", proc.rank);
    return 0;
}

/* deny-get, deny-atomic: rank 0 exposes a buffer for remote reads and atomics, and a rendezvous
 * receive buffer (remote write only); rank 1's get or atomic on the first works, on the second
 * the NIC refuses it (remote access error, reported with the rank, the operation and the
 * cause) and the buffer is untouched. */
static int deny_test(int atomic)
{
    const size_t len = 8192;
    const char *what = atomic ? "atomic" : "get";
    rma_keys_t keys;
    int rc = 0;

    if (proc.size != 2) {
        fprintf(stderr, "deny: needs exactly 2 ranks\n");
        return 1;
    }
    if (!(tl->caps & (atomic ? VBT_TL_CAP_ATOMIC_FADD64 : VBT_TL_CAP_GET))) {
        printf("rank %d: deny-%s: SKIP: %s does not offer it\n", proc.rank, what, ib->choice.name);
        return 0;
    }
    raw_mode = 1;
    hello();
    if (proc.rank == 0) {
        uint8_t *src = page_alloc(len), *wonly = page_alloc(len);
        vbt_tl_mem_t *smem, *wmem;
        uint64_t v0, v1;

        for (size_t i = 0; i < len; i++)
            src[i] = wonly[i] = rma_pattern(i);
        memcpy(&v0, src, sizeof(v0));
        smem = reg(src, len, VBT_TL_MEM_REMOTE_READ | VBT_TL_MEM_REMOTE_ATOMIC);
        wmem = reg(wonly, len, VBT_TL_MEM_REMOTE_WRITE); /* a rendezvous receive buffer */
        keys = (rma_keys_t){(uintptr_t)src,
                            (uintptr_t)src,
                            (uintptr_t)wonly,
                            ops->mem_rkey(tl, smem),
                            ops->mem_rkey(tl, smem),
                            ops->mem_rkey(tl, wmem),
                            len};
        send_raw(1, &keys, sizeof(keys));
        if (vbt_modex_fence() != VBT_OK || vbt_modex_fence() != VBT_OK) /* rank 1's turn */
            fail("vbt_modex_fence", VBT_ERR_IO);
        memcpy(&v1, src, sizeof(v1));
        if (v1 != v0 + (uint64_t)atomic) { /* the permitted FADD added 1 */
            printf("rank 0: deny-%s: FAIL: the word is 0x%llx, expected 0x%llx\n", what,
                   (unsigned long long)v1, (unsigned long long)(v0 + (uint64_t)atomic));
            rc = 1;
        }
        for (size_t i = 0; i < len; i++) {
            if ((i >= 8 && src[i] != rma_pattern(i)) || wonly[i] != rma_pattern(i)) {
                printf("rank 0: deny-%s: FAIL: byte %zu changed\n", what, i);
                rc = 1;
                break;
            }
        }
        if (rc == 0)
            printf("rank 0: deny-%s: the receive buffer is untouched\n", what);
        ops->mem_put(tl, smem);
        ops->mem_put(tl, wmem);
    } else {
        uint8_t *dst = page_alloc(len);
        vbt_tl_mem_t *dmem = reg(dst, len, VBT_TL_MEM_LOCAL_WRITE);
        uint64_t *res = (uint64_t *)dst;
        vbt_status_t st;

        wait_raw(0, 1);
        memcpy(&keys, raw_msg[0], sizeof(keys));
        if (vbt_modex_fence() != VBT_OK)
            fail("vbt_modex_fence", VBT_ERR_IO);
        st = atomic
                 ? rma_atomic(0, VBT_TL_ATOMIC_FADD, 1, 0, res, dmem, keys.cnt_addr, keys.cnt_rkey)
                 : rma_get(0, dst, len, dmem, keys.src_addr, keys.src_rkey);
        if (st != VBT_OK) {
            printf("rank 1: deny-%s: FAIL: the permitted %s failed: %s\n", what, what,
                   vbt_status_string(st));
            rc = 1;
        } else {
            printf("rank 1: deny-%s: the %s of memory registered for it worked\n", what, what);
        }
        st = atomic ? rma_atomic(0, VBT_TL_ATOMIC_FADD, 1, 0, res, dmem, keys.wonly_addr,
                                 keys.wonly_rkey)
                    : rma_get(0, dst, len, dmem, keys.wonly_addr, keys.wonly_rkey);
        if (st == VBT_ERR_PEER_FAILED) {
            printf("rank 1: deny-%s: the %s of the receive buffer was refused as expected: %s\n",
                   what, what, vbt_status_string(st));
        } else {
            printf("rank 1: deny-%s: FAIL: the %s of the receive buffer ended with %s\n", what,
                   what, vbt_status_string(st));
            rc = 1;
        }
        if (vbt_modex_fence() != VBT_OK)
            fail("vbt_modex_fence", VBT_ERR_IO);
        ops->mem_put(tl, dmem);
        free(dst);
    }
    raw_mode = 0;
    return rc;
}

/* ---- a hostile peer of the transport itself (credits, forge) ----------------------------- */

/* credits: rank 1 returns credits it never had: first honestly all it owes, then, in another
 * message whose credit field alone is well inside a window, more than rank 0 has outstanding.
 * Rank 0 must refuse it with an error naming rank 1 and close that connection. */
static int credits_test(void)
{
    const int extra = 2;
    double start;

    if (proc.size != 2) {
        fprintf(stderr, "credits: needs exactly 2 ranks\n");
        return 1;
    }
    connect_pair(); /* rank 0 sent 1 message */
    if (proc.rank == 0) {
        vbt_status_t st = VBT_OK;
        int n = 0;
        for (int k = 0; k < 3; k++)
            send_msg(1, 16, 8); /* 4 outstanding, fewer than half a window: no credit message */
        expect(1, 8);
        expect(1, 8);
        start = now_s();
        while (now_s() - start < 30 && (n = ops->progress(tl)) >= 0)
            ;
        if (n != VBT_ERR_PEER_FAILED || ib->peers[1].state != VBT_IB_PEER_FAILED ||
            (st = tl->send(tl, 1, txbuf, 8, NULL, 0)) != VBT_ERR_PEER_FAILED) {
            printf("rank 0: credits: FAIL: progress %s, send %s after the forged credits\n",
                   vbt_status_string((vbt_status_t)n), vbt_status_string(st));
            return 1;
        }
        printf("rank 0: credits: the excess was refused as expected (%s); sends to rank 1 fail "
               "(%s)\n",
               vbt_status_string((vbt_status_t)n), vbt_status_string(st));
    } else {
        long idle = 0;
        expect(0, 16);
        expect(0, 16);
        expect(0, 16);
        wait_for(0, exp_count[0]);
        if (ib->peers[0].owed != 4) {
            printf("rank 1: credits: FAIL: owing %d credits, expected 4\n", ib->peers[0].owed);
            return 1;
        }
        send_msg(0, 8, 8);         /* honest: carries the 4 it owes */
        ib->peers[0].owed = extra; /* the forgery: a window holds 64, this is 2 */
        send_msg(0, 8, 8);
        start = now_s();
        while (now_s() - start < 3)
            progress(&idle);
        printf("rank 1: credits: returned %d credits more than it was sent messages\n", extra);
    }
    if (vbt_pmix_barrier() != VBT_OK)
        fail("vbt_pmix_barrier", VBT_ERR_PMIX);
    return 0;
}

/* forge: 3 ranks. Rank 2, connected to rank 0, sends rank 0's connection manager a REQ that
 * claims to be rank 1 (rank 1's published LID, GID and MTU, a QP of rank 2's: everything but
 * the UD QP it comes from is what rank 1 would send), one as itself with another GID, and a REP
 * claiming to be rank 1. Rank 0 must drop each with an error naming the rank claimed and the
 * field, make no QP for rank 1, and afterwards connect to the real rank 1 as usual. */
static int forge_test(void)
{
    double start;
    long idle = 0;
    int rc = 0;

    if (proc.size != 3) {
        fprintf(stderr, "forge: needs exactly 3 ranks\n");
        return 1;
    }
    /* Ranks 0 and 2 connect; rank 1 stays silent. */
    if (proc.rank == 2) {
        send_msg(0, 16, 8);
        expect(0, 16);
        wait_for(0, exp_count[0]);
    } else if (proc.rank == 0) {
        expect(2, 16);
        wait_for(2, exp_count[2]);
        send_msg(2, 16, 8);
    }
    if (proc.rank == 2) {
        vbt_ib_cm_msg_t m;
        vbt_ib_addr_t a1;
        void *blob;
        size_t len;
        vbt_status_t st = vbt_modex_get(1, ADDR_KEY, &blob, &len);

        if (st != VBT_OK || len != sizeof(a1))
            fail("vbt_modex_get(rank 1)", st);
        memcpy(&a1, blob, sizeof(a1));
        free(blob);
        for (int rep = 0; rep < 3; rep++) { /* UD may lose one */
            vbt_ib_cm_msg_make(ib, 0, VBT_IB_CM_REQ, &m);
            m.src = 1;
            m.lid = a1.lid;
            m.active_mtu = a1.active_mtu;
            memcpy(m.gid, a1.gid, sizeof(m.gid));
            st = vbt_ib_cm_post(ib, 0, &m); /* as rank 1 */
            vbt_ib_cm_msg_make(ib, 0, VBT_IB_CM_REQ, &m);
            m.gid[15] ^= 0x5a;
            if (st == VBT_OK)
                st = vbt_ib_cm_post(ib, 0, &m); /* as itself, another GID */
            vbt_ib_cm_msg_make(ib, 0, VBT_IB_CM_REP, &m);
            m.src = 1;
            if (st == VBT_OK)
                st = vbt_ib_cm_post(ib, 0, &m); /* a reply as rank 1 */
            if (st != VBT_OK)
                fail("vbt_ib_cm_post", st);
            for (int k = 0; k < 100; k++) /* their completions free the UD send slots */
                progress(&idle);
        }
        send_msg(0, 8, 8); /* done */
    } else if (proc.rank == 0) {
        expect(2, 8);
        wait_for(2, exp_count[2]);
        start = now_s(); /* the UD messages may come after the RC one */
        while (now_s() - start < 2)
            progress(&idle);
        if (ib->peers[1].qp != NULL || ib->peers[1].state != VBT_IB_PEER_NONE ||
            ib->peers[2].state != VBT_IB_PEER_READY) {
            printf("rank 0: forge: FAIL: rank 1's QP %p, state %d; rank 2's state %d\n",
                   (void *)ib->peers[1].qp, ib->peers[1].state, ib->peers[2].state);
            rc = 1;
        }
    }
    if (vbt_pmix_barrier() != VBT_OK)
        fail("vbt_pmix_barrier", VBT_ERR_PMIX);
    /* The real rank 1 connects to rank 0 (and everyone to everyone). */
    closing();
    if (proc.rank == 0 && rc == 0)
        printf("rank 0: forge: the forged connection messages were dropped; rank 1 connected "
               "for real afterwards (%d peers connected)\n",
               ib->nconnected);
    return rc || errors != 0;
}

/* ---- pair: two instances in this one process, no MPI ranks ------------------------------- */

/* One instance playing one rank of a job of 2: what the runtime would keep for it. */
typedef struct {
    int rank;
    vbt_tl_iface_t *tl;
    unsigned char blob[VBT_TL_ADDR_MAX]; /* what it published */
    size_t blob_len;
    long count;  /* messages arrived */
    long bad;    /* messages whose bytes were not the pattern */
    size_t last; /* length of the last one */
    int rma;     /* one-sided operations done */
    vbt_status_t rma_status;
} pair_t;

static pair_t pairs[2];
/* The put's target, checked by instance 1 when the message sent after the put arrives. */
static const uint8_t *order_buf;
static size_t order_len;
static long order_bad = -1;

static void pair_recv(void *arg, int src, const void *data, size_t len)
{
    pair_t *me = arg;
    const uint8_t *d = data;

    if (order_buf != NULL && me->rank == 1) {
        order_bad = 0;
        for (size_t i = 0; i < order_len; i++)
            order_bad += order_buf[i] != rma_pattern(i);
        order_buf = NULL;
    }
    for (size_t i = 0; i < len; i++)
        me->bad += d[i] != pattern(src, me->count, i);
    if (src != 1 - me->rank)
        me->bad++;
    me->last = len;
    me->count++;
}

static void pair_rma(void *arg, void *cookie, vbt_status_t status)
{
    pair_t *me = arg;

    me->rma++;
    if (cookie != &me->rma)
        me->bad++;
    if (status != VBT_OK)
        me->rma_status = status;
}

/* The "modex" of this process: the other instance's blob. */
static vbt_status_t pair_addr(void *arg, int peer, void **blob_p, size_t *len_p)
{
    void *b;

    if (peer < 0 || peer > 1 || pairs[peer].blob_len == 0)
        return VBT_ERR_NOT_FOUND;
    b = malloc(pairs[peer].blob_len);
    if (b == NULL)
        return VBT_ERR_NO_MEMORY;
    memcpy(b, pairs[peer].blob, pairs[peer].blob_len);
    *blob_p = b;
    *len_p = pairs[peer].blob_len;
    return VBT_OK;
}

static void pair_fail(const char *what, int rc)
{
    printf("pair: FAIL: %s (%d: %s)\n", what, rc, vbt_status_string((vbt_status_t)rc));
    exit(1);
}

/* Progress both instances once; a negative status fails. */
static void pair_progress(void)
{
    for (int i = 0; i < 2; i++) {
        int n = ops->progress(pairs[i].tl);
        if (n < 0)
            pair_fail("progress", n);
    }
}

/* A message of len bytes from instance `from` to the other, pattern-filled, retried while the
 * connection is made or credit lacks (both progressed meanwhile). */
static void pair_send(int from, size_t len, long n)
{
    pair_t *me = &pairs[from];
    size_t hdr = len < 24 ? len : 24;
    double start = now_s();
    vbt_status_t st;

    for (size_t i = 0; i < len; i++)
        txbuf[i] = pattern(from, n, i);
    while ((st = me->tl->send(me->tl, 1 - from, txbuf, hdr, txbuf + hdr, len - hdr)) ==
           VBT_ERR_NO_RESOURCE) {
        pair_progress();
        if (now_s() - start > WAIT_SECONDS)
            pair_fail("no send credit for too long", VBT_ERR_TIMED_OUT);
    }
    if (st != VBT_OK)
        pair_fail("send", st);
}

static void pair_wait(const long *count, long want, const int *rma, int rma_want)
{
    double start = now_s();

    while (*count < want || *rma < rma_want) {
        pair_progress();
        if (now_s() - start > WAIT_SECONDS)
            pair_fail("waited too long", VBT_ERR_TIMED_OUT);
    }
}

static int pair_test(void)
{
    const size_t rlen = 3 * 65536 + 123; /* one-sided transfers of three 64 KiB pieces and some */
    vbt_tl_upcalls_t up = {.recv = pair_recv, .rma_done = pair_rma, .peer_addr = pair_addr};
    static const int local[] = {0, 1};
    vbt_tl_job_t job = {.size = 2, .local_peers = local, .local_size = 2, .job_name = "pair"};
    uint8_t *a, *b;
    uint64_t *word, *res;
    vbt_tl_mem_t *amem, *bmem, *wmem, *rmem;
    vbt_ib_iface_t *ib0, *ib1;
    size_t posted;
    long sent = 0, sizes = 0, bad = 0;
    vbt_status_t st;

    for (int i = 0; i < 2; i++) {
        char why[832] = "";
        pairs[i].rank = job.rank = i;
        pairs[i].blob_len = sizeof(pairs[i].blob);
        up.arg = &pairs[i];
        st =
            ops->init(&job, &up, &pairs[i].tl, pairs[i].blob, &pairs[i].blob_len, why, sizeof(why));
        if (st == VBT_ERR_NO_DEVICE) {
            printf("SKIP: %s\n", why);
            return 77;
        }
        if (st != VBT_OK)
            pair_fail("init", st);
    }
    /* The runtime's fence, then wireup: each may fetch the other's blob from now on. */
    for (int i = 0; i < 2; i++) {
        st = ops->wireup(pairs[i].tl);
        if (st != VBT_OK)
            pair_fail("wireup", st);
    }
    ib0 = vbt_ib_of(pairs[0].tl);
    ib1 = vbt_ib_of(pairs[1].tl);
    max_send = pairs[0].tl->max_send;
    txbuf = malloc(max_send + 1);
    if (txbuf == NULL)
        pair_fail("out of memory", VBT_ERR_NO_MEMORY);
    /* Independent instances: their own device contexts, CQs and peers; the memory hooks serve
     * the first one's registration cache, the second caches nothing. */
    if (ib0 == ib1 || ib0->dev == ib1->dev || ib0->cq == ib1->cq || ib0->peers == ib1->peers ||
        ib0->hooks_held != 1 || ib1->hooks_held != 0) {
        printf("pair: FAIL: the instances share state (hooks %d/%d)\n", ib0->hooks_held,
               ib1->hooks_held);
        return 1;
    }

    /* Messages both ways, every size class, each in turn: the first connects the pair. */
    for (size_t len = 0; len <= max_send; len = len < 300 ? len + 37 : len * 2 + 1) {
        pair_send(0, len, sent);
        pair_wait(&pairs[1].count, sent + 1, &pairs[1].rma, 0);
        pair_send(1, len, sent);
        pair_wait(&pairs[0].count, sent + 1, &pairs[0].rma, 0);
        if (pairs[0].last != len || pairs[1].last != len)
            bad++;
        sent++;
        sizes++;
    }
    /* A flood one way: credits return by themselves. */
    for (long k = 0; k < 500; k++)
        pair_send(0, (size_t)(k * 31) % (max_send + 1), sent + k);
    pair_wait(&pairs[1].count, sent + 500, &pairs[1].rma, 0);
    if (bad || pairs[0].bad || pairs[1].bad || ib0->nconnected != 1 || ib1->nconnected != 1) {
        printf("pair: FAIL: messages: %ld wrong lengths, %ld/%ld wrong bytes, %d/%d connected\n",
               bad, pairs[0].bad, pairs[1].bad, ib0->nconnected, ib1->nconnected);
        return 1;
    }
    printf("pair: %ld messages each way (%ld sizes 0..%zu) and 500 more, every byte right\n", sent,
           sizes, max_send);

    /* put 0 -> 1, then a message that must arrive after the data (the contract's ordering). */
    a = page_alloc(rlen);
    b = page_alloc(rlen);
    word = page_alloc(4096);
    res = page_alloc(4096);
    for (size_t i = 0; i < rlen; i++) {
        a[i] = rma_pattern(i);
        b[i] = 0;
    }
    if ((st = ops->mem_get(pairs[0].tl, a, rlen, 0, &amem)) != VBT_OK ||
        (st = ops->mem_get(pairs[1].tl, b, rlen, VBT_TL_MEM_REMOTE_WRITE | VBT_TL_MEM_REMOTE_READ,
                           &bmem)) != VBT_OK)
        pair_fail("mem_get", st);
    for (size_t off = 0; off < rlen; off += posted) {
        st = ops->put(pairs[0].tl, 1, a + off, rlen - off, amem, (uintptr_t)b + off,
                      ops->mem_rkey(pairs[1].tl, bmem), &pairs[0].rma, &posted);
        if (st != VBT_OK && st != VBT_ERR_NO_RESOURCE)
            pair_fail("put", st);
        pair_progress();
    }
    order_buf = b;
    order_len = rlen;
    pair_send(0, 8, sent + 500);
    pair_wait(&pairs[1].count, sent + 501, &pairs[0].rma, 1);
    for (size_t i = 0; i < rlen; i++)
        bad += b[i] != rma_pattern(i);
    if (bad || order_bad != 0 || pairs[0].rma_status != VBT_OK) {
        printf("pair: FAIL: put: %ld bytes wrong, %ld when the next message came, %s\n", bad,
               order_bad, vbt_status_string(pairs[0].rma_status));
        return 1;
    }
    printf("pair: put of %zu bytes landed before the message after it\n", rlen);

    if ((pairs[1].tl->caps & VBT_TL_CAP_GET) && (pairs[0].tl->caps & VBT_TL_CAP_GET)) {
        /* get: 0 reads back what it wrote into 1's buffer. */
        memset(a, 0, rlen);
        ops->mem_put(pairs[0].tl, amem);
        if ((st = ops->mem_get(pairs[0].tl, a, rlen, VBT_TL_MEM_LOCAL_WRITE, &amem)) != VBT_OK)
            pair_fail("mem_get (get)", st);
        for (size_t off = 0; off < rlen; off += posted) {
            st = ops->get(pairs[0].tl, 1, a + off, rlen - off, amem, (uintptr_t)b + off,
                          ops->mem_rkey(pairs[1].tl, bmem), &pairs[0].rma, &posted);
            if (st != VBT_OK && st != VBT_ERR_NO_RESOURCE)
                pair_fail("get", st);
            pair_progress();
        }
        pair_wait(&pairs[1].count, 0, &pairs[0].rma, 2);
        for (size_t i = 0; i < rlen; i++)
            bad += a[i] != rma_pattern(i);
        if (bad || pairs[0].rma_status != VBT_OK) {
            printf("pair: FAIL: get: %ld bytes wrong, %s\n", bad,
                   vbt_status_string(pairs[0].rma_status));
            return 1;
        }
        printf("pair: get of %zu bytes intact\n", rlen);
    } else {
        printf("pair: no get on %s\n", ib0->choice.name);
    }

    if (pairs[0].tl->caps & VBT_TL_CAP_ATOMIC_FADD64) {
        int want = pairs[0].rma;
        word[0] = 40;
        word[1] = 7;
        if ((st = ops->mem_get(pairs[1].tl, word, 4096, VBT_TL_MEM_REMOTE_ATOMIC, &wmem)) !=
                VBT_OK ||
            (st = ops->mem_get(pairs[0].tl, res, 4096, VBT_TL_MEM_LOCAL_WRITE, &rmem)) != VBT_OK)
            pair_fail("mem_get (atomics)", st);
        /* FADD 2, FADD 3 (old 40, 42), CSWAP 7 -> 9 (old 7), CSWAP 7 -> 11 (old 9: no swap). */
        struct {
            vbt_tl_atomic_op_t op;
            uint64_t operand, compare;
            int word;
        } seq[] = {{VBT_TL_ATOMIC_FADD, 2, 0, 0},
                   {VBT_TL_ATOMIC_FADD, 3, 0, 0},
                   {VBT_TL_ATOMIC_CSWAP, 9, 7, 1},
                   {VBT_TL_ATOMIC_CSWAP, 11, 7, 1}};
        static const uint64_t olds[] = {40, 42, 7, 9};
        for (int k = 0; k < 4; k++) {
            while ((st = ops->atomic(pairs[0].tl, 1, seq[k].op, seq[k].operand, seq[k].compare,
                                     &res[k], rmem, (uintptr_t)&word[seq[k].word],
                                     ops->mem_rkey(pairs[1].tl, wmem), &pairs[0].rma)) ==
                   VBT_ERR_NO_RESOURCE)
                pair_progress();
            if (st != VBT_OK)
                pair_fail("atomic", st);
            pair_wait(&pairs[1].count, 0, &pairs[0].rma, ++want); /* in order: one at a time */
            if (res[k] != olds[k])
                bad++;
        }
        if (bad || word[0] != 45 || word[1] != 9 || pairs[0].rma_status != VBT_OK) {
            printf("pair: FAIL: atomics: old values %llu %llu %llu %llu, words %llu %llu\n",
                   (unsigned long long)res[0], (unsigned long long)res[1],
                   (unsigned long long)res[2], (unsigned long long)res[3],
                   (unsigned long long)word[0], (unsigned long long)word[1]);
            return 1;
        }
        printf("pair: FADD and CSWAP: old values and results right\n");
        ops->mem_put(pairs[1].tl, wmem);
        ops->mem_put(pairs[0].tl, rmem);
    } else {
        printf("pair: no atomics on %s\n", ib0->choice.name);
    }
    ops->mem_put(pairs[0].tl, amem);
    ops->mem_put(pairs[1].tl, bmem);
    if (pairs[0].bad || pairs[1].bad) {
        printf("pair: FAIL: %ld/%ld bad upcalls\n", pairs[0].bad, pairs[1].bad);
        return 1;
    }
    ops->finalize(pairs[0].tl);
    ops->finalize(pairs[1].tl);
    free(a);
    free(b);
    free(word);
    free(res);
    printf("pair: OK\n");
    return 0;
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
    if (strcmp(mode, "pair") == 0) { /* no MPI ranks: two instances in this process */
        vbt_log_set_identity("ib_transport", 0);
        return pair_test();
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
            vbt_pmix_finalize(0);
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
    raw_msg = calloc((size_t)proc.size, sizeof(*raw_msg));
    raw_len = calloc((size_t)proc.size, sizeof(*raw_len));
    raw_count = calloc((size_t)proc.size, sizeof(*raw_count));
    if (!raw_msg || !raw_len || !raw_count || !rx_count || !tx_count || !rx_bytes || !tx_bytes ||
        !rx_last_len || !exp_count || !exp_bytes || !txbuf)
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
    } else if (strcmp(mode, "credits") == 0) {
        rc = credits_test();
    } else if (strcmp(mode, "forge") == 0) {
        rc = forge_test();
    } else if (strcmp(mode, "rma") == 0) {
        rc = rma_test();
    } else if (strcmp(mode, "deny-get") == 0) {
        rc = deny_test(0);
    } else if (strcmp(mode, "deny-atomic") == 0) {
        rc = deny_test(1);
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
                "access, rma, deny-get, deny-atomic, pair, credits, forge, init, describe)\n",
                mode);
        rc = 1;
    }

    if (tl != NULL)
        ops->finalize(tl);
    st = vbt_pmix_finalize(0);
    if (st != VBT_OK && rc == 0)
        rc = 1;
    return rc;
}
