/* A lock-free single-producer single-consumer ring of fixed-size cells in shared memory: pure
 * logic on memory the caller provides, so the unit tests run it between two threads.
 *
 * Positions count messages (64 bits: they never wrap in practice, and the arithmetic is modular
 * anyway); the message at position k lives in cell k & (depth - 1). Each cell starts with a
 * sequence word: the producer fills the cell, then stores seq = (uint32_t)(k + 1) with release;
 * the consumer at position k loads seq with acquire, and the cell is its message when it reads
 * k + 1 (a cell still holding the message of the previous lap reads k + 1 - depth). So the
 * consumer polls the cell itself, and a message of up to 56 bytes (header line included) costs
 * one cache-line transfer: no separate tail counter to fetch first.
 *
 * The consumer hands cells back through head (the next position it will read), on a cache line
 * of its own, stored with release after it finished reading; the producer loads it with acquire
 * before reusing a cell, and only when its cached copy says the ring is full.
 *
 * Room wanted: a producer that finds the ring full and means to sleep sets waiting, then (after
 * a seq_cst fence) looks at head once more; a consumer, after its releases, a seq_cst fence,
 * takes waiting (exchange to 0) and, if it was set, wakes the producer. Dekker: either the
 * consumer sees waiting, or the producer's second look sees the room. The fence costs the
 * consumer once per poll that delivered something, not per message; the shm transport replaces
 * it with a compiler barrier where the producer announces its sleeps with membarrier, which
 * then fences for the consumer (vbt_shm_bell.h).
 *
 * The control lines (vbt_shm_ring_ctrl_t) and the cells are separate, so that a receiver's
 * segment can pack the control lines of all its inbound rings together. */
#ifndef VBT_SHM_RING_H
#define VBT_SHM_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "vbt_status.h"

#define VBT_SHM_CACHE_LINE 64
/* Payload bytes of a cell: the largest hdr_len + len of one send. The default eager limit of
 * the verbs transport, so the runtime can use one fragment size for both. */
#define VBT_SHM_CELL_DATA 8192
/* Cells per ring (a power of two): 32 x 8 KiB keeps 256 KiB in flight per pair, which covers a
 * memcpy-bound pipeline while a ring stays in the L2 cache. Address space per node is
 * local_size^2 x 258 KiB, but only the cells a pair actually uses are ever backed by pages. */
#define VBT_SHM_RING_DEPTH 32

/* A cell: the sequence word and the length, then the data, on the same first cache line. */
typedef struct {
    alignas(VBT_SHM_CACHE_LINE) _Atomic uint32_t seq; /* (uint32_t)(position + 1) once full */
    uint32_t len;                                     /* bytes of data, <= VBT_SHM_CELL_DATA */
    uint8_t data[VBT_SHM_CELL_DATA];
} vbt_shm_cell_t;

/* The shared control lines of one ring. */
typedef struct {
    alignas(VBT_SHM_CACHE_LINE) _Atomic uint64_t head;    /* next position the consumer reads */
    alignas(VBT_SHM_CACHE_LINE) _Atomic uint32_t waiting; /* set by a producer that found the
                                                             ring full; the consumer that frees
                                                             a cell clears it and wakes it */
} vbt_shm_ring_ctrl_t;

/* The producer's private view. */
typedef struct {
    vbt_shm_ring_ctrl_t *ctrl;
    vbt_shm_cell_t *cells;
    uint64_t mask;       /* depth - 1 */
    uint64_t tail;       /* next position to write */
    uint64_t head_cache; /* the consumer's head when we last looked */
} vbt_shm_producer_t;

/* The consumer's private view. */
typedef struct {
    vbt_shm_ring_ctrl_t *ctrl;
    vbt_shm_cell_t *cells;
    uint64_t mask;
    uint64_t head; /* next position to read (ctrl->head mirrors it) */
} vbt_shm_consumer_t;

/* Bytes of depth cells (depth a power of two). */
size_t vbt_shm_ring_cells_bytes(uint32_t depth);

/* Make an empty ring whose first position is start, before either side attaches. With start 0
 * the cells must be zero (a fresh segment: they are not touched, so their pages stay
 * unallocated until used); any other start (the tests: near 2^32 and 2^64) writes each cell's
 * sequence word. */
void vbt_shm_ring_format(vbt_shm_ring_ctrl_t *ctrl, vbt_shm_cell_t *cells, uint32_t depth,
                         uint64_t start);

/* Attach a private view to an empty, formatted ring: each side starts at head. */
void vbt_shm_producer_attach(vbt_shm_producer_t *p, vbt_shm_ring_ctrl_t *ctrl,
                             vbt_shm_cell_t *cells, uint32_t depth);
void vbt_shm_consumer_attach(vbt_shm_consumer_t *c, vbt_shm_ring_ctrl_t *ctrl,
                             vbt_shm_cell_t *cells, uint32_t depth);

/* The inline operations (reserve/commit/push, peek/check/release, want_space/take_waiter) are
 * in vbt_shm_ring.inl. */

#endif
