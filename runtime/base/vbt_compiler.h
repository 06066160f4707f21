/* Compiler hints for the few branches of the fast path. */
#ifndef VBT_COMPILER_H
#define VBT_COMPILER_H

#define likely(_x)   __builtin_expect(!!(_x), 1)
#define unlikely(_x) __builtin_expect(!!(_x), 0)

#define VBT_STRINGIFY_(_x) #_x
#define VBT_STRINGIFY(_x)  VBT_STRINGIFY_(_x)

#endif
