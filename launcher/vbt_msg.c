#include "vbt_msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char msg_program[64] = "mpirun";
static char msg_host[256] = "localhost";

void vbt_msg_init(const char *argv0)
{
    const char *base = argv0 != NULL ? strrchr(argv0, '/') : NULL;

    if (argv0 != NULL && *argv0 != '\0')
        snprintf(msg_program, sizeof(msg_program), "%s", base != NULL ? base + 1 : argv0);
    if (gethostname(msg_host, sizeof(msg_host) - 1) != 0)
        snprintf(msg_host, sizeof(msg_host), "localhost");
    msg_host[sizeof(msg_host) - 1] = '\0';
}

const char *vbt_msg_program(void)
{
    return msg_program;
}

const char *vbt_msg_host(void)
{
    return msg_host;
}

void vbt_msg_print(const char *fmt, ...)
{
    char line[2048];
    size_t len, off = 0;
    int n;
    va_list ap;

    n = snprintf(line, sizeof(line), "%s: ", msg_program);
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    len = strlen(line);
    line[len++] = '\n';
    while (off < len) {
        ssize_t w = write(STDERR_FILENO, line + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* stderr is gone: nowhere left to report */
        off += (size_t)w;
    }
}
