/* The one helper that turns libibverbs' return conventions into vbt_status_t with a logged
 * reason. libibverbs mixes four: object creators return NULL with errno set; ibv_modify_qp,
 * ibv_post_*, ibv_query_port return an errno value; ibv_query_gid, ibv_get_cq_event return -1
 * with errno set; ibv_query_gid_table returns a negative errno. Callers use the
 * vbt_ib_check_rc / vbt_ib_check_ptr macros of vbt_ib_int.h, which capture errno at once. */
#include "vbt_ib_int.h"
#include "vbt_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static vbt_status_t errno_to_status(int err)
{
    switch (err) {
    case ENOMEM:
        return VBT_ERR_NO_MEMORY;
    case EAGAIN:
    case ENOBUFS:
    case ENOSPC:
        return VBT_ERR_NO_RESOURCE;
    case EINVAL:
    case ERANGE:
        return VBT_ERR_INVALID_PARAM;
    case ENODEV:
    case ENXIO:
        return VBT_ERR_NO_DEVICE;
    case ENOENT:
        return VBT_ERR_NOT_FOUND;
    case ETIMEDOUT:
        return VBT_ERR_TIMED_OUT;
    case EOPNOTSUPP:
    case ENOSYS:
        return VBT_ERR_UNSUPPORTED;
    default:
        return VBT_ERR_IO;
    }
}

vbt_status_t vbt_ib_verbs_status(long rc, int saved_errno, unsigned flags, const char *file,
                                 int line, const char *fmt, ...)
{
    char what[256], hint[512] = "";
    vbt_log_level_t level = (flags & VBT_IB_PROBE) ? VBT_LOG_DEBUG : VBT_LOG_ERROR;
    vbt_status_t status;
    va_list ap;
    int err;

    if (rc > 0)
        err = (int)rc; /* an errno value */
    else if (rc == -1)
        err = saved_errno; /* -1 with errno set */
    else
        err = (int)-rc; /* a negative errno */
    if (err <= 0)
        err = EIO; /* a provider that failed without saying why */
    status = errno_to_status(err);

    if (err == ENOMEM && (flags & VBT_IB_PINS)) {
        size_t n = (size_t)snprintf(hint, sizeof(hint), ": ");
        if (vbt_ib_memlock_explain(hint + n, sizeof(hint) - n))
            status = VBT_ERR_MEMLOCK;
    }

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (level <= VBT_LOG_CEILING && level <= vbt_log_level)
        vbt_log_emit(level, file, line, "%s failed: %s (errno %d)%s", what, strerror(err), err,
                     hint);
    return status;
}
