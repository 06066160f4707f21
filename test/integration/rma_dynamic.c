/* MPI_Win_create_dynamic with MPI_Win_attach/detach: several regions per process (malloc and
 * MPI_Alloc_mem), addresses exchanged with MPI_Get_address, puts and gets at each; regions
 * attached and detached while other processes access other, still attached, regions; memory
 * attached again after a detach; access to unattached memory is MPI_ERR_RMA_RANGE (neither
 * rival detects it). Usage: rma_dynamic TEST... (or "all"), any number of ranks. */
#define MPITEST_NAME "rma_dynamic"
#include "mpitest.h"
#include "rma_common.h"

#define NREG 4

static void exchange(void *p, MPI_Aint *all)
{
    MPI_Aint a;
    MPI_Get_address(p, &a);
    MPI_Allgather(&a, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
}

static void test_regions(void)
{
    MPI_Win win;
    size_t len[NREG] = {1, 4093, 65537, (1 << 20) + 3};
    unsigned char *reg[NREG], *src, *dst;
    MPI_Aint *addr = xmalloc(sizeof(MPI_Aint) * (size_t)size * NREG);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    for (int i = 0; i < NREG; i++) {
        if (i % 2)
            CHECK(MPI_Alloc_mem((MPI_Aint)len[i], MPI_INFO_NULL, &reg[i]) == MPI_SUCCESS);
        else
            reg[i] = xmalloc(len[i]);
        memset(reg[i], 0, len[i]);
        CHECK(MPI_Win_attach(win, reg[i], (MPI_Aint)len[i]) == MPI_SUCCESS);
        exchange(reg[i], addr + (size_t)i * (size_t)size);
    }
    src = xmalloc(len[NREG - 1]);
    dst = xmalloc(len[NREG - 1]);
    MPI_Win_lock_all(0, win);
    unsigned char *srcs[NREG]; /* one each: the puts are pending until the flush */
    for (int i = 0; i < NREG; i++) {
        srcs[i] = xmalloc(len[i]);
        fill(srcs[i], len[i], (unsigned)(rank * 10 + i));
        MPI_Put(srcs[i], (int)len[i], MPI_BYTE, right, addr[(size_t)i * (size_t)size + right],
                (int)len[i], MPI_BYTE, win);
    }
    MPI_Win_flush_all(win);
    for (int i = 0; i < NREG; i++)
        free(srcs[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int i = 0; i < NREG; i++)
        verify(reg[i], len[i], (unsigned)(left * 10 + i), "put into an attached region");
    for (int i = 0; i < NREG; i++) {
        memset(dst, 0, len[i]);
        MPI_Get(dst, (int)len[i], MPI_BYTE, left, addr[(size_t)i * (size_t)size + left],
                (int)len[i], MPI_BYTE, win);
        MPI_Win_flush(left, win);
        verify(dst, len[i], (unsigned)(((left - 1 + size) % size) * 10 + i),
               "get from an attached region");
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Churn: region 0 is detached and attached again (at a new address) over and over while
     * the others put into region 3; region 0 is only accessed between barriers. */
    MPI_Win_lock_all(0, win);
    for (int round = 0; round < 10; round++) {
        CHECK(MPI_Win_detach(win, reg[0]) == MPI_SUCCESS);
        free(reg[0]);
        fill(src, 64, (unsigned)(rank + round));
        for (int k = 0; k < 8; k++)
            MPI_Put(src, 64, MPI_BYTE, right, addr[3 * (size_t)size + right] + 64 * k, 64, MPI_BYTE,
                    win);
        reg[0] = xmalloc(len[0] + (size_t)round);
        reg[0][0] = 0;
        CHECK(MPI_Win_attach(win, reg[0], (MPI_Aint)len[0] + round) == MPI_SUCCESS);
        MPI_Win_flush(right, win);
        MPI_Win_unlock_all(win);
        exchange(reg[0], addr);
        MPI_Win_lock_all(0, win);
        unsigned char b = (unsigned char)(rank + round + 1);
        MPI_Put(&b, 1, MPI_BYTE, right, addr[right], 1, MPI_BYTE, win);
        MPI_Win_flush(right, win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(win);
        if (reg[0][0] != (unsigned char)(left + round + 1))
            FAIL("round %d: re-attached region holds 0x%02x, expected 0x%02x", round, reg[0][0],
                 (unsigned char)(left + round + 1));
        for (int k = 0; k < 8; k++)
            verify(reg[3] + 64 * k, 64, (unsigned)(left + round), "puts during attach/detach");
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    for (int i = 0; i < NREG; i++) {
        CHECK(MPI_Win_detach(win, reg[i]) == MPI_SUCCESS);
        if (i % 2)
            MPI_Free_mem(reg[i]);
        else
            free(reg[i]);
    }
    MPI_Win_free(&win);
    free(src);
    free(dst);
    free(addr);
}

/* Only the target knows what is attached to a dynamic window, so Verbatim reports an access
 * outside it at the synchronization that completes it (README, "One-sided communication");
 * other implementations may report it at the call: put_rc is the put's; when
 * it succeeded, the error must come from the MPI_Win_unlock_all that closes the epoch. Either
 * way the epoch is closed on return. */
static int range_error_at_put_or_unlock(int put_rc, MPI_Win win)
{
    int rc = MPI_Win_unlock_all(win);
    return put_rc != MPI_SUCCESS ? put_rc : rc;
}

/* An access to memory not attached at the target is MPI_ERR_RMA_RANGE (12.7), and writes
 * nothing; after a detach the old address is no longer part of the window. */
static void test_unattached(void)
{
    MPI_Win win;
    unsigned char *reg = xmalloc(256), v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    MPI_Aint *addr = xmalloc(sizeof(MPI_Aint) * (size_t)size);
    int right = (rank + 1) % size, cls, rc;
    memset(reg, 0x11, 256);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_attach(win, reg, 128);
    exchange(reg, addr);
    MPI_Win_lock_all(0, win);
    rc = MPI_Put(v, 8, MPI_BYTE, right, addr[right] + 124, 8, MPI_BYTE, win); /* crosses end */
    rc = range_error_at_put_or_unlock(rc, win);
    MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS || cls != MPI_ERR_RMA_RANGE)
        FAIL("put past the attached region: class %d, expected MPI_ERR_RMA_RANGE",
             rc == MPI_SUCCESS ? 0 : cls);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, reg);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    rc = MPI_Put(v, 8, MPI_BYTE, right, addr[right], 8, MPI_BYTE, win);
    rc = range_error_at_put_or_unlock(rc, win);
    MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS || cls != MPI_ERR_RMA_RANGE)
        FAIL("put into a detached region: class %d, expected MPI_ERR_RMA_RANGE",
             rc == MPI_SUCCESS ? 0 : cls);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 256; i++)
        if (reg[i] != 0x11)
            FAIL("byte %d written by a failed put (0x%02x)", i, reg[i]);
    MPI_Win_free(&win);
    free(reg);
    free(addr);
}

static const mpitest_t tests[] = {
    {"regions", test_regions},
    {"unattached", test_unattached},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
