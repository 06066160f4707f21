/* libFuzzer target: the cells of a shared-memory ring as a hostile producer could leave them
 * (any sequence word, any length, any data), read the way vbt_shm_progress reads them: peek,
 * vbt_shm_ring_check, then the runtime's decoder on the cell's data. Input: per cell, a
 * 4-byte sequence word, a 4-byte length and up to 48 bytes of data. ASan sees any read outside
 * the cells; an accepted length must fit the cell. */
#include "vbt_p2p_wire.h"
#include "vbt_shm_ring.inl"

#include <stdlib.h>

#define DEPTH 4
#define REC   56

volatile uint8_t sink; /* keeps the reads of the payload */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t bytes = vbt_shm_ring_cells_bytes(DEPTH);
    vbt_shm_ring_ctrl_t *ctrl = aligned_alloc(VBT_SHM_CACHE_LINE, sizeof(*ctrl));
    vbt_shm_cell_t *cells = aligned_alloc(VBT_SHM_CACHE_LINE, bytes);
    vbt_shm_consumer_t c;
    uint64_t start = size > 0 ? data[0] : 0; /* positions near 0 and wrapping 2^32 alike */

    if (ctrl == NULL || cells == NULL)
        abort();
    memset(cells, 0, bytes);
    if (size > 0) {
        if (data[0] & 0x80)
            start = 0xfffffffcull + (data[0] & 7);
        data++;
        size--;
    }
    vbt_shm_ring_format(ctrl, cells, DEPTH, start);
    vbt_shm_consumer_attach(&c, ctrl, cells, DEPTH);
    for (int i = 0; i < DEPTH && size >= 8; i++) {
        size_t n = size - 8 < REC - 8 ? size - 8 : REC - 8;
        uint32_t seq, len;
        memcpy(&seq, data, 4);
        memcpy(&len, data + 4, 4);
        atomic_store_explicit(&cells[i].seq, seq, memory_order_relaxed);
        cells[i].len = len;
        memcpy(cells[i].data, data + 8, n);
        data += 8 + n;
        size -= 8 + n;
    }
    /* At most one lap, as vbt_shm_progress delivers at most a batch per poll. */
    for (int k = 0; k < 2 * DEPTH; k++) {
        const vbt_shm_cell_t *cell = vbt_shm_ring_peek(&c);
        vbt_p2p_msg_t m;
        int64_t len;
        if (cell == NULL)
            break;
        len = vbt_shm_ring_check(cell);
        if (len < 0)
            break; /* the ring is corrupt: the transport stops reading it */
        if (len > VBT_SHM_CELL_DATA)
            abort();
        if (vbt_p2p_decode(cell->data, (size_t)len, &m) == NULL && m.len > 0) {
            uint8_t sum = 0;
            for (size_t i = 0; i < m.len; i++)
                sum += ((const uint8_t *)m.payload)[i];
            sink = sum;
        }
        vbt_shm_ring_release(&c);
    }
    free(cells);
    free(ctrl);
    return 0;
}
