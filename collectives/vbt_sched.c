/* The schedule engine (vbt_sched.h): building, starting, advancing from the progress hook, and
 * completing into the collective's request. */
#include "vbt_sched.h"
#include "vbt_error.h"
#include "vbt_log.h"
#include "vbt_p2p.h"

#include <stdlib.h>
#include <string.h>

typedef enum { STEP_SEND, STEP_RECV, STEP_COPY, STEP_REDUCE, STEP_CALL } step_kind_t;

typedef struct {
    uint8_t kind;
    uint8_t round_end; /* the last step of its round */
    uint8_t alt_tag;   /* carries the schedule's second tag (vbt_sched_alt_tag) */
    uint8_t local;     /* on the intercommunicator's local one (vbt_sched_local) */
    int peer;
    const void *src;
    size_t scount;
    MPI_Datatype sdt;
    void *dst;
    size_t rcount;
    MPI_Datatype rdt;
    const vbt_op_t *op;
    vbt_sched_fn *fn;
    vbt_request_t *req; /* a send's or receive's while in flight */
} step_t;

typedef struct {
    void *p;
    size_t count;
    MPI_Datatype dt;
} tmp_t;

struct vbt_sched {
    vbt_sched_t *next; /* the engine's active list, or its free list */
    vbt_comm_t *comm;
    vbt_request_t *req;
    int tag;
    step_t *steps;
    int n, cap;
    int cur, end; /* the round in flight: steps [cur, end) */
    int active;
    int busy;    /* advance() is running on it (a post may progress, which runs the hook) */
    int aborted; /* a step could not be started: the rest are not */
    int local;   /* steps being added go on comm->local (vbt_sched_local) */
    vbt_status_t status;
    tmp_t *tmps;
    int ntmp, captmp;
    vbt_dtype_t **held; /* user handles we keep alive (vbt_dtype_handle_add) */
    int nheld, capheld;
    const vbt_op_t **ops;
    int nops, capops;
    void *state;
    void (*state_free)(void *state);
};

/* The schedules of this process: those running, and spare ones whose arrays are kept. */
typedef struct {
    vbt_sched_t *active;
    vbt_sched_t *spare;
    int nspare;
} engine_t;

static engine_t engine;

#define SPARE_MAX 64

static int grow(void **arr, int *cap, int need, size_t elem)
{
    int c = *cap ? *cap : 8;
    void *p;

    if (need <= *cap)
        return 1;
    while (c < need)
        c *= 2;
    p = realloc(*arr, (size_t)c * elem);
    if (p == NULL) {
        vbt_error("collective: no memory for a schedule of %d steps", need);
        return 0;
    }
    *arr = p;
    *cap = c;
    return 1;
}

vbt_sched_t *vbt_sched_create(vbt_comm_t *comm)
{
    vbt_sched_t *s = engine.spare;

    if (s != NULL) {
        engine.spare = s->next;
        engine.nspare--;
    } else {
        s = calloc(1, sizeof(*s));
        if (s == NULL) {
            vbt_error("collective: no memory for a schedule");
            return NULL;
        }
    }
    s->next = NULL;
    s->comm = comm;
    s->req = NULL;
    s->tag = VBT_SCHED_TAG_BASE + (int)(comm->coll_seq++ & VBT_SCHED_TAG_MASK);
    s->n = s->cur = s->end = 0;
    s->active = 0;
    s->busy = 0;
    s->aborted = 0;
    s->local = 0;
    s->status = VBT_OK;
    s->ntmp = s->nheld = s->nops = 0;
    s->state = NULL;
    s->state_free = NULL;
    vbt_comm_retain(comm);
    return s;
}

void vbt_sched_destroy(vbt_sched_t *s)
{
    for (int i = 0; i < s->ntmp; i++) {
        if (s->tmps[i].dt == MPI_DATATYPE_NULL)
            free(s->tmps[i].p);
        else
            vbt_coll_tmp_free(s->tmps[i].p, s->tmps[i].count, s->tmps[i].dt);
    }
    /* Only now the types: freeing a temporary buffer reads its type. */
    for (int i = 0; i < s->nheld; i++)
        vbt_dtype_handle_free(s->held[i]);
    for (int i = 0; i < s->nops; i++)
        vbt_op_release(s->ops[i]);
    if (s->state_free != NULL)
        s->state_free(s->state);
    vbt_comm_release(s->comm);
    if (engine.nspare < SPARE_MAX) {
        s->next = engine.spare;
        engine.spare = s;
        engine.nspare++;
        return;
    }
    free(s->steps);
    free(s->tmps);
    free(s->held);
    free(s->ops);
    free(s);
}

/* Keep a derived type's handle valid for the schedule's life (the user may free it). */
static vbt_status_t hold_type(vbt_sched_t *s, MPI_Datatype dt)
{
    vbt_dtype_t *t = vbt_dtype_get(dt);

    if (t == NULL || t->predefined)
        return VBT_OK;
    for (int i = s->nheld - 1; i >= 0 && i >= s->nheld - 4; i--)
        if (s->held[i] == t)
            return VBT_OK;
    if (!grow((void **)&s->held, &s->capheld, s->nheld + 1, sizeof(*s->held)))
        return VBT_ERR_NO_MEMORY;
    vbt_dtype_handle_add(t);
    s->held[s->nheld++] = t;
    return VBT_OK;
}

static vbt_status_t hold_op(vbt_sched_t *s, const vbt_op_t *op)
{
    for (int i = 0; i < s->nops; i++)
        if (s->ops[i] == op)
            return VBT_OK;
    if (!grow((void **)&s->ops, &s->capops, s->nops + 1, sizeof(*s->ops)))
        return VBT_ERR_NO_MEMORY;
    vbt_op_retain(op);
    s->ops[s->nops++] = op;
    return VBT_OK;
}

static step_t *add(vbt_sched_t *s, step_kind_t kind)
{
    step_t *st;

    if (!grow((void **)&s->steps, &s->cap, s->n + 1, sizeof(*s->steps)))
        return NULL;
    st = &s->steps[s->n++];
    memset(st, 0, sizeof(*st));
    st->kind = (uint8_t)kind;
    st->local = (uint8_t)s->local;
    st->sdt = st->rdt = MPI_DATATYPE_NULL;
    return st;
}

vbt_status_t vbt_sched_send(vbt_sched_t *s, const void *buf, size_t count, MPI_Datatype dt,
                            int peer)
{
    step_t *st;

    if (peer == MPI_PROC_NULL)
        return VBT_OK;
    if (hold_type(s, dt) != VBT_OK || (st = add(s, STEP_SEND)) == NULL)
        return VBT_ERR_NO_MEMORY;
    st->peer = peer;
    st->src = buf;
    st->scount = count;
    st->sdt = dt;
    return VBT_OK;
}

vbt_status_t vbt_sched_recv(vbt_sched_t *s, void *buf, size_t count, MPI_Datatype dt, int peer)
{
    step_t *st;

    if (peer == MPI_PROC_NULL)
        return VBT_OK;
    if (hold_type(s, dt) != VBT_OK || (st = add(s, STEP_RECV)) == NULL)
        return VBT_ERR_NO_MEMORY;
    st->peer = peer;
    st->dst = buf;
    st->rcount = count;
    st->rdt = dt;
    return VBT_OK;
}

vbt_status_t vbt_sched_copy(vbt_sched_t *s, const void *src, size_t scount, MPI_Datatype sdt,
                            void *dst, size_t rcount, MPI_Datatype rdt)
{
    step_t *st;

    if (hold_type(s, sdt) != VBT_OK || hold_type(s, rdt) != VBT_OK ||
        (st = add(s, STEP_COPY)) == NULL)
        return VBT_ERR_NO_MEMORY;
    st->src = src;
    st->scount = scount;
    st->sdt = sdt;
    st->dst = dst;
    st->rcount = rcount;
    st->rdt = rdt;
    return VBT_OK;
}

vbt_status_t vbt_sched_reduce(vbt_sched_t *s, const vbt_op_t *op, const void *in, void *inout,
                              size_t count, MPI_Datatype dt)
{
    step_t *st;

    if (hold_type(s, dt) != VBT_OK || hold_op(s, op) != VBT_OK ||
        (st = add(s, STEP_REDUCE)) == NULL)
        return VBT_ERR_NO_MEMORY;
    st->op = op;
    st->src = in;
    st->dst = inout;
    st->scount = count;
    st->sdt = dt;
    return VBT_OK;
}

vbt_status_t vbt_sched_call(vbt_sched_t *s, vbt_sched_fn *fn, void *arg)
{
    step_t *st = add(s, STEP_CALL);

    if (st == NULL)
        return VBT_ERR_NO_MEMORY;
    st->fn = fn;
    st->dst = arg;
    return VBT_OK;
}

void vbt_sched_alt_tag(vbt_sched_t *s)
{
    if (s->n > 0)
        s->steps[s->n - 1].alt_tag = 1;
}

void vbt_sched_local(vbt_sched_t *s, int on)
{
    s->local = on && s->comm->local != NULL;
}

void vbt_sched_round(vbt_sched_t *s)
{
    if (s->n > 0)
        s->steps[s->n - 1].round_end = 1;
}

void *vbt_sched_tmp(vbt_sched_t *s, size_t count, MPI_Datatype dt)
{
    void *p;

    if (hold_type(s, dt) != VBT_OK ||
        !grow((void **)&s->tmps, &s->captmp, s->ntmp + 1, sizeof(*s->tmps)))
        return NULL;
    p = vbt_coll_tmp_alloc(count, dt);
    if (p == NULL)
        return NULL;
    s->tmps[s->ntmp++] = (tmp_t){p, count, dt};
    return p;
}

void *vbt_sched_alloc(vbt_sched_t *s, size_t bytes)
{
    void *p;

    if (!grow((void **)&s->tmps, &s->captmp, s->ntmp + 1, sizeof(*s->tmps)))
        return NULL;
    p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        vbt_error("collective: no memory for %zu bytes of a schedule", bytes);
        return NULL;
    }
    s->tmps[s->ntmp++] = (tmp_t){p, 0, MPI_DATATYPE_NULL};
    return p;
}

void vbt_sched_set_state(vbt_sched_t *s, void *state, void (*free_fn)(void *state))
{
    s->state = state;
    s->state_free = free_fn;
}

/* ---- running ------------------------------------------------------------------------------- */

static int progress_hook(void *arg);

static void list_add(vbt_sched_t *s)
{
    if (engine.active == NULL)
        vbt_p2p_hook_add(progress_hook, &engine);
    s->next = engine.active;
    engine.active = s;
    s->active = 1;
}

static void list_remove(vbt_sched_t *s)
{
    for (vbt_sched_t **pp = &engine.active; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    s->next = NULL;
    s->active = 0;
    if (engine.active == NULL)
        vbt_p2p_hook_remove(progress_hook, &engine);
}

/* Start step i; VBT_OK or why it failed. */
static vbt_status_t post(vbt_sched_t *s, int i)
{
    step_t *st = &s->steps[i];
    vbt_comm_t *c = st->local ? s->comm->local : s->comm;

    switch (st->kind) {
    case STEP_SEND:
        return vbt_coll_isend(c, st->src, st->scount, st->sdt, st->peer,
                              s->tag + (st->alt_tag ? VBT_SCHED_TAG_ALT : 0), &st->req);
    case STEP_RECV:
        return vbt_coll_irecv(c, st->dst, st->rcount, st->rdt, st->peer,
                              s->tag + (st->alt_tag ? VBT_SCHED_TAG_ALT : 0), &st->req);
    case STEP_COPY:
        return vbt_coll_copy(st->src, st->scount, st->sdt, st->dst, st->rcount, st->rdt);
    case STEP_REDUCE:
        return vbt_coll_reduce_local(st->op, st->src, st->dst, st->scount, st->sdt);
    default:
        return st->fn(s, st->dst);
    }
}

/* The round in flight completed? Then release its requests, noting the first failure. */
static int round_done(vbt_sched_t *s)
{
    for (int i = s->cur; i < s->end; i++) {
        vbt_request_t *r = s->steps[i].req;
        if (r != NULL && !r->complete)
            return 0;
    }
    for (int i = s->cur; i < s->end; i++) {
        vbt_request_t *r = s->steps[i].req;
        if (r == NULL)
            continue;
        s->steps[i].req = NULL;
        if (r->status_error != MPI_SUCCESS && !(r->flags & VBT_REQF_CANCELLED) &&
            s->status == VBT_OK) {
            vbt_debug("collective: message from rank %d longer than expected", r->peer);
            s->status = r->status_error == MPI_ERR_TRUNCATE ? VBT_ERR_TRUNCATE : VBT_ERR_IO;
        }
        vbt_request_release(r);
    }
    s->cur = s->end;
    return 1;
}

/* A post failed: peers may never send what we wait for, so the receives of the round are
 * cancelled; sends complete on their own. */
static void abort_round(vbt_sched_t *s)
{
    for (int i = s->cur; i < s->end; i++) {
        vbt_request_t *r = s->steps[i].req;
        if (r != NULL && !r->complete && r->kind == VBT_REQ_RECV)
            vbt_p2p_cancel(r);
    }
}

static void complete(vbt_sched_t *s)
{
    vbt_request_t *req = s->req;

    list_remove(s);
    req->status_source = MPI_ANY_SOURCE;
    req->status_tag = MPI_ANY_TAG;
    req->status_bytes = 0;
    req->status_error = s->status == VBT_OK ? MPI_SUCCESS : vbt_status_to_errclass(s->status);
    req->complete = 1;
    if (req->flags & VBT_REQF_FREED) /* MPI_Request_free'd while active */
        vbt_request_release(req);
}

/* Run s as far as it goes without waiting; 1 once it completed. */
static int advance(vbt_sched_t *s)
{
    if (s->busy)
        return 0;
    s->busy = 1;
    for (;;) {
        if (!round_done(s)) {
            s->busy = 0;
            return 0;
        }
        /* A message that did not fit (status set, not aborted) does not stop the schedule:
         * its peers still get what they wait for, and the request reports the error. */
        if (s->aborted || s->cur == s->n) {
            s->busy = 0;
            complete(s); /* may free s */
            return 1;
        }
        for (int i = s->cur;; i++) {
            vbt_status_t st = post(s, i); /* may append steps: read s->steps afresh */
            s->end = i + 1;
            if (st != VBT_OK) {
                s->status = st;
                s->aborted = 1;
                abort_round(s);
                break;
            }
            if (s->steps[i].round_end || i + 1 == s->n)
                break;
        }
    }
}

static int progress_hook(void *arg)
{
    engine_t *e = arg;
    int done = 0;
    vbt_sched_t *s = e->active, *next;

    while (s != NULL) {
        next = s->next; /* s may leave the list */
        done += advance(s);
        s = next;
    }
    return done;
}

static void release_request(vbt_request_t *req)
{
    vbt_sched_t *s = req->x.sched;

    req->x.sched = NULL;
    req->release_fn = NULL;
    if (s == NULL)
        return;
    if (s->active) /* only at MPI_Finalize: nothing will complete it now */
        list_remove(s);
    vbt_sched_destroy(s);
}

vbt_status_t vbt_sched_commit(vbt_sched_t *s, int persistent, vbt_request_t **req_p)
{
    vbt_request_t *req = vbt_request_alloc(VBT_REQ_COLL);

    if (req == NULL) {
        vbt_sched_destroy(s);
        return VBT_ERR_NO_MEMORY;
    }
    vbt_sched_round(s);
    req->comm = s->comm;
    req->context_id = s->comm->context_id + VBT_CTX_COLL;
    req->peer = MPI_PROC_NULL;
    req->tag = s->tag;
    req->x.sched = s;
    req->release_fn = release_request;
    s->req = req;
    *req_p = req;
    if (persistent) {
        req->flags |= VBT_REQF_PERSISTENT;
        req->complete = 1; /* inactive: Wait and Test return at once */
        return VBT_OK;
    }
    return vbt_coll_start(req);
}

vbt_status_t vbt_coll_start(vbt_request_t *req)
{
    vbt_sched_t *s = req->x.sched;

    s->cur = s->end = 0;
    s->status = VBT_OK;
    s->aborted = 0;
    req->complete = 0;
    req->status_error = MPI_SUCCESS;
    if (req->flags & VBT_REQF_PERSISTENT)
        req->flags |= VBT_REQF_ACTIVE;
    list_add(s);
    advance(s); /* the first round goes out now */
    return VBT_OK;
}

vbt_status_t vbt_sched_run(vbt_sched_t *s)
{
    vbt_request_t *req;
    vbt_status_t st = vbt_sched_commit(s, 0, &req);

    if (st != VBT_OK)
        return st;
    if (!req->complete)
        st = vbt_p2p_wait_flag(&req->complete);
    if (st != VBT_OK) {
        /* The transport failed; the schedule's messages may still be in its hands. */
        req->flags |= VBT_REQF_FREED;
        return st;
    }
    st = s->status;
    vbt_request_release(req); /* destroys s */
    return st;
}
