/* Window creation in each flavor, MPI_Win_free, the shared and dynamic windows' own calls, and
 * MPI_Alloc_mem / MPI_Free_mem. */
#include "vbt_api_comm.h"
#include "vbt_api_info.h"
#include "vbt_api_win.h"
#include "vbt_attr.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

VBT_PMPI_ALIAS(Alloc_mem)
VBT_PMPI_ALIAS(Free_mem)
VBT_PMPI_ALIAS(Win_create)
VBT_PMPI_ALIAS(Win_create_c)
VBT_PMPI_ALIAS(Win_allocate)
VBT_PMPI_ALIAS(Win_allocate_c)
VBT_PMPI_ALIAS(Win_allocate_shared)
VBT_PMPI_ALIAS(Win_allocate_shared_c)
VBT_PMPI_ALIAS(Win_shared_query)
VBT_PMPI_ALIAS(Win_shared_query_c)
VBT_PMPI_ALIAS(Win_create_dynamic)
VBT_PMPI_ALIAS(Win_attach)
VBT_PMPI_ALIAS(Win_detach)
VBT_PMPI_ALIAS(Win_free)

int vbt_api_bad_win(const char *call, MPI_Win handle)
{
    if (handle == MPI_WIN_NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_WIN,
                               "argument win is MPI_WIN_NULL, not a valid window");
    return vbt_error_raise(NULL, call, MPI_ERR_WIN,
                           "argument win (handle %#lx) is not a valid window (freed, or never "
                           "returned by a window constructor such as MPI_Win_create)",
                           (unsigned long)(uintptr_t)handle);
}

int vbt_api_win_raise(vbt_win_t *w, const char *call, int errclass, const char *fmt, ...)
{
    char detail[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    return vbt_error_invoke_win(w->errhandler, vbt_win_handle(w), w->name, call, errclass, detail);
}

int vbt_api_win_failed(vbt_win_t *w, const char *call, vbt_status_t st)
{
    return vbt_api_win_raise(w, call, vbt_status_to_errclass(st), "%s (the lines above say why)",
                             vbt_status_string(st));
}

int vbt_api_win_reported(vbt_win_t *w, const char *call)
{
    char why[400];
    int err = vbt_win_take_error(w, why, sizeof(why));

    return err == 0 ? MPI_SUCCESS : vbt_api_win_raise(w, call, err, "%s", why);
}

int vbt_api_win_check_info(vbt_comm_t *c, const char *call, MPI_Info info, struct vbt_info **info_p)
{
    return vbt_api_check_info(c, call, "info", info, info_p);
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    vbt_info_t *i;
    void *p;

    VBT_API_ENTER("MPI_Alloc_mem");
    VBT_API_PTR(NULL, "MPI_Alloc_mem", baseptr, "baseptr");
    if (size < 0)
        return vbt_error_raise(NULL, "MPI_Alloc_mem", MPI_ERR_SIZE,
                               "argument size is %ld; it must be 0 or more", (long)size);
    VBT_API_CHECK(vbt_api_win_check_info(NULL, "MPI_Alloc_mem", info, &i)); /* no key used */
    p = vbt_mem_alloc((size_t)size);
    if (p == NULL)
        return vbt_error_raise(NULL, "MPI_Alloc_mem", MPI_ERR_NO_MEM,
                               "cannot allocate %ld bytes: the process is out of memory (or "
                               "its address-space limit, ulimit -v, is too low)",
                               (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
    VBT_API_ENTER("MPI_Free_mem");
    if (base == NULL)
        return MPI_SUCCESS; /* like free(NULL) */
    if (vbt_mem_free(base) != VBT_OK)
        return vbt_error_raise(NULL, "MPI_Free_mem", MPI_ERR_BASE,
                               "argument base %p was not returned by MPI_Alloc_mem (or was "
                               "freed already); free other memory with free()",
                               base);
    return MPI_SUCCESS;
}

/* The common part of the creating calls: checks, then the collective creation. */
static int create(const char *call, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                  MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    vbt_win_t *w;
    vbt_info_t *i;
    void *b = NULL;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTRA(c, call, "comm");
    VBT_API_PTR(c, call, win, "win");
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED)
        VBT_API_PTR(c, call, baseptr, "baseptr");
    if (size < 0)
        return vbt_error_raise(c, call, MPI_ERR_SIZE, "argument size is %ld; it must be 0 or more",
                               (long)size);
    if (disp_unit <= 0 || disp_unit > INT32_MAX)
        return vbt_error_raise(c, call, MPI_ERR_DISP,
                               "argument disp_unit is %ld; it must be positive (1 to address "
                               "the window in bytes, or the size of its element type)",
                               (long)disp_unit);
    if (flavor == MPI_WIN_FLAVOR_CREATE && base == NULL && size > 0)
        return vbt_error_raise(c, call, MPI_ERR_BASE,
                               "argument base is NULL with size %ld; pass the memory to expose",
                               (long)size);
    VBT_API_CHECK(vbt_api_win_check_info(c, call, info, &i));
    st = vbt_win_create(c, flavor, base, (size_t)size, (int)disp_unit, &b, &w);
    if (st == VBT_ERR_UNREACHABLE)
        return vbt_error_raise(c, call, MPI_ERR_RMA_SHARED,
                               "the ranks of %s are not all on one node, so they cannot share "
                               "memory; create the window over a communicator from "
                               "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)",
                               c->name);
    if (st == VBT_ERR_NO_MEMORY && flavor != MPI_WIN_FLAVOR_CREATE)
        return vbt_error_raise(c, call, MPI_ERR_NO_MEM,
                               "cannot allocate the window's memory (%ld bytes here, or a "
                               "peer's part)",
                               (long)size);
    if (st != VBT_OK)
        return vbt_api_failed(c, call, st);
    st = vbt_api_win_set_hints(w, i);
    if (st != VBT_OK)
        return vbt_api_win_failed(w, call, st); /* the window exists: free it as usual */
    if (baseptr != NULL)
        *(void **)baseptr = b;
    *win = vbt_win_handle(w);
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return create("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL,
                  win);
}

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win)
{
    return create("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                  NULL, win);
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    return create("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm,
                  baseptr, win);
}

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm,
                  baseptr, win);
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info,
                  comm, baseptr, win);
}

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info,
                  comm, baseptr, win);
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL,
                  win);
}

static int shared_query(const char *call, MPI_Win win, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit_p, int *disp_unit_int, void *baseptr)
{
    size_t sz;
    int du;
    void *b;

    VBT_API_ENTER(call);
    VBT_API_WIN(w, win, call);
    if (size == NULL || (disp_unit_p == NULL && disp_unit_int == NULL) || baseptr == NULL)
        return vbt_api_win_raise(w, call, MPI_ERR_ARG, "argument %s is NULL; pass a valid address",
                                 size == NULL      ? "size"
                                 : baseptr == NULL ? "baseptr"
                                                   : "disp_unit");
    /* MPI-4.1 12.2.3: any flavor but dynamic (which may have many regions per rank). */
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return vbt_api_win_raise(w, call, MPI_ERR_RMA_FLAVOR,
                                 "the window was made by MPI_Win_create_dynamic, whose memory "
                                 "is whatever is attached, so there is no one segment to query; "
                                 "query a window from MPI_Win_allocate_shared, MPI_Win_allocate "
                                 "or MPI_Win_create");
    if ((rank < 0 || rank >= w->size) && rank != MPI_PROC_NULL)
        return vbt_api_win_raise(w, call, MPI_ERR_RANK,
                                 "argument rank is %d, but the window has %d ranks: use 0..%d or "
                                 "MPI_PROC_NULL",
                                 rank, w->size, w->size - 1);
    vbt_win_shared_query(w, rank, &sz, &du, &b);
    *size = (MPI_Aint)sz;
    if (disp_unit_p != NULL)
        *disp_unit_p = du;
    else
        *disp_unit_int = du;
    *(void **)baseptr = b;
    return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    return shared_query("MPI_Win_shared_query", win, rank, size, NULL, disp_unit, baseptr);
}

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, NULL, baseptr);
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    vbt_status_t st;

    VBT_API_ENTER("MPI_Win_attach");
    VBT_API_WIN(w, win, "MPI_Win_attach");
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return vbt_api_win_raise(w, "MPI_Win_attach", MPI_ERR_RMA_FLAVOR,
                                 "the window was not made by MPI_Win_create_dynamic; only "
                                 "dynamic windows take attached memory");
    if (size < 0 || (base == NULL && size > 0))
        return vbt_api_win_raise(w, "MPI_Win_attach", MPI_ERR_RMA_ATTACH,
                                 "arguments base %p and size %ld do not describe memory; pass "
                                 "the start and the length of the memory to attach",
                                 base, (long)size);
    st = vbt_win_attach(w, base, (size_t)size);
    if (st == VBT_ERR_INVALID_PARAM)
        return vbt_api_win_raise(w, "MPI_Win_attach", MPI_ERR_RMA_ATTACH,
                                 "the memory [%p, +%ld) overlaps memory already attached to the "
                                 "window; detach that first, or attach the union once",
                                 base, (long)size);
    if (st != VBT_OK)
        return vbt_api_win_failed(w, "MPI_Win_attach", st);
    return MPI_SUCCESS;
}

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    vbt_status_t st;

    VBT_API_ENTER("MPI_Win_detach");
    VBT_API_WIN(w, win, "MPI_Win_detach");
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return vbt_api_win_raise(w, "MPI_Win_detach", MPI_ERR_RMA_FLAVOR,
                                 "the window was not made by MPI_Win_create_dynamic; only "
                                 "dynamic windows have attached memory");
    st = vbt_win_detach(w, base);
    if (st == VBT_ERR_NOT_FOUND)
        return vbt_api_win_raise(w, "MPI_Win_detach", MPI_ERR_RMA_ATTACH,
                                 "argument base %p is not the start of memory attached to this "
                                 "window (MPI_Win_attach)",
                                 base);
    if (st != VBT_OK) /* detached, but an origin's transport could not be told */
        return vbt_api_win_failed(w, "MPI_Win_detach", st);
    return MPI_SUCCESS;
}

int PMPI_Win_free(MPI_Win *win)
{
    vbt_status_t st;
    int rc;

    VBT_API_ENTER("MPI_Win_free");
    VBT_API_PTR(NULL, "MPI_Win_free", win, "win");
    VBT_API_WIN(w, *win, "MPI_Win_free");
    if (w->nlocks > 0 || w->lock_all || w->start_group != NULL || w->post_group != NULL)
        return vbt_api_win_raise(w, "MPI_Win_free", MPI_ERR_RMA_SYNC,
                                 "an epoch is still open on the window (%s); close it (MPI_Win_"
                                 "unlock, unlock_all, complete or wait) before freeing",
                                 w->nlocks > 0    ? "MPI_Win_lock"
                                 : w->lock_all    ? "MPI_Win_lock_all"
                                 : w->start_group ? "MPI_Win_start"
                                                  : "MPI_Win_post");
    rc = vbt_attr_list_delete_all(&w->attrs, vbt_win_handle(w));
    if (rc != MPI_SUCCESS)
        return vbt_api_win_raise(w, "MPI_Win_free", MPI_ERR_OTHER,
                                 "an attribute's delete callback returned error code %d; the "
                                 "window is not freed",
                                 rc);
    st = vbt_win_free(w);
    if (st != VBT_OK)
        return vbt_api_win_failed(w, "MPI_Win_free", st);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
