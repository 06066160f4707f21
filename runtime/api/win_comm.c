/* The communication calls: put, get, the accumulates, fetch-and-op, compare-and-swap, their
 * request-based forms and the large-count forms. Everything the origin can know is checked
 * here, before anything is sent: the epoch (MPI_ERR_RMA_SYNC), the target range against the
 * target's window size (MPI_ERR_RMA_RANGE; dynamic windows are checked by the target, which
 * reports at the next synchronisation), datatypes and ops. */
#include "vbt_api_win.h"

#include <stdint.h>

VBT_PMPI_ALIAS(Put)
VBT_PMPI_ALIAS(Put_c)
VBT_PMPI_ALIAS(Get)
VBT_PMPI_ALIAS(Get_c)
VBT_PMPI_ALIAS(Accumulate)
VBT_PMPI_ALIAS(Accumulate_c)
VBT_PMPI_ALIAS(Get_accumulate)
VBT_PMPI_ALIAS(Get_accumulate_c)
VBT_PMPI_ALIAS(Fetch_and_op)
VBT_PMPI_ALIAS(Compare_and_swap)
VBT_PMPI_ALIAS(Rput)
VBT_PMPI_ALIAS(Rput_c)
VBT_PMPI_ALIAS(Rget)
VBT_PMPI_ALIAS(Rget_c)
VBT_PMPI_ALIAS(Raccumulate)
VBT_PMPI_ALIAS(Raccumulate_c)
VBT_PMPI_ALIAS(Rget_accumulate)
VBT_PMPI_ALIAS(Rget_accumulate_c)

/* One buffer argument (buf, count, datatype) named arg. */
static int check_buf(vbt_win_t *w, const char *call, const char *arg, int has_buf, const void *buf,
                     MPI_Count count, MPI_Datatype dt, vbt_dtype_t **t_p)
{
    vbt_dtype_t *t = vbt_dtype_get(dt);

    if (t == NULL)
        return vbt_api_win_raise(w, call, MPI_ERR_TYPE,
                                 "argument %s_datatype (handle %#lx) is not a valid datatype", arg,
                                 (unsigned long)(uintptr_t)dt);
    if (!t->committed)
        return vbt_api_win_raise(w, call, MPI_ERR_TYPE,
                                 "argument %s_datatype is not committed: call MPI_Type_commit "
                                 "first",
                                 arg);
    if (count < 0)
        return vbt_api_win_raise(w, call, MPI_ERR_COUNT,
                                 "argument %s_count is %lld; it must be 0 or more", arg,
                                 (long long)count);
    if (!has_buf) {
        *t_p = t;
        return MPI_SUCCESS;
    }
    if (buf != NULL && vbt_api_buf_null_bad(buf, count > INT32_MAX ? INT32_MAX : (int)count, t))
        return vbt_api_win_raise(w, call, MPI_ERR_BUFFER,
                                 "argument %s_addr is %s, which is not a buffer", arg,
                                 buf == MPI_IN_PLACE ? "MPI_IN_PLACE" : "MPI_BUFFER_AUTOMATIC");
    if (buf == NULL && count > 0 && t->size > 0 && t->true_lb == 0)
        return vbt_api_win_raise(w, call, MPI_ERR_BUFFER,
                                 "argument %s_addr is NULL with %s_count %lld; pass a buffer", arg,
                                 arg, (long long)count);
    *t_p = t;
    return MPI_SUCCESS;
}

/* The accumulate rules: a predefined op (no user op in one-sided calls), and data made of one
 * predefined type the op is defined on, the same on every side. */
static int check_acc(vbt_win_t *w, const char *call, MPI_Op op, const vbt_dtype_t *tt,
                     const vbt_dtype_t *ot, const vbt_dtype_t *rt)
{
    const vbt_op_t *o = vbt_op_get(op);
    const char *why = NULL;

    if (o == NULL)
        return vbt_api_win_raise(w, call, MPI_ERR_OP, "argument op is not a valid operation");
    if (!vbt_op_is_predefined(o))
        return vbt_api_win_raise(w, call, MPI_ERR_OP,
                                 "argument op is a user-defined operation, which one-sided "
                                 "accumulates do not allow; use a predefined op (MPI_SUM, "
                                 "MPI_REPLACE, ...)");
    if (tt->basic == MPI_DATATYPE_NULL)
        return vbt_api_win_raise(w, call, MPI_ERR_TYPE,
                                 "argument target_datatype mixes predefined types; an accumulate "
                                 "needs data of one predefined type");
    if ((ot != NULL && ot->size > 0 && ot->basic != tt->basic) ||
        (rt != NULL && rt->size > 0 && rt->basic != tt->basic))
        return vbt_api_win_raise(w, call, MPI_ERR_TYPE,
                                 "the %s datatype is not made of the target datatype's "
                                 "predefined type (%s); both must be built from the same one",
                                 ot != NULL && ot->basic != tt->basic ? "origin" : "result",
                                 vbt_op_dtype_name(tt->basic) ? vbt_op_dtype_name(tt->basic) : "?");
    if (vbt_op_check(o, tt->basic, &why) != VBT_OK)
        return vbt_api_win_raise(w, call, MPI_ERR_OP, "%s", why);
    return MPI_SUCCESS;
}

static int check_target(vbt_win_t *w, const char *call, int target, MPI_Aint disp, MPI_Count tcount,
                        const vbt_dtype_t *tt, uint64_t *tdisp_p)
{
    if (!vbt_win_can_access(w, target))
        return vbt_api_win_raise(w, call, MPI_ERR_RMA_SYNC,
                                 "no access epoch is open towards rank %d; start one first "
                                 "(MPI_Win_fence, MPI_Win_start with rank %d in the group, "
                                 "MPI_Win_lock(rank %d) or MPI_Win_lock_all)",
                                 target, target, target);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        *tdisp_p = (uint64_t)disp; /* an address at the target, checked there */
        return MPI_SUCCESS;
    }
    if (disp < 0)
        return vbt_api_win_raise(w, call, MPI_ERR_RMA_RANGE,
                                 "argument target_disp is %ld; it must be 0 or more", (long)disp);
    __int128 off = (__int128)disp * w->peers[target].disp_unit;
    if (tcount > 0 && tt->size > 0) {
        __int128 lo = off + tt->true_lb,
                 hi = off + (__int128)(tcount - 1) * tt->extent + tt->true_ub;
        if (tt->extent < 0)
            lo = off + (__int128)(tcount - 1) * tt->extent + tt->true_lb, hi = off + tt->true_ub;
        if (lo < 0 || hi > (__int128)w->peers[target].size)
            return vbt_api_win_raise(w, call, MPI_ERR_RMA_RANGE,
                                     "target_disp %ld (times disp_unit %d) with %lld elements of "
                                     "target_datatype reaches bytes %lld..%lld of rank %d's "
                                     "window, which has %llu bytes; nothing was sent. Keep "
                                     "the access inside the target's window",
                                     (long)disp, w->peers[target].disp_unit, (long long)tcount,
                                     (long long)lo, (long long)hi - 1, target,
                                     (unsigned long long)w->peers[target].size);
    }
    *tdisp_p = (uint64_t)off;
    return MPI_SUCCESS;
}

/* Every communication call comes here. */
static int rma(const char *call, vbt_win_op_kind_t kind, const void *obuf, MPI_Count ocount,
               MPI_Datatype odt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, const void *cbuf,
               int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op,
               MPI_Win win, int want_req, MPI_Request *request)
{
    vbt_dtype_t *ot = NULL, *rt = NULL, *tt = NULL;
    vbt_win_op_t o;
    vbt_request_t *req = NULL;
    vbt_status_t st;
    int uses_origin = kind == VBT_WIN_PUT || kind == VBT_WIN_ACC || kind == VBT_WIN_CAS ||
                      (kind == VBT_WIN_GET_ACC && op != MPI_NO_OP);
    int uses_result = kind == VBT_WIN_GET || kind == VBT_WIN_GET_ACC || kind == VBT_WIN_CAS;

    VBT_API_ENTER(call);
    VBT_API_WIN(w, win, call);
    if (want_req && request == NULL)
        return vbt_api_win_raise(w, call, MPI_ERR_ARG,
                                 "argument request is NULL; pass the address of an MPI_Request");
    if (uses_origin)
        VBT_API_CHECK(check_buf(w, call, "origin", 1, obuf, ocount, odt, &ot));
    if (uses_result)
        VBT_API_CHECK(check_buf(w, call, kind == VBT_WIN_GET ? "origin" : "result", 1, rbuf, rcount,
                                rdt, &rt));
    VBT_API_CHECK(check_buf(w, call, "target", 0, NULL, tcount, tdt, &tt));
    if ((target < 0 || target >= w->size) && target != MPI_PROC_NULL)
        return vbt_api_win_raise(w, call, MPI_ERR_RANK,
                                 "argument target_rank is %d, but the window has %d ranks: use "
                                 "0..%d or MPI_PROC_NULL",
                                 target, w->size, w->size - 1);
    /* The types MPI_BAND or MPI_LAND take, less the character types, are exactly the integer,
     * logical and byte types compare-and-swap is defined on. */
    if (kind == VBT_WIN_CAS && (!tt->predefined || !tt->contig || vbt_op_is_char_type(tdt) ||
                                (vbt_op_check(vbt_op_get(MPI_BAND), tdt, NULL) != VBT_OK &&
                                 vbt_op_check(vbt_op_get(MPI_LAND), tdt, NULL) != VBT_OK)))
        return vbt_api_win_raise(w, call, MPI_ERR_TYPE,
                                 "argument datatype must be a predefined integer, logical or "
                                 "byte type for MPI_Compare_and_swap");
    if (kind == VBT_WIN_ACC && op == MPI_NO_OP)
        return vbt_api_win_raise(w, call, MPI_ERR_OP,
                                 "argument op is MPI_NO_OP, which only MPI_Get_accumulate, "
                                 "MPI_Rget_accumulate and MPI_Fetch_and_op take; an accumulate "
                                 "that does nothing needs no call");
    if (kind == VBT_WIN_ACC || kind == VBT_WIN_GET_ACC)
        VBT_API_CHECK(check_acc(w, call, op, tt, uses_origin ? ot : NULL, rt));
    {
        const vbt_dtype_t *data = uses_origin ? ot : rt;
        MPI_Count dcount = uses_origin ? ocount : rcount;
        if (kind != VBT_WIN_CAS && (size_t)dcount * data->size != (size_t)tcount * tt->size)
            return vbt_api_win_raise(w, call, MPI_ERR_TYPE,
                                     "the %s buffer holds %zu bytes of data but the target "
                                     "(target_count %lld of target_datatype) %zu; they must "
                                     "match",
                                     uses_origin ? "origin" : "result", (size_t)dcount * data->size,
                                     (long long)tcount, (size_t)tcount * tt->size);
        if (kind == VBT_WIN_GET_ACC && uses_origin &&
            (size_t)rcount * rt->size != (size_t)tcount * tt->size)
            return vbt_api_win_raise(w, call, MPI_ERR_TYPE,
                                     "the result buffer holds %zu bytes of data but the target "
                                     "%zu; they must match",
                                     (size_t)rcount * rt->size, (size_t)tcount * tt->size);
    }
    if (target == MPI_PROC_NULL) { /* no effect, but a request to wait for */
        if (want_req) {
            req = vbt_request_alloc(VBT_REQ_SEND);
            if (req == NULL)
                return vbt_api_win_failed(w, call, VBT_ERR_NO_MEMORY);
            req->comm = w->comm;
            req->complete = 1;
            *request = (MPI_Request)req;
        }
        return MPI_SUCCESS;
    }
    o = (vbt_win_op_t){.kind = kind,
                       .target = target,
                       .obuf = obuf,
                       .ocount = (size_t)ocount,
                       .otype = ot,
                       .rbuf = rbuf,
                       .rcount = (size_t)rcount,
                       .rtype = rt,
                       .cbuf = cbuf,
                       .tcount = (size_t)tcount,
                       .ttype = tt,
                       .op = kind == VBT_WIN_PUT || kind == VBT_WIN_GET ? MPI_REPLACE : op};
    if (want_req && !vbt_win_in_passive(w, target))
        return vbt_api_win_raise(w, call, MPI_ERR_RMA_SYNC,
                                 "no passive-target epoch is open towards rank %d: the "
                                 "request-based operations need MPI_Win_lock(rank %d) or "
                                 "MPI_Win_lock_all; under fence or PSCW use the call without "
                                 "the R",
                                 target, target);
    VBT_API_CHECK(check_target(w, call, target, disp, tcount, tt, &o.tdisp));
    st = vbt_win_op_start(w, &o, want_req ? &req : NULL);
    if (st != VBT_OK)
        return vbt_api_win_failed(w, call, st);
    if (want_req)
        *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win)
{
    return rma("MPI_Put", VBT_WIN_PUT, origin_addr, origin_count, origin_datatype, NULL, 0,
               MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype,
               MPI_REPLACE, win, 0, NULL);
}

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return rma("MPI_Put_c", VBT_WIN_PUT, origin_addr, origin_count, origin_datatype, NULL, 0,
               MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype,
               MPI_REPLACE, win, 0, NULL);
}

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return rma("MPI_Get", VBT_WIN_GET, NULL, 0, MPI_DATATYPE_NULL, origin_addr, origin_count,
               origin_datatype, NULL, target_rank, target_disp, target_count, target_datatype,
               MPI_NO_OP, win, 0, NULL);
}

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return rma("MPI_Get_c", VBT_WIN_GET, NULL, 0, MPI_DATATYPE_NULL, origin_addr, origin_count,
               origin_datatype, NULL, target_rank, target_disp, target_count, target_datatype,
               MPI_NO_OP, win, 0, NULL);
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return rma("MPI_Accumulate", VBT_WIN_ACC, origin_addr, origin_count, origin_datatype, NULL, 0,
               MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype, op,
               win, 0, NULL);
}

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return rma("MPI_Accumulate_c", VBT_WIN_ACC, origin_addr, origin_count, origin_datatype, NULL, 0,
               MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype, op,
               win, 0, NULL);
}

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return rma("MPI_Get_accumulate", VBT_WIN_GET_ACC, origin_addr, origin_count, origin_datatype,
               result_addr, result_count, result_datatype, NULL, target_rank, target_disp,
               target_count, target_datatype, op, win, 0, NULL);
}

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win)
{
    return rma("MPI_Get_accumulate_c", VBT_WIN_GET_ACC, origin_addr, origin_count, origin_datatype,
               result_addr, result_count, result_datatype, NULL, target_rank, target_disp,
               target_count, target_datatype, op, win, 0, NULL);
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    vbt_dtype_t *t = vbt_dtype_get(datatype);

    if (vbt_rt.state == VBT_RT_INITIALIZED && vbt_win_get(win) != NULL && t != NULL &&
        !t->predefined)
        return vbt_api_win_raise(vbt_win_get(win), "MPI_Fetch_and_op", MPI_ERR_TYPE,
                                 "argument datatype must be a predefined type");
    return rma("MPI_Fetch_and_op", VBT_WIN_GET_ACC, origin_addr, 1, datatype, result_addr, 1,
               datatype, NULL, target_rank, target_disp, 1, datatype, op, win, 0, NULL);
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    if (vbt_rt.state == VBT_RT_INITIALIZED && vbt_win_get(win) != NULL && compare_addr == NULL)
        return vbt_api_win_raise(vbt_win_get(win), "MPI_Compare_and_swap", MPI_ERR_BUFFER,
                                 "argument compare_addr is NULL; pass the value to compare");
    return rma("MPI_Compare_and_swap", VBT_WIN_CAS, origin_addr, 1, datatype, result_addr, 1,
               datatype, compare_addr, target_rank, target_disp, 1, datatype, MPI_REPLACE, win, 0,
               NULL);
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request *request)
{
    return rma("MPI_Rput", VBT_WIN_PUT, origin_addr, origin_count, origin_datatype, NULL, 0,
               MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype,
               MPI_REPLACE, win, 1, request);
}

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return rma("MPI_Rput_c", VBT_WIN_PUT, origin_addr, origin_count, origin_datatype, NULL, 0,
               MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype,
               MPI_REPLACE, win, 1, request);
}

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    return rma("MPI_Rget", VBT_WIN_GET, NULL, 0, MPI_DATATYPE_NULL, origin_addr, origin_count,
               origin_datatype, NULL, target_rank, target_disp, target_count, target_datatype,
               MPI_NO_OP, win, 1, request);
}

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return rma("MPI_Rget_c", VBT_WIN_GET, NULL, 0, MPI_DATATYPE_NULL, origin_addr, origin_count,
               origin_datatype, NULL, target_rank, target_disp, target_count, target_datatype,
               MPI_NO_OP, win, 1, request);
}

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return rma("MPI_Raccumulate", VBT_WIN_ACC, origin_addr, origin_count, origin_datatype, NULL, 0,
               MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype, op,
               win, 1, request);
}

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                       MPI_Request *request)
{
    return rma("MPI_Raccumulate_c", VBT_WIN_ACC, origin_addr, origin_count, origin_datatype, NULL,
               0, MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype,
               op, win, 1, request);
}

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return rma("MPI_Rget_accumulate", VBT_WIN_GET_ACC, origin_addr, origin_count, origin_datatype,
               result_addr, result_count, result_datatype, NULL, target_rank, target_disp,
               target_count, target_datatype, op, win, 1, request);
}

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request *request)
{
    return rma("MPI_Rget_accumulate_c", VBT_WIN_GET_ACC, origin_addr, origin_count, origin_datatype,
               result_addr, result_count, result_datatype, NULL, target_rank, target_disp,
               target_count, target_datatype, op, win, 1, request);
}
