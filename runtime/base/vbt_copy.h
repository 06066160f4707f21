/* Copies of a few bytes on the message path: a 32-byte header and an 8-byte payload are the
 * common case, and libc's memcpy costs a call, its size dispatch and a return for them. Up to
 * 32 bytes the copy is two overlapping loads and stores of the largest width that fits, the
 * way libc does it inside its own dispatch; above that, memcpy. */
#ifndef VBT_COPY_H
#define VBT_COPY_H

#include <stddef.h>
#include <string.h>

#include "vbt_compiler.h"

/* n in [w, 2w]: the first w bytes and the last w (below 2w they overlap and the overlap is
 * written twice with the same bytes). w is a constant where this is inlined, so each half is
 * one load and one store of that width. */
static VBT_ALWAYS_INLINE void vbt_copy_ends(char *d, const char *s, size_t n, size_t w)
{
    char a[16], b[16];

    __builtin_memcpy(a, s, w);
    __builtin_memcpy(b, s + n - w, w);
    __builtin_memcpy(d, a, w);
    __builtin_memcpy(d + n - w, b, w);
}

static inline void vbt_copy(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;

    if (likely(n <= 32)) {
        if (n >= 16)
            vbt_copy_ends(d, s, n, 16);
        else if (n >= 8)
            vbt_copy_ends(d, s, n, 8);
        else if (n >= 4)
            vbt_copy_ends(d, s, n, 4);
        else if (n > 0) { /* 1 to 3: first, middle, last */
            char x = s[0], y = s[n / 2], z = s[n - 1];
            d[0] = x;
            d[n / 2] = y;
            d[n - 1] = z;
        }
        return;
    }
    memcpy(d, s, n);
}

#endif
