/* vbt_shm_ring_pretouch: at wireup it maps and accesses every page of each cell, a store to an
 * outbound ring's cells and a load of an inbound one's. Either must leave the ring as it was,
 * whatever it holds: messages in flight arrive intact and in order, free cells stay free, and
 * the ring goes on working across laps. A ring in private memory stands for the segment
 * (MADV_POPULATE_WRITE works on it too; where the kernel refuses it, the accesses alone run). */
#include <check.h>
#include "vbt_check.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vbt_shm_int.h"
#include "vbt_shm_ring.inl"

#define DEPTH 8

static uint8_t pattern(uint64_t n, size_t i)
{
    return (uint8_t)(n * 5 + i * 11 + 3);
}

/* 0 to a whole cell's worth: messages that reach the cells' later pages, which the stores touch. */
static size_t msg_len(uint64_t n)
{
    return (size_t)(n * 2897) % (VBT_SHM_CELL_DATA + 1);
}

static void push(vbt_shm_producer_t *p, uint64_t n)
{
    static uint8_t buf[VBT_SHM_CELL_DATA];
    size_t len = msg_len(n);

    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(n, i);
    ck_assert_int_eq(vbt_shm_ring_push(p, buf, len < 8 ? len : 8, buf + (len < 8 ? len : 8),
                                       len - (len < 8 ? len : 8)),
                     VBT_OK);
}

static void pop(vbt_shm_consumer_t *c, uint64_t n)
{
    const vbt_shm_cell_t *cell = vbt_shm_ring_peek(c);
    int64_t len;

    ck_assert_ptr_nonnull(cell);
    len = vbt_shm_ring_check(cell);
    ck_assert_int_eq(len, (int64_t)msg_len(n));
    for (int64_t i = 0; i < len; i++)
        if (cell->data[i] != pattern(n, (size_t)i))
            ck_abort_msg("message %llu, byte %lld: %u, not %u", (unsigned long long)n, (long long)i,
                         cell->data[i], pattern(n, (size_t)i));
    vbt_shm_ring_release(c);
}

/* Start the ring at start, leave `inflight` messages in it (after a partial lap), pretouch it
 * both ways, then check every sequence word is unchanged and the ring still carries 3 laps. */
static void pretouch_keeps(uint64_t start, int inflight)
{
    size_t bytes = (vbt_shm_ring_cells_bytes(DEPTH) + 4095) & ~(size_t)4095;
    vbt_shm_ring_ctrl_t *ctrl = aligned_alloc(VBT_SHM_CACHE_LINE, sizeof(*ctrl));
    vbt_shm_cell_t *cells = aligned_alloc(4096, bytes);
    uint32_t seq[DEPTH];
    vbt_shm_producer_t p;
    vbt_shm_consumer_t c;
    uint64_t sent = 0, got = 0;

    ck_assert_ptr_nonnull(ctrl);
    ck_assert_ptr_nonnull(cells);
    memset(cells, start == 0 ? 0 : 0xa5, bytes);
    vbt_shm_ring_format(ctrl, cells, DEPTH, start);
    vbt_shm_producer_attach(&p, ctrl, cells, DEPTH);
    vbt_shm_consumer_attach(&c, ctrl, cells, DEPTH);
    for (int k = 0; k < 5; k++, got++) /* part of a lap, so that cells hold old messages too */
        push(&p, sent++), pop(&c, got);
    for (int k = 0; k < inflight; k++)
        push(&p, sent++);
    for (int k = 0; k < DEPTH; k++)
        seq[k] = atomic_load(&cells[k].seq);
    (void)vbt_shm_ring_pretouch(cells, DEPTH, 1);
    (void)vbt_shm_ring_pretouch(cells, DEPTH, 0);
    for (int k = 0; k < DEPTH; k++)
        ck_assert_uint_eq(atomic_load(&cells[k].seq), seq[k]);
    while (got < sent)
        pop(&c, got++);
    ck_assert_ptr_null(vbt_shm_ring_peek(&c));
    for (int k = 0; k < 3 * DEPTH; k++, got++)
        push(&p, sent++), pop(&c, got);
    free(ctrl);
    free(cells);
}

START_TEST(test_pretouch_keeps_ring)
{
    static const uint64_t starts[] = {0, UINT32_MAX - 3, UINT64_MAX - 2};

    for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++)
        for (int inflight = 0; inflight <= DEPTH; inflight++)
            pretouch_keeps(starts[s], inflight);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shm_pretouch");
    TCase *t = tcase_create("pretouch");

    tcase_add_test(t, test_pretouch_keeps_ring);
    suite_add_tcase(s, t);
    return vbt_check_run(s);
}
