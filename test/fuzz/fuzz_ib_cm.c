/* libFuzzer target: the connection manager's REQ/REP (vbt_ib_cm_msg_check), the address blob
 * a rank publishes (vbt_ib_addr_decode) and the check of one against the other
 * (vbt_ib_cm_addr_check). Input: a first byte of flags (bit 0: our addressing mode, GID or
 * LID; bit 1: the layout below), then
 *   bit 1 clear: the bytes after the GRH room of a UD receive (the message alone);
 *   bit 1 set:   a message of exactly its size, the UD QP it came from (4 bytes), its source
 *                LID (2 bytes) and whether that is known (1 byte), then the blob its claimed
 *                sender published (the rest).
 * An accepted message must have every field in range, an accepted blob too, and a message is
 * accepted against a blob exactly when it came from the blob's UD QP (and port) and agrees
 * with it. */
#include "vbt_ib_wire.h"

#include <stdlib.h>

static void check_addr(const uint8_t *data, size_t size, const vbt_ib_cm_msg_t *m, int m_ok)
{
    uint32_t src_qpn;
    uint16_t slid;
    int have_slid;
    uint8_t *blob;
    vbt_ib_addr_t a;
    const char *why;

    if (size < 7)
        return;
    memcpy(&src_qpn, data, 4);
    memcpy(&slid, data + 4, 2);
    have_slid = data[6] & 1;
    data += 7;
    size -= 7;
    blob = malloc(size > 0 ? size : 1); /* exactly size bytes: ASan sees any read past them */
    if (blob == NULL)
        return;
    if (size > 0)
        memcpy(blob, data, size);
    if (vbt_ib_addr_decode(blob, size, &a) == NULL) {
        if (size != sizeof(a) || a.version != VBT_IB_ADDR_VERSION || a.use_grh > 1 ||
            a.active_mtu < IBV_MTU_256 || a.active_mtu > IBV_MTU_4096 || a.ud_qpn == 0 ||
            a.ud_qpn > 0xffffff || (!a.use_grh && (a.lid == 0 || a.lid > 0xbfff)))
            abort();
        if (m_ok) {
            int agrees = src_qpn == a.ud_qpn && m->use_grh == a.use_grh && m->lid == a.lid &&
                         (!have_slid || slid == a.lid) &&
                         memcmp(m->gid, a.gid, sizeof(a.gid)) == 0 && m->active_mtu == a.active_mtu;
            why = vbt_ib_cm_addr_check(m, src_qpn, have_slid, slid, &a);
            if ((why == NULL) != agrees)
                abort();
        }
    }
    free(blob);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const vbt_ib_cm_limits_t lim = {
        .world_size = 8, .rank = 1, .eager_limit = 8192, .use_grh = size > 0 && (data[0] & 1)};
    int with_addr = size > 0 && (data[0] & 2);
    size_t len;
    uint8_t *buf;
    vbt_ib_cm_msg_t m;
    int ok;

    if (size > 0) {
        data++;
        size--;
    }
    len = with_addr ? (size < sizeof(m) ? size : sizeof(m)) : size;
    buf = malloc(len > 0 ? len : 1);
    if (buf == NULL)
        return 0;
    if (len > 0)
        memcpy(buf, data, len);
    ok = vbt_ib_cm_msg_check(buf, len, &lim, &m) == NULL;
    if (ok) {
        if (len != sizeof(m) || m.version != VBT_IB_CM_VERSION ||
            (m.type != VBT_IB_CM_REQ && m.type != VBT_IB_CM_REP) || m.src >= lim.world_size ||
            m.src == lim.rank || m.eager_limit != lim.eager_limit ||
            m.use_grh != (lim.use_grh != 0) || m.active_mtu < IBV_MTU_256 ||
            m.active_mtu > IBV_MTU_4096 || m.qpn == 0 || m.qpn > 0xffffff || m.psn > 0xffffff ||
            m.rd_atomic == 0 || (!m.use_grh && (m.lid == 0 || m.lid > 0xbfff)))
            abort();
    }
    free(buf);
    if (with_addr && size >= sizeof(m))
        check_addr(data + sizeof(m), size - sizeof(m), &m, ok);
    return 0;
}
