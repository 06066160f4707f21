/* The one logger: levels, a runtime threshold (VBT_LOG, default warn) and a compile-time
 * ceiling (trace only with --enable-debug). Lines look like
 *   [host:pid:rank] file.c:123 warn  message
 * so output from many ranks can be told apart. */
#ifndef VBT_LOG_H
#define VBT_LOG_H

#include <stdarg.h>

typedef enum {
    VBT_LOG_ERROR = 0,
    VBT_LOG_WARN,
    VBT_LOG_INFO,
    VBT_LOG_DEBUG,
    VBT_LOG_TRACE,
} vbt_log_level_t;

#ifdef VBT_DEBUG
#define VBT_LOG_CEILING VBT_LOG_TRACE
#else
#define VBT_LOG_CEILING VBT_LOG_DEBUG
#endif

extern vbt_log_level_t vbt_log_level;

/* Parse "error|warn|info|debug|trace"; returns -1 for an unknown name. */
int vbt_log_level_parse(const char *name);
const char *vbt_log_level_name(vbt_log_level_t level);
/* Who we are, for the line prefix: rank < 0 prints no rank (launcher, tools). */
void vbt_log_set_identity(const char *component, int rank);
void vbt_log_emit(vbt_log_level_t level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define vbt_log(_level, ...)                                                                       \
    do {                                                                                           \
        if ((_level) <= VBT_LOG_CEILING && (_level) <= vbt_log_level)                              \
            vbt_log_emit((_level), __FILE__, __LINE__, __VA_ARGS__);                               \
    } while (0)

#define vbt_error(...) vbt_log(VBT_LOG_ERROR, __VA_ARGS__)
#define vbt_warn(...)  vbt_log(VBT_LOG_WARN, __VA_ARGS__)
#define vbt_info(...)  vbt_log(VBT_LOG_INFO, __VA_ARGS__)
#define vbt_debug(...) vbt_log(VBT_LOG_DEBUG, __VA_ARGS__)
#define vbt_trace(...) vbt_log(VBT_LOG_TRACE, __VA_ARGS__)

#endif
