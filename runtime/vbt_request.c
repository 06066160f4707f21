#include "vbt_request.h"
#include "vbt_datatype.h"

#include <stdlib.h>
#include <string.h>

#define VBT_REQUEST_CHUNK 128

typedef struct request_chunk {
    struct request_chunk *next;
    vbt_request_t reqs[VBT_REQUEST_CHUNK];
} request_chunk_t;

static vbt_request_t *free_list;
static request_chunk_t *chunks;

static int grow(void)
{
    request_chunk_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return -1;
    c->next = chunks;
    chunks = c;
    for (int i = VBT_REQUEST_CHUNK - 1; i >= 0; i--) {
        c->reqs[i].next = free_list;
        free_list = &c->reqs[i];
    }
    return 0;
}

vbt_request_t *vbt_request_alloc(vbt_req_kind_t kind)
{
    vbt_request_t *req;

    if (__builtin_expect(free_list == NULL, 0) && grow() != 0)
        return NULL;
    req = free_list;
    free_list = req->next;
    memset(req, 0, sizeof(*req));
    req->magic = VBT_REQUEST_MAGIC;
    req->kind = (uint8_t)kind;
    return req;
}

void vbt_request_release(vbt_request_t *req)
{
    if (req->dtype != NULL) /* MPI_Type_free may have come while the operation was pending */
        vbt_dtype_unref(req->dtype);
    req->magic = 0; /* a stale handle now fails validation instead of aliasing a new request */
    req->next = free_list;
    free_list = req;
}

void vbt_request_cleanup(void)
{
    while (chunks != NULL) {
        request_chunk_t *c = chunks;
        chunks = c->next;
        free(c);
    }
    free_list = NULL;
}

int vbt_request_uses_comm(const struct vbt_comm *comm)
{
    for (request_chunk_t *c = chunks; c != NULL; c = c->next) {
        for (int i = 0; i < VBT_REQUEST_CHUNK; i++) {
            if (c->reqs[i].magic == VBT_REQUEST_MAGIC && c->reqs[i].comm == comm)
                return 1;
        }
    }
    return 0;
}

/* MPI_Status has five internal ints: the byte count (64 bits in two) and the cancelled flag. */
void vbt_status_set_bytes(MPI_Status *status, size_t bytes, int cancelled)
{
    status->MPI_internal[0] = (int)(uint32_t)(bytes & 0xffffffffu);
    status->MPI_internal[1] = (int)(uint32_t)((uint64_t)bytes >> 32);
    status->MPI_internal[2] = cancelled;
}

size_t vbt_status_get_bytes(const MPI_Status *status)
{
    return (size_t)((uint64_t)(uint32_t)status->MPI_internal[0] |
                    ((uint64_t)(uint32_t)status->MPI_internal[1] << 32));
}

int vbt_status_get_cancelled(const MPI_Status *status)
{
    return status->MPI_internal[2];
}

void vbt_request_fill_status(const vbt_request_t *req, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = req->status_source;
    status->MPI_TAG = req->status_tag;
    status->MPI_ERROR = req->status_error;
    vbt_status_set_bytes(status, req->status_bytes, (req->flags & VBT_REQF_CANCELLED) != 0);
}
