/* MPI_Win_create_dynamic with MPI_Win_attach/detach: several regions per process (malloc and
 * MPI_Alloc_mem), addresses exchanged with MPI_Get_address, puts and gets at each; regions
 * attached and detached while other processes access other, still attached, regions; memory
 * attached again after a detach; access to unattached memory is MPI_ERR_RMA_RANGE (neither
 * rival detects it); memory unmapped and mapped again at the same address between a detach
 * and an attach; puts and gets to a target that does not call MPI. Usage: rma_dynamic TEST...
 * (or "all"), any number of ranks. */
#define MPITEST_NAME "rma_dynamic"
#include "mpitest.h"
#include "rma_common.h"

#include <sys/mman.h>

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

/* Memory detached, unmapped, mapped again at the same address and attached again, all inside
 * one lock_all epoch of the origins, while they keep accessing another region of the same
 * target: an origin that learnt the old memory's key must not use it for the new memory (over
 * RDMA the old key reaches nothing, or the old pages), and the new pages get the data. */
static void test_remap(void)
{
    const size_t len = 3 * 4096 + 17, stable_len = 4096;
    MPI_Win win;
    MPI_Aint *addr = xmalloc(sizeof(MPI_Aint) * (size_t)size * 2);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    unsigned char *stable = xmalloc(stable_len), *src = xmalloc(len), *dst = xmalloc(len);
    unsigned char *reg =
        mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    CHECK(reg != MAP_FAILED);
    memset(stable, 0, stable_len);
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    CHECK(MPI_Win_attach(win, reg, (MPI_Aint)len) == MPI_SUCCESS);
    CHECK(MPI_Win_attach(win, stable, (MPI_Aint)stable_len) == MPI_SUCCESS);
    exchange(reg, addr);
    exchange(stable, addr + size);
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    for (int round = 0; round < 6; round++) {
        fill(src, len, (unsigned)(rank * 31 + round));
        CHECK(MPI_Put(src, (int)len, MPI_BYTE, right, addr[right], (int)len, MPI_BYTE, win) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_flush(right, win) == MPI_SUCCESS);
        memset(dst, 0, len);
        CHECK(MPI_Get(dst, (int)len, MPI_BYTE, right, addr[right], (int)len, MPI_BYTE, win) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_flush(right, win) == MPI_SUCCESS);
        verify(dst, len, (unsigned)(rank * 31 + round), "get of what this rank put");
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(win);
        verify(reg, len, (unsigned)(left * 31 + round), "put into the region mapped again");
        MPI_Barrier(MPI_COMM_WORLD); /* nobody touches reg until the next round's barrier */
        CHECK(MPI_Win_detach(win, reg) == MPI_SUCCESS);
        /* The origins go on with the other region meanwhile, with the copy of our keys. */
        fill(src, 64, (unsigned)(rank + round));
        CHECK(MPI_Put(src, 64, MPI_BYTE, right, addr[size + right] + 64 * round, 64, MPI_BYTE,
                      win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(right, win) == MPI_SUCCESS);
        CHECK(munmap(reg, len) == 0);
        CHECK(mmap(reg, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                   0) == reg);
        CHECK(MPI_Win_attach(win, reg, (MPI_Aint)len) == MPI_SUCCESS);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int round = 0; round < 6; round++)
        verify(stable + 64 * round, 64, (unsigned)(left + round), "puts beside the detach");
    CHECK(MPI_Win_detach(win, stable) == MPI_SUCCESS);
    CHECK(MPI_Win_detach(win, reg) == MPI_SUCCESS);
    MPI_Win_free(&win);
    munmap(reg, len);
    free(stable);
    free(src);
    free(dst);
    free(addr);
}

/* Contiguous puts and gets to attached memory need nothing of the target where they are RDMA:
 * with RMA_DYN_RDMA=1 (verbs_rma.sh sets it: over ib), rank 0 waits for every origin's flag in
 * its attached memory without calling MPI, which would never end if a put or the reading of
 * its table of keys were a message it has to serve (so the test would time out). Elsewhere
 * rank 0 waits calling MPI_Iprobe, which progresses. Either way the data is checked. */
static void test_nocpu(void)
{
    enum { SLOT = 256 };
    size_t len = (size_t)size * SLOT;
    unsigned char *mem = xmalloc(len), *back = xmalloc(SLOT), *mine = xmalloc(SLOT);
    volatile unsigned char *flags = xmalloc((size_t)size);
    const char *env = getenv("RMA_DYN_RDMA");
    int nocpu = env != NULL && strcmp(env, "1") == 0;
    MPI_Aint *addr = xmalloc(sizeof(MPI_Aint) * (size_t)size * 2);
    MPI_Win win;

    fill(mem, len, 77);
    memset((void *)flags, 0, (size_t)size);
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    CHECK(MPI_Win_attach(win, mem, (MPI_Aint)len) == MPI_SUCCESS);
    CHECK(MPI_Win_attach(win, (void *)flags, size) == MPI_SUCCESS);
    exchange(mem, addr);
    exchange((void *)flags, addr + size);
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            double t0 = MPI_Wtime();
            while (flags[r] == 0) {
                int any;
                if (!nocpu)
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any,
                               MPI_STATUS_IGNORE);
                else if (MPI_Wtime() - t0 > 120) /* a clock read, not progress */
                    FAIL("origin %d's flag never came without rank 0 calling MPI", r);
            }
            MPI_Win_sync(win); /* the flag seen: the data put before it too */
            verify(mem + (size_t)r * SLOT, SLOT, (unsigned)(500 + r), "an origin's put");
        }
    } else {
        unsigned char one = 1;
        fill(mine, SLOT, (unsigned)(500 + rank));
        CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win) == MPI_SUCCESS);
        CHECK(MPI_Get(back, SLOT, MPI_BYTE, 0, addr[0], SLOT, MPI_BYTE, win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
        verify(back, SLOT, 77, "a get from rank 0");
        CHECK(MPI_Put(mine, SLOT, MPI_BYTE, 0, addr[0] + rank * SLOT, SLOT, MPI_BYTE, win) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
        CHECK(MPI_Put(&one, 1, MPI_BYTE, 0, addr[size] + rank, 1, MPI_BYTE, win) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_detach(win, mem) == MPI_SUCCESS);
    CHECK(MPI_Win_detach(win, (void *)flags) == MPI_SUCCESS);
    MPI_Win_free(&win);
    free(mem);
    free(back);
    free(mine);
    free((void *)flags);
    free(addr);
}

static const mpitest_t tests[] = {
    {"regions", test_regions},
    {"unattached", test_unattached},
    {"remap", test_remap},
    {"nocpu", test_nocpu},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
