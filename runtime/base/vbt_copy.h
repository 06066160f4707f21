/* Copies of a few bytes on the message path: a 32-byte header and an 8-byte payload are the
 * common case, and libc's memcpy costs a call, its size dispatch and a return for them. Up to
 * 32 bytes the copy is two overlapping loads and stores of the largest width that fits, the
 * way libc does it inside its own dispatch; above that, memcpy. */
#ifndef VBT_COPY_H
#define VBT_COPY_H

#include <stddef.h>
#include <string.h>

#include "vbt_compiler.h"

static inline void vbt_copy(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;

    if (likely(n <= 32)) {
        if (n >= 16) {
            /* first 16 and last 16 (they overlap below 32) */
            char a[16], b[16];
            __builtin_memcpy(a, s, 16);
            __builtin_memcpy(b, s + n - 16, 16);
            __builtin_memcpy(d, a, 16);
            __builtin_memcpy(d + n - 16, b, 16);
        } else if (n >= 8) {
            char a[8], b[8];
            __builtin_memcpy(a, s, 8);
            __builtin_memcpy(b, s + n - 8, 8);
            __builtin_memcpy(d, a, 8);
            __builtin_memcpy(d + n - 8, b, 8);
        } else if (n >= 4) {
            char a[4], b[4];
            __builtin_memcpy(a, s, 4);
            __builtin_memcpy(b, s + n - 4, 4);
            __builtin_memcpy(d, a, 4);
            __builtin_memcpy(d + n - 4, b, 4);
        } else if (n > 0) { /* 1 to 3: first, middle, last */
            char a = s[0], b = s[n / 2], c = s[n - 1];
            d[0] = a;
            d[n / 2] = b;
            d[n - 1] = c;
        }
        return;
    }
    memcpy(d, s, n);
}

#endif
