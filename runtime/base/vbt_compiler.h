/* Compiler hints for the few branches of the fast path, and for what lies off it. */
#ifndef VBT_COMPILER_H
#define VBT_COMPILER_H

#define likely(_x)   __builtin_expect(!!(_x), 1)
#define unlikely(_x) __builtin_expect(!!(_x), 0)

/* Error handling and other rare work called from the fast path: kept out of line, and its
 * callers' branches towards it laid out as unlikely. */
#define VBT_NOINLINE_COLD __attribute__((noinline, cold))

/* A layer of the 8-byte path folded into its caller: the call and its register saves cost
 * more than the layer's own work. */
#define VBT_ALWAYS_INLINE inline __attribute__((always_inline))

/* Tell the CPU we are spinning (saves power, frees the sibling hyper-thread). */
#if defined(__x86_64__) || defined(__i386__)
#define vbt_cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define vbt_cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define vbt_cpu_relax() __asm__ __volatile__("" ::: "memory")
#endif

#define VBT_STRINGIFY_(_x) #_x
#define VBT_STRINGIFY(_x)  VBT_STRINGIFY_(_x)

#endif
