/* The on-node shared-memory transport as the runtime sees it: the same shape as vbt_ib.h, so
 * the runtime can pick ib or shm per peer. Eager messages are copied into a cell of a lock-free
 * single-producer single-consumer ring in the receiver's shared memory and copied out by the
 * receiver's callback; large messages can be read straight from the sender's memory with one
 * copy (CMA, process_vm_readv) where the kernel permits it.
 *
 * Call order: vbt_shm_init, the caller's vbt_modex_fence, vbt_shm_wireup, then any number of
 * vbt_shm_send / vbt_shm_progress / vbt_shm_block (or vbt_shm_sleep_begin, the caller's poll()
 * on vbt_shm_wait_fd() and its own fds, vbt_shm_sleep_end) / vbt_shm_cma_read, then
 * vbt_shm_finalize. Single-threaded: the caller serialises every call.
 *
 * Nothing is ever left in /dev/shm, even after a crash: the segments are anonymous memory files
 * (memfd) that the peers open through /proc/<pid>/fd/<fd>; they have no name to unlink, and the
 * kernel frees them with the last process that maps them (vbt_shm_int.h says why). */
#ifndef VBT_SHM_H
#define VBT_SHM_H

#include <stddef.h>

#include "vbt_pmix.h"
#include "vbt_status.h"

/* Called for every arrived message, in order per sender; data is only valid during the call
 * (it points into the ring cell, which is reused once the callback returns). The callback may
 * call vbt_shm_send (a nested vbt_shm_progress returns 0). */
typedef void (*vbt_shm_recv_cb_t)(int src_rank, const void *data, size_t len);

/* Create our segment (a state word and one ring per local peer: our inbound rings) and our
 * doorbell socket, and publish how to map it with vbt_modex_put("shm.seg", ...) (the peers
 * derive the doorbell's name from the same record). Does NOT fence. A rank alone on its node
 * creates and publishes nothing (VBT_OK; vbt_shm_is_local() is then 0 for every rank). On an
 * error (logged) nothing was published: the caller still fences, skips vbt_shm_wireup, and
 * the peers then see this rank as not reachable over shared memory. */
vbt_status_t vbt_shm_init(const vbt_proc_info_t *proc, vbt_shm_recv_cb_t cb);

/* After the caller's vbt_modex_fence(): map every local peer's segment (our outbound ring to
 * it lives there), open a handle on each peer process to notice its death, and probe whether
 * CMA reads of each peer are permitted (logged at info). A peer we may not map (another PID
 * namespace, a non-dumpable process, hardened /proc) is logged once at warn and stays
 * unreachable over shm (vbt_shm_is_local() is 0 for it): the runtime sends to it through the
 * network. Fails with VBT_ERR_INVALID_PARAM when a peer runs an incompatible build, and
 * VBT_ERR_PEER_FAILED when a local peer exited before we could map it (both logged). */
vbt_status_t vbt_shm_wireup(void);

/* Is world_rank another rank on our node whose segment we mapped (so vbt_shm_send reaches
 * it)? 0 for ourselves, for ranks on other nodes and before vbt_shm_wireup. */
int vbt_shm_is_local(int world_rank);

/* Largest hdr_len + len one vbt_shm_send carries: a cell's payload (8 KiB). */
size_t vbt_shm_max_send(void);

/* Copy hdr then payload (hdr_len + len <= vbt_shm_max_send()) into the next cell of our ring
 * in the peer's segment. VBT_OK: copied, both buffers may be reused at once; rings the peer's
 * doorbell if it sleeps. VBT_ERR_NO_RESOURCE: the ring is full: nothing was sent, call again
 * after vbt_shm_progress() (the peer drains it; a sleep of ours ends as soon as it
 * frees a cell). VBT_ERR_PEER_FAILED: the peer exited or finalized (logged once).
 * VBT_ERR_INVALID_PARAM: not a reachable peer, or too long (logged). Ordered per peer. No
 * lock, system call or allocation unless the peer is asleep. */
vbt_status_t vbt_shm_send(int peer, const void *hdr, size_t hdr_len, const void *payload,
                          size_t len);

/* Deliver arrived messages through the callback, in order per sender (a bounded batch per
 * sender per call, so one busy sender cannot starve the others). Returns the number delivered
 * (>= 0), or VBT_ERR_PEER_FAILED when a peer wrote a corrupt cell (logged; that ring is no
 * longer read). */
int vbt_shm_progress(void);

/* Sleeping until a peer posts a message to us, or frees a cell of a ring we found full, while
 * also waiting for other events (the verbs completion channel): announce the sleep with
 * vbt_shm_sleep_begin, poll() vbt_shm_wait_fd() for POLLIN together with the caller's own fds,
 * for at most vbt_shm_max_sleep_ms(), then vbt_shm_sleep_end. A peer that finds us asleep
 * makes our doorbell readable (one datagram); otherwise sends cost no system call. No wake-up
 * is lost (vbt_shm_int.h says why). */

/* The fd a sleeping rank polls for POLLIN (our doorbell socket); -1 when shm is not up. */
int vbt_shm_wait_fd(void);

/* Announce that we are about to sleep and re-poll the rings to close the race. If anything
 * arrived (it is delivered as vbt_shm_progress would), a ring we found full has room, or a dead
 * peer was found, the sleep is called off: *sleep_p = 0 and the SLEEPING flag is cleared
 * again. Otherwise *sleep_p = 1 and the caller must call vbt_shm_sleep_end() after its poll().
 * Also checks the local peers' liveness (at most every 100 ms). Returns VBT_OK, or
 * VBT_ERR_PEER_FAILED (logged) when a local peer died without finalizing or wrote a corrupt
 * cell (*sleep_p = 0 then too). Sleeping for longer than vbt_shm_max_sleep_ms() is the
 * caller's mistake: dead peers are noticed only that often. When shm is not up: *sleep_p = 1,
 * nothing else. */
vbt_status_t vbt_shm_sleep_begin(int *sleep_p);

/* After the poll: clear SLEEPING, drain the doorbell socket. timed_out: the poll timed out (then
 * the peers' liveness is checked: VBT_ERR_PEER_FAILED as above). VBT_OK otherwise; the caller
 * polls the transports either way. A no-op when shm is not up or sleep_begin called the sleep
 * off. */
vbt_status_t vbt_shm_sleep_end(int timed_out);

/* For waits that never sleep (VBT_PROGRESS=spin, sends queued for credits): check the local
 * peers' liveness when the last check is at least 100 ms old, else only read the clock. A
 * launcher that does not end the job at the first death (srun without --kill-on-bad-exit)
 * would otherwise leave such a wait spinning forever. VBT_OK, or VBT_ERR_PEER_FAILED (logged
 * once per peer) when a local peer died without finalizing. A no-op when shm is not up. */
vbt_status_t vbt_shm_check_liveness(void);

/* The longest a caller may sleep between sleep_begin and sleep_end, in ms (500, whether shm is
 * up or not). */
int vbt_shm_max_sleep_ms(void);

/* sleep_begin, poll() on our doorbell alone, sleep_end: sleep until a peer posts a message to
 * us or frees a cell of a ring we found full, or timeout_ms passes (< 0, or more than
 * vbt_shm_max_sleep_ms(): that limit). Arrivals found before sleeping are delivered as
 * vbt_shm_progress would. VBT_OK on a post and on a timeout (the caller polls again either
 * way); VBT_ERR_PEER_FAILED when a local peer is found dead without having finalized (logged
 * once per peer); VBT_ERR_IO when poll() fails (logged). Returns at once when there is no
 * other rank on the node. */
vbt_status_t vbt_shm_block(int timeout_ms);

/* Copy len bytes at remote (an address in the peer's process) to local with one copy
 * (process_vm_readv). VBT_ERR_UNSUPPORTED when CMA to that peer is not permitted (then the
 * runtime falls back to the pipelined two-copy path through the rings); VBT_ERR_INVALID_PARAM
 * for an address range the peer does not have mapped; VBT_ERR_PEER_FAILED when it exited. */
vbt_status_t vbt_shm_cma_read(int peer, void *local, const void *remote, size_t len);

/* 1 when CMA reads of every local peer we mapped are permitted: probed for real against each
 * of them at vbt_shm_wireup (logged at info with the reason when not). */
int vbt_shm_cma_available(void);

/* Tell the peers we are gone (their sends to us fail from now on), unmap every segment, close
 * the handles and our doorbell. Messages still in our inbound rings are dropped (counted at
 * debug). */
void vbt_shm_finalize(void);

#endif
