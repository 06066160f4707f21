/* Internal status codes: every internal function that can fail returns one. Public calls turn
 * them into MPI error classes at one boundary (runtime/vbt_error.c). */
#ifndef VBT_STATUS_H
#define VBT_STATUS_H

typedef enum {
    VBT_OK = 0,
    VBT_INPROGRESS = 1,       /* started, completes later */
    VBT_ERR_NO_RESOURCE = -1, /* back-pressure: try again after progress */
    VBT_ERR_NO_MEMORY = -2,
    VBT_ERR_INVALID_PARAM = -3,
    VBT_ERR_NOT_FOUND = -4,
    VBT_ERR_UNREACHABLE = -5, /* peer or server cannot be reached */
    VBT_ERR_IO = -6,          /* a syscall or device operation failed */
    VBT_ERR_TRUNCATE = -7,    /* message longer than the receive buffer */
    VBT_ERR_UNSUPPORTED = -8,
    VBT_ERR_TIMED_OUT = -9,
    VBT_ERR_PEER_FAILED = -10, /* completion error or connection loss towards a peer */
    VBT_ERR_PMIX = -11,        /* the process-management interface failed */
    VBT_ERR_ABORTED = -12,
    VBT_ERR_NO_DEVICE = -13, /* no usable RDMA device or port */
    VBT_ERR_MEMLOCK = -14,   /* RLIMIT_MEMLOCK too small to register memory */
} vbt_status_t;

const char *vbt_status_string(vbt_status_t status);

#endif
