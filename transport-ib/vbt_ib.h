/* The InfiniBand verbs transport as the runtime sees it: one RC queue pair per peer, connected
 * on first use (a connection manager over one UD QP: what a rank publishes has a fixed size), eager
 * SEND/RECV through a shared receive queue, credit flow control; memory registration through
 * a registration cache and RDMA WRITE for the rendezvous protocol. The only header of
 * transport-ib/ the runtime includes; <infiniband/verbs.h> stays behind it.
 *
 * Call order: vbt_ib_init, the caller's vbt_modex_fence, vbt_ib_wireup, then any number of
 * vbt_ib_send / vbt_ib_mem_get / vbt_ib_put / vbt_ib_progress / vbt_ib_block, then
 * vbt_ib_finalize. Single-threaded: the caller serialises every call. */
#ifndef VBT_IB_H
#define VBT_IB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vbt_pmix.h"
#include "vbt_status.h"

/* Called for every arrived message, in order per sender; data is only valid during the call.
 * The callback may call vbt_ib_send (a nested vbt_ib_progress returns 0). */
typedef void (*vbt_ib_recv_cb_t)(int src_rank, const void *data, size_t len);

/* Called when the RDMA WRITEs of a vbt_ib_put have all completed (the data is in the peer's
 * memory), or failed (status says why; the failure was logged). From vbt_ib_progress. */
typedef void (*vbt_ib_put_cb_t)(void *cookie, vbt_status_t status);

/* Open the device, PD, CQ (with a completion channel), SRQ, pre-post receives, the connection
 * manager's UD QP, the registration cache, and publish our address (fixed size) with
 * vbt_modex_put("ib.addr", ...). No RC QP exists yet. Does NOT fence.
 * Returns VBT_ERR_NO_DEVICE (logged at info, not error) when there is no usable device/port.
 * A VBT_IB_DEVICE or VBT_IB_GID_INDEX naming something that does not exist or is not ACTIVE is
 * a user error: logged at error, VBT_ERR_NOT_FOUND (VBT_ERR_INVALID_PARAM when malformed).
 * Too small RLIMIT_MEMLOCK: VBT_ERR_MEMLOCK, with one message saying how to raise it. */
vbt_status_t vbt_ib_init(const vbt_proc_info_t *proc, vbt_ib_recv_cb_t recv_cb,
                         vbt_ib_put_cb_t put_cb);

/* After vbt_ib_init returned VBT_ERR_NO_DEVICE: what was found instead ("no usable RDMA port:
 * rxe0:1 is DOWN", ...); "" otherwise. */
const char *vbt_ib_unavailable_reason(void);

/* After the caller's vbt_modex_fence(): connections may start from now on. Connects nothing:
 * the first vbt_ib_send to a peer reads its address, checks it (settings that differ between
 * ranks are reported then) and connects, returning VBT_ERR_NO_RESOURCE until it is done. */
vbt_status_t vbt_ib_wireup(void);

/* Largest hdr_len + len one vbt_ib_send carries (the eager limit, VBT_EAGER_LIMIT). */
size_t vbt_ib_max_send(void);

/* Is the device a software one (Soft-RoCE rxe, siw)? Its "NIC" is kernel work on our own
 * cores, so a rank that spins on the CQ delays the very packets it waits for. */
int vbt_ib_device_is_software(void);

/* Send hdr (runtime header, <= 64 bytes) followed by payload to peer (world rank != self).
 * VBT_OK: posted; both buffers may be reused at once (inline, or copied to a registered bounce
 * buffer). VBT_ERR_NO_RESOURCE: no credit or send slot now, or the connection to peer is being
 * made (the first send starts it): nothing was sent, call again after vbt_ib_progress(). Other
 * errors: logged, peer unusable. Ordered per peer. */
vbt_status_t vbt_ib_send(int peer, const void *hdr, size_t hdr_len, const void *payload,
                         size_t len);

/* ---- rendezvous support: registered memory and RDMA WRITE ----------------------------------
 * A registration held by one operation, from the registration cache (VBT_RCACHE_MAX): a hit
 * costs no system call; memory the application unmaps or frees is never served stale. */
typedef struct vbt_rcache_region vbt_ib_mem_t;
#define VBT_IB_MEM_REMOTE_WRITE 0x1u /* the target of a peer's RDMA WRITE */

/* Register [addr, addr + len), len > 0, with the access flags (0: the source of a WRITE).
 * Failures are logged (with RLIMIT_MEMLOCK advice when pinning is refused). */
vbt_status_t vbt_ib_mem_get(const void *addr, size_t len, unsigned flags, vbt_ib_mem_t **mem_p);
/* Release it: it stays cached for the next message from the same memory. */
void vbt_ib_mem_put(vbt_ib_mem_t *mem);
/* The key a peer needs to WRITE into it. */
uint32_t vbt_ib_mem_rkey(const vbt_ib_mem_t *mem);

/* RDMA WRITE [laddr, laddr + len), inside mem, to the peer's [raddr, raddr + len) (rkey), as
 * WRITEs of at most the port's max_msg_sz and a fragment size each, several in flight (as
 * many as the peer's send queue and the per-peer window allow). Posts a prefix and sets
 * *posted_p to its length. VBT_OK: all len bytes are posted, and put_cb(cookie) follows when
 * the last WRITE completes. VBT_ERR_NO_RESOURCE: only *posted_p bytes went (maybe 0): call
 * again for the rest after vbt_ib_progress. Other errors: logged, peer unusable. Ordered with
 * vbt_ib_send on the same peer: a SEND posted after the call returned VBT_OK arrives after
 * the data is in place. len > 0. */
vbt_status_t vbt_ib_put(int peer, const void *laddr, size_t len, vbt_ib_mem_t *mem, uint64_t raddr,
                        uint32_t rkey, void *cookie, size_t *posted_p);

/* Poll the CQ once: deliver arrivals through recv_cb, retire send completions, return credits.
 * Returns the number of completions handled (>= 0) or a negative vbt_status_t on a fatal error
 * (completion errors become a human sentence: status name, peer rank, operation, likely cause).
 * A failed credit message to a peer that already exited is not fatal: that peer is marked
 * unusable (logged at debug) and only a later vbt_ib_send to it fails. */
int vbt_ib_progress(void);

/* Sleep until the CQ has something (arm, re-poll to close the race, poll() the completion
 * channel fd with timeout_ms, get and ack the event). Used by the progress engine instead of
 * spinning when oversubscribed or after a long wait. Completions found by the re-poll are
 * handled as vbt_ib_progress would. VBT_OK on an event and on timeout (the caller polls
 * again either way); a negative status only when the channel or a completion failed.
 * timeout_ms < 0 waits without limit. */
vbt_status_t vbt_ib_block(int timeout_ms);

/* vbt_ib_block in three steps, for a caller that sleeps on several transports in one poll():
 * vbt_ib_sleep_begin arms the CQ and polls once more (completions found are handled; then
 * *sleep_p = 0: do not sleep); with *sleep_p = 1 the caller polls vbt_ib_wait_fd() for POLLIN
 * and then calls vbt_ib_sleep_end(readable), which takes and acknowledges the event. */
int vbt_ib_wait_fd(void);
vbt_status_t vbt_ib_sleep_begin(int *sleep_p);
vbt_status_t vbt_ib_sleep_end(int readable);
/* How long a sleep may last: until the next connection request is due for retransmission
 * (>= 1 ms), or -1 (no limit) when no connection is being made. */
int vbt_ib_max_sleep_ms(void);

/* For a wait that found nothing to do: at most once a second (a clock read otherwise), send
 * every connected peer that has not finalized a zero-length RDMA WRITE, so that a peer that
 * died is noticed within seconds (vbt_ib_liveness.c): its failure then comes, logged with the
 * rank and the likely cause, as VBT_ERR_PEER_FAILED from vbt_ib_progress. Returns
 * VBT_ERR_PEER_FAILED (logged) for a peer that failed earlier without being reported, else
 * VBT_OK. Peers never connected are not watched. */
vbt_status_t vbt_ib_check_liveness(void);

/* Wait (bounded) until every eager send posted so far to a connected peer is acknowledged by
 * its NIC (peers never connected, or whose side never answered, are not waited for), then
 * destroy QPs, the UD QP and its address handles, SRQ, CQ, channel, the registration cache (its
 * statistics at debug), memory region, PD and close the device. */
void vbt_ib_finalize(void);

/* For verbatim-info: every device, port (state, link layer, MTU, LID), GID (index, type,
 * address), the one Verbatim would pick and why, and RLIMIT_MEMLOCK. */
void vbt_ib_describe(FILE *out);

#endif
