#include "vbt_log.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

vbt_log_level_t vbt_log_level = VBT_LOG_WARN;

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};
static char log_host[64];
static char log_component[32] = "verbatim";
static int log_rank = -1;

int vbt_log_level_parse(const char *name)
{
    for (unsigned i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
        if (strcasecmp(name, level_names[i]) == 0)
            return (int)i;
    }
    return -1;
}

const char *vbt_log_level_name(vbt_log_level_t level)
{
    return level_names[level];
}

void vbt_log_set_identity(const char *component, int rank)
{
    if (component != NULL)
        snprintf(log_component, sizeof(log_component), "%s", component);
    log_rank = rank;
}

void vbt_log_emit(vbt_log_level_t level, const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    char prefix[160];
    const char *base = strrchr(file, '/');
    va_list ap;

    if (log_host[0] == '\0' && gethostname(log_host, sizeof(log_host) - 1) != 0)
        snprintf(log_host, sizeof(log_host), "?");
    if (log_rank >= 0)
        snprintf(prefix, sizeof(prefix), "[%s:%d:%d]", log_host, (int)getpid(), log_rank);
    else
        snprintf(prefix, sizeof(prefix), "[%s:%d:%s]", log_host, (int)getpid(), log_component);

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* One fprintf per line so lines from threads or ranks sharing a pipe do not interleave. */
    fprintf(stderr, "%s %s:%d %-5s %s\n", prefix, base ? base + 1 : file, line, level_names[level],
            msg);
}
