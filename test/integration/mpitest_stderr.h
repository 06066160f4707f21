/* For tests that check an error's message: mpitest_capture_stderr. Apart from mpitest.h because
 * it needs <unistd.h>, whose names (dup...) some tests use for their own. */
#ifndef MPITEST_STDERR_H
#define MPITEST_STDERR_H

#include "mpitest.h"

#include <unistd.h>

/* Run call with stderr (where the error path logs its message) captured in out. */
static inline int mpitest_capture_stderr(int (*call)(void), char *out, size_t cap)
{
    FILE *f = tmpfile();
    int saved, rc;
    size_t n;

    if (f == NULL)
        FAIL("tmpfile failed");
    fflush(stderr);
    saved = dup(2);
    dup2(fileno(f), 2);
    rc = call();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    fclose(f);
    return rc;
}

#endif
