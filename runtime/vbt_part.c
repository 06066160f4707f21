/* Partitioned communication: the pairing handshake and the epochs (vbt_part.h says how). */
#include "vbt_part.h"
#include "vbt_datatype.h"
#include "vbt_error.h"
#include "vbt_log.h"
#include "vbt_p2p.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define TAG_BASE              16
#define TAG_SETUP(tag)        (-TAG_BASE - (tag))
#define LANES                 128 /* data tags per request (vbt_part.h) */
#define TAG_DATA(index, unit) (-TAG_BASE - (1 << 30) - (int)(index)*LANES - (int)((unit) % LANES))
#define INDEX_MAX             (1u << 22) /* requests in the pool at most (vbt_request.c) */

static void on_setup(vbt_request_t *setup, void *arg);
static vbt_status_t pair(vbt_request_t *req);
static vbt_status_t make_units(vbt_part_t *p, int units, size_t unit_bytes);

static int index_of(const vbt_request_t *req)
{
    return (int)vbt_objpool_index(&vbt_request_pool, req, sizeof(vbt_request_t));
}

static void set_error(vbt_part_t *p, int err)
{
    if (p->error == MPI_SUCCESS)
        p->error = err;
}

static void fail(vbt_part_t *p, vbt_status_t st)
{
    set_error(p, vbt_status_to_errclass(st));
}

vbt_status_t vbt_part_create(vbt_comm_t *comm, int is_send, void *buf, int partitions, size_t count,
                             size_t part_bytes, struct vbt_dtype *dtype, ptrdiff_t extent, int peer,
                             int tag, vbt_request_t **req_p)
{
    vbt_request_t *req = vbt_request_alloc(VBT_REQ_PART);
    vbt_part_t *p;

    if (req == NULL)
        return VBT_ERR_NO_MEMORY;
    p = calloc(1, sizeof(*p));
    if (p == NULL)
        goto err_release;
    /* Per-partition state lives as long as the request: nothing is allocated per epoch. */
    p->ready = calloc((size_t)partitions + 1, 1);
    if (p->ready == NULL)
        goto err_free;
    p->is_send = is_send;
    p->partitions = partitions;
    p->part_bytes = part_bytes;
    p->count = count;
    p->buf = buf;
    p->dtype = dtype;
    p->extent = extent;
    p->error = MPI_SUCCESS;
    if (dtype != NULL)
        vbt_dtype_ref(dtype);
    req->comm = comm;
    req->peer = peer;
    req->tag = tag;
    req->flags = VBT_REQF_PERSISTENT;
    req->complete = 1;
    req->status_source = MPI_ANY_SOURCE;
    req->status_tag = MPI_ANY_TAG;
    req->x.part = p;
    if (peer != MPI_PROC_NULL) {
        vbt_status_t st = pair(req);
        if (st != VBT_OK) {
            vbt_part_destroy(req);
            return st;
        }
    }
    *req_p = req;
    return VBT_OK;

err_free:
    free(p);
err_release:
    vbt_request_release(req);
    return VBT_ERR_NO_MEMORY;
}

/* Both sides know the units now: make their arrays (once, at the first epoch). */
static vbt_status_t make_units(vbt_part_t *p, int units, size_t unit_bytes)
{
    p->units = units;
    p->unit_bytes = unit_bytes;
    p->unit_req = calloc((size_t)units + 1, sizeof(*p->unit_req));
    p->unit_done = calloc((size_t)units + 1, 1);
    if (p->unit_req == NULL || p->unit_done == NULL)
        return VBT_ERR_NO_MEMORY;
    if (p->is_send) {
        p->sent = calloc((size_t)units + 1, 1);
        if (p->sent == NULL)
            return VBT_ERR_NO_MEMORY;
    }
    if (!p->is_send && p->dtype != NULL && units > 0 && unit_bytes > 0) {
        p->staging = malloc((size_t)units * unit_bytes);
        if (p->staging == NULL)
            return VBT_ERR_NO_MEMORY;
    }
    return VBT_OK;
}

/* Receive side: post one receive per sender partition, in order. */
static void post_receives(vbt_request_t *req)
{
    vbt_part_t *p = req->x.part;
    char *base = p->dtype != NULL ? p->staging : p->buf;
    vbt_status_t st;

    for (int u = 0; u < p->units; u++) {
        p->unit_done[u] = 0;
        if (p->drain)
            st = vbt_p2p_irecv(req->comm, VBT_CTX_P2P, NULL, 0, req->peer,
                               TAG_DATA(p->data_index, u), &p->unit_req[u]);
        else
            st = vbt_p2p_irecv(req->comm, VBT_CTX_P2P, base + (size_t)u * p->unit_bytes,
                               p->unit_bytes, req->peer, TAG_DATA(p->data_index, u),
                               &p->unit_req[u]);
        if (st != VBT_OK) {
            fail(p, st);
            p->unit_req[u] = NULL;
            p->unit_done[u] = 1;
        }
    }
}

static void reset_epoch(vbt_part_t *p)
{
    p->error = p->pair_error; /* a failed pairing fails every epoch */
    memset(p->ready, 0, (size_t)p->partitions);
    if (p->sent != NULL)
        memset(p->sent, 0, (size_t)p->partitions);
    if (p->unit_done != NULL)
        memset(p->unit_done, 0, (size_t)p->units);
}

vbt_status_t vbt_part_start(vbt_request_t *req)
{
    vbt_part_t *p = req->x.part;

    reset_epoch(p);
    req->complete = 0;
    req->flags |= VBT_REQF_ACTIVE;
    req->status_error = MPI_SUCCESS;
    req->status_bytes = 0;
    if (req->peer == MPI_PROC_NULL) {
        req->status_source = MPI_PROC_NULL;
        req->status_tag = MPI_ANY_TAG;
        req->complete = 1;
        return VBT_OK;
    }
    req->status_source = p->is_send ? MPI_ANY_SOURCE : req->peer;
    req->status_tag = p->is_send ? MPI_ANY_TAG : req->tag;
    /* A receive still waiting for its SETUP: on_setup posts the receives when it comes. */
    if (!p->is_send && p->state == VBT_PART_MATCHED)
        post_receives(req);
    return VBT_OK;
}

/* Pair the request with its peer's, at initialization: MPI-4.1 4.2 matches partitioned
 * requests in the order of their initialization calls, and one sender's SETUP messages to one
 * (communicator, tag) cannot overtake each other, nor the receives posted for them. */
static vbt_status_t pair(vbt_request_t *req)
{
    vbt_part_t *p = req->x.part;
    vbt_status_t st;

    if (p->is_send) {
        p->setup_msg[0] = (uint64_t)p->partitions;
        p->setup_msg[1] = (uint64_t)p->part_bytes;
        p->setup_msg[2] = (uint64_t)index_of(req);
        p->data_index = index_of(req);
        st = make_units(p, p->partitions, p->part_bytes);
        if (st != VBT_OK)
            return st;
        st = vbt_p2p_isend(req->comm, VBT_CTX_P2P, p->setup_msg, sizeof(p->setup_msg), req->peer,
                           TAG_SETUP(req->tag), 0, &p->setup);
        if (st != VBT_OK)
            return st;
        p->state = VBT_PART_MATCHED;
        return VBT_OK;
    }
    /* The receives go up as soon as the SETUP is in, from the progress call that takes it
     * (on_setup), so that the sender's Wait completes however the receiver waits. */
    p->state = VBT_PART_SETUP;
    st = vbt_p2p_irecv(req->comm, VBT_CTX_P2P, p->setup_msg, sizeof(p->setup_msg), req->peer,
                       TAG_SETUP(req->tag), &p->setup);
    if (st != VBT_OK)
        return st;
    p->setup->x.notify.fn = on_setup;
    p->setup->x.notify.arg = req;
    p->setup->flags |= VBT_REQF_NOTIFY;
    if (p->setup->complete) /* it was there already: done before the flag was set */
        on_setup(p->setup, req);
    return VBT_OK;
}

/* Receive side: the sender's SETUP arrived (decoded defensively). Post the epoch's receives if
 * the request is started (it may come before the first MPI_Start). */
static void on_setup(vbt_request_t *setup, void *arg)
{
    vbt_request_t *req = arg;
    vbt_part_t *p = req->x.part;
    uint64_t units = p->setup_msg[0], unit_bytes = p->setup_msg[1], index = p->setup_msg[2];
    size_t total = (size_t)p->partitions * p->part_bytes;
    int sane = setup->status_error == MPI_SUCCESS && setup->status_bytes == sizeof(p->setup_msg) &&
               index < INDEX_MAX && units <= 0x7fffffff &&
               (unit_bytes == 0 || units <= (1ull << 62) / unit_bytes);
    vbt_status_t st;

    vbt_request_release(p->setup);
    p->setup = NULL;
    p->state = VBT_PART_MATCHED;
    if (!sane) {
        vbt_error("partitioned receive from rank %d tag %d: the sender's setup message is "
                  "malformed; the request fails",
                  req->peer, req->tag);
        p->pair_error = MPI_ERR_INTERN;
        set_error(p, MPI_ERR_INTERN);
        p->units = 0;
        return;
    }
    p->data_index = (int)index;
    if (units * unit_bytes != total) {
        vbt_error("partitioned receive from rank %d tag %d: the sender sends %llu partitions of "
                  "%llu bytes, but this receive takes %d of %zu bytes (%zu in all): the type "
                  "signatures of MPI_Psend_init and MPI_Precv_init must agree",
                  req->peer, req->tag, (unsigned long long)units, (unsigned long long)unit_bytes,
                  p->partitions, p->part_bytes, total);
        p->drain = 1;
        unit_bytes = 0;
    }
    st = make_units(p, (int)units, (size_t)unit_bytes);
    if (st != VBT_OK) {
        p->pair_error = vbt_status_to_errclass(st);
        fail(p, st);
        p->units = 0;
        return;
    }
    if (req->flags & VBT_REQF_ACTIVE) /* else the start posts them */
        post_receives(req);
}

/* Partition u was readied: send it, and the ones readied after it on its lane that waited
 * for it, unless one before it on its lane is still to go (whose send takes u along). */
static void send_unit(vbt_request_t *req, int u)
{
    vbt_part_t *p = req->x.part;
    const char *base = p->buf;
    vbt_status_t st;

    if (u >= LANES && !p->sent[u - LANES])
        return;
    for (; u < p->units && p->ready[u] && !p->sent[u]; u += LANES) {
        p->sent[u] = 1;
        if (p->dtype == NULL)
            st = vbt_p2p_isend(req->comm, VBT_CTX_P2P, base + (size_t)u * p->part_bytes,
                               p->part_bytes, req->peer, TAG_DATA(p->data_index, u), 0,
                               &p->unit_req[u]);
        else
            st = vbt_p2p_isend_dt(req->comm, VBT_CTX_P2P,
                                  base + (ptrdiff_t)u * (ptrdiff_t)p->count * p->extent,
                                  p->part_bytes, p->dtype, p->count, req->peer,
                                  TAG_DATA(p->data_index, u), 0, &p->unit_req[u]);
        if (st != VBT_OK) {
            fail(p, st);
            p->unit_req[u] = NULL;
            p->unit_done[u] = 1;
        }
    }
}

/* Reap the units whose transfer finished; returns how many are done. */
static int reap_units(vbt_request_t *req)
{
    vbt_part_t *p = req->x.part;
    int done = 0;

    for (int u = 0; u < p->units; u++) {
        vbt_request_t *r = p->unit_req[u];
        if (r != NULL && r->complete) {
            if (p->drain)
                set_error(p, MPI_ERR_TRUNCATE);
            else if (r->status_error != MPI_SUCCESS)
                set_error(p, r->status_error);
            else if (!p->is_send && p->staging != NULL)
                vbt_dtype_unpack(p->dtype, p->buf, (size_t)p->partitions * p->count,
                                 (size_t)u * p->unit_bytes,
                                 (char *)p->staging + (size_t)u * p->unit_bytes, p->unit_bytes);
            vbt_request_release(r);
            p->unit_req[u] = NULL;
            p->unit_done[u] = 1;
        }
        done += p->unit_done[u];
    }
    return done;
}

int vbt_part_poll(vbt_request_t *req)
{
    vbt_part_t *p = req->x.part;
    int done;

    if (req->complete)
        return 1;
    if (p->state == VBT_PART_SETUP) /* on_setup runs from the progress call */
        return 0;
    done = reap_units(req);
    if (p->is_send && p->setup != NULL && p->setup->complete) { /* the first epoch's SETUP */
        if (p->setup->status_error != MPI_SUCCESS)
            set_error(p, p->setup->status_error);
        vbt_request_release(p->setup);
        p->setup = NULL;
    }
    if (done < p->units || p->setup != NULL)
        return 0;
    if (p->drain)
        set_error(p, MPI_ERR_TRUNCATE);
    req->status_error = p->error;
    req->status_bytes =
        p->is_send || p->error != MPI_SUCCESS ? 0 : (size_t)p->partitions * p->part_bytes;
    req->complete = 1;
    return 1;
}

void vbt_part_ready(vbt_request_t *req, int part)
{
    vbt_part_t *p = req->x.part;

    p->ready[part] = 1;
    send_unit(req, part);
}

int vbt_part_arrived(vbt_request_t *req, int part)
{
    vbt_part_t *p = req->x.part;
    size_t lo, hi;

    if (req->complete)
        return 1;
    (void)vbt_p2p_progress();
    if (vbt_part_poll(req))
        return 1;
    if (p->state != VBT_PART_MATCHED || p->unit_bytes == 0 || p->part_bytes == 0)
        return 0;
    lo = (size_t)part * p->part_bytes / p->unit_bytes;
    hi = ((size_t)part + 1) * p->part_bytes - 1;
    hi /= p->unit_bytes;
    for (size_t u = lo; u <= hi && u < (size_t)p->units; u++) {
        if (!p->unit_done[u])
            return 0;
    }
    return 1;
}

void vbt_part_destroy(vbt_request_t *req)
{
    vbt_part_t *p = req->x.part;

    /* Inactive or complete: at most a sender's SETUP still under way (it finishes alone), or a
     * receive's SETUP receive that never matched (freed before its sender came: recalled, so
     * that it neither takes another pair's SETUP nor calls back into this request). */
    if (p->setup != NULL) {
        if (!p->is_send) {
            p->setup->flags &= (uint16_t)~VBT_REQF_NOTIFY;
            vbt_p2p_cancel(p->setup);
        }
        if (p->setup->complete)
            vbt_request_release(p->setup);
        else
            p->setup->flags |= VBT_REQF_FREED;
    }
    if (p->dtype != NULL)
        vbt_dtype_unref(p->dtype);
    free(p->staging);
    free(p->unit_req);
    free(p->unit_done);
    free(p->ready);
    free(p->sent);
    free(p);
    req->x.part = NULL;
    vbt_request_release(req);
}
