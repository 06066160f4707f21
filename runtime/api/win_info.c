/* Window info hints (MPI-4.1 Sec. 12.2.7): the keys of Sec. 12.2.1 given at creation or by
 * MPI_Win_set_info. Each promises something about how the application uses the window
 * (no_locks, same_size, ...) or allows a weaker guarantee (accumulate_ordering,
 * accumulate_ops); none changes what Verbatim does, whose guarantees are the strongest ones
 * (every accumulate ordered and atomic with every other). So a valid value is kept and
 * MPI_Win_get_info returns it, every key not given reports its default, and an unknown key or
 * an invalid value is ignored, as the standard says. */
#include "vbt_api_info.h"
#include "vbt_api_win.h"

#include <stdint.h>
#include <string.h>

VBT_PMPI_ALIAS(Win_set_info)
VBT_PMPI_ALIAS(Win_get_info)

typedef struct {
    const char *key;
    const char *dflt;
    int boolean; /* else any non-empty value is kept */
} win_hint_t;

static const win_hint_t hints[] = {
    {"no_locks", "false", 1},
    {"accumulate_ordering", "rar,raw,war,waw", 0},
    {"accumulate_ops", "same_op_no_op", 0},
    {"same_size", "false", 1},
    {"same_disp_unit", "false", 1},
    {"alloc_shared_noncontig", "false", 1},
    {"mpi_accumulate_granularity", "0", 0},
};

static int valid(const win_hint_t *h, const char *v)
{
    if (h->boolean)
        return strcmp(v, "true") == 0 || strcmp(v, "false") == 0;
    if (strcmp(h->key, "accumulate_ops") == 0)
        return strcmp(v, "same_op_no_op") == 0 || strcmp(v, "same_op") == 0;
    return v[0] != '\0';
}

vbt_status_t vbt_api_win_set_hints(vbt_win_t *w, const vbt_info_t *info)
{
    vbt_status_t st;

    if (info == NULL)
        return VBT_OK;
    for (size_t k = 0; k < sizeof(hints) / sizeof(hints[0]); k++) {
        const char *v;
        if (!vbt_info_lookup(info, hints[k].key, &v) || !valid(&hints[k], v))
            continue;
        if (w->hints == NULL) {
            st = vbt_info_create(&w->hints);
            if (st != VBT_OK)
                return st;
        }
        st = vbt_info_set(w->hints, hints[k].key, v);
        if (st != VBT_OK)
            return st;
    }
    return VBT_OK;
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    vbt_info_t *i;
    vbt_status_t st;

    VBT_API_ENTER("MPI_Win_set_info");
    VBT_API_WIN(w, win, "MPI_Win_set_info");
    i = vbt_info_get(info);
    if (i == NULL && info != MPI_INFO_NULL)
        return vbt_api_win_raise(w, "MPI_Win_set_info", MPI_ERR_INFO,
                                 "argument info (handle %#lx) is not a valid info object (freed, "
                                 "or never returned by MPI_Info_create); pass one, or "
                                 "MPI_INFO_NULL",
                                 (unsigned long)(uintptr_t)info);
    st = vbt_api_win_set_hints(w, i);
    if (st != VBT_OK)
        return vbt_api_win_failed(w, "MPI_Win_set_info", st);
    return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    vbt_info_t *i = NULL;
    vbt_status_t st;

    VBT_API_ENTER("MPI_Win_get_info");
    VBT_API_WIN(w, win, "MPI_Win_get_info");
    if (info_used == NULL)
        return vbt_api_win_raise(w, "MPI_Win_get_info", MPI_ERR_ARG,
                                 "argument info_used is NULL; pass the address of an MPI_Info");
    /* A new object, which the caller frees: every hint with the value in use. */
    st = vbt_info_create(&i);
    for (size_t k = 0; k < sizeof(hints) / sizeof(hints[0]) && st == VBT_OK; k++) {
        const char *v = hints[k].dflt;
        if (w->hints != NULL)
            vbt_info_lookup(w->hints, hints[k].key, &v);
        st = vbt_info_set(i, hints[k].key, v);
    }
    if (st != VBT_OK) {
        vbt_info_release(i);
        return vbt_api_win_failed(w, "MPI_Win_get_info", st);
    }
    *info_used = vbt_info_handle(i);
    return MPI_SUCCESS;
}
