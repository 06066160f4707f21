/* The InfiniBand verbs transport as the runtime sees it: one ops table under the transport
 * contract (runtime/base/vbt_tl_ops.h), nothing else; <infiniband/verbs.h> stays behind it.
 * One RC queue pair per peer, connected on first use by a connection manager over one UD QP
 * (what a rank publishes has a fixed size); eager SEND/RECV through a shared receive queue with
 * credit flow control; memory registration through a registration cache; RDMA WRITE (the
 * rendezvous), READ and 64-bit atomics for the one-sided operations.
 *
 * What ib does under the contract:
 *   init       choose the device, port and GID (VBT_IB_DEVICE, VBT_IB_GID_INDEX, else the first
 *              ACTIVE port), open the PD, the CQ with its completion channel, the SRQ with the
 *              first receive buffers posted, the connection manager's UD QP and the
 *              registration cache, and return the address blob (32 bytes: port address, UD
 *              QP; vbt_ib_int.h). No RC QP exists yet. VBT_ERR_NO_DEVICE (logged at info) when
 *              there is no usable device or port, why[] saying what was found instead. A
 *              VBT_IB_DEVICE or VBT_IB_GID_INDEX naming what does not exist or is not ACTIVE
 *              is a user error: VBT_ERR_NOT_FOUND (VBT_ERR_INVALID_PARAM when malformed),
 *              logged. Too small RLIMIT_MEMLOCK: VBT_ERR_MEMLOCK, with one message saying how
 *              to raise it.
 *   wireup     connects nothing: the first send to a peer fetches its blob (peer_addr),
 *              checks it (settings that differ between ranks are reported then) and connects,
 *              returning VBT_ERR_NO_RESOURCE until it is done.
 *   reaches    every other rank of the job (whether it runs ib is learnt at the connection).
 *   caps       STREAM and PUT; GET where the device does RDMA READ (max_qp_rd_atom and
 *              max_qp_init_rd_atom > 0); ATOMIC_FADD64 and ATOMIC_CSWAP64 where it also does
 *              64-bit atomics (atomic_cap) and returns their old values in host byte order
 *              (not Mellanox HCAs on a little-endian host: vbt_ib_atomic_reply_be).
 *              max_send: VBT_EAGER_LIMIT.
 *              rndv_threshold: VBT_RNDV_THRESHOLD. spin_polls: 64 on a software device (rxe,
 *              siw), whose NIC is kernel work on our own cores.
 *   send       inline up to the QP's max_inline_data, else copied to a registered bounce
 *              buffer: no allocation, lock or system call of ours. VBT_ERR_NO_RESOURCE: no
 *              credit, send slot or bounce buffer now, or the connection is being made.
 *   put/get    RDMA WRITEs / READs of at most VBT_IB_WRITE_MAX and the port's max_msg_sz;
 *   atomic     one FETCH_AND_ADD or CMP_AND_SWAP. At most 8 of them in flight per peer, each
 *              signalled, completing through rma_done; a failed one makes the peer unusable.
 *              What a peer may reach is decided per registration (mem_get's access), never
 *              by the QP, which allows every kind the caps name.
 *   progress   one poll of the CQ: arrivals to recv, completions retired, credits returned.
 *   sleeping   wait_fd is the completion channel; sleep_begin arms the CQ and polls once more;
 *              max_sleep_ms is the next connection request's retransmission (-1: none due).
 *   check_liveness  at most once a second, a zero-length RDMA WRITE to every connected peer,
 *              so that a dead one is noticed within seconds (vbt_ib_liveness.c).
 *   finalize   a FIN to every connected peer and a bounded wait for their acknowledgements,
 *              then everything destroyed and the instance freed.
 *   No read_peer (NULL). */
#ifndef VBT_IB_H
#define VBT_IB_H

#include "vbt_tl_ops.h"

extern const vbt_tl_ops_t vbt_ib_tl_ops;

#endif
