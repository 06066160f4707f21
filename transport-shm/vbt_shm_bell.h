/* The shared-memory doorbell: a datagram socket in the Linux abstract namespace per rank, and
 * the two halves of the sleep protocol on a rank's state word. Pure logic on a word and file
 * descriptors the caller provides, so the unit tests run it between two threads;
 * vbt_shm_int.h gives the protocol and why no wake-up is lost, vbt_shm.c the stats, logging
 * and dead peers.
 *
 * Why a socket and not a futex: the runtime sleeps on the verbs completion channel and on
 * shared memory at once, in one poll(), and a futex cannot be polled together with an fd. Why
 * the abstract namespace: the name lives only as long as the socket, so there is no file to
 * unlink and nothing left behind by a crash, like the memfd segments. Why SOCK_DGRAM: one
 * unconnected socket per rank both receives its own rings and sends to every peer's name, with
 * no connection to set up or to lose; and a datagram is a whole ring, dropped whole.
 * What it costs: anyone in the network namespace may send to the name; a stray datagram
 * only ends a sleep early (the caller polls the rings and sleeps again), it cannot lose or
 * forge a message. */
#ifndef VBT_SHM_BELL_H
#define VBT_SHM_BELL_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

/* A bit of the owner's state word: it is in, or about to enter, a poll() on its doorbell. */
#define VBT_SHM_SLEEPING 0x1u

/* Datagrams vbt_shm_bell_drain takes per call: bounds the time a flood of stray datagrams can
 * hold us (the rest keep the socket readable: the next sleep ends at once and drains more). */
#define VBT_SHM_BELL_DRAIN_MAX 4096

/* A doorbell's address: "\0vbt-shm.<pid>.<cookie in hex>". */
typedef struct {
    struct sockaddr_un sa;
    socklen_t len; /* the name's bytes count, not a terminating NUL */
} vbt_shm_bell_addr_t;

/* The address of the doorbell of the rank with this pid (its getpid()) and segment cookie:
 * the owner binds it, the peers derive it from the owner's address blob. */
void vbt_shm_bell_addr(pid_t pid, uint64_t cookie, vbt_shm_bell_addr_t *addr_p);

/* Create our doorbell: an AF_UNIX SOCK_DGRAM socket, SOCK_CLOEXEC | SOCK_NONBLOCK, bound to
 * vbt_shm_bell_addr(pid, cookie). Returns the fd, or -errno (nothing left open). */
int vbt_shm_bell_open(pid_t pid, uint64_t cookie);

/* Asymmetric fences. Dekker's protocol needs a full fence on both sides: the sender's between
 * its store of a cell and its load of the receiver's state, the receiver's between its store of
 * SLEEPING and its look at the rings. The sender's is the costly one: it waits until the cell's
 * cache line, which the receiver read last lap, is back in the sender's cache, so every message
 * waits for one line's trip between the cores instead of the stores of many messages
 * overlapping (it halved the 8-byte message rate). The sleeper instead calls
 * membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) after its store: every processor running a
 * process registered for it executes a full barrier, so a sender whose store came before that
 * point has made it visible, and one whose load of the state comes after it sees SLEEPING. The
 * sender then only keeps its store before its load in program order (a compiler barrier). It is
 * the kernel's own use case for membarrier (liburcu's asymmetric fences). */

/* Register this process for MEMBARRIER_CMD_GLOBAL_EXPEDITED: 0, or -errno when the kernel
 * (before 4.16) or a seccomp filter refuses; then its sends must fence. */
int vbt_shm_bell_asym_register(void);

/* Does the kernel offer it (a query, no registration)? For verbatim-info. */
int vbt_shm_bell_asym_available(void);

/* Receiver: announce the sleep (state |= SLEEPING, then a full fence; with asym, also the
 * membarrier above, for peers that send without a fence). The caller then looks at everything a
 * peer may post before it sleeps. 0, or -errno when the membarrier failed: the caller must not
 * sleep (a sender's cell may be unseen). */
int vbt_shm_bell_announce(_Atomic uint32_t *state, int asym);

/* Receiver, having slept or called the sleep off: state &= ~SLEEPING. 1 when a peer had
 * cleared it already: that peer sent us a datagram, or is about to. */
int vbt_shm_bell_retract(_Atomic uint32_t *state);

/* Sender, after publishing what the receiver must see, a seq_cst fence (or, when both sides
 * use membarrier, a compiler barrier), and finding SLEEPING in
 * the receiver's state: take the flag, and if we took it, send one byte from our socket fd to
 * the receiver's address (MSG_DONTWAIT). 1: we rang (sent, or the receiver's queue is full:
 * its socket is readable already); 0: someone else took the flag, nothing sent; -errno: sendto
 * failed (nothing sent: the receiver wakes by its own timeout). */
int vbt_shm_bell_ring(_Atomic uint32_t *state, int fd, const vbt_shm_bell_addr_t *to);

/* Receiver: take every datagram queued on our socket (at most VBT_SHM_BELL_DRAIN_MAX), never
 * blocking. Returns how many. */
int vbt_shm_bell_drain(int fd);

#endif
