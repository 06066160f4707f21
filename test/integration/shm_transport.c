/* White-box test of transport-shm under the real mpirun (all ranks on this node). It drives one
 * instance through vbt_shm_tl_ops by hand, as the runtime does (runtime/vbt_tl.c): init, its
 * address blob published under "shm.addr" with the runtime's modex, the fence, wireup (the
 * peers' blobs fetched through the peer_addr upcall), then sends through the interface's send
 * and progress, sleeps and CMA reads through the ops; it reads the instance's counters and
 * state (vbt_shm_int.h) to check what happened inside.
 *
 *   shm_transport [all]   ping-pong of every size 0..max_send between rank pairs, a
 *                         100,000-message flood from each even rank to the next odd one (the
 *                         receiver starts late, so the ring fills: back-pressure), all-to-all,
 *                         blocking receives in block() (sleep_begin, poll() on wait_fd alone,
 *                         sleep_end: woken by the doorbell, not by a timeout; CPU while
 *                         asleep), sleep_begin calling a sleep off for a message already there,
 *                         the runtime's way to sleep (one poll() on wait_fd and a pipe: woken by
 *                         a post through the doorbell, and by the pipe alone), a ping-pong where
 *                         both sides only ever sleep (a lost wake-up shows as a timeout), CMA
 *                         reads of every peer's memory (whole, odd offsets, a hole), a closing
 *                         exchange; every byte checked; the doorbell socket gone after finalize
 *   shm_transport nocma   rank 0 runs under a seccomp filter refusing process_vm_readv (as a
 *                         restrictive container would): its probe must say so, READ_PEER must
 *                         be off and its CMA reads return VBT_ERR_UNSUPPORTED, while the rings
 *                         work and the other ranks' CMA works; then rank 1 installs the same
 *                         filter after its probe said yes: its next read must be refused and
 *                         clear READ_PEER
 *   shm_transport kill-after-wireup   rank 1 SIGKILLs itself once everyone has mapped it: rank 0
 *                         must notice while asleep in block(), rank 2 (if any) in send
 *   shm_transport kill-before-wireup  rank 1 SIGKILLs itself between init and the fence
 *   shm_transport kill-after-fence    rank 1 SIGKILLs itself after the fence: rank 0's wireup
 *                         must fail saying so
 *   shm_transport nobell  2 ranks whose doorbells cannot reach each other (rank 1 in its own
 *                         network namespace, or a wrong name): messages still arrive, the
 *                         sleeper wakes by its 500 ms limit, the sender warns once
 *   shm_transport bad     2 ranks: a segment of another version (wireup refuses it), a corrupt
 *                         cell (progress refuses it), a send to a rank that finalized
 *   shm_transport init    init + fence + wireup + finalize (a singleton publishes nothing, has
 *                         no doorbell, no sleep limit, and sleep_begin just lets it sleep)
 *
 * Every rank prints "ns=<PMIx namespace>" first, so the script can look for memory left
 * behind under that name. Exit: 0 pass, 77 skip, 1 fail. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vbt_compiler.h"
#include "vbt_config.h"
#include "vbt_log.h"
#include "vbt_pmix.h"
#include "vbt_shm.h"
#include "vbt_shm_int.h"
#include "vbt_shm_ring.inl"

#define FLOOD_COUNT    100000
#define ALLTOALL_COUNT 200
#define WAKE_ITERS     20
#define PIPE_ITERS     5
#define NOBELL_ITERS   3
#define SLEEPY_COUNT   3000
#define WAIT_SECONDS   180
#define MAIL_SLOTS     4
#define MAIL_BYTES     64
#define CMA_LEN        ((4u << 20) + 123)

#define ADDR_KEY "shm.addr" /* the runtime's key for shm's blob: "<name>.addr" */

static vbt_proc_info_t proc;
static const vbt_tl_ops_t *ops = &vbt_shm_tl_ops;
static vbt_tl_iface_t *tl;   /* the instance, as the runtime holds it */
static vbt_shm_iface_t *shm; /* the same, white-box */
static long *rx_count, *tx_count, *exp_count;
static unsigned long long *rx_bytes, *tx_bytes, *exp_bytes;
static size_t *rx_last_len;
static long errors;
static size_t max_send;
static uint8_t *txbuf;
static int spin_only; /* wait by polling alone (the ranks have a core each) */
static int mail_mode; /* the callback keeps messages in the mailbox instead of checking them */
static uint8_t (*mail)[MAIL_SLOTS][MAIL_BYTES];
static int *mail_n;

static inline uint8_t pattern(int src, long n, size_t i)
{
    return (uint8_t)(src * 31 + n * 7 + (long)i * 13 + (long)(i >> 8) * 3 + 1);
}

static void recv_cb(int src, const void *data, size_t len)
{
    const uint8_t *d = data;
    long n;

    if (src < 0 || src >= proc.size || src == proc.rank) {
        fprintf(stderr, "rank %d: a message from impossible rank %d\n", proc.rank, src);
        errors++;
        return;
    }
    if (mail_mode) {
        /* Not counted: mail is outside the numbered, patterned messages. */
        if (mail_n[src] >= MAIL_SLOTS || len > MAIL_BYTES) {
            fprintf(stderr, "rank %d: unexpected mail of %zu bytes from rank %d\n", proc.rank, len,
                    src);
            errors++;
            return;
        }
        memcpy(mail[src][mail_n[src]++], data, len);
        return;
    }
    n = rx_count[src]++;
    rx_bytes[src] += len;
    rx_last_len[src] = len;
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
}

/* The upcalls the runtime would give (runtime/vbt_tl.c): arrivals, and the peers' blobs from
 * the modex. */
static void recv_up(void *arg, int src, const void *data, size_t len)
{
    recv_cb(src, data, len);
}

static vbt_status_t peer_addr_up(void *arg, int peer, void **blob_p, size_t *len_p)
{
    return vbt_modex_get(peer, ADDR_KEY, blob_p, len_p);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fail(const char *what, int rc)
{
    fprintf(stderr, "rank %d: FAIL: %s (%d: %s)\n", proc.rank, what, rc,
            vbt_status_string((vbt_status_t)rc));
    vbt_pmix_abort(1, what);
}

static void barrier(void)
{
    vbt_status_t st = vbt_pmix_barrier();
    if (st != VBT_OK)
        fail("vbt_pmix_barrier", st);
}

/* Sleep on the doorbell alone until a peer posts to us or frees a cell of a ring we found full,
 * or timeout_ms passes (< 0, or more than max_sleep_ms: that limit): sleep_begin, poll() on
 * wait_fd, sleep_end. Arrivals found before sleeping are delivered. Returns at once when there
 * is nothing to wait on (no other rank on the node). */
static vbt_status_t block(int timeout_ms)
{
    int fd = ops->wait_fd(tl), max = ops->max_sleep_ms(tl), go = 0, rc, err;
    struct pollfd pfd;
    vbt_status_t st;

    if (fd < 0)
        return VBT_OK;
    if (timeout_ms < 0 || (max >= 0 && timeout_ms > max))
        timeout_ms = max;
    st = ops->sleep_begin(tl, &go);
    if (st != VBT_OK || !go)
        return st;
    pfd = (struct pollfd){.fd = fd, .events = POLLIN};
    rc = poll(&pfd, 1, timeout_ms);
    if (rc < 0 && errno != EINTR) {
        err = errno;
        ops->sleep_end(tl, 0, 0);
        fprintf(stderr, "rank %d: poll on the doorbell: %s\n", proc.rank, strerror(err));
        return VBT_ERR_IO;
    }
    return ops->sleep_end(tl, rc > 0 && (pfd.revents & POLLIN), rc == 0);
}

/* Open the instance as the runtime does: init with our job and upcalls, then publish its address
 * blob (none when we are alone on the node). Does not fence. */
static void shm_init(void)
{
    vbt_tl_job_t job = {.rank = proc.rank,
                        .size = proc.size,
                        .local_peers = proc.local_peers,
                        .local_size = proc.local_size,
                        .job_name = getenv("PMIX_NAMESPACE") ? getenv("PMIX_NAMESPACE") : ""};
    vbt_tl_upcalls_t up = {.recv = recv_up, .peer_addr = peer_addr_up};
    unsigned char addr[VBT_TL_ADDR_MAX];
    size_t addr_len = sizeof(addr);
    char why[256] = "";
    vbt_status_t st;

    st = ops->init(&job, &up, &tl, addr, &addr_len, why, sizeof(why));
    if (st != VBT_OK) {
        fprintf(stderr, "rank %d: init: %s\n", proc.rank, why);
        fail("init", st);
    }
    shm = vbt_shm_iface(tl);
    if (addr_len > VBT_TL_ADDR_MAX || (addr_len > 0) != (proc.local_size > 1)) {
        fprintf(stderr, "rank %d: FAIL: init returned a %zu-byte address with %d local ranks\n",
                proc.rank, addr_len, proc.local_size);
        fail("init", VBT_ERR_INVALID_PARAM);
    }
    if (addr_len > 0) {
        st = vbt_modex_put(ADDR_KEY, addr, addr_len);
        if (st != VBT_OK)
            fail("vbt_modex_put", st);
    }
}

/* Finalize the instance (once: some modes finalize early). */
static void shm_finalize(void)
{
    if (tl != NULL)
        ops->finalize(tl);
    tl = NULL;
    shm = NULL;
}

/* Progress once; when idle, spin (a core each) or after a while sleep on the doorbell. */
static void progress(long *idle)
{
    int n = ops->progress(tl);
    vbt_status_t st;

    if (n < 0)
        fail("progress", n);
    if (n > 0) {
        *idle = 0;
        return;
    }
    if (spin_only) {
        /* No system call of the transport's: a yield now and then, for a shared machine. */
        if ((++*idle & 1023) == 0)
            sched_yield();
        else
            vbt_cpu_relax();
        return;
    }
    if (++*idle > 200) {
        st = block(50);
        if (st != VBT_OK)
            fail("block", st);
    }
}

static void send_raw(int dst, const void *hdr, size_t hdr_len, const void *payload, size_t len)
{
    double start = now_s();
    long idle = 0;
    vbt_status_t st;

    for (;;) {
        st = tl->send(tl, dst, hdr, hdr_len, payload, len);
        if (st == VBT_OK)
            break;
        if (st != VBT_ERR_NO_RESOURCE)
            fail("send", st);
        progress(&idle);
        if (now_s() - start > WAIT_SECONDS)
            fail("ring full for too long", VBT_ERR_TIMED_OUT);
    }
}

static void send_msg(int dst, size_t total, size_t hdr_pref)
{
    long n = tx_count[dst];
    size_t hdr_len = total < hdr_pref ? total : hdr_pref;

    for (size_t i = 0; i < total; i++)
        txbuf[i] = pattern(proc.rank, n, i);
    send_raw(dst, txbuf, hdr_len, txbuf + hdr_len, total - hdr_len);
    memset(txbuf, 0xee, total); /* the caller may reuse its buffers at once */
    tx_count[dst]++;
    tx_bytes[dst] += total;
}

static void send_mail(int dst, const void *data, size_t len)
{
    send_raw(dst, data, len, NULL, 0);
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

static void wait_mail(int src, int k)
{
    double start = now_s();
    long idle = 0;

    while (mail_n[src] <= k) {
        progress(&idle);
        if (now_s() - start > WAIT_SECONDS) {
            fprintf(stderr, "rank %d: FAIL: waited %d s for mail %d from rank %d\n", proc.rank,
                    WAIT_SECONDS, k, src);
            vbt_pmix_abort(1, "timeout");
        }
    }
}

static void mail_begin(void)
{
    memset(mail_n, 0, (size_t)proc.size * sizeof(*mail_n));
    mail_mode = 1;
}

static void check_len(int src, size_t want)
{
    if (rx_last_len[src] != want) {
        fprintf(stderr, "rank %d: message from rank %d has %zu bytes, expected %zu\n", proc.rank,
                src, rx_last_len[src], want);
        errors++;
    }
}

/* ---- phases ---------------------------------------------------------------------------------- */

static int pingpong(void)
{
    int peer = proc.rank ^ 1, sizes = 0;

    if (peer >= proc.size)
        return 0;
    for (size_t s = 0; s <= max_send; s++, sizes++) {
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
    }
    return sizes;
}

static size_t flood_len(long k)
{
    return k % 10 == 0 ? (size_t)(k * 7919) % (max_send + 1) : (size_t)(k * 31) % 200;
}

/* Returns how often the sender found the ring full. */
static uint64_t flood(void)
{
    int peer = proc.rank ^ 1;
    uint64_t full0 = shm->stats.full;

    if (peer >= proc.size)
        return 0;
    if (proc.rank % 2 == 0) {
        for (long k = 0; k < FLOOD_COUNT; k++)
            send_msg(peer, flood_len(k), (size_t)k % 65);
        return shm->stats.full - full0;
    }
    usleep(50000); /* let the ring fill: the sender must see back-pressure */
    for (long k = 0; k < FLOOD_COUNT; k++)
        expect(peer, flood_len(k));
    wait_for(peer, exp_count[peer]);
    return 0;
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* How the odd rank of a pair sleeps in wake(): in block(), or the runtime's way, one poll() on
 * wait_fd and a pipe of its own between sleep_begin and sleep_end. */
typedef struct {
    int pipe_fd;  /* -1: block() */
    long by_bell; /* poll()s that returned with the doorbell readable */
    long by_pipe; /* ... with the pipe readable */
    long timeouts;
} sleeper_t;

static void sleep_once(sleeper_t *s)
{
    struct pollfd pfd[2];
    vbt_status_t st;
    int go = -1, rc;

    if (s->pipe_fd < 0) {
        st = block(2000);
        if (st != VBT_OK)
            fail("block", st);
        return;
    }
    st = ops->sleep_begin(tl, &go);
    if (st != VBT_OK)
        fail("sleep_begin", st);
    if (!go)
        return; /* something came: the caller polls */
    pfd[0] = (struct pollfd){.fd = ops->wait_fd(tl), .events = POLLIN};
    pfd[1] = (struct pollfd){.fd = s->pipe_fd, .events = POLLIN};
    rc = poll(pfd, 2, ops->max_sleep_ms(tl));
    if (rc < 0 && errno != EINTR) {
        ops->sleep_end(tl, 0, 0);
        fail("poll", VBT_ERR_IO);
    }
    s->by_bell += rc > 0 && (pfd[0].revents & POLLIN);
    s->by_pipe += rc > 0 && (pfd[1].revents & POLLIN);
    s->timeouts += rc == 0;
    st = ops->sleep_end(tl, rc > 0 && (pfd[0].revents & POLLIN), rc == 0);
    if (st != VBT_OK)
        fail("sleep_end", st);
}

/* The odd rank of a pair sleeps until the even one posts (20 ms after the odd one said it is
 * ready): the post must wake it through the doorbell, never by the sleep's timeout, and in
 * well under the 500 ms a timeout would take; and the sleeper must not spin meanwhile. With
 * pipe_fd >= 0 it sleeps in one poll() on the doorbell and that pipe (nobody writes it). */
static void wake(const char *what, int pipe_fd)
{
    int peer = proc.rank ^ 1;
    double lat[WAKE_ITERS], wait_wall = 0, wait_cpu = 0;
    vbt_shm_stats_t s0 = shm->stats;
    sleeper_t sl = {.pipe_fd = pipe_fd};
    uint64_t sleeps, rung, timeouts;

    if (peer >= proc.size)
        return;
    mail_begin();
    for (int it = 0; it < WAKE_ITERS; it++) {
        if (proc.rank % 2 == 0) {
            double t;
            wait_mail(peer, 0);
            mail_n[peer] = 0;
            usleep(20000);
            t = now_s();
            send_mail(peer, &t, sizeof(t));
        } else {
            double t0, c0, t_sent;
            char ready = 1;
            send_mail(peer, &ready, 1);
            t0 = now_s();
            c0 = cpu_s();
            while (mail_n[peer] == 0) {
                int n = ops->progress(tl);
                if (n < 0)
                    fail("progress", n);
                if (n > 0)
                    break;
                sleep_once(&sl);
                if (now_s() - t0 > WAIT_SECONDS)
                    fail("no wake-up", VBT_ERR_TIMED_OUT);
            }
            lat[it] = now_s();
            wait_wall += lat[it] - t0;
            wait_cpu += cpu_s() - c0;
            memcpy(&t_sent, mail[peer][0], sizeof(t_sent));
            lat[it] -= t_sent;
            mail_n[peer] = 0;
        }
    }
    mail_mode = 0;
    if (proc.rank % 2 == 0) {
        uint64_t wakes = shm->stats.wakes - s0.wakes;
        printf("rank %d: %s: %llu doorbells rung for %d posts to a sleeping peer\n", proc.rank,
               what, (unsigned long long)wakes, WAKE_ITERS);
        if (wakes < WAKE_ITERS / 2) {
            fprintf(stderr,
                    "rank %d: FAIL: %s: the sender woke its sleeping peer only %llu times\n",
                    proc.rank, what, (unsigned long long)wakes);
            errors++;
        }
        return;
    }
    sleeps = shm->stats.sleeps - s0.sleeps;
    rung = shm->stats.rung - s0.rung;
    timeouts = shm->stats.timeouts - s0.timeouts;
    qsort(lat, WAKE_ITERS, sizeof(lat[0]), cmp_double);
    printf("rank %d: %s: post-to-wake latency median %.0f us, max %.0f us; %llu sleeps, %llu ended "
           "by the doorbell, %llu timed out%s; CPU while waiting %.1f%% of %.0f ms\n",
           proc.rank, what, lat[WAKE_ITERS / 2] * 1e6, lat[WAKE_ITERS - 1] * 1e6,
           (unsigned long long)sleeps, (unsigned long long)rung, (unsigned long long)timeouts,
           pipe_fd >= 0 ? " (poll() on the doorbell and a pipe)" : " (poll() on the doorbell)",
           100 * wait_cpu / wait_wall, wait_wall * 1e3);
    /* Not a speed test: 400 ms only tells a doorbell from a 500 ms timeout. */
    if (lat[WAKE_ITERS - 1] > 0.4 || sleeps < WAKE_ITERS / 2 || rung < WAKE_ITERS / 2 ||
        timeouts != 0 || wait_cpu > 0.1 * wait_wall) {
        fprintf(stderr,
                "rank %d: FAIL: %s: a blocking receive was not woken by the doorbell (or it did "
                "not sleep, or spun)\n",
                proc.rank, what);
        errors++;
    }
    if (pipe_fd >= 0 && (sl.by_bell < WAKE_ITERS / 2 || sl.by_pipe != 0 || sl.timeouts != 0)) {
        fprintf(stderr,
                "rank %d: FAIL: %s: poll() saw the doorbell readable %ld times, the idle pipe %ld "
                "times, timed out %ld times\n",
                proc.rank, what, sl.by_bell, sl.by_pipe, sl.timeouts);
        errors++;
    }
}

static void *pipe_writer(void *arg)
{
    int fd = *(int *)arg;

    usleep(30000);
    if (write(fd, "p", 1) != 1)
        perror("pipe write");
    return NULL;
}

/* The other half of the runtime's way to sleep: no peer posts, a thread writes into the pipe
 * 30 ms after the odd rank went to sleep on the doorbell and the pipe: the pipe must wake it
 * (well before the 500 ms limit), the doorbell must stay quiet. */
static void wake_by_pipe(int pipe_r, int pipe_w)
{
    double worst = 0;
    sleeper_t sl = {.pipe_fd = pipe_r};
    uint64_t rung0 = shm->stats.rung;

    if (proc.rank % 2 == 0 || (proc.rank ^ 1) >= proc.size)
        return;
    for (int it = 0; it < PIPE_ITERS; it++) {
        double t0 = now_s();
        long by_pipe0 = sl.by_pipe;
        pthread_t t;
        char c;

        if (pthread_create(&t, NULL, pipe_writer, &pipe_w) != 0)
            fail("pthread_create", VBT_ERR_NO_MEMORY);
        while (sl.by_pipe == by_pipe0) {
            sleep_once(&sl);
            if (now_s() - t0 > WAIT_SECONDS)
                fail("the pipe never woke the sleeper", VBT_ERR_TIMED_OUT);
        }
        if (now_s() - t0 > worst)
            worst = now_s() - t0;
        pthread_join(t, NULL);
        if (read(pipe_r, &c, 1) != 1)
            fail("pipe read", VBT_ERR_IO);
    }
    printf("rank %d: fdwait: a pipe woke the sleeper %d times, after %.0f ms at most (written 30 "
           "ms in); doorbell readable %ld times, %ld timeouts\n",
           proc.rank, PIPE_ITERS, worst * 1e3, sl.by_bell, sl.timeouts);
    if (worst > 0.4 || sl.by_bell != 0 || sl.timeouts != 0 || shm->stats.rung != rung0) {
        fprintf(stderr, "rank %d: FAIL: fdwait: the pipe did not wake the sleeper alone\n",
                proc.rank);
        errors++;
    }
}

/* sleep_begin with a message already in the ring must call the sleep off, deliver it,
 * and leave SLEEPING clear; with nothing there it must announce the sleep, and sleep_end
 * withdraw it. */
static void calloff(void)
{
    int peer = proc.rank ^ 1, go = -1;
    vbt_shm_stats_t s0;
    vbt_status_t st;
    char c = 'c';

    mail_begin();
    if (peer < proc.size && proc.rank % 2 == 0)
        send_mail(peer, &c, 1);
    barrier(); /* the mail is in the odd rank's ring, and nobody sends until the next barrier */
    if (peer < proc.size && proc.rank % 2 == 1) {
        s0 = shm->stats;
        st = ops->sleep_begin(tl, &go);
        if (st != VBT_OK || go != 0 || mail_n[peer] != 1 ||
            (atomic_load(&shm->hdr->state) & VBT_SHM_SLEEPING) || shm->stats.sleeps != s0.sleeps ||
            shm->stats.called_off != s0.called_off + 1) {
            fprintf(stderr,
                    "rank %d: FAIL: calloff: with a message waiting, sleep_begin said %s, sleep "
                    "%d, delivered %d, state 0x%x\n",
                    proc.rank, vbt_status_string(st), go, mail_n[peer],
                    atomic_load(&shm->hdr->state));
            errors++;
        }
        st = ops->sleep_begin(tl, &go);
        if (st != VBT_OK || go != 1 || !(atomic_load(&shm->hdr->state) & VBT_SHM_SLEEPING)) {
            fprintf(stderr,
                    "rank %d: FAIL: calloff: with nothing there, sleep_begin said %s, "
                    "sleep %d\n",
                    proc.rank, vbt_status_string(st), go);
            errors++;
        }
        st = ops->sleep_end(tl, 0, 0);
        if (st != VBT_OK || (atomic_load(&shm->hdr->state) & VBT_SHM_SLEEPING)) {
            fprintf(stderr, "rank %d: FAIL: calloff: sleep_end said %s, state 0x%x\n", proc.rank,
                    vbt_status_string(st), atomic_load(&shm->hdr->state));
            errors++;
        }
        printf("rank %d: calloff: sleep_begin found the waiting message and called the sleep "
               "off; with nothing waiting it announced the sleep\n",
               proc.rank);
    }
    barrier();
    mail_mode = 0;
}

/* Both sides of a pair wait only in block() (no spinning): a lost wake-up would leave a
 * rank asleep until the timeout. None may time out. */
static void sleepy(void)
{
    int peer = proc.rank ^ 1;
    uint64_t timeouts0 = shm->stats.timeouts, sleeps0 = shm->stats.sleeps;
    double t0 = now_s();

    if (peer >= proc.size)
        return;
    for (long k = 0; k < SLEEPY_COUNT; k++) {
        expect(peer, 8);
        if (proc.rank % 2 == 0)
            send_msg(peer, 8, 4);
        while (rx_count[peer] < exp_count[peer]) {
            int n = ops->progress(tl);
            if (n < 0)
                fail("progress", n);
            if (n == 0) {
                vbt_status_t st = block(1000);
                if (st != VBT_OK)
                    fail("block", st);
            }
            if (now_s() - t0 > WAIT_SECONDS)
                fail("sleepy ping-pong stuck", VBT_ERR_TIMED_OUT);
        }
        if (proc.rank % 2 == 1)
            send_msg(peer, 8, 4);
    }
    printf("rank %d: sleepy: %d round trips waiting only in block() in %.2f s (%.0f us "
           "each), %llu sleeps, %llu timeouts\n",
           proc.rank, SLEEPY_COUNT, now_s() - t0, (now_s() - t0) / SLEEPY_COUNT * 1e6,
           (unsigned long long)(shm->stats.sleeps - sleeps0),
           (unsigned long long)(shm->stats.timeouts - timeouts0));
    if (shm->stats.timeouts != timeouts0) {
        fprintf(stderr,
                "rank %d: FAIL: block() timed out with a message on its way (a "
                "lost wake-up)\n",
                proc.rank);
        errors++;
    }
}

typedef struct {
    uint64_t addr;
    uint64_t len;
    uint64_t hole; /* an unmapped page */
} cma_mail_t;

static int cma_check(const uint8_t *got, int src, size_t off, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (got[i] != pattern(src, 77, off + i)) {
            fprintf(stderr, "rank %d: CMA read from rank %d: byte %zu is 0x%02x, expected 0x%02x\n",
                    proc.rank, src, off + i, got[i], pattern(src, 77, off + i));
            return 1;
        }
    }
    return 0;
}

/* Every rank exposes a buffer; every other rank reads it with CMA, in pieces and whole.
 * expect_cma: 1 the reads must work, 0 they must say VBT_ERR_UNSUPPORTED. */
static int cma(int expect_cma)
{
    uint8_t *buf = malloc(CMA_LEN), *got = malloc(CMA_LEN);
    void *hole = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cma_mail_t m;
    int reads = 0;
    static const size_t pieces[][2] = {
        {0, 1}, {4095, 1}, {4093, 4097}, {12345, 65536 + 7}, {CMA_LEN - 1, 1}, {100, 0}};

    if (buf == NULL || got == NULL || hole == MAP_FAILED)
        fail("out of memory", VBT_ERR_NO_MEMORY);
    munmap(hole, 4096);
    for (size_t i = 0; i < CMA_LEN; i++)
        buf[i] = pattern(proc.rank, 77, i);
    m = (cma_mail_t){(uintptr_t)buf, CMA_LEN, (uintptr_t)hole};
    mail_begin();
    for (int r = 0; r < proc.size; r++) {
        if (r != proc.rank)
            send_mail(r, &m, sizeof(m));
    }
    for (int r = 0; r < proc.size; r++) {
        cma_mail_t pm;
        vbt_status_t st;

        if (r == proc.rank)
            continue;
        wait_mail(r, 0);
        memcpy(&pm, mail[r][0], sizeof(pm));
        if (!expect_cma) {
            st = ops->read_peer(tl, r, got, pm.addr, 64);
            if (st != VBT_ERR_UNSUPPORTED) {
                fprintf(stderr, "rank %d: CMA read of rank %d: %s, expected %s\n", proc.rank, r,
                        vbt_status_string(st), vbt_status_string(VBT_ERR_UNSUPPORTED));
                errors++;
            }
            continue;
        }
        for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
            memset(got, 0, pieces[k][1] + 1);
            st = ops->read_peer(tl, r, got, pm.addr + pieces[k][0], pieces[k][1]);
            if (st != VBT_OK || cma_check(got, r, pieces[k][0], pieces[k][1]) ||
                got[pieces[k][1]] != 0) {
                fprintf(stderr, "rank %d: CMA read of %zu bytes at %zu from rank %d: %s\n",
                        proc.rank, pieces[k][1], pieces[k][0], r, vbt_status_string(st));
                errors++;
            }
            reads++;
        }
        memset(got, 0, CMA_LEN);
        st = ops->read_peer(tl, r, got, pm.addr, pm.len);
        if (st != VBT_OK || cma_check(got, r, 0, pm.len)) {
            fprintf(stderr, "rank %d: CMA read of the whole %llu bytes of rank %d: %s\n", proc.rank,
                    (unsigned long long)pm.len, r, vbt_status_string(st));
            errors++;
        }
        reads++;
        /* A hole in the peer's address space is an error, not a crash. */
        st = ops->read_peer(tl, r, got, pm.hole, 4096);
        if (st != VBT_ERR_INVALID_PARAM) {
            fprintf(stderr, "rank %d: CMA read of an unmapped page of rank %d: %s, expected %s\n",
                    proc.rank, r, vbt_status_string(st), vbt_status_string(VBT_ERR_INVALID_PARAM));
            errors++;
        }
    }
    /* Keep the buffer until every peer has read it. */
    for (int r = 0; r < proc.size; r++) {
        char done = 1;
        if (r != proc.rank)
            send_mail(r, &done, 1);
    }
    for (int r = 0; r < proc.size; r++) {
        if (r != proc.rank)
            wait_mail(r, 1);
    }
    mail_mode = 0;
    free(buf);
    free(got);
    return reads;
}

/* A zero-byte message to everyone, then one from everyone; then compare the totals. */
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

/* ---- what the system shows ------------------------------------------------------------------- */

/* Lines of /proc/self/maps naming our memfd segments. */
static int count_segment_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        n += strstr(line, "/memfd:vbt-shm.") != NULL;
    fclose(f);
    return n;
}

/* Our doorbell sockets bound in the abstract namespace (/proc/net/unix names them
 * "@vbt-shm.<pid>.<cookie>"); -1 when /proc/net/unix cannot be read. */
static int count_bell_sockets(void)
{
    FILE *f = fopen("/proc/net/unix", "r");
    char line[512], name[64];
    int n = 0;

    if (f == NULL)
        return -1;
    snprintf(name, sizeof(name), "@vbt-shm.%d.", (int)getpid());
    while (fgets(line, sizeof(line), f) != NULL)
        n += strstr(line, name) != NULL;
    fclose(f);
    return n;
}

/* What /proc/self/fd/<fd> links to ("socket:[inode]"), or "" when fd is not open. */
static void fd_link(int fd, char *buf, size_t size)
{
    char path[64];
    ssize_t n = -1;

    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    if (fd >= 0)
        n = readlink(path, buf, size - 1);
    buf[n > 0 ? n : 0] = '\0';
}

/* Entries of /dev/shm whose name mentions vbt. */
static int count_dev_shm(void)
{
    FILE *f = popen("ls -a /dev/shm 2>/dev/null | grep -ci vbt", "r");
    int n = -1;

    if (f == NULL)
        return -1;
    if (fscanf(f, "%d", &n) != 1)
        n = -1;
    pclose(f);
    return n;
}

/* Make process_vm_readv fail with EPERM in this process, as a container's seccomp policy does. */
static int refuse_cma(void)
{
#if defined(__x86_64__)
    const unsigned arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
    const unsigned arch = AUDIT_ARCH_AARCH64;
#else
    const unsigned arch = 0;
#endif
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof(filter) / sizeof(filter[0]), filter};

    if (arch == 0)
        return -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        perror("seccomp");
        return -1;
    }
    return 0;
}

/* ---- modes ----------------------------------------------------------------------------------- */

static int mode_all(void)
{
    double t0;
    int sizes, reads;
    uint64_t wakes0, full;
    long rx = 0, tx = 0;
    int pp[2];
    long ncores = sysconf(_SC_NPROCESSORS_ONLN);

    t0 = now_s();
    spin_only = proc.size <= ncores; /* a core each: the steady state must make no syscall */
    wakes0 = shm->stats.wakes;
    sizes = pingpong();
    printf("rank %d: pingpong: %d sizes 0..%zu in %.2f s (%s, %llu doorbells rung)\n", proc.rank,
           sizes, max_send, now_s() - t0, spin_only ? "polling" : "polling, then sleeping",
           (unsigned long long)(shm->stats.wakes - wakes0));
    if (spin_only && shm->stats.wakes != wakes0) {
        fprintf(stderr, "rank %d: FAIL: sends woke a receiver that never slept\n", proc.rank);
        errors++;
    }
    spin_only = 0;
    barrier();

    t0 = now_s();
    full = flood();
    if (proc.rank % 2 == 0 && (proc.rank ^ 1) < proc.size) {
        printf("rank %d: flood: %d messages in %.2f s, the ring was full %llu times\n", proc.rank,
               FLOOD_COUNT, now_s() - t0, (unsigned long long)full);
        if (full == 0) {
            fprintf(stderr, "rank %d: FAIL: the flood never filled the ring\n", proc.rank);
            errors++;
        }
    }
    barrier();

    t0 = now_s();
    alltoall();
    printf("rank %d: alltoall: %d messages to each of %d peers in %.2f s\n", proc.rank,
           ALLTOALL_COUNT, proc.size - 1, now_s() - t0);
    barrier();

    wake("wake", -1);
    barrier();
    calloff();
    if (pipe2(pp, O_CLOEXEC) != 0)
        fail("pipe2", VBT_ERR_IO);
    wake("fdwait", pp[0]);
    barrier();
    wake_by_pipe(pp[0], pp[1]);
    barrier();
    close(pp[0]);
    close(pp[1]);
    sleepy();
    barrier();

    t0 = now_s();
    reads = cma(shm->cma_available);
    printf("rank %d: cma: %s, %d reads checked in %.2f s\n", proc.rank,
           shm->cma_available ? "available" : "NOT available (reads refused as expected)", reads,
           now_s() - t0);
    barrier();

    closing();
    for (int r = 0; r < proc.size; r++) {
        rx += rx_count[r];
        tx += tx_count[r];
    }
    printf("rank %d: shm_transport %s: sent %ld, received %ld messages, %ld errors; %llu ring "
           "full, %llu doorbells rung, %llu sleeps (%llu ended by the doorbell, %llu timeouts, "
           "%llu more called off)\n",
           proc.rank, errors ? "FAILED" : "OK", tx, rx, errors, (unsigned long long)shm->stats.full,
           (unsigned long long)shm->stats.wakes, (unsigned long long)shm->stats.sleeps,
           (unsigned long long)shm->stats.rung, (unsigned long long)shm->stats.timeouts,
           (unsigned long long)shm->stats.called_off);
    return errors != 0;
}

static int mode_nocma(void)
{
    int want = proc.rank != 0;

    if (shm->cma_available != want) {
        fprintf(stderr, "rank %d: FAIL: the CMA probe said %d, expected %d\n", proc.rank,
                shm->cma_available, want);
        errors++;
    }
    /* Rank 0 can read nobody; the others can read each other and rank 0. */
    cma(want);
    barrier();
    /* Permission withdrawn after the probe said yes (here a seccomp filter; in life a peer
     * that turned non-dumpable): the next read is refused, and READ_PEER goes, so that the
     * runtime streams from then on. */
    if (proc.rank == 1) {
        int had = (tl->caps & VBT_TL_CAP_READ_PEER) != 0;
        uint64_t word = 0;
        vbt_status_t st;

        if (refuse_cma() != 0) {
            printf("rank 1: nocma: no seccomp filter here: a read refused after the probe is not "
                   "tested\n");
        } else {
            st = ops->read_peer(tl, 0, &word, shm->tx_peer[0]->cma_addr, sizeof(word));
            printf("rank 1: nocma: READ_PEER %s; a read refused after the probe said %s, READ_PEER "
                   "%s then\n",
                   had ? "on" : "off", vbt_status_string(st),
                   (tl->caps & VBT_TL_CAP_READ_PEER) ? "still on" : "off");
            if (st != VBT_ERR_UNSUPPORTED || (tl->caps & VBT_TL_CAP_READ_PEER) ||
                had != (vbt_cfg.shm_cma != 0)) {
                fprintf(stderr, "rank 1: FAIL: nocma: a refused read must clear READ_PEER\n");
                errors++;
            }
        }
    }
    barrier();
    alltoall();
    closing();
    printf("rank %d: nocma %s: CMA %s, rings work, %ld errors\n", proc.rank,
           errors ? "FAILED" : "OK", shm->cma_available ? "available" : "refused", errors);
    return errors != 0;
}

/* Rank 1 dies once everyone mapped it. Rank 0 must notice while asleep in block(), rank 2 while
 * sending into its full ring. Neither may hang. */
static int mode_kill_after_wireup(void)
{
    double t0;
    vbt_status_t st = VBT_OK;

    printf("rank %d: %d segments mapped (memfd), %d vbt entries in /dev/shm\n", proc.rank,
           count_segment_maps(), count_dev_shm());
    barrier();
    if (proc.rank == 1) {
        usleep(300000); /* rank 0 is asleep by then, rank 2's ring to us full */
        raise(SIGKILL);
    }
    t0 = now_s();
    if (proc.rank == 0) {
        while (now_s() - t0 < 10) {
            st = block(5000);
            if (st != VBT_OK)
                break;
            ops->progress(tl);
        }
        printf("rank 0: kill-after-wireup: sleeping said %s after %.2f s\n", vbt_status_string(st),
               now_s() - t0);
        st = tl->send(tl, 1, "x", 1, NULL, 0);
        printf("rank 0: kill-after-wireup: then send said %s\n", vbt_status_string(st));
    } else if (proc.rank == 2) {
        long sent = 0;
        while (now_s() - t0 < 10) {
            st = tl->send(tl, 1, "x", 1, NULL, 0);
            if (st == VBT_OK)
                sent++;
            else if (st != VBT_ERR_NO_RESOURCE)
                break;
        }
        printf("rank 2: kill-after-wireup: send said %s after %ld messages, %.2f s\n",
               vbt_status_string(st), sent, now_s() - t0);
    }
    fflush(stdout);
    /* The launcher ends the job because rank 1 died: do not wait in the final fence. */
    shm_finalize();
    _exit(st == VBT_ERR_PEER_FAILED ? 0 : 1);
}

/* 2 ranks. Rank 1's segment claims another version: rank 0's wireup must refuse it. Rank 1 then
 * writes a cell longer than a cell into its ring to rank 0: rank 0's progress must refuse it.
 * Then rank 0 finalizes its transport: rank 1's next send must fail, saying so. */
static int mode_bad(int wireup_status)
{
    vbt_status_t st;
    int rc = 0;

    if (proc.size != 2) {
        fprintf(stderr, "bad: needs exactly 2 ranks\n");
        return 1;
    }
    if (proc.rank == 0) {
        double t0 = now_s();
        int n = 0;
        printf("rank 0: bad: wireup said %s, rank 1 %s\n",
               vbt_status_string((vbt_status_t)wireup_status),
               ops->reaches(tl, 1) ? "reachable" : "not reachable");
        rc |= wireup_status != VBT_ERR_INVALID_PARAM || ops->reaches(tl, 1);
        barrier(); /* rank 1 wrote the corrupt cell */
        while (n == 0 && now_s() - t0 < 30)
            n = ops->progress(tl);
        printf("rank 0: bad: progress said %s\n",
               n < 0 ? vbt_status_string((vbt_status_t)n) : "ok");
        rc |= n != VBT_ERR_PEER_FAILED;
        n = ops->progress(tl);
        rc |= n != 0; /* that ring is no longer read */
        shm_finalize();
        barrier();
        barrier();
        return rc;
    }
    if (wireup_status != VBT_OK || !ops->reaches(tl, 0)) {
        fprintf(stderr, "rank 1: bad: wireup said %s\n", vbt_status_string(wireup_status));
        return 1;
    }
    {
        vbt_shm_producer_t *tx = &shm->tx_peer[0]->tx;
        vbt_shm_cell_t *cell = vbt_shm_ring_reserve(tx);
        cell->len = VBT_SHM_CELL_DATA + 1;
        vbt_shm_ring_commit(tx, cell);
    }
    barrier();
    barrier(); /* rank 0 finalized its transport */
    st = tl->send(tl, 0, "x", 1, NULL, 0);
    printf("rank 1: bad: send to a finalized rank said %s\n", vbt_status_string(st));
    rc |= st != VBT_ERR_PEER_FAILED;
    barrier();
    return rc;
}

/* 2 ranks whose doorbells cannot reach each other: rank 1 in a network namespace of its own
 * when it may create one (abstract socket names are per namespace: both directions fail), else
 * rank 0 is given a wrong name for rank 1's doorbell. Messages must still arrive, the sleeper
 * waking by its 500 ms limit instead, and the sender must go on after warning once (the script
 * counts the warnings). */
static int mode_nobell(int in_netns)
{
    vbt_shm_stats_t s0;
    double worst = 0;
    char flag = (char)in_netns, c = 'n';

    if (proc.size != 2) {
        fprintf(stderr, "nobell: needs exactly 2 ranks\n");
        return 1;
    }
    mail_begin();
    if (proc.rank == 1) {
        send_mail(0, &flag, 1);
    } else {
        wait_mail(1, 0);
        flag = (char)mail[1][0][0];
        mail_n[1] = 0;
        if (!flag) {
            vbt_shm_peer_t *p = shm->tx_peer[1];
            vbt_shm_bell_addr(p->pid, p->cookie ^ 1, &p->bell);
        }
    }
    barrier();
    s0 = shm->stats;
    for (int it = 0; it < NOBELL_ITERS; it++) {
        if (proc.rank == 0) {
            wait_mail(1, 0);
            mail_n[1] = 0;
            usleep(20000); /* rank 1 is asleep by now */
            send_mail(1, &c, 1);
        } else {
            double t0;
            send_mail(0, &c, 1);
            t0 = now_s();
            while (mail_n[0] == 0) {
                int n = ops->progress(tl);
                vbt_status_t st;
                if (n < 0)
                    fail("progress", n);
                if (n > 0)
                    break;
                st = block(2000);
                if (st != VBT_OK)
                    fail("block", st);
                if (now_s() - t0 > WAIT_SECONDS)
                    fail("nobell: the message never arrived", VBT_ERR_TIMED_OUT);
            }
            mail_n[0] = 0;
            if (now_s() - t0 > worst)
                worst = now_s() - t0;
        }
    }
    mail_mode = 0;
    if (proc.rank == 0) {
        uint64_t refused = shm->stats.bell_errors - s0.bell_errors;
        uint64_t rung = shm->stats.wakes - s0.wakes;
        printf("rank 0: nobell: %s; %d posts to a sleeping rank 1: %llu doorbells refused, %llu "
               "rung\n",
               flag ? "rank 1 in its own network namespace" : "a wrong doorbell name for rank 1",
               NOBELL_ITERS, (unsigned long long)refused, (unsigned long long)rung);
        if (refused == 0 || rung != 0) {
            fprintf(stderr, "rank 0: FAIL: nobell: the doorbell of rank 1 should have failed\n");
            errors++;
        }
    } else {
        uint64_t timeouts = shm->stats.timeouts - s0.timeouts;
        uint64_t rung = shm->stats.rung - s0.rung;
        printf("rank 1: nobell: %d messages arrived while asleep, after %.0f ms at most; %llu "
               "sleeps timed out, %llu ended by the doorbell\n",
               NOBELL_ITERS, worst * 1e3, (unsigned long long)timeouts, (unsigned long long)rung);
        /* 1.5 s: the sleep is bounded by 500 ms whatever block() was asked for. */
        if (timeouts == 0 || rung != 0 || worst > 1.5) {
            fprintf(stderr, "rank 1: FAIL: nobell: expected to wake by the sleep limit only\n");
            errors++;
        }
    }
    barrier();
    printf("rank %d: nobell %s\n", proc.rank, errors ? "FAILED" : "OK");
    return errors != 0;
}

/* What every mode that wired up can check about the doorbell: bound and pollable while shm is
 * up; alone on the node, no doorbell and sleep_begin lets the caller sleep. */
static void check_doorbell(void)
{
    int go = -1, nsock = count_bell_sockets();
    vbt_status_t st;

    if (proc.local_size > 1 ? ops->max_sleep_ms(tl) <= 0 || ops->max_sleep_ms(tl) > 1000
                            : ops->max_sleep_ms(tl) != -1) {
        fprintf(stderr, "rank %d: max_sleep_ms is %d with %d local ranks\n", proc.rank,
                ops->max_sleep_ms(tl), proc.local_size);
        errors++;
    }
    if ((tl->caps & VBT_TL_CAP_STREAM) == 0 || tl->max_send != VBT_SHM_CELL_DATA ||
        tl->rndv_threshold != vbt_cfg.shm_rndv_threshold || tl->spin_polls != 0 || tl->ops != ops ||
        tl->send != ops->send) {
        fprintf(stderr,
                "rank %d: the interface: caps 0x%x, max_send %zu, rndv_threshold %zu, "
                "spin_polls %d\n",
                proc.rank, tl->caps, tl->max_send, tl->rndv_threshold, tl->spin_polls);
        errors++;
    }
    if (((tl->caps & VBT_TL_CAP_READ_PEER) != 0) != (shm->cma_available && vbt_cfg.shm_cma)) {
        fprintf(stderr, "rank %d: READ_PEER is %s with the CMA probe %s and VBT_SHM_CMA=%d\n",
                proc.rank, (tl->caps & VBT_TL_CAP_READ_PEER) ? "on" : "off",
                shm->cma_available ? "ok" : "refused", vbt_cfg.shm_cma);
        errors++;
    }
    if (proc.local_size > 1) {
        if (ops->wait_fd(tl) < 0 || (nsock >= 0 && nsock != 1)) {
            fprintf(stderr, "rank %d: doorbell fd %d, %d sockets bound\n", proc.rank,
                    ops->wait_fd(tl), nsock);
            errors++;
        }
        return;
    }
    st = ops->sleep_begin(tl, &go);
    if (ops->wait_fd(tl) != -1 || nsock > 0 || st != VBT_OK || go != 1 ||
        ops->sleep_end(tl, 0, 1) != VBT_OK) {
        fprintf(stderr,
                "rank %d: alone on the node: doorbell fd %d, %d sockets, sleep_begin said %s, "
                "sleep %d\n",
                proc.rank, ops->wait_fd(tl), nsock, vbt_status_string(st), go);
        errors++;
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    const char *ns = getenv("PMIX_NAMESPACE");
    char bell_was[64], bell_now[64];
    vbt_status_t st;
    int rc = 0, in_netns = 0, bell_fd;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (vbt_config_load() != VBT_OK)
        return 1;
    st = vbt_pmix_init(&proc);
    if (st != VBT_OK)
        fail("vbt_pmix_init", st);
    vbt_log_set_identity("shm_transport", proc.rank);
    printf("rank %d: ns=%s\n", proc.rank, ns != NULL ? ns : "");

    if (strcmp(mode, "nocma") == 0 && proc.rank == 0 && refuse_cma() != 0) {
        printf("SKIP: cannot install a seccomp filter here\n");
        vbt_pmix_abort(77, "skip");
    }

    /* The launcher ends the job when rank 1 dies: SIGTERM at once, SIGKILL 2 s later. The
     * survivors need a moment to report what they saw. */
    if (strncmp(mode, "kill-", 5) == 0 && proc.rank != 1)
        signal(SIGTERM, SIG_IGN);
    /* Its own network namespace (needs CAP_SYS_ADMIN): the main thread only, where the doorbell
     * is made; the PMIx thread and its connection stay where they are. */
    if (strcmp(mode, "nobell") == 0 && proc.rank == 1) {
        in_netns = unshare(CLONE_NEWNET) == 0;
        if (!in_netns)
            printf("rank 1: nobell: no network namespace of our own (unshare: %s): a wrong "
                   "doorbell name stands in for it\n",
                   strerror(errno));
    }
    shm_init();
    if (strcmp(mode, "kill-before-wireup") == 0 && proc.rank == 1)
        raise(SIGKILL);
    if (strcmp(mode, "bad") == 0 && proc.rank == 1)
        shm->hdr->version = 99; /* published, and nobody maps it before the fence */
    st = vbt_modex_fence();
    if (st != VBT_OK)
        fail("vbt_modex_fence", st);
    if (strcmp(mode, "kill-after-fence") == 0) {
        if (proc.rank == 1)
            raise(SIGKILL);
        usleep(300000);
        st = ops->wireup(tl);
        printf("rank %d: kill-after-fence: wireup said %s\n", proc.rank, vbt_status_string(st));
        fflush(stdout);
        shm_finalize();
        _exit(st == VBT_ERR_PEER_FAILED ? 0 : 1);
    }
    st = ops->wireup(tl);
    if (strcmp(mode, "bad") == 0) {
        rc = mode_bad(st);
        shm_finalize();
        if (vbt_pmix_finalize(0) != VBT_OK)
            rc = 1;
        printf("rank %d: bad %s\n", proc.rank, rc ? "FAILED" : "OK");
        return rc;
    }
    if (st != VBT_OK)
        fail("wireup", st);

    max_send = tl->max_send;
    rx_count = calloc((size_t)proc.size, sizeof(*rx_count));
    tx_count = calloc((size_t)proc.size, sizeof(*tx_count));
    exp_count = calloc((size_t)proc.size, sizeof(*exp_count));
    rx_bytes = calloc((size_t)proc.size, sizeof(*rx_bytes));
    tx_bytes = calloc((size_t)proc.size, sizeof(*tx_bytes));
    exp_bytes = calloc((size_t)proc.size, sizeof(*exp_bytes));
    rx_last_len = calloc((size_t)proc.size, sizeof(*rx_last_len));
    mail = calloc((size_t)proc.size, sizeof(*mail));
    mail_n = calloc((size_t)proc.size, sizeof(*mail_n));
    txbuf = malloc(max_send + 1);
    if (!rx_count || !tx_count || !exp_count || !rx_bytes || !tx_bytes || !exp_bytes ||
        !rx_last_len || !mail || !mail_n || !txbuf)
        fail("out of memory", VBT_ERR_NO_MEMORY);

    for (int r = 0; r < proc.size; r++) {
        if (ops->reaches(tl, r) != (r != proc.rank && proc.local_size > 1)) {
            fprintf(stderr, "rank %d: reaches(%d) is %d\n", proc.rank, r, ops->reaches(tl, r));
            errors++;
        }
    }
    if (proc.rank == 0)
        printf("shm_transport: %d ranks, %d on this node, max_send %zu, %u cells per ring, CMA "
               "%s\n",
               proc.size, proc.local_size, max_send, VBT_SHM_RING_DEPTH,
               shm->cma_available ? "available" : "not available");
    if (proc.local_size > 1 && count_segment_maps() != proc.local_size) {
        fprintf(stderr, "rank %d: %d segment mappings, expected %d\n", proc.rank,
                count_segment_maps(), proc.local_size);
        errors++;
    }

    check_doorbell();

    if (strcmp(mode, "init") == 0) {
        printf("rank %d: init %s: %d local ranks\n", proc.rank, errors ? "FAILED" : "OK",
               proc.local_size);
        rc = errors != 0;
    } else if (strcmp(mode, "all") == 0) {
        if (proc.local_size != proc.size) {
            printf("SKIP: all ranks must share this node\n");
            rc = 77;
        } else {
            rc = mode_all();
        }
    } else if (strcmp(mode, "nocma") == 0) {
        rc = mode_nocma();
    } else if (strcmp(mode, "kill-after-wireup") == 0) {
        rc = mode_kill_after_wireup();
    } else if (strcmp(mode, "nobell") == 0) {
        rc = mode_nobell(in_netns);
    } else {
        fprintf(stderr, "shm_transport: unknown mode '%s'\n", mode);
        rc = 1;
    }

    bell_fd = tl != NULL ? ops->wait_fd(tl) : -1;
    fd_link(bell_fd, bell_was, sizeof(bell_was));
    shm_finalize();
    if (strcmp(mode, "all") == 0 && rc == 0) {
        /* Finalize closed the doorbell: its name is gone with it, nothing to clean up. */
        int nsock = count_bell_sockets();
        fd_link(bell_fd, bell_now, sizeof(bell_now));
        if (bell_fd < 0 || bell_was[0] == '\0' || strcmp(bell_was, bell_now) == 0 || nsock > 0) {
            fprintf(stderr,
                    "rank %d: FAIL: after finalize: doorbell fd %d was %s, is %s; %d sockets "
                    "bound\n",
                    proc.rank, bell_fd, bell_was, bell_now, nsock);
            rc = 1;
        } else {
            printf("rank %d: doorbell: bound while up, %s after finalize\n", proc.rank,
                   nsock == 0 ? "gone from /proc/net/unix" : "closed");
        }
    }
    st = vbt_pmix_finalize(0);
    if (st != VBT_OK && rc == 0)
        rc = 1;
    return rc;
}
