/* libFuzzer target: the verbs transport header of every RC receive (vbt_ib_hdr_check). Input:
 * the bytes a peer's SEND put in a receive buffer. A message the check accepts must satisfy
 * everything rx_one relies on; anything else must be refused without reading past len. */
#include "vbt_ib_wire.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const vbt_ib_hdr_limits_t lim = {.world_size = 16, .credits_max = 64};
    uint8_t *buf = malloc(size); /* exactly size bytes: ASan sees any read past them */
    vbt_ib_hdr_t th;

    if (buf == NULL)
        return 0;
    if (size > 0)
        memcpy(buf, data, size);
    if (vbt_ib_hdr_check(buf, size, &lim, &th) == NULL) {
        if (th.version != VBT_IB_WIRE_VERSION || th.src >= lim.world_size ||
            th.credits > lim.credits_max || size < sizeof(th) ||
            (th.type != VBT_IB_MSG_DATA && th.type != VBT_IB_MSG_CREDIT &&
             th.type != VBT_IB_MSG_FIN) ||
            (th.type != VBT_IB_MSG_DATA && size != sizeof(th)))
            abort();
    }
    free(buf);
    return 0;
}
