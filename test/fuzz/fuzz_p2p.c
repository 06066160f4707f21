/* libFuzzer target: the runtime's protocol messages (vbt_p2p_decode: EAGER, FRAG_FIRST, FRAG,
 * ACK, RTS, CTS, FIN, RDATA, DONE) and the lookup of the request ids they echo
 * (vbt_request_from_id). Input: a whole message as a transport delivers it. An accepted
 * message must satisfy what deliver() relies on; an id must find only a live request of ours,
 * never be dereferenced as an address. */
#include "vbt_p2p_wire.h"
#include "vbt_request.h"
#include "vbt_runtime.h"

#include <stdlib.h>

/* vbt_request.c releases datatype references; these requests have none. */
void vbt_dtype_unref(struct vbt_dtype *dtype)
{
    (void)dtype;
    abort();
}

/* The runtime object vbt_request.c takes its critical section from: never turned on here (one
 * thread, as below MPI_THREAD_MULTIPLE). */
vbt_runtime_t vbt_rt;

#define NLIVE 300 /* more than two chunks of requests */
static vbt_request_t *live[NLIVE];

static void check_id(uint64_t id)
{
    vbt_request_t *req = vbt_request_from_id(id);

    if (req == NULL)
        return;
    for (int i = 0; i < NLIVE; i++)
        if (live[i] == req) {
            if (vbt_request_id(req) != id || req->magic != VBT_REQUEST_MAGIC)
                abort();
            return;
        }
    abort(); /* a released request, or not ours */
}

volatile uint8_t sink; /* keeps the reads of the payload */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vbt_p2p_msg_t m;
    uint8_t *buf;

    if (live[0] == NULL) {
        /* Live requests in the odd slots, released ones in the even slots (their ids must be
         * refused): gen 1 everywhere, as gen_corpus.py assumes. */
        static vbt_request_t *all[2 * NLIVE];
        for (int i = 0; i < 2 * NLIVE; i++)
            if ((all[i] = vbt_request_alloc(VBT_REQ_SEND)) == NULL)
                abort();
        for (int i = 0; i < NLIVE; i++) {
            live[i] = all[2 * i + 1];
            vbt_request_release(all[2 * i]);
        }
    }
    buf = malloc(size);
    if (buf == NULL)
        return 0;
    if (size > 0)
        memcpy(buf, data, size);
    if (vbt_p2p_decode(buf, size, &m) == NULL) {
        const char *end = (const char *)buf + size;
        if (m.hdr.version != VBT_P2P_WIRE_VERSION || m.hdr.type < VBT_P2P_EAGER ||
            m.hdr.type > VBT_P2P_DONE || (const char *)m.payload + m.len != end ||
            (const char *)m.payload < (const char *)buf + sizeof(m.hdr))
            abort();
        if (m.hdr.type == VBT_P2P_EAGER && m.hdr.len != m.len)
            abort();
        if (m.hdr.type == VBT_P2P_FRAG_FIRST && m.hdr.len < m.len)
            abort();
        if ((m.hdr.type == VBT_P2P_RTS || m.hdr.type == VBT_P2P_CTS || m.hdr.type == VBT_P2P_ACK ||
             m.hdr.type == VBT_P2P_FIN || m.hdr.type == VBT_P2P_DONE) &&
            (m.len != 0 || m.hdr.id == 0))
            abort();
        if (m.len > 0) { /* what deliver copies: ASan checks it is inside the message */
            uint8_t sum = 0;
            for (size_t i = 0; i < m.len; i++)
                sum += ((const uint8_t *)m.payload)[i];
            sink = sum;
        }
        check_id(m.hdr.id);
        if (m.hdr.type == VBT_P2P_CTS)
            check_id(m.recv_id);
    }
    /* Ids as the fuzzer makes them, valid ones included (the corpus has some). */
    if (size >= 8) {
        uint64_t id;
        memcpy(&id, data + size - 8, sizeof(id));
        check_id(id);
        check_id(vbt_request_id(live[data[0] % NLIVE]) ^ (id & 0xff));
    }
    free(buf);
    return 0;
}
