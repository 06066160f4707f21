/* Decoding the runtime's wire messages (vbt_p2p.h) that a peer wrote: pure functions of the
 * bytes, so the data path and the fuzz target (test/fuzz/fuzz_p2p.c) run the same checks.
 *
 * A message is never trusted: vbt_p2p_decode checks everything that can be checked without
 * the receiver's state (version, type, and that the lengths agree with the type: an EAGER's
 * payload is its whole message, a FRAG_FIRST's is no more than it and no more than
 * VBT_P2P_FRAG_MAX (the receiver buffers it whole when no receive is posted), an RTS and a CTS
 * carry their whole extension, control messages carry nothing, the length of a message fits a
 * size_t) and names the first field that does not fit. What needs state is checked where the
 * state is (vbt_p2p.c): the context id names a communicator, the request ids a live request of
 * the right kind and peer (vbt_request_from_id: an id is a slot and a generation, never an
 * address), a fragment or RDATA piece lands inside the message at the offset where the last
 * one ended, and a CTS grants no more than was asked. The cost on the data path is a few
 * compares of one switch, all marked unlikely. */
#ifndef VBT_P2P_WIRE_H
#define VBT_P2P_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vbt_compiler.h"
#include "vbt_p2p.h"

/* A message decoded: the header, the extension of an RTS (addr) or a CTS (recv_id, addr,
 * rkey), and the payload that follows them. */
typedef struct {
    vbt_p2p_hdr_t hdr;
    uint64_t recv_id; /* CTS */
    uint64_t addr;    /* RTS: the sender's data; CTS: the receiver's buffer */
    uint64_t rkey;    /* CTS */
    const void *payload;
    size_t len; /* bytes of payload */
} vbt_p2p_msg_t;

/* Take an RTS's or a CTS's extension (ext bytes) off the front of the payload. */
static inline const char *vbt_p2p_take_ext(vbt_p2p_msg_t *m, size_t ext)
{
    if (unlikely(m->len < ext))
        return "length (too short for its type)";
    m->len -= ext;
    m->payload = (const char *)m->payload + ext;
    return NULL;
}

/* Decode the len bytes at buf (a whole message as the transport delivered it, the header
 * unaligned). NULL when it is well formed, *msg_p filled in; else the field that is not, as
 * words for an error message ("type", "length ..."). *msg_p is undefined then. */
static inline const char *vbt_p2p_decode(const void *buf, size_t len, vbt_p2p_msg_t *msg_p)
{
    vbt_p2p_msg_t *m = msg_p;
    const char *bad = NULL;

    if (unlikely(len < sizeof(m->hdr)))
        return "length (shorter than the header)";
    memcpy(&m->hdr, buf, sizeof(m->hdr)); /* the payload is not aligned for the header's fields */
    m->payload = (const char *)buf + sizeof(m->hdr);
    m->len = len - sizeof(m->hdr);
    if (unlikely(m->hdr.version != VBT_P2P_WIRE_VERSION))
        return "version";
    if (likely(m->hdr.type == VBT_P2P_EAGER)) /* most messages: before the switch's jump table */
        return likely(m->hdr.len == m->len) ? NULL : "len (not the payload's length)";
    switch (m->hdr.type) {
    case VBT_P2P_FRAG_FIRST:
        /* A receiver buffers an unexpected fragmented message whole: no peer may make it
         * allocate more than the largest message that goes as fragments. */
        if (unlikely(m->hdr.len < m->len || m->hdr.len > VBT_P2P_FRAG_MAX))
            bad = "len (shorter than the payload, or above the 64 MiB a fragmented message may "
                  "have)";
        break;
    case VBT_P2P_FRAG:
    case VBT_P2P_RDATA:
        break;
    case VBT_P2P_ACK:
    case VBT_P2P_FIN:
    case VBT_P2P_DONE:
        if (unlikely(m->len != 0 || m->hdr.id == 0))
            bad = "id or length of a control message";
        break;
    case VBT_P2P_RTS:
        bad = vbt_p2p_take_ext(m, sizeof(m->addr));
        if (bad == NULL) {
            memcpy(&m->addr, (const char *)m->payload - sizeof(m->addr), sizeof(m->addr));
            if (unlikely(m->hdr.id == 0 || m->len != 0 || m->hdr.len > SIZE_MAX / 2))
                bad = "id, len or length of a ready-to-send";
        }
        break;
    case VBT_P2P_CTS: {
        const size_t ext = sizeof(vbt_p2p_cts_t) - sizeof(vbt_p2p_hdr_t);
        bad = vbt_p2p_take_ext(m, ext);
        if (bad == NULL) {
            const char *p = (const char *)m->payload - ext;
            memcpy(&m->recv_id, p + offsetof(vbt_p2p_cts_t, recv_id) - sizeof(m->hdr),
                   sizeof(m->recv_id));
            memcpy(&m->addr, p + offsetof(vbt_p2p_cts_t, addr) - sizeof(m->hdr), sizeof(m->addr));
            memcpy(&m->rkey, p + offsetof(vbt_p2p_cts_t, rkey) - sizeof(m->hdr), sizeof(m->rkey));
            if (unlikely(m->hdr.id == 0 || m->recv_id == 0 || m->len != 0))
                bad = "id, receiver id or length of a clear-to-send";
        }
        break;
    }
    default:
        bad = "type";
    }
    return bad;
}

#endif
