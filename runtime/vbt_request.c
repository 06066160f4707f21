#include "vbt_runtime.h"
#include "vbt_request.h"
#include "vbt_compiler.h"
#include "vbt_datatype.h"

#include <stdlib.h>
#include <string.h>

/* Every request, live or free, is object number index of the pool. So an MPI_Request is checked
 * by address and an id from the wire by index, neither followed blindly. Requests outstanding at
 * once: 4 Mi (1 GiB of address space at 256 bytes apart, mapped as they come). */
vbt_objpool_t vbt_request_pool = VBT_OBJPOOL_INITIALIZER(vbt_request_t, "request", 1u << 22, next);

vbt_request_t *vbt_request_from_id(uint64_t id)
{
    uint32_t index = (uint32_t)id, gen = (uint32_t)(id >> 32);
    vbt_request_t *req;

    req = vbt_objpool_at(&vbt_request_pool, index, sizeof(vbt_request_t));
    if (unlikely(req == NULL || req->gen != gen || req->magic != VBT_REQUEST_MAGIC))
        return NULL;
    return req;
}

vbt_request_t *vbt_request_alloc_held(vbt_req_kind_t kind)
{
    vbt_request_t *req = vbt_objpool_alloc(&vbt_request_pool); /* logs why when it cannot */
    uint32_t gen;

    if (unlikely(req == NULL))
        return NULL;
    gen = vbt_request_next_gen(req);
    memset(req, 0, sizeof(*req));
    req->magic = VBT_REQUEST_MAGIC;
    req->kind = (uint8_t)kind;
    req->gen = gen;
    return req;
}

vbt_request_t *vbt_request_refill(vbt_vci_t *vci)
{
    vbt_vci_head_t *h = vbt_vci_head(vci);
    vbt_request_t *req = vbt_objpool_alloc(&vbt_request_pool); /* logs why when it cannot */

    if (unlikely(req == NULL))
        return NULL;
    /* The rest only if the pool has them to spare or can carve them. */
    for (int i = 1; i < VBT_REQUEST_REFILL; i++) {
        vbt_request_t *r = vbt_objpool_alloc(&vbt_request_pool);
        if (r == NULL)
            break;
        r->next = h->req_free;
        h->req_free = r;
    }
    return req;
}

vbt_request_t *vbt_request_alloc_vci(vbt_vci_t *vci, vbt_req_kind_t kind)
{
    vbt_request_t *req = vbt_request_take(vci, kind);
    uint32_t gen;

    if (unlikely(req == NULL))
        return NULL;
    gen = req->gen;
    memset(req, 0, sizeof(*req));
    req->magic = VBT_REQUEST_MAGIC;
    req->kind = (uint8_t)kind;
    req->gen = gen;
    req->vci = vci;
    return req;
}

vbt_request_t *vbt_request_alloc(vbt_req_kind_t kind)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs); /* the engine's queues and the transports */
    return vbt_request_alloc_held(kind);
}

void vbt_request_release_parts(vbt_request_t *req)
{
    if (req->release_fn != NULL) /* a collective's schedule goes with it */
        req->release_fn(req);
    if (req->dtype != NULL) /* MPI_Type_free may have come while the operation was pending */
        vbt_dtype_unref(req->dtype);
    if (unlikely(req->flags & VBT_REQF_TMPBUF)) /* MPI_Isendrecv_replace's packed copy */
        free((void *)(uintptr_t)req->bsend_block);
    vbt_request_free_slot(req);
}

void vbt_request_release(vbt_request_t *req)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs); /* the engine's queues and the transports */
    vbt_request_release_held(req);
}

void vbt_request_cleanup(void)
{
    vbt_objpool_destroy(&vbt_request_pool);
}

int vbt_request_uses_comm(const struct vbt_comm *comm)
{
    VBT_OBJPOOL_FOREACH(&vbt_request_pool, vbt_request_t, req, VBT_REQUEST_MAGIC)
    {
        if (req->comm == comm)
            return 1;
    }
    return 0;
}

/* MPI_Status has five internal ints: the byte count (64 bits in two) and the cancelled flag. */
size_t vbt_status_get_bytes(const MPI_Status *status)
{
    return (size_t)((uint64_t)(uint32_t)status->MPI_internal[0] |
                    ((uint64_t)(uint32_t)status->MPI_internal[1] << 32));
}

int vbt_status_get_cancelled(const MPI_Status *status)
{
    return status->MPI_internal[2];
}
