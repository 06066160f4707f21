/* The shared-memory ring (transport-shm/vbt_shm_ring.*): empty and full, every cell size, wrap
 * of the cell index and of the 64-bit counters, the consumer's checks against a corrupt
 * producer, the producer's request for room, and two-thread producer/consumer stresses with
 * every byte checked (one of them for lost room notifications). And the doorbell
 * (transport-shm/vbt_shm_bell.*): its socket's name and flags, one datagram per sleep however
 * often it is rung, a receiver that is gone, a full queue, and a producer/consumer stress where
 * the consumer sleeps in poll() on it (for lost wake-ups). */
#include <check.h>
#include "vbt_check.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vbt_shm_bell.h"
#include "vbt_shm_ring.inl"

#define DEPTH 8

typedef struct {
    vbt_shm_ring_ctrl_t *ctrl;
    vbt_shm_cell_t *cells;
    vbt_shm_producer_t p;
    vbt_shm_consumer_t c;
} ring_t;

static void ring_setup(ring_t *r, uint32_t depth, uint64_t start)
{
    r->ctrl = aligned_alloc(VBT_SHM_CACHE_LINE, sizeof(*r->ctrl));
    /* aligned_alloc wants a size that is a multiple of the alignment (C11 7.22.3.1; ASan
     * enforces it): round the cells' bytes up to a page. */
    r->cells = aligned_alloc(4096, (vbt_shm_ring_cells_bytes(depth) + 4095) & ~(size_t)4095);
    ck_assert_ptr_nonnull(r->ctrl);
    ck_assert_ptr_nonnull(r->cells);
    /* A fresh segment is zero; other starts get their sequence words from the format. */
    memset(r->cells, start == 0 ? 0 : 0xa5, vbt_shm_ring_cells_bytes(depth));
    vbt_shm_ring_format(r->ctrl, r->cells, depth, start);
    vbt_shm_producer_attach(&r->p, r->ctrl, r->cells, depth);
    vbt_shm_consumer_attach(&r->c, r->ctrl, r->cells, depth);
}

static void ring_teardown(ring_t *r)
{
    free(r->ctrl);
    free(r->cells);
}

static inline uint8_t pattern(uint64_t n, size_t i)
{
    return (uint8_t)(n * 7 + i * 13 + (i >> 8) * 3 + 1);
}

/* Message n: its length, and how much of it goes as the "header" argument. */
static size_t msg_len(uint64_t n)
{
    return n % 5 == 0 ? (size_t)(n * 7919) % (VBT_SHM_CELL_DATA + 1) : (size_t)(n * 31) % 200;
}

static vbt_status_t push_msg(vbt_shm_producer_t *p, uint64_t n, uint8_t *buf)
{
    size_t len = msg_len(n), hdr_len = len < 40 ? len : (size_t)(n % 41);

    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(n, i);
    return vbt_shm_ring_push(p, buf, hdr_len, buf + hdr_len, len - hdr_len);
}

/* Pop one message and check it is message n, byte for byte. 0 when the ring is empty. */
static int pop_check(vbt_shm_consumer_t *c, uint64_t n, long *errors)
{
    const vbt_shm_cell_t *cell = vbt_shm_ring_peek(c);
    int64_t len;

    if (cell == NULL)
        return 0;
    len = vbt_shm_ring_check(cell);
    if (len != (int64_t)msg_len(n)) {
        (*errors)++;
    } else {
        for (int64_t i = 0; i < len; i++) {
            if (cell->data[i] != pattern(n, (size_t)i)) {
                (*errors)++;
                break;
            }
        }
    }
    vbt_shm_ring_release(c);
    return 1;
}

START_TEST(test_layout)
{
    /* seq, len and the first 56 bytes of data share a line; cells are whole lines. */
    ck_assert_uint_eq(offsetof(vbt_shm_cell_t, data), 8);
    ck_assert_uint_eq(sizeof(vbt_shm_cell_t), VBT_SHM_CELL_DATA + VBT_SHM_CACHE_LINE);
    ck_assert_uint_eq(_Alignof(vbt_shm_cell_t), VBT_SHM_CACHE_LINE);
    ck_assert_uint_eq(offsetof(vbt_shm_ring_ctrl_t, waiting) - offsetof(vbt_shm_ring_ctrl_t, head),
                      VBT_SHM_CACHE_LINE);
    ck_assert_uint_eq(vbt_shm_ring_cells_bytes(32), 32 * sizeof(vbt_shm_cell_t));
}
END_TEST

START_TEST(test_empty_full)
{
    ring_t r;
    uint8_t buf[VBT_SHM_CELL_DATA];
    long errors = 0;

    ring_setup(&r, DEPTH, 0);
    ck_assert_ptr_null(vbt_shm_ring_peek(&r.c));
    for (uint64_t n = 0; n < DEPTH; n++)
        ck_assert_int_eq(push_msg(&r.p, n, buf), VBT_OK);
    /* Full: refused, and nothing was written over the oldest cell. */
    ck_assert_int_eq(push_msg(&r.p, DEPTH, buf), VBT_ERR_NO_RESOURCE);
    ck_assert_ptr_null(vbt_shm_ring_reserve(&r.p));
    ck_assert_uint_eq(vbt_shm_ring_pending(&r.c), DEPTH);
    ck_assert_int_eq(pop_check(&r.c, 0, &errors), 1);
    /* One slot free again. */
    ck_assert_int_eq(push_msg(&r.p, DEPTH, buf), VBT_OK);
    ck_assert_int_eq(push_msg(&r.p, DEPTH + 1, buf), VBT_ERR_NO_RESOURCE);
    for (uint64_t n = 1; n <= DEPTH; n++)
        ck_assert_int_eq(pop_check(&r.c, n, &errors), 1);
    ck_assert_int_eq(pop_check(&r.c, DEPTH + 1, &errors), 0);
    ck_assert_ptr_null(vbt_shm_ring_peek(&r.c));
    ck_assert_uint_eq(vbt_shm_ring_pending(&r.c), 0);
    ck_assert_int_eq(errors, 0);
    ring_teardown(&r);
}
END_TEST

START_TEST(test_every_size)
{
    ring_t r;
    static uint8_t hdr[VBT_SHM_CELL_DATA + 1], payload[VBT_SHM_CELL_DATA + 1];

    ring_setup(&r, DEPTH, 0);
    for (size_t i = 0; i <= VBT_SHM_CELL_DATA; i++) {
        hdr[i] = (uint8_t)(i * 3 + 1);
        payload[i] = (uint8_t)(i * 5 + 2);
    }
    for (size_t len = 0; len <= VBT_SHM_CELL_DATA; len++) {
        size_t h = len % 65 < len ? len % 65 : len;
        const vbt_shm_cell_t *cell;

        ck_assert_int_eq(vbt_shm_ring_push(&r.p, hdr, h, payload, len - h), VBT_OK);
        cell = vbt_shm_ring_peek(&r.c);
        ck_assert_ptr_nonnull(cell);
        ck_assert_int_eq(vbt_shm_ring_check(cell), (int64_t)len);
        ck_assert(memcmp(cell->data, hdr, h) == 0);
        ck_assert(memcmp(cell->data + h, payload, len - h) == 0);
        vbt_shm_ring_release(&r.c);
    }
    /* One byte too many, either way it is split: refused, nothing written. */
    ck_assert_int_eq(vbt_shm_ring_push(&r.p, hdr, 0, payload, VBT_SHM_CELL_DATA + 1),
                     VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_shm_ring_push(&r.p, hdr, VBT_SHM_CELL_DATA + 1, payload, 0),
                     VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_shm_ring_push(&r.p, hdr, 64, payload, VBT_SHM_CELL_DATA - 63),
                     VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_shm_ring_push(&r.p, hdr, 1, payload, SIZE_MAX), VBT_ERR_INVALID_PARAM);
    ck_assert_ptr_null(vbt_shm_ring_peek(&r.c));
    ring_teardown(&r);
}
END_TEST

/* Messages in bursts of 1..DEPTH, drained in other bursts: the cell index wraps many times. */
static void wrap_from(uint64_t start)
{
    ring_t r;
    uint8_t buf[VBT_SHM_CELL_DATA];
    uint64_t sent = 0, got = 0;
    long errors = 0;

    ring_setup(&r, DEPTH, start);
    for (int round = 0; round < 200; round++) {
        int burst = 1 + round % DEPTH, drain = 1 + (round * 5) % DEPTH;
        for (int k = 0; k < burst; k++) {
            vbt_status_t st = push_msg(&r.p, sent, buf);
            if (st == VBT_ERR_NO_RESOURCE) {
                ck_assert_uint_eq(sent - got, DEPTH);
                break;
            }
            ck_assert_int_eq(st, VBT_OK);
            sent++;
        }
        for (int k = 0; k < drain && pop_check(&r.c, got, &errors); k++)
            got++;
        ck_assert_uint_eq(vbt_shm_ring_pending(&r.c), sent - got);
        ck_assert_uint_eq(r.p.tail - r.ctrl->head, sent - got);
    }
    while (pop_check(&r.c, got, &errors))
        got++;
    ck_assert_uint_eq(got, sent);
    ck_assert_uint_gt(sent, 20 * DEPTH);
    ck_assert_int_eq(errors, 0);
    ring_teardown(&r);
}

START_TEST(test_wraparound)
{
    wrap_from(0);
}
END_TEST

/* The counters are modular: starting just below 2^32 (the cell's seq field) and 2^64. */
START_TEST(test_counter_wrap)
{
    wrap_from(UINT32_MAX - 37);
    wrap_from(UINT64_MAX - 37);
}
END_TEST

/* A corrupt producer: a length past the cell is refused instead of read out of bounds; a
 * cell whose sequence word is not exactly the next position's (garbage, or the previous lap's
 * message) is not a message. */
START_TEST(test_corrupt)
{
    ring_t r;
    uint8_t buf[16] = {0};
    const vbt_shm_cell_t *cell;

    ring_setup(&r, DEPTH, 0);
    ck_assert_int_eq(vbt_shm_ring_push(&r.p, buf, 0, buf, 16), VBT_OK);
    cell = vbt_shm_ring_peek(&r.c);
    ck_assert_ptr_eq(cell, &r.cells[0]);
    ck_assert_int_eq(vbt_shm_ring_check(cell), 16);
    r.cells[0].len = VBT_SHM_CELL_DATA + 1;
    ck_assert_int_eq(vbt_shm_ring_check(cell), -1);
    r.cells[0].len = UINT32_MAX;
    ck_assert_int_eq(vbt_shm_ring_check(cell), -1);
    r.cells[0].len = VBT_SHM_CELL_DATA;
    ck_assert_int_eq(vbt_shm_ring_check(cell), VBT_SHM_CELL_DATA);

    atomic_store(&r.cells[0].seq, 2); /* garbage */
    ck_assert_ptr_null(vbt_shm_ring_peek(&r.c));
    atomic_store(&r.cells[0].seq, 1);
    ck_assert_ptr_nonnull(vbt_shm_ring_peek(&r.c));
    vbt_shm_ring_release(&r.c);
    /* Position DEPTH uses cell 0 again, which still holds position 0's message (seq 1). */
    for (uint64_t n = 1; n < DEPTH; n++) {
        ck_assert_int_eq(vbt_shm_ring_push(&r.p, buf, 0, buf, 1), VBT_OK);
        ck_assert_ptr_nonnull(vbt_shm_ring_peek(&r.c));
        vbt_shm_ring_release(&r.c);
    }
    ck_assert_uint_eq(r.c.head, DEPTH);
    ck_assert_ptr_null(vbt_shm_ring_peek(&r.c));
    ck_assert_uint_eq(vbt_shm_ring_pending(&r.c), 0);
    ring_teardown(&r);
}
END_TEST

/* A producer that finds the ring full asks to be told about room; the consumer that frees a
 * cell takes the request (once); a producer that finds room itself withdraws it. */
START_TEST(test_space_request)
{
    ring_t r;
    uint8_t buf[VBT_SHM_CELL_DATA];
    long errors = 0;

    ring_setup(&r, DEPTH, 0);
    for (uint64_t n = 0; n < DEPTH; n++)
        ck_assert_int_eq(push_msg(&r.p, n, buf), VBT_OK);
    ck_assert_int_eq(vbt_shm_ring_take_waiter(&r.c), 0);
    ck_assert_int_eq(vbt_shm_ring_want_space(&r.p), 0);
    ck_assert_uint_eq(r.ctrl->waiting, 1);
    ck_assert_int_eq(vbt_shm_ring_want_space(&r.p), 0); /* asking twice is one request */
    ck_assert_int_eq(pop_check(&r.c, 0, &errors), 1);
    atomic_thread_fence(memory_order_seq_cst);
    ck_assert_int_eq(vbt_shm_ring_take_waiter(&r.c), 1);
    ck_assert_int_eq(vbt_shm_ring_take_waiter(&r.c), 0);
    ck_assert_int_eq(vbt_shm_ring_has_space(&r.p), 1);
    ck_assert_int_eq(push_msg(&r.p, DEPTH, buf), VBT_OK);

    /* Full again; the consumer frees a cell before the producer asks: the producer's second
     * look finds it, and it withdraws the request nobody has to answer. */
    ck_assert_ptr_null(vbt_shm_ring_reserve(&r.p));
    ck_assert_int_eq(pop_check(&r.c, 1, &errors), 1);
    ck_assert_int_eq(vbt_shm_ring_want_space(&r.p), 1);
    vbt_shm_ring_withdraw(&r.p);
    ck_assert_int_eq(vbt_shm_ring_take_waiter(&r.c), 0);
    ck_assert_int_eq(errors, 0);
    ring_teardown(&r);
}
END_TEST

/* ---- two threads ----------------------------------------------------------------------------- */

#define STRESS_COUNT 200000

typedef struct {
    ring_t *r;
    uint64_t count;
    long errors;
    uint64_t full;
} stress_arg_t;

static void *producer_main(void *arg)
{
    stress_arg_t *a = arg;
    static uint8_t buf[VBT_SHM_CELL_DATA];

    for (uint64_t n = 0; n < a->count;) {
        vbt_status_t st;
        /* Alternate: flat out (the ring stays full, the producer waits for cells), then slowly
         * (the ring stays empty and the consumer reads each cell right after its commit, where
         * a cell published before it is written would show). */
        if ((n >> 11) & 1) {
            for (int k = 0; k < 200; k++)
                vbt_cpu_relax();
        }
        st = push_msg(&a->r->p, n, buf);
        if (st == VBT_OK) {
            n++;
        } else {
            if (st != VBT_ERR_NO_RESOURCE)
                a->errors++;
            a->full++;
            if ((a->full & 63) == 0)
                sched_yield(); /* two cores, shared with others: let the consumer run */
        }
    }
    return NULL;
}

static void *consumer_main(void *arg)
{
    stress_arg_t *a = arg;
    uint64_t empty = 0;

    for (uint64_t n = 0; n < a->count;) {
        if (pop_check(&a->r->c, n, &a->errors))
            n++;
        else if ((++empty & 63) == 0)
            sched_yield();
    }
    return NULL;
}

/* The room protocol between threads: a producer that asked for room waits for a bell the
 * consumer rings when it takes the request (the transport's doorbell, minus the socket).
 * A request lost between the producer's last look and the consumer's release would leave the
 * producer waiting for ever: it gives up after 2 s and counts a lost wake-up. */
typedef struct {
    ring_t *r;
    uint64_t count;
    _Atomic uint64_t bell;
    long lost;
    uint64_t waits;
    long errors;
} room_arg_t;

static void *room_producer(void *arg)
{
    room_arg_t *a = arg;
    static uint8_t buf[VBT_SHM_CELL_DATA];

    for (uint64_t n = 0; n < a->count;) {
        uint64_t bell = atomic_load_explicit(&a->bell, memory_order_acquire);
        vbt_status_t st = push_msg(&a->r->p, n, buf);
        struct timespec t0, t;

        if (st == VBT_OK) {
            n++;
            continue;
        }
        if (vbt_shm_ring_want_space(&a->r->p))
            continue;
        a->waits++;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (atomic_load_explicit(&a->bell, memory_order_acquire) == bell) {
            sched_yield(); /* two cores shared with other work: let the consumer run */
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec > 2) {
                a->lost++;
                break;
            }
        }
    }
    return NULL;
}

static void *room_consumer(void *arg)
{
    room_arg_t *a = arg;
    unsigned empty = 0;

    for (uint64_t n = 0; n < a->count;) {
        int got = 0;
        /* Drain in bursts of 1..7: the ring goes full and empty often. */
        for (uint64_t k = 0; k < 1 + n % 7 && pop_check(&a->r->c, n, &a->errors); k++, n++)
            got++;
        if (got > 0) {
            atomic_thread_fence(memory_order_seq_cst);
            if (vbt_shm_ring_take_waiter(&a->r->c))
                atomic_fetch_add_explicit(&a->bell, 1, memory_order_release);
        } else if ((++empty & 15) == 0) {
            sched_yield();
        }
    }
    return NULL;
}

START_TEST(test_room_threads)
{
    ring_t r;
    room_arg_t a = {.count = 200000};
    pthread_t pt, ct;

    ring_setup(&r, DEPTH, 0);
    a.r = &r;
    atomic_init(&a.bell, 0);
    ck_assert_int_eq(pthread_create(&ct, NULL, room_consumer, &a), 0);
    ck_assert_int_eq(pthread_create(&pt, NULL, room_producer, &a), 0);
    pthread_join(pt, NULL);
    pthread_join(ct, NULL);
    ck_assert_int_eq(a.errors, 0);
    ck_assert_int_eq(a.lost, 0);
    ck_assert_uint_gt(a.waits, 0);
    ring_teardown(&r);
}
END_TEST

START_TEST(test_two_threads)
{
    ring_t r;
    stress_arg_t pa = {.count = STRESS_COUNT}, ca = {.count = STRESS_COUNT};
    pthread_t pt, ct;

    ring_setup(&r, 32, UINT64_MAX - 1000); /* the counters wrap during the run too */
    pa.r = ca.r = &r;
    ck_assert_int_eq(pthread_create(&ct, NULL, consumer_main, &ca), 0);
    ck_assert_int_eq(pthread_create(&pt, NULL, producer_main, &pa), 0);
    pthread_join(pt, NULL);
    pthread_join(ct, NULL);
    ck_assert_int_eq(pa.errors, 0);
    ck_assert_int_eq(ca.errors, 0);
    ck_assert_ptr_null(vbt_shm_ring_peek(&r.c));
    ck_assert_uint_eq(r.p.tail, UINT64_MAX - 1000 + STRESS_COUNT);
    ck_assert_uint_eq(r.ctrl->head, UINT64_MAX - 1000 + STRESS_COUNT);
    ring_teardown(&r);
}
END_TEST

/* ---- the doorbell ---------------------------------------------------------------------------- */

/* Cookies of this test's doorbells (the names also carry our pid, so runs in parallel differ). */
#define COOKIE_A 0x5eed00000000000aull
#define COOKIE_B 0x5eed00000000000bull
#define COOKIE_C 0x5eed00000000000cull

static int readable(int fd, int timeout_ms)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int rc = poll(&pfd, 1, timeout_ms);

    ck_assert_int_ge(rc, 0);
    return rc > 0 && (pfd.revents & POLLIN);
}

/* The name both sides derive, the socket's flags, one owner per name, nothing left once
 * closed. */
START_TEST(test_bell_socket)
{
    pid_t pid = getpid();
    vbt_shm_bell_addr_t a, a2;
    struct sockaddr_un got;
    socklen_t got_len = sizeof(got);
    char want[64];
    int fa, fb;

    vbt_shm_bell_addr(pid, COOKIE_A, &a);
    vbt_shm_bell_addr(pid, COOKIE_A, &a2);
    snprintf(want, sizeof(want), "vbt-shm.%d.%016llx", (int)pid, (unsigned long long)COOKIE_A);
    ck_assert_int_eq(a.sa.sun_family, AF_UNIX);
    ck_assert_int_eq(a.sa.sun_path[0], '\0'); /* abstract: no file */
    ck_assert_uint_eq(a.len, offsetof(struct sockaddr_un, sun_path) + 1 + strlen(want));
    ck_assert(memcmp(a.sa.sun_path + 1, want, strlen(want)) == 0);
    ck_assert_uint_eq(a2.len, a.len);
    ck_assert(memcmp(&a2.sa, &a.sa, a.len) == 0);

    fa = vbt_shm_bell_open(pid, COOKIE_A);
    ck_assert_int_ge(fa, 0);
    ck_assert(fcntl(fa, F_GETFD) & FD_CLOEXEC);
    ck_assert(fcntl(fa, F_GETFL) & O_NONBLOCK);
    ck_assert_int_eq(getsockname(fa, (struct sockaddr *)&got, &got_len), 0);
    ck_assert_uint_eq(got_len, a.len);
    ck_assert(memcmp(&got, &a.sa, a.len) == 0);
    ck_assert_int_eq(vbt_shm_bell_open(pid, COOKIE_A), -EADDRINUSE);
    ck_assert_int_eq(readable(fa, 0), 0);
    ck_assert_int_eq(vbt_shm_bell_drain(fa), 0);
    close(fa);
    /* The kernel dropped the name with the socket: there is nothing to clean up. */
    fb = vbt_shm_bell_open(pid, COOKIE_A);
    ck_assert_int_ge(fb, 0);
    close(fb);
}
END_TEST

/* The two halves on one state word: a sender rings only a sleeper, once per sleep; the
 * receiver learns whether somebody took its flag; other state bits are left alone. */
START_TEST(test_bell_ring)
{
    pid_t pid = getpid();
    _Atomic uint32_t state = 0;
    vbt_shm_bell_addr_t a, c;
    int fa = vbt_shm_bell_open(pid, COOKIE_A), fb = vbt_shm_bell_open(pid, COOKIE_B);

    ck_assert_int_ge(fa, 0);
    ck_assert_int_ge(fb, 0);
    vbt_shm_bell_addr(pid, COOKIE_A, &a);
    vbt_shm_bell_addr(pid, COOKIE_C, &c);

    /* Awake: nothing is sent. */
    ck_assert_int_eq(vbt_shm_bell_ring(&state, fb, &a), 0);
    ck_assert_int_eq(readable(fa, 0), 0);

    /* Asleep: the first ring takes the flag and sends one datagram; the next ones pay nothing. */
    ck_assert_int_eq(vbt_shm_bell_announce(&state, 0), 0);
    ck_assert_uint_eq(state, VBT_SHM_SLEEPING);
    ck_assert_int_eq(vbt_shm_bell_ring(&state, fb, &a), 1);
    ck_assert_uint_eq(state, 0);
    ck_assert_int_eq(vbt_shm_bell_ring(&state, fb, &a), 0);
    ck_assert_int_eq(vbt_shm_bell_ring(&state, fb, &a), 0);
    ck_assert_int_eq(readable(fa, 2000), 1);
    ck_assert_int_eq(vbt_shm_bell_retract(&state), 1); /* somebody took it */
    ck_assert_int_eq(vbt_shm_bell_drain(fa), 1);
    ck_assert_int_eq(vbt_shm_bell_drain(fa), 0);
    ck_assert_int_eq(readable(fa, 0), 0);

    /* A sleep nobody rang. */
    ck_assert_int_eq(vbt_shm_bell_announce(&state, 0), 0);
    ck_assert_int_eq(vbt_shm_bell_retract(&state), 0);
    ck_assert_uint_eq(state, 0);

    /* The other bits of the word (CLOSED) survive both halves. */
    atomic_store(&state, 0x2u);
    ck_assert_int_eq(vbt_shm_bell_announce(&state, 0), 0);
    ck_assert_uint_eq(state, 0x2u | VBT_SHM_SLEEPING);
    ck_assert_int_eq(vbt_shm_bell_ring(&state, fb, &a), 1);
    ck_assert_uint_eq(state, 0x2u);
    ck_assert_int_eq(readable(fa, 2000), 1);
    ck_assert_int_eq(vbt_shm_bell_drain(fa), 1);

    /* Nobody has that name (a peer gone, or in another network namespace): an error for the
     * caller to log, nothing worse; the flag is taken all the same. */
    ck_assert_int_eq(vbt_shm_bell_announce(&state, 0), 0);
    ck_assert_int_eq(vbt_shm_bell_ring(&state, fb, &c), -ECONNREFUSED);
    ck_assert_uint_eq(state, 0x2u);
    close(fa);
    close(fb);
}
END_TEST

/* A receiver that never drains: once its queue is full, a ring still counts as rung (its
 * socket is readable anyway) and never blocks; one drain empties it. */
START_TEST(test_bell_full_queue)
{
    pid_t pid = getpid();
    _Atomic uint32_t state = 0;
    vbt_shm_bell_addr_t a;
    int fa = vbt_shm_bell_open(pid, COOKIE_A), fb = vbt_shm_bell_open(pid, COOKIE_B);
    int n;

    ck_assert_int_ge(fa, 0);
    ck_assert_int_ge(fb, 0);
    vbt_shm_bell_addr(pid, COOKIE_A, &a);
    for (int k = 0; k < 3000; k++) {
        ck_assert_int_eq(vbt_shm_bell_announce(&state, 0), 0);
        ck_assert_int_eq(vbt_shm_bell_ring(&state, fb, &a), 1);
    }
    ck_assert_int_eq(readable(fa, 0), 1);
    n = vbt_shm_bell_drain(fa);
    ck_assert_int_ge(n, 1);
    ck_assert_int_lt(n, 3000); /* the queue is bounded: the rest were refused, not queued */
    ck_assert_int_eq(readable(fa, 0), 0);
    close(fa);
    close(fb);
}
END_TEST

/* The transport's sleep protocol between two threads: the producer pushes, fences and rings the
 * consumer's doorbell if it announced a sleep; the consumer announces, looks at the ring once
 * more, and sleeps in poll() on its doorbell (2 s) only when the ring is empty, then retracts
 * and drains (with the transport's drain of a late datagram before the next sleep). A lost
 * wake-up is a poll() that times out while a message waits. */
#define BELL_COUNT 20000

typedef struct {
    ring_t *r;
    int asym; /* the producer takes no fence; the consumer announces with membarrier */
    _Atomic uint32_t state;
    int rx_fd, tx_fd;
    vbt_shm_bell_addr_t rx_addr;
    long errors, lost, rings, bell_errors;
    uint64_t sleeps, called_off, rung;
} bell_arg_t;

static void *bell_producer(void *arg)
{
    bell_arg_t *a = arg;
    static uint8_t buf[VBT_SHM_CELL_DATA];

    for (uint64_t n = 0; n < BELL_COUNT;) {
        vbt_status_t st = push_msg(&a->r->p, n, buf);
        int rc;

        if (st == VBT_ERR_NO_RESOURCE) {
            sched_yield();
            continue;
        }
        if (st != VBT_OK)
            a->errors++;
        n++;
        if (a->asym)
            atomic_signal_fence(memory_order_seq_cst);
        else
            atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load_explicit(&a->state, memory_order_relaxed) & VBT_SHM_SLEEPING) {
            rc = vbt_shm_bell_ring(&a->state, a->tx_fd, &a->rx_addr);
            if (rc > 0)
                a->rings++;
            else if (rc < 0)
                a->bell_errors++;
        }
        /* Bursts, then single messages with pauses: the consumer falls asleep often, and
         * the producer catches it at every stage of falling asleep. */
        if (((n >> 8) & 1) && n % 4 == 0) {
            usleep(20);
        } else if ((n >> 8) & 1) {
            for (int k = 0; k < (int)(n % 7) * 100; k++)
                vbt_cpu_relax();
        }
    }
    return NULL;
}

static void *bell_consumer(void *arg)
{
    bell_arg_t *a = arg;
    int owed = 0;

    for (uint64_t n = 0; n < BELL_COUNT;) {
        struct pollfd pfd = {.fd = a->rx_fd, .events = POLLIN};
        int rc, taken, got;

        if (pop_check(&a->r->c, n, &a->errors)) {
            n++;
            continue;
        }
        if (owed) {
            owed = 0;
            vbt_shm_bell_drain(a->rx_fd);
        }
        if (vbt_shm_bell_announce(&a->state, a->asym) != 0)
            a->errors++;
        if (vbt_shm_ring_peek(&a->r->c) != NULL) {
            owed = vbt_shm_bell_retract(&a->state);
            a->called_off++;
            continue;
        }
        a->sleeps++;
        rc = poll(&pfd, 1, 2000);
        taken = vbt_shm_bell_retract(&a->state);
        got = vbt_shm_bell_drain(a->rx_fd);
        if (taken && got == 0)
            owed = 1;
        if (rc == 0 && vbt_shm_ring_peek(&a->r->c) != NULL)
            a->lost++;
        else if (rc > 0 && got > 0)
            a->rung++;
    }
    return NULL;
}

/* _i: 0, both fence (the protocol where membarrier is missing or VBT_SHM_MEMBARRIER=0); 1, the
 * asymmetric form the transport uses where the kernel offers it. */
START_TEST(test_bell_threads)
{
    ring_t r;
    bell_arg_t a = {.errors = 0};
    pthread_t pt, ct;

    if (_i == 1) {
        int rc = vbt_shm_bell_asym_register();
        if (rc != 0) {
            /* The transport then fences every send: case 0 is what it runs. */
            fprintf(stderr, "test_bell_threads: membarrier refused (%s): asymmetric case not run\n",
                    strerror(-rc));
            return;
        }
        a.asym = 1;
    }
    ring_setup(&r, DEPTH, 0);
    a.r = &r;
    atomic_init(&a.state, 0);
    a.rx_fd = vbt_shm_bell_open(getpid(), COOKIE_A);
    a.tx_fd = vbt_shm_bell_open(getpid(), COOKIE_B);
    ck_assert_int_ge(a.rx_fd, 0);
    ck_assert_int_ge(a.tx_fd, 0);
    vbt_shm_bell_addr(getpid(), COOKIE_A, &a.rx_addr);
    ck_assert_int_eq(pthread_create(&ct, NULL, bell_consumer, &a), 0);
    ck_assert_int_eq(pthread_create(&pt, NULL, bell_producer, &a), 0);
    pthread_join(pt, NULL);
    pthread_join(ct, NULL);
    ck_assert_int_eq(a.errors, 0);
    ck_assert_int_eq(a.bell_errors, 0);
    ck_assert_int_eq(a.lost, 0);
    /* It did sleep, and was woken through the doorbell (not only by finding messages). */
    ck_assert_uint_gt(a.sleeps, 0);
    ck_assert_uint_gt(a.rung, 0);
    ck_assert_int_gt(a.rings, 0);
    close(a.rx_fd);
    close(a.tx_fd);
    ring_teardown(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shm_ring");
    TCase *logic = tcase_create("logic");
    TCase *threads = tcase_create("threads");
    TCase *bell = tcase_create("doorbell");

    tcase_add_test(logic, test_layout);
    tcase_add_test(logic, test_empty_full);
    tcase_add_test(logic, test_every_size);
    tcase_add_test(logic, test_wraparound);
    tcase_add_test(logic, test_counter_wrap);
    tcase_add_test(logic, test_corrupt);
    tcase_add_test(logic, test_space_request);
    tcase_add_test(threads, test_two_threads);
    tcase_add_test(threads, test_room_threads);
    tcase_set_timeout(threads, 120);
    tcase_add_test(bell, test_bell_socket);
    tcase_add_test(bell, test_bell_ring);
    tcase_add_test(bell, test_bell_full_queue);
    tcase_add_loop_test(bell, test_bell_threads, 0, 2);
    tcase_set_timeout(bell, 120);
    suite_add_tcase(s, logic);
    suite_add_tcase(s, threads);
    suite_add_tcase(s, bell);
    return vbt_check_run(s);
}
