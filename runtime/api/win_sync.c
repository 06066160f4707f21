/* Synchronisation calls: fence, post/start/complete/wait/test, lock/unlock (all), the flushes
 * and MPI_Win_sync. Each checks that it is called in the right epoch (MPI_ERR_RMA_SYNC
 * otherwise) and that its assertions are ones it takes, then raises any error a target reported
 * for the operations it completes. */
#include "vbt_api_comm.h"
#include "vbt_api_win.h"

VBT_PMPI_ALIAS(Win_fence)
VBT_PMPI_ALIAS(Win_post)
VBT_PMPI_ALIAS(Win_start)
VBT_PMPI_ALIAS(Win_complete)
VBT_PMPI_ALIAS(Win_wait)
VBT_PMPI_ALIAS(Win_test)
VBT_PMPI_ALIAS(Win_lock)
VBT_PMPI_ALIAS(Win_unlock)
VBT_PMPI_ALIAS(Win_lock_all)
VBT_PMPI_ALIAS(Win_unlock_all)
VBT_PMPI_ALIAS(Win_flush)
VBT_PMPI_ALIAS(Win_flush_all)
VBT_PMPI_ALIAS(Win_flush_local)
VBT_PMPI_ALIAS(Win_flush_local_all)
VBT_PMPI_ALIAS(Win_sync)

static int check_assert(vbt_win_t *w, const char *call, int assert, int allowed, const char *names)
{
    if ((assert & ~allowed) == 0)
        return MPI_SUCCESS;
    return vbt_api_win_raise(w, call, MPI_ERR_ASSERT,
                             "argument assert is %#x, which has bits %#x that %s does not take; "
                             "pass 0 or an OR of %s",
                             (unsigned)assert, (unsigned)(assert & ~allowed), call, names);
}

/* A passive-target or PSCW epoch may not start while a fence epoch has operations in it. */
static int fence_busy(const vbt_win_t *w)
{
    return w->fence_open && w->fence_ops > 0;
}

static int done(vbt_win_t *w, const char *call, vbt_status_t st)
{
    if (st != VBT_OK)
        return vbt_api_win_failed(w, call, st);
    return vbt_api_win_reported(w, call);
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_fence");
    VBT_API_WIN(w, win, "MPI_Win_fence");
    VBT_API_CHECK(
        check_assert(w, "MPI_Win_fence", assert,
                     MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED,
                     "MPI_MODE_NOSTORE, MPI_MODE_NOPUT, MPI_MODE_NOPRECEDE and "
                     "MPI_MODE_NOSUCCEED"));
    if (w->nlocks > 0 || w->lock_all || w->start_group != NULL || w->post_group != NULL)
        return vbt_api_win_raise(w, "MPI_Win_fence", MPI_ERR_RMA_SYNC,
                                 "a %s epoch is open on the window; end it before a fence",
                                 w->nlocks > 0 || w->lock_all ? "passive-target (lock)"
                                                              : "post/start");
    if ((assert &MPI_MODE_NOPRECEDE) && w->fence_ops > 0)
        return vbt_api_win_raise(w, "MPI_Win_fence", MPI_ERR_RMA_SYNC,
                                 "MPI_MODE_NOPRECEDE says no operation precedes this fence, but "
                                 "this rank issued %d since the last one; drop the assertion",
                                 w->fence_ops);
    return done(w, "MPI_Win_fence", vbt_win_fence(w, assert));
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_post");
    VBT_API_WIN(w, win, "MPI_Win_post");
    VBT_API_GROUP(g, group, "MPI_Win_post", "group");
    VBT_API_CHECK(check_assert(w, "MPI_Win_post", assert,
                               MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT,
                               "MPI_MODE_NOCHECK, MPI_MODE_NOSTORE and MPI_MODE_NOPUT"));
    if (w->post_group != NULL)
        return vbt_api_win_raise(w, "MPI_Win_post", MPI_ERR_RMA_SYNC,
                                 "an exposure epoch from an earlier MPI_Win_post is still open; "
                                 "end it with MPI_Win_wait or MPI_Win_test first");
    if (fence_busy(w))
        return vbt_api_win_raise(w, "MPI_Win_post", MPI_ERR_RMA_SYNC,
                                 "a fence epoch with operations is open; end it with "
                                 "MPI_Win_fence(MPI_MODE_NOSUCCEED) first");
    for (int i = 0; i < g->size; i++)
        if (vbt_group_rank_of(w->comm->group, g->ranks[i]) < 0)
            return vbt_api_win_raise(w, "MPI_Win_post", MPI_ERR_GROUP,
                                     "argument group has a process (world rank %d) that is not "
                                     "in the window's group",
                                     g->ranks[i]);
    return done(w, "MPI_Win_post", vbt_win_post(w, g, assert));
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_start");
    VBT_API_WIN(w, win, "MPI_Win_start");
    VBT_API_GROUP(g, group, "MPI_Win_start", "group");
    VBT_API_CHECK(check_assert(w, "MPI_Win_start", assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK"));
    if (w->start_group != NULL)
        return vbt_api_win_raise(w, "MPI_Win_start", MPI_ERR_RMA_SYNC,
                                 "an access epoch from an earlier MPI_Win_start is still open; "
                                 "end it with MPI_Win_complete first");
    if (w->nlocks > 0 || w->lock_all || fence_busy(w))
        return vbt_api_win_raise(w, "MPI_Win_start", MPI_ERR_RMA_SYNC,
                                 "another access epoch (%s) is open on the window; end it first",
                                 fence_busy(w) ? "fence" : "lock");
    for (int i = 0; i < g->size; i++)
        if (vbt_group_rank_of(w->comm->group, g->ranks[i]) < 0)
            return vbt_api_win_raise(w, "MPI_Win_start", MPI_ERR_GROUP,
                                     "argument group has a process (world rank %d) that is not "
                                     "in the window's group",
                                     g->ranks[i]);
    w->fence_open = 0;
    return done(w, "MPI_Win_start", vbt_win_start(w, g, assert));
}

int PMPI_Win_complete(MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_complete");
    VBT_API_WIN(w, win, "MPI_Win_complete");
    if (w->start_group == NULL)
        return vbt_api_win_raise(w, "MPI_Win_complete", MPI_ERR_RMA_SYNC,
                                 "no access epoch is open: MPI_Win_complete ends one started by "
                                 "MPI_Win_start");
    return done(w, "MPI_Win_complete", vbt_win_complete(w));
}

int PMPI_Win_wait(MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_wait");
    VBT_API_WIN(w, win, "MPI_Win_wait");
    if (w->post_group == NULL)
        return vbt_api_win_raise(w, "MPI_Win_wait", MPI_ERR_RMA_SYNC,
                                 "no exposure epoch is open: MPI_Win_wait ends one started by "
                                 "MPI_Win_post");
    return done(w, "MPI_Win_wait", vbt_win_wait(w));
}

int PMPI_Win_test(MPI_Win win, int *flag)
{
    VBT_API_ENTER("MPI_Win_test");
    VBT_API_WIN(w, win, "MPI_Win_test");
    if (flag == NULL)
        return vbt_api_win_raise(w, "MPI_Win_test", MPI_ERR_ARG, "argument flag is NULL");
    if (w->post_group == NULL)
        return vbt_api_win_raise(w, "MPI_Win_test", MPI_ERR_RMA_SYNC,
                                 "no exposure epoch is open: MPI_Win_test ends one started by "
                                 "MPI_Win_post");
    return done(w, "MPI_Win_test", vbt_win_test(w, flag));
}

static int check_rank(vbt_win_t *w, const char *call, int rank)
{
    if (rank >= 0 && rank < w->size)
        return MPI_SUCCESS;
    return vbt_api_win_raise(w, call, MPI_ERR_RANK,
                             "argument rank is %d, but the window has %d ranks: use 0..%d", rank,
                             w->size, w->size - 1);
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_lock");
    VBT_API_WIN(w, win, "MPI_Win_lock");
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return vbt_api_win_raise(w, "MPI_Win_lock", MPI_ERR_LOCKTYPE,
                                 "argument lock_type is %d; pass MPI_LOCK_SHARED or "
                                 "MPI_LOCK_EXCLUSIVE",
                                 lock_type);
    VBT_API_CHECK(check_rank(w, "MPI_Win_lock", rank));
    VBT_API_CHECK(check_assert(w, "MPI_Win_lock", assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK"));
    if (w->tgt[rank].lock != 0 || w->lock_all)
        return vbt_api_win_raise(w, "MPI_Win_lock", MPI_ERR_RMA_SYNC,
                                 "this rank already holds a lock on rank %d of the window (%s); "
                                 "unlock it first",
                                 rank, w->lock_all ? "MPI_Win_lock_all" : "MPI_Win_lock");
    if (w->start_group != NULL || fence_busy(w))
        return vbt_api_win_raise(w, "MPI_Win_lock", MPI_ERR_RMA_SYNC,
                                 "an active-target epoch (%s) is open on the window; end it "
                                 "first",
                                 w->start_group != NULL ? "MPI_Win_start" : "fence");
    w->fence_open = 0;
    return done(w, "MPI_Win_lock", vbt_win_lock(w, lock_type, rank, assert));
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_unlock");
    VBT_API_WIN(w, win, "MPI_Win_unlock");
    VBT_API_CHECK(check_rank(w, "MPI_Win_unlock", rank));
    if (w->tgt[rank].lock == 0)
        return vbt_api_win_raise(w, "MPI_Win_unlock", MPI_ERR_RMA_SYNC,
                                 "this rank holds no lock on rank %d of the window (MPI_Win_lock "
                                 "was not called for it%s)",
                                 rank, w->lock_all ? ", and MPI_Win_unlock_all ends lock_all" : "");
    return done(w, "MPI_Win_unlock", vbt_win_unlock(w, rank));
}

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_lock_all");
    VBT_API_WIN(w, win, "MPI_Win_lock_all");
    VBT_API_CHECK(
        check_assert(w, "MPI_Win_lock_all", assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK"));
    if (w->lock_all || w->nlocks > 0)
        return vbt_api_win_raise(w, "MPI_Win_lock_all", MPI_ERR_RMA_SYNC,
                                 "this rank already holds %s on the window; unlock first",
                                 w->lock_all ? "MPI_Win_lock_all" : "a lock (MPI_Win_lock)");
    if (w->start_group != NULL || fence_busy(w))
        return vbt_api_win_raise(w, "MPI_Win_lock_all", MPI_ERR_RMA_SYNC,
                                 "an active-target epoch (%s) is open on the window; end it "
                                 "first",
                                 w->start_group != NULL ? "MPI_Win_start" : "fence");
    w->fence_open = 0;
    return done(w, "MPI_Win_lock_all", vbt_win_lock_all(w, assert));
}

int PMPI_Win_unlock_all(MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_unlock_all");
    VBT_API_WIN(w, win, "MPI_Win_unlock_all");
    if (!w->lock_all)
        return vbt_api_win_raise(
            w, "MPI_Win_unlock_all", MPI_ERR_RMA_SYNC,
            "MPI_Win_lock_all was not called on the window%s",
            w->nlocks > 0 ? " (locks from MPI_Win_lock end with MPI_Win_unlock)" : "");
    return done(w, "MPI_Win_unlock_all", vbt_win_unlock_all(w));
}

/* The flushes are for passive-target epochs only. */
static int flush(const char *call, MPI_Win win, int rank, int all, int local)
{
    VBT_API_ENTER(call);
    VBT_API_WIN(w, win, call);
    if (!all) {
        VBT_API_CHECK(check_rank(w, call, rank));
        if (w->tgt[rank].lock == 0 && !w->lock_all)
            return vbt_api_win_raise(w, call, MPI_ERR_RMA_SYNC,
                                     "no passive-target epoch is open towards rank %d; flushes "
                                     "complete operations under MPI_Win_lock or "
                                     "MPI_Win_lock_all",
                                     rank);
    } else if (w->nlocks == 0 && !w->lock_all) {
        return vbt_api_win_raise(w, call, MPI_ERR_RMA_SYNC,
                                 "no passive-target epoch is open; flushes complete operations "
                                 "under MPI_Win_lock or MPI_Win_lock_all");
    }
    return done(w, call, vbt_win_flush(w, all ? -1 : rank, local));
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    return flush("MPI_Win_flush", win, rank, 0, 0);
}

int PMPI_Win_flush_all(MPI_Win win)
{
    return flush("MPI_Win_flush_all", win, -1, 1, 0);
}

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush("MPI_Win_flush_local", win, rank, 0, 1);
}

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush("MPI_Win_flush_local_all", win, -1, 1, 1);
}

/* The unified model: public and private copies are the same memory; a full barrier orders
 * this process's loads and stores against other processes' (shared windows). */
int PMPI_Win_sync(MPI_Win win)
{
    VBT_API_ENTER("MPI_Win_sync");
    VBT_API_WIN(w, win, "MPI_Win_sync");
    (void)w;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}
