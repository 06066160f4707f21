/* Memory events for the registration cache: libverbatim interposes free, realloc, munmap,
 * mremap, madvise, mmap (MAP_FIXED), brk, sbrk and shmdt, and records every range whose pages
 * may be about to change, BEFORE the memory is released. The reasoning is at the top of
 * vbt_memhook.c.
 *
 * Producers: any thread, inside the hooks (lock-free, no allocation, no syscall of ours).
 * Consumer: the one registration cache that subscribed, on the MPI thread. */
#ifndef VBT_MEMHOOK_H
#define VBT_MEMHOOK_H

#include <stddef.h>
#include <stdint.h>

/* Start recording (the queue is emptied): 1, or 0 when another subscriber holds the hooks
 * (one at a time: the queue has one consumer). Stop: only the subscriber that started does. */
int vbt_memhook_subscribe(void);
void vbt_memhook_unsubscribe(void);

/* The address span [lo, hi) the subscriber has registrations in: events wholly outside it are
 * not recorded (the cheap case for every other free). lo == hi: nothing registered. */
void vbt_memhook_set_span(uintptr_t lo, uintptr_t hi);

typedef void (*vbt_memhook_fn_t)(void *arg, uintptr_t start, uintptr_t end);

/* Hand every recorded range, in order, to fn. A lost event (the queue overflowed, or a
 * producer is stuck between claiming a slot and filling it) is reported as [0, UINTPTR_MAX):
 * everything may have changed. Cheap when nothing is recorded. Returns the ranges handed. */
size_t vbt_memhook_drain(vbt_memhook_fn_t fn, void *arg);

/* Events recorded and dropped (queue full) since the subscription, for tests and debug. */
void vbt_memhook_counts(uint64_t *recorded_p, uint64_t *overflows_p);

#endif
