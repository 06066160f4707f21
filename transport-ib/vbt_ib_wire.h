/* Decoding what a peer wrote into our receive buffers or published: the transport header of
 * every RC SEND (vbt_ib_hdr_t) and the credits it returns, the connection manager's REQ/REP
 * (vbt_ib_cm_msg_t), and the address blob (vbt_ib_addr_t) a REQ or REP must agree with. Pure
 * functions of the bytes and of the few facts of ours they are checked against, so the data
 * path and the fuzz targets (test/fuzz/) run the same checks. Each check returns NULL for a
 * message that fits, else the field that does not, as words for the one error message its
 * caller prints. What needs the transport's state (the QP the message came on is the one
 * connected to that rank, the rank's connection state) is checked by the callers. */
#ifndef VBT_IB_WIRE_H
#define VBT_IB_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vbt_ib_int.h"

/* What a message on an RC QP is checked against. */
typedef struct {
    uint32_t world_size;
    uint32_t credits_max; /* a sender never has more than one window unreturned */
} vbt_ib_hdr_limits_t;

/* The transport header at the start of the len bytes of an RC receive. Fast path: on a
 * well-formed DATA message, a load and four compares. */
static inline const char *vbt_ib_hdr_check(const void *buf, size_t len,
                                           const vbt_ib_hdr_limits_t *lim, vbt_ib_hdr_t *hdr_p)
{
    vbt_ib_hdr_t h;

    if (unlikely(len < sizeof(h)))
        return "length (shorter than the header)";
    memcpy(&h, buf, sizeof(h));
    if (unlikely(h.version != VBT_IB_WIRE_VERSION))
        return "version";
    if (unlikely(h.src >= lim->world_size))
        return "src (no such rank)";
    if (unlikely(h.credits > lim->credits_max))
        return "credits (more than one window)";
    /* A DATA message may be empty (vbt_ib_send takes 0 bytes; the runtime's decoder refuses
     * what it cannot use); CREDIT and FIN carry nothing. */
    if (unlikely(h.type != VBT_IB_MSG_DATA)) {
        if (h.type != VBT_IB_MSG_CREDIT && h.type != VBT_IB_MSG_FIN)
            return "type";
        if (len != sizeof(h))
            return "length (a control message with data)";
    }
    *hdr_p = h;
    return NULL;
}

/* Credits one message returned (hdr.credits, at most a window: vbt_ib_hdr_check) added to
 * those we may still send to its sender: the new count. A peer may return only the buffers of
 * messages we sent it, so an honest one never takes the count above the window it was granted
 * (credits_max): *over is set (never cleared) when it does. Branch-free, so the poll loop
 * applies a batch's credits and tests *over once for the batch. */
static inline int vbt_ib_credits_apply(int credits, uint16_t returned, int credits_max, int *over)
{
    int n = credits + (int)returned;

    *over |= n > credits_max;
    return n;
}

/* What a REQ or REP is checked against: ours. */
typedef struct {
    uint32_t world_size;
    uint32_t rank;
    uint32_t eager_limit; /* our max_send: both sides must size receive buffers alike */
    int use_grh;          /* we address by GID (RoCE, VBT_IB_GID_INDEX), not LID */
} vbt_ib_cm_limits_t;

/* A connection manager message: len bytes after the GRH room of a UD receive. Every field the
 * peer chose is checked; the GID is any 16 bytes (ibv_create_ah checks it). */
static inline const char *vbt_ib_cm_msg_check(const void *buf, size_t len,
                                              const vbt_ib_cm_limits_t *lim, vbt_ib_cm_msg_t *msg_p)
{
    vbt_ib_cm_msg_t m;

    if (len != sizeof(m))
        return "length";
    memcpy(&m, buf, sizeof(m));
    if (m.version != VBT_IB_CM_VERSION)
        return "version";
    if (m.type != VBT_IB_CM_REQ && m.type != VBT_IB_CM_REP)
        return "type";
    if (m.src >= lim->world_size || m.src == lim->rank)
        return "src (no such peer rank)";
    if (m.eager_limit != lim->eager_limit)
        return "eager_limit (a different VBT_EAGER_LIMIT)";
    if (m.use_grh != (lim->use_grh != 0))
        return "use_grh (different addressing: GID or LID)";
    if (m.active_mtu < IBV_MTU_256 || m.active_mtu > IBV_MTU_4096)
        return "active_mtu";
    if ((m.qpn & 0xff000000u) != 0 || m.qpn == 0)
        return "qpn (not a 24-bit QP number)";
    if ((m.psn & 0xff000000u) != 0)
        return "psn (not 24 bits)";
    if (m.rd_atomic == 0)
        return "rd_atomic (no READ or atomic in flight)";
    /* Without a GRH the LID is the address: a unicast LID (1 to 0xbfff; 0 is reserved, above
     * is multicast and the permissive LID). */
    if (!m.use_grh && (m.lid == 0 || m.lid > 0xbfff))
        return "lid (not a unicast LID)";
    *msg_p = m;
    return NULL;
}

/* A peer's address blob, len bytes as its peer_addr upcall returned them (what the peer chose
 * to publish: checked like a message). Whether it fits our own settings (eager limit, link
 * layer, GID kind) is vbt_ib_addr_check's, which logs it. */
static inline const char *vbt_ib_addr_decode(const void *buf, size_t len, vbt_ib_addr_t *a_p)
{
    vbt_ib_addr_t a;

    if (len != sizeof(a))
        return "length";
    memcpy(&a, buf, sizeof(a));
    if (a.version != VBT_IB_ADDR_VERSION)
        return "version";
    if (a.use_grh > 1)
        return "use_grh (not 0 or 1)";
    if (a.active_mtu < IBV_MTU_256 || a.active_mtu > IBV_MTU_4096)
        return "active_mtu";
    if ((a.ud_qpn & 0xff000000u) != 0 || a.ud_qpn == 0)
        return "ud_qpn (not a 24-bit QP number)";
    if (!a.use_grh && (a.lid == 0 || a.lid > 0xbfff))
        return "lid (not a unicast LID)";
    *a_p = a;
    return NULL;
}

/* A REQ or REP (that passed vbt_ib_cm_msg_check) against the address its sender m->src
 * published (a, decoded), and against what the network says of where it came from: src_qpn,
 * the UD QP it came from (the NIC's word, not the sender's), and, when have_slid (it came
 * without a GRH: addressed by LID), slid, its source LID. Anyone on the fabric can send our UD
 * QP a message naming any rank; one that does not come from that rank's published QP and
 * port is refused, so a connection is made only with the process that rank published. */
static inline const char *vbt_ib_cm_addr_check(const vbt_ib_cm_msg_t *m, uint32_t src_qpn,
                                               int have_slid, uint16_t slid, const vbt_ib_addr_t *a)
{
    if (src_qpn != a->ud_qpn)
        return "UD QP (it came from another one than the rank published)";
    if (m->use_grh != a->use_grh)
        return "use_grh (not the addressing the rank published)";
    if (m->lid != a->lid)
        return "lid (not the LID the rank published)";
    if (have_slid && slid != a->lid)
        return "source LID (it came from another port than the rank published)";
    if (memcmp(m->gid, a->gid, sizeof(m->gid)) != 0)
        return "gid (not the GID the rank published)";
    if (m->active_mtu != a->active_mtu)
        return "active_mtu (not the MTU the rank published)";
    return NULL;
}

#endif
