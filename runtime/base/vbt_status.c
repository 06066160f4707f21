#include "vbt_status.h"

const char *vbt_status_string(vbt_status_t status)
{
    switch (status) {
    case VBT_OK:
        return "success";
    case VBT_INPROGRESS:
        return "operation in progress";
    case VBT_ERR_NO_RESOURCE:
        return "resources temporarily exhausted";
    case VBT_ERR_NO_MEMORY:
        return "out of memory";
    case VBT_ERR_INVALID_PARAM:
        return "invalid parameter";
    case VBT_ERR_NOT_FOUND:
        return "not found";
    case VBT_ERR_UNREACHABLE:
        return "unreachable";
    case VBT_ERR_IO:
        return "input/output error";
    case VBT_ERR_TRUNCATE:
        return "message truncated";
    case VBT_ERR_UNSUPPORTED:
        return "not supported";
    case VBT_ERR_TIMED_OUT:
        return "timed out";
    case VBT_ERR_PEER_FAILED:
        return "peer failed";
    case VBT_ERR_PMIX:
        return "process-management (PMIx) error";
    case VBT_ERR_ABORTED:
        return "aborted";
    case VBT_ERR_NO_DEVICE:
        return "no usable RDMA device";
    case VBT_ERR_MEMLOCK:
        return "locked-memory limit too small";
    }
    return "unknown status";
}
