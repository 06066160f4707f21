/* The futex word's slow paths (vbt_lock.h): a thread that found the lock held sleeps in the
 * kernel until the holder's drop wakes it. */
#include "vbt_lock.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void vbt_futex_lock_wait(uint32_t *word, uint32_t c)
{
    /* Mark it contended (2) so that the holder's drop wakes a sleeper; an exchange that finds it
     * free (0) has taken it, marked contended, which costs at most one needless wake. */
    if (c != 2)
        c = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
    while (c != 0) {
        /* Returns at once if the word is no longer 2, and on a signal: both retry. */
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
        c = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
    }
}

void vbt_futex_wake(uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
