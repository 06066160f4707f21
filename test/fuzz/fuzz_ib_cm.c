/* libFuzzer target: the connection manager's REQ/REP (vbt_ib_cm_msg_check). Input: the bytes
 * after the GRH room of a UD receive. An accepted message must have every field in range. */
#include "vbt_ib_wire.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Both addressing modes: the first byte's low bit picks ours. */
    const vbt_ib_cm_limits_t lim = {
        .world_size = 8, .rank = 1, .eager_limit = 8192, .use_grh = size > 0 && (data[0] & 1)};
    uint8_t *buf;
    vbt_ib_cm_msg_t m;

    if (size > 0) {
        data++;
        size--;
    }
    buf = malloc(size);
    if (buf == NULL)
        return 0;
    if (size > 0)
        memcpy(buf, data, size);
    if (vbt_ib_cm_msg_check(buf, size, &lim, &m) == NULL) {
        if (size != sizeof(m) || m.version != VBT_IB_CM_VERSION ||
            (m.type != VBT_IB_CM_REQ && m.type != VBT_IB_CM_REP) || m.src >= lim.world_size ||
            m.src == lim.rank || m.eager_limit != lim.eager_limit ||
            m.use_grh != (lim.use_grh != 0) || m.active_mtu < IBV_MTU_256 ||
            m.active_mtu > IBV_MTU_4096 || m.qpn == 0 || m.qpn > 0xffffff || m.psn > 0xffffff ||
            m.rd_atomic == 0 || (!m.use_grh && (m.lid == 0 || m.lid > 0xbfff)))
            abort();
    }
    free(buf);
    return 0;
}
