/* A rank that dies in the middle of an exchange (fault_kill.sh): the others must not hang.
 *
 *   fault LOOP VICTIM HOW N [MARK]
 *
 * LOOP is what every rank does over and over until it is ended:
 *   pingpong   ranks 2k and 2k+1 bounce a 64-byte message (a last odd rank bounces with itself)
 *   allreduce, bcast, barrier, alltoall   that collective on MPI_COMM_WORLD; bcast's root is
 *              VICTIM, so the rank that dies is the root of a rooted collective
 *   recv       every other rank waits in MPI_Recv from VICTIM, which sends nothing more after
 *              one greeting (tag 1) to each: over verbs a peer is watched once connected, and
 *              connections are made on first use
 * HOW is what VICTIM does after N iterations (for recv: after N ms):
 *   raise      raise(SIGKILL)
 *   exit       exit(3) without MPI_Finalize
 *   wait       print "fault: rank R pid P looping" and go on: the script kills it from outside
 *   late       (recv only) nobody dies: VICTIM sends the awaited message after N ms, and every
 *              rank finalizes and exits 0 (rank 0 prints "fault: ok"): a control, a long idle
 *              wait on a live peer must not be taken for a death
 * Before raise and exit, VICTIM prints "fault: rank R dies at T" (T: CLOCK_REALTIME in ms),
 * so the script can measure how long the job took to end after the death. Payloads are
 * checked, so an exchange that goes on with wrong data fails too. MARK (ignored) lets the
 * script find the processes. But for "late", the program never ends normally: nothing else
 * calls MPI_Finalize. */
#define MPITEST_NAME "fault"
#include "mpitest.h"

#include <signal.h>
#include <unistd.h>

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void die(const char *how)
{
    fprintf(stderr, "fault: rank %d dies at %lld\n", rank, now_ms());
    fflush(stderr);
    if (strcmp(how, "raise") == 0)
        raise(SIGKILL);
    exit(3);
}

/* The victim's turn after iteration it: die, or say once that it loops. */
static void victim_step(const char *how, long it, long n)
{
    if (it != n)
        return;
    if (strcmp(how, "wait") == 0) {
        printf("fault: rank %d pid %d looping\n", rank, (int)getpid());
        fflush(stdout);
        return;
    }
    die(how);
}

static void one_iteration(const char *loop, int victim, long it)
{
    enum { LEN = 64 };
    unsigned char buf[LEN], all[LEN * 8];
    int val, sum;

    if (strcmp(loop, "pingpong") == 0) {
        int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
        unsigned seed = (unsigned)(it * 2 + (rank & 1));

        if (rank & 1) {
            MPI_Recv(buf, LEN, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            verify(buf, LEN, (unsigned)(it * 2), "ping");
            fill(buf, LEN, seed);
            MPI_Send(buf, LEN, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        } else {
            unsigned char out[LEN];
            fill(out, LEN, seed);
            MPI_Sendrecv(out, LEN, MPI_BYTE, peer, 0, buf, LEN, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            verify(buf, LEN, peer == rank ? seed : seed + 1, "pong");
        }
    } else if (strcmp(loop, "allreduce") == 0) {
        val = rank + (int)it;
        MPI_Allreduce(&val, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == size * (size - 1) / 2 + size * (int)it);
    } else if (strcmp(loop, "bcast") == 0) {
        if (rank == victim)
            fill(buf, LEN, (unsigned)it);
        MPI_Bcast(buf, LEN, MPI_BYTE, victim, MPI_COMM_WORLD);
        verify(buf, LEN, (unsigned)it, "bcast");
    } else if (strcmp(loop, "barrier") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(loop, "alltoall") == 0) {
        int count = LEN / 8;
        unsigned char in[LEN * 8];
        CHECK(size <= 8);
        for (int r = 0; r < size; r++)
            fill(all + r * count, (size_t)count, (unsigned)(it + rank * 16 + r));
        MPI_Alltoall(all, count, MPI_BYTE, in, count, MPI_BYTE, MPI_COMM_WORLD);
        for (int r = 0; r < size; r++)
            verify(in + r * count, (size_t)count, (unsigned)(it + r * 16 + rank), "alltoall");
    } else {
        FAIL("unknown loop %s", loop);
    }
}

int main(int argc, char **argv)
{
    const char *loop, *how;
    int victim;
    long n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 5)
        FAIL("usage: fault LOOP VICTIM raise|exit|wait N [MARK]");
    loop = argv[1];
    victim = atoi(argv[2]);
    how = argv[3];
    n = atol(argv[4]);
    CHECK(victim >= 0 && victim < size);

    if (strcmp(loop, "recv") == 0) {
        int late = strcmp(how, "late") == 0, val;
        if (rank != victim) {
            MPI_Recv(&val, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(val == victim);
            /* Nothing ever comes (but for "late"): only the victim's death may end this. */
            MPI_Recv(&val, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (!late)
                FAIL("MPI_Recv from rank %d returned, but it sent nothing", victim);
            CHECK(val == victim + 1000);
        } else {
            for (int r = 0; r < size; r++)
                if (r != victim)
                    MPI_Send(&victim, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
            sleep_ms((int)n); /* let the others get to sleep in their receive */
            if (!late) {
                victim_step(how, 0, 0);
                for (;;)
                    pause();
            }
            val = victim + 1000;
            for (int r = 0; r < size; r++)
                if (r != victim)
                    MPI_Send(&val, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
        }
        MPI_Finalize();
        if (rank == 0)
            printf("fault: ok (%d ranks)\n", size);
        return 0;
    }
    for (long it = 0;; it++) {
        if (rank == victim)
            victim_step(how, it, n);
        one_iteration(loop, victim, it);
    }
}
