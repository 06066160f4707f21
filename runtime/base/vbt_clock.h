/* The monotonic clock, for timeouts, deadlines, back-off and MPI_Wtime: one definition for
 * every layer. Inline: clock_gettime(CLOCK_MONOTONIC) is a vDSO call, no system call, and a
 * wait loop may read it often. */
#ifndef VBT_CLOCK_H
#define VBT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds of CLOCK_MONOTONIC. */
static inline uint64_t vbt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static inline uint64_t vbt_now_ms(void)
{
    return vbt_now_ns() / 1000000u;
}

#endif
