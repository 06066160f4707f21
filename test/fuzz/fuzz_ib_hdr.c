/* libFuzzer target: the verbs transport header of every RC receive (vbt_ib_hdr_check), and the
 * credits the headers return (vbt_ib_credits_apply). Input: the bytes a peer's SEND put in a
 * receive buffer. A message the check accepts must satisfy everything rx_one relies on;
 * anything else must be refused without reading past len. The same bytes are then a sequence
 * of events between us and one peer: the accounting must flag a peer exactly when, in total, it
 * returned more credits than we had sent it messages, whatever each message carried. */
#include "vbt_ib_wire.h"

#include <stdlib.h>

#define WINDOW 16

static void credits(const uint8_t *data, size_t size)
{
    int credits = WINDOW, over = 0;
    long sent = 0, returned = 0;

    for (size_t i = 0; i < size; i++) {
        if (data[i] & 1) { /* we send, when we have credit */
            if (credits > 0) {
                credits--;
                sent++;
            }
            continue;
        }
        /* a message from the peer, returning at most a window (vbt_ib_hdr_check's limit) */
        uint16_t r = (uint16_t)((data[i] >> 1) % (WINDOW + 1));
        returned += r;
        credits = vbt_ib_credits_apply(credits, r, WINDOW, &over);
        if ((over != 0) != (returned > sent) || credits != WINDOW - sent + returned)
            abort();
        if (over)
            return; /* the connection is closed */
    }
    if (over || credits < 0 || credits > WINDOW)
        abort();
}

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
    credits(buf, size);
    free(buf);
    return 0;
}
