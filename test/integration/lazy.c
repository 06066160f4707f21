/* Connections made on first use, through MPI (run over verbs by verbs_lazy.sh, which also counts
 * the connections each rank made from its VBT_LOG=debug lines).
 *
 *   lazy pair   each rank talks to its partner (rank ^ 1) only: eager, fragmented and
 *               rendezvous messages both ways, both sending first at once; no barrier, no
 *               collective (they would connect other pairs)
 *   lazy all    every rank sends to every other at once, first contact for every pair (the
 *               connections cross): eager, fragmented and rendezvous sizes, every byte checked
 *   lazy busy   rank 1 sleeps 2 s after MPI_Init before any MPI call; rank 0 sends to it at
 *               once and must get through, then gets an answer
 *
 * Prints "lazy: MODE ok (N ranks)" on rank 0; exits non-zero (MPI_Abort) on any error. */
#define MPITEST_NAME "lazy"
#include "mpitest.h"

#include <unistd.h>

/* Sizes: empty, eager, just over the default eager limit (fragments), rendezvous. */
static const size_t sizes[] = {0, 100, 8000, 20000, 100000};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static unsigned seed_of(int src, int dst, size_t k)
{
    return (unsigned)(src * 1000 + dst * 10 + (int)k);
}

/* Every message to each peer in peers[] and from each, all posted at once, then checked. */
static void exchange(const int *peers, int npeers)
{
    int nreq = 2 * npeers * (int)NSIZES, r = 0;
    MPI_Request *req = xmalloc(sizeof(*req) * (size_t)nreq);
    unsigned char **rbuf = xmalloc(sizeof(*rbuf) * (size_t)npeers * NSIZES);
    unsigned char **sbuf = xmalloc(sizeof(*sbuf) * (size_t)npeers * NSIZES);

    for (int i = 0; i < npeers; i++) {
        for (size_t k = 0; k < NSIZES; k++) {
            size_t j = (size_t)i * NSIZES + k;
            rbuf[j] = xmalloc(sizes[k]);
            memset(rbuf[j], 0, sizes[k]);
            MPI_Irecv(rbuf[j], (int)sizes[k], MPI_BYTE, peers[i], (int)k, MPI_COMM_WORLD,
                      &req[r++]);
        }
    }
    for (int i = 0; i < npeers; i++) {
        for (size_t k = 0; k < NSIZES; k++) {
            size_t j = (size_t)i * NSIZES + k;
            sbuf[j] = xmalloc(sizes[k]);
            fill(sbuf[j], sizes[k], seed_of(rank, peers[i], k));
            MPI_Isend(sbuf[j], (int)sizes[k], MPI_BYTE, peers[i], (int)k, MPI_COMM_WORLD,
                      &req[r++]);
        }
    }
    CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < npeers; i++) {
        for (size_t k = 0; k < NSIZES; k++) {
            size_t j = (size_t)i * NSIZES + k;
            char what[64];
            snprintf(what, sizeof(what), "message %zu from rank %d", k, peers[i]);
            verify(rbuf[j], sizes[k], seed_of(peers[i], rank, k), what);
            free(rbuf[j]);
            free(sbuf[j]);
        }
    }
    free(req);
    free(rbuf);
    free(sbuf);
}

static void pair(void)
{
    int partner = rank ^ 1;

    if (partner < size)
        exchange(&partner, 1);
}

static void all(void)
{
    int *peers = xmalloc(sizeof(int) * (size_t)size), n = 0;

    for (int i = 1; i < size; i++)
        peers[n++] = (rank + i) % size;
    exchange(peers, n);
    free(peers);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void busy(void)
{
    double t0 = MPI_Wtime();

    if (size < 2)
        FAIL("busy needs 2 ranks");
    if (rank == 1) {
        sleep(2); /* busy computing: no MPI call, so no progress */
        int peer = 0;
        exchange(&peer, 1);
    } else if (rank == 0) {
        int peer = 1;
        exchange(&peer, 1);
        printf("lazy: busy: rank 1 answered after %.1f s\n", MPI_Wtime() - t0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";

    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "pair") == 0)
        pair();
    else if (strcmp(mode, "all") == 0)
        all();
    else if (strcmp(mode, "busy") == 0)
        busy();
    else
        FAIL("unknown mode '%s' (pair, all, busy)", mode);
    printf("lazy: rank %d: %s ok\n", rank, mode);
    if (rank == 0)
        printf("lazy: %s ok (%d ranks)\n", mode, size);
    MPI_Finalize();
    return 0;
}
