/* The on-node shared-memory transport as the runtime sees it: one ops table under the transport
 * contract (runtime/base/vbt_tl_ops.h), nothing else. Eager messages are copied into a cell of a
 * lock-free single-producer single-consumer ring in the receiver's shared memory and copied out
 * by the receiver's recv upcall; large messages can be read straight from the sender's memory
 * with one copy (CMA, process_vm_readv) where the kernel permits it.
 *
 * What shm does under the contract:
 *   init       a rank alone on its node opens nothing and publishes nothing (VBT_OK, address
 *              length 0: the instance reaches nobody). Otherwise it creates our segment (a
 *              state word and one ring per local peer: our inbound rings) and our doorbell
 *              socket, and returns the address blob (56 bytes: how to map the segment; the
 *              peers derive the doorbell's name from it). VBT_ERR_NO_DEVICE when they cannot be
 *              created (logged): the peers then see this rank as not reachable over shared
 *              memory and use the network.
 *   wireup     map every local peer's segment (our outbound ring to it lives there), open a
 *              handle on each peer process to notice its death, and probe whether CMA reads of
 *              each peer are permitted (logged at info). A peer we may not map (another PID
 *              namespace, a non-dumpable process, hardened /proc) is logged once at warn and
 *              not reached. Fails with VBT_ERR_INVALID_PARAM when a peer runs an incompatible
 *              build, and VBT_ERR_PEER_FAILED when a local peer exited before we could map it
 *              (both logged).
 *   caps       VBT_TL_CAP_STREAM; VBT_TL_CAP_READ_PEER when VBT_SHM_CMA is on and the probe
 *              read every reachable peer. max_send: a cell's payload (8 KiB). rndv_threshold:
 *              VBT_SHM_RNDV_THRESHOLD.
 *   send       copies hdr and payload into the next cell of our ring in the peer's segment: no
 *              lock, system call or allocation unless the peer sleeps (then one datagram to its
 *              doorbell). VBT_ERR_NO_RESOURCE: the ring is full (a sleep of ours ends as soon as
 *              the peer frees a cell). VBT_ERR_PEER_FAILED: the peer exited or finalized
 *              (logged once). VBT_ERR_INVALID_PARAM: not a reachable peer, or too long (logged).
 *   progress   a bounded batch per sender per call, so one busy sender cannot starve the others;
 *              VBT_ERR_PEER_FAILED when a peer wrote a corrupt cell (logged; that ring is no
 *              longer read).
 *   sleeping   wait_fd is our doorbell socket (-1 when shm is not up); a peer that finds us
 *              asleep makes it readable. max_sleep_ms is 500 (-1 when not up): dead peers are
 *              noticed only that often, so sleeping longer is the caller's mistake.
 *              sleep_begin also checks the local peers' liveness (at most every 100 ms),
 *              sleep_end after a timeout (readable is not needed: the doorbell is drained
 *              either way). No wake-up is lost (vbt_shm_int.h says why). When shm is not up,
 *              sleep_begin just lets the caller sleep.
 *   check_liveness  a clock read unless the last look is 100 ms old: a launcher that does
 *              not end the job at the first death (srun without --kill-on-bad-exit) would
 *              otherwise leave a wait that never sleeps spinning forever.
 *   read_peer  one process_vm_readv; VBT_ERR_UNSUPPORTED (and READ_PEER cleared) when the kernel
 *              refuses it, VBT_ERR_INVALID_PARAM for a range the peer does not have mapped,
 *              VBT_ERR_PEER_FAILED when it exited.
 *   finalize   tells the peers we are gone (their sends to us fail from now on), unmaps every
 *              segment, closes the handles and the doorbell. Messages still in our inbound rings
 *              are dropped (counted at debug).
 *   No put, get, atomics or registration (those ops are NULL).
 *
 * Nothing is ever left in /dev/shm, even after a crash: the segments are anonymous memory files
 * (memfd) that the peers open through /proc/<pid>/fd/<fd>; they have no name to unlink, and the
 * kernel frees them with the last process that maps them (vbt_shm_int.h says why). */
#ifndef VBT_SHM_H
#define VBT_SHM_H

#include "vbt_tl_ops.h"

extern const vbt_tl_ops_t vbt_shm_tl_ops;

#endif
