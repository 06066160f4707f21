/* Window objects beyond data: the predefined attributes (MPI_WIN_BASE, _SIZE, _DISP_UNIT,
 * _CREATE_FLAVOR, _MODEL == MPI_WIN_UNIFIED) of every flavor, MPI_Win_get_group against the
 * communicator's group, names, user keyvals with copy and delete callbacks (delete called at
 * MPI_Win_delete_attr, at overwrite and at MPI_Win_free), error handlers made with
 * MPI_Win_create_errhandler (set, get, MPI_Win_call_errhandler, and called by a failing
 * call; Open MPI 4.1 osc/sm never fails a put outside an epoch, so that part fails there),
 * MPI_Alloc_mem/MPI_Free_mem. Usage: rma_attr TEST... (or "all"), any number of ranks. */
#define MPITEST_NAME "rma_attr"
#include "mpitest.h"
#include "rma_common.h"

static void test_attrs(void)
{
    int want_flavor[RMA_NFLAVORS] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_CREATE,
                                     MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED,
                                     MPI_WIN_FLAVOR_DYNAMIC};
    for (int f = 0; f < RMA_NFLAVORS; f++) {
        rma_win_t w;
        void *base;
        MPI_Aint *sz;
        int *du, *fl, *model, flag;
        MPI_Aint bytes = 64 * (rank + 1);
        if (!rma_win_make(&w, f, bytes, 4, MPI_COMM_WORLD))
            continue;
        CHECK(MPI_Win_get_attr(w.win, MPI_WIN_BASE, &base, &flag) == MPI_SUCCESS && flag);
        CHECK(MPI_Win_get_attr(w.win, MPI_WIN_SIZE, &sz, &flag) == MPI_SUCCESS && flag);
        CHECK(MPI_Win_get_attr(w.win, MPI_WIN_DISP_UNIT, &du, &flag) == MPI_SUCCESS && flag);
        CHECK(MPI_Win_get_attr(w.win, MPI_WIN_CREATE_FLAVOR, &fl, &flag) == MPI_SUCCESS && flag);
        CHECK(MPI_Win_get_attr(w.win, MPI_WIN_MODEL, &model, &flag) == MPI_SUCCESS && flag);
        /* Dynamic windows: base MPI_BOTTOM, size 0, disp_unit 1 (MPI-4.1 12.2.4). */
        if (f == RMA_DYNAMIC) {
            if (base != MPI_BOTTOM || *sz != 0 || *du != 1)
                FAIL("dynamic window: base %p size %ld disp_unit %d, expected MPI_BOTTOM, 0, 1",
                     base, (long)*sz, *du);
        } else if (base != (void *)w.base || *sz != bytes || *du != 4) {
            FAIL("%s window: base %p size %ld disp_unit %d, expected %p %ld 4", rma_flavor_name[f],
                 base, (long)*sz, *du, (void *)w.base, (long)bytes);
        }
        if (*fl != want_flavor[f])
            FAIL("%s window: MPI_WIN_CREATE_FLAVOR %d, expected %d", rma_flavor_name[f], *fl,
                 want_flavor[f]);
        if (*model != MPI_WIN_UNIFIED)
            FAIL("%s window: MPI_WIN_MODEL %d, expected MPI_WIN_UNIFIED", rma_flavor_name[f],
                 *model);
        /* The group is the communicator's, ranks in the same order. */
        MPI_Group wg, cg;
        int res;
        CHECK(MPI_Win_get_group(w.win, &wg) == MPI_SUCCESS);
        MPI_Comm_group(MPI_COMM_WORLD, &cg);
        MPI_Group_compare(wg, cg, &res);
        CHECK(res == MPI_IDENT);
        MPI_Group_free(&wg);
        MPI_Group_free(&cg);
        rma_win_free(&w);
    }
    /* On a sub-communicator: the group is the half's. */
    MPI_Comm half;
    MPI_Group wg, cg;
    rma_win_t w;
    int res, n;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    CHECK(rma_win_make(&w, RMA_ALLOCATE, 64, 1, half));
    MPI_Win_get_group(w.win, &wg);
    MPI_Comm_group(half, &cg);
    MPI_Group_compare(wg, cg, &res);
    MPI_Group_size(wg, &n);
    CHECK(res == MPI_IDENT && n == (size + 1 - rank % 2) / 2);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
    rma_win_free(&w);
    MPI_Comm_free(&half);
}

static void test_name(void)
{
    rma_win_t w;
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK(rma_win_make(&w, RMA_ALLOCATE, 64, 1, MPI_COMM_WORLD));
    CHECK(MPI_Win_get_name(w.win, name, &len) == MPI_SUCCESS);
    CHECK(len == (int)strlen(name) && len == 0); /* MPI-4.1 6.8: empty until set */
    CHECK(MPI_Win_set_name(w.win, "rma test window") == MPI_SUCCESS);
    CHECK(MPI_Win_get_name(w.win, name, &len) == MPI_SUCCESS);
    CHECK(strcmp(name, "rma test window") == 0 && len == 15);
    MPI_Win_set_name(w.win, "renamed");
    MPI_Win_get_name(w.win, name, &len);
    CHECK(strcmp(name, "renamed") == 0 && len == 7);
    rma_win_free(&w);
}

static int deleted[8], ndeleted;

static int del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)win;
    (void)keyval;
    if (extra != (void *)&deleted)
        FAIL("delete callback: extra_state %p, expected %p", extra, (void *)&deleted);
    if (ndeleted < 8)
        deleted[ndeleted] = *(int *)val;
    ndeleted++;
    return MPI_SUCCESS;
}

static void test_keyval(void)
{
    rma_win_t w;
    int kv, kv2, a = 11, b = 22, c = 33, *got, flag;
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, (void *)&deleted) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &kv2, NULL) == MPI_SUCCESS);
    CHECK(rma_win_make(&w, RMA_ALLOCATE, 64, 1, MPI_COMM_WORLD));
    ndeleted = 0;
    CHECK(MPI_Win_get_attr(w.win, kv, &got, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Win_set_attr(w.win, kv, &a) == MPI_SUCCESS);
    CHECK(MPI_Win_get_attr(w.win, kv, &got, &flag) == MPI_SUCCESS && flag && got == &a);
    CHECK(MPI_Win_set_attr(w.win, kv, &b) == MPI_SUCCESS); /* deletes a */
    CHECK(ndeleted == 1 && deleted[0] == 11);
    CHECK(MPI_Win_delete_attr(w.win, kv) == MPI_SUCCESS); /* deletes b */
    CHECK(ndeleted == 2 && deleted[1] == 22);
    CHECK(MPI_Win_get_attr(w.win, kv, &got, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Win_set_attr(w.win, kv, &c) == MPI_SUCCESS);
    CHECK(MPI_Win_set_attr(w.win, kv2, &a) == MPI_SUCCESS);
    /* A keyval freed while attached: the attribute stays until the window goes. */
    CHECK(MPI_Win_free_keyval(&kv) == MPI_SUCCESS && kv == MPI_KEYVAL_INVALID);
    CHECK(ndeleted == 2);
    rma_win_free(&w); /* deletes c */
    if (ndeleted != 3 || deleted[2] != 33)
        FAIL("MPI_Win_free: delete callback called %d times (last value %d), expected 3 (33)",
             ndeleted, deleted[ndeleted > 0 ? (ndeleted - 1) % 8 : 0]);
    MPI_Win_free_keyval(&kv2);
}

static int handler_calls, handler_code;
static MPI_Win handler_win;

static void win_handler(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_win = *win;
}

static void test_errhandler(void)
{
    rma_win_t w;
    MPI_Errhandler eh, got;
    int cls, code, rc;
    unsigned char v = 0;
    CHECK(rma_win_make(&w, RMA_ALLOCATE, 64, 1, MPI_COMM_WORLD));
    CHECK(MPI_Win_get_errhandler(w.win, &got) == MPI_SUCCESS);
    CHECK(got == MPI_ERRORS_ARE_FATAL); /* the default on a window (MPI-4.1 9.3) */
    MPI_Errhandler_free(&got);
    CHECK(MPI_Win_create_errhandler(win_handler, &eh) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w.win, eh) == MPI_SUCCESS);
    CHECK(MPI_Win_get_errhandler(w.win, &got) == MPI_SUCCESS && got == eh);
    MPI_Errhandler_free(&got);
    /* Freed by us, still attached: the window keeps it alive. */
    MPI_Errhandler_free(&eh);
    handler_calls = 0;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    CHECK(MPI_Win_call_errhandler(w.win, code) == MPI_SUCCESS);
    CHECK(handler_calls == 1 && handler_code == code && handler_win == w.win);
    /* A failing call goes to the handler, which returns: the call returns the code. */
    rc = MPI_Put(&v, 1, MPI_BYTE, rank, 0, 1, MPI_BYTE, w.win); /* no epoch */
    CHECK(rc != MPI_SUCCESS && handler_calls == 2 && handler_code == rc);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    rc = MPI_Put(&v, 1, MPI_BYTE, rank, 0, 1, MPI_BYTE, w.win);
    CHECK(rc != MPI_SUCCESS && handler_calls == 2);
    rma_win_free(&w);
}

/* MPI_Alloc_mem: usable memory of each size asked (0 too), freed by MPI_Free_mem. */
static void test_alloc_mem(void)
{
    MPI_Aint sizes[] = {0, 1, 7, 4093, 65537, (1 << 20) + 3};
    for (int i = 0; i < 6; i++) {
        unsigned char *p;
        CHECK(MPI_Alloc_mem(sizes[i], MPI_INFO_NULL, &p) == MPI_SUCCESS);
        CHECK(sizes[i] == 0 || p != NULL);
        fill(p, (size_t)sizes[i], 9);
        verify(p, (size_t)sizes[i], 9, "MPI_Alloc_mem memory");
        CHECK(MPI_Free_mem(p) == MPI_SUCCESS);
    }
}

static const mpitest_t tests[] = {
    {"attrs", test_attrs},           {"name", test_name},           {"keyval", test_keyval},
    {"errhandler", test_errhandler}, {"alloc_mem", test_alloc_mem},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
