/* The doorbell socket and the two halves of the sleep protocol (vbt_shm_bell.h; vbt_shm_int.h
 * says why no wake-up is lost). No logging here: the callers know which peer it was and
 * whether a failure matters. */
#include "config.h"

#include "vbt_shm_bell.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void vbt_shm_bell_addr(pid_t pid, uint64_t cookie, vbt_shm_bell_addr_t *addr_p)
{
    vbt_shm_bell_addr_t a;
    int n;

    memset(&a, 0, sizeof(a));
    a.sa.sun_family = AF_UNIX;
    /* sun_path[0] = '\0': the abstract namespace. The name is the bytes after it, exactly
     * len of them (no terminating NUL): both sides must compute the same length. */
    n = snprintf(a.sa.sun_path + 1, sizeof(a.sa.sun_path) - 1, "vbt-shm.%d.%016llx", (int)pid,
                 (unsigned long long)cookie);
    a.len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    *addr_p = a;
}

int vbt_shm_bell_open(pid_t pid, uint64_t cookie)
{
    vbt_shm_bell_addr_t a;
    int fd, err;

    /* CLOEXEC: a child the application execs must not keep our name alive; NONBLOCK: the
     * drain stops at EAGAIN, and a send never waits for a slow receiver. */
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    vbt_shm_bell_addr(pid, cookie, &a);
    if (bind(fd, (const struct sockaddr *)&a.sa, a.len) != 0) {
        err = errno;
        close(fd);
        return -err;
    }
    return fd;
}

static int membarrier(int cmd)
{
#ifdef __NR_membarrier
    return (int)syscall(__NR_membarrier, cmd, 0, 0);
#else
    (void)cmd;
    errno = ENOSYS;
    return -1;
#endif
}

/* 0 when the kernel offers both commands, else -errno (-ENOSYS: it lacks them). */
static int asym_query(void)
{
    const int want = MEMBARRIER_CMD_GLOBAL_EXPEDITED | MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED;
    int mask = membarrier(MEMBARRIER_CMD_QUERY);

    if (mask < 0)
        return -errno;
    return (mask & want) == want ? 0 : -ENOSYS;
}

int vbt_shm_bell_asym_available(void)
{
    return asym_query() == 0;
}

int vbt_shm_bell_asym_register(void)
{
    int rc = asym_query();

    if (rc != 0)
        return rc;
    return membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0 ? 0 : -errno;
}

int vbt_shm_bell_announce(_Atomic uint32_t *state, int asym)
{
    atomic_fetch_or_explicit(state, VBT_SHM_SLEEPING, memory_order_seq_cst);
    /* Dekker with the sender: our SLEEPING before our look at the rings. */
    atomic_thread_fence(memory_order_seq_cst);
    /* ... and the sender's cell before its look at our state, for senders that do not fence. */
    if (asym && membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0)
        return -errno;
    return 0;
}

int vbt_shm_bell_retract(_Atomic uint32_t *state)
{
    /* Acquire: a sender that took the flag released its cell before (vbt_shm_bell_ring). */
    return !(atomic_fetch_and_explicit(state, ~VBT_SHM_SLEEPING, memory_order_acquire) &
             VBT_SHM_SLEEPING);
}

int vbt_shm_bell_ring(_Atomic uint32_t *state, int fd, const vbt_shm_bell_addr_t *to)
{
    static const char byte = 1;

    /* Only the first to clear SLEEPING sends: one datagram per sleep, however many senders.
     * Release: the receiver's retract that reads our clearing sees our cell. */
    if (!(atomic_fetch_and_explicit(state, ~VBT_SHM_SLEEPING, memory_order_acq_rel) &
          VBT_SHM_SLEEPING))
        return 0;
    for (;;) {
        if (sendto(fd, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)&to->sa,
                   to->len) == 1)
            return 1;
        if (errno == EINTR)
            continue;
        /* EAGAIN: its queue is full of datagrams it has not drained: readable already, it
         * wakes without ours. (Or our own send buffer is full of datagrams that hundreds of
         * peers have not drained yet: then this one wakes by its timeout.) */
        return errno == EAGAIN ? 1 : -errno;
    }
}

int vbt_shm_bell_drain(int fd)
{
    char buf[64];
    int n = 0;

    while (n < VBT_SHM_BELL_DRAIN_MAX) {
        if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0) {
            n++;
            continue;
        }
        if (errno != EINTR)
            break; /* EAGAIN: empty; anything else: nothing we could drain */
    }
    return n;
}
