/* Programs that poll: rings of ranks where each rank loops on a polling call until its left
 * neighbour's 8-byte message arrives, then checks it and forwards it to its right neighbour, as
 * HPL's ring broadcasts do. On a node with more ranks than cores each empty poll takes the core
 * from the rank whose message it waits for, so these rings are what test/integration/poll.sh
 * runs oversubscribed (and bench/progress --poll times).
 *
 *   poll SUBTEST... [all]   SUBTEST: iprobe improbe test test_variants
 *
 *   iprobe         MPI_Iprobe until the message is there, then MPI_Recv
 *   improbe        MPI_Improbe until it returns a message, then MPI_Mrecv
 *   test           MPI_Irecv posted, then MPI_Test until it completes
 *   test_variants  the same, polling with MPI_Testany, MPI_Testsome, MPI_Testall and
 *                  MPI_Request_get_status (then MPI_Wait) in turn
 *
 * The message is (lap, hops so far): rank r receives hop r of lap l from rank r - 1 (rank 0 hop
 * size, the lap's last), each checked. POLL_LAPS sets the laps (default 200). */
#define MPITEST_NAME "poll"
#include "mpitest.h"

#include <stdint.h>

#define POLL_TAG 19

static int laps = 200;

enum { BY_IPROBE, BY_IMPROBE, BY_TEST, BY_VARIANTS };

/* Wait for the message from the left by polling with the given call; returns it. */
static void poll_recv(int how, int lap, int32_t msg[2])
{
    int left = (rank + size - 1) % size, flag = 0, idx, n;
    long polls = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Message m;
    MPI_Status st;

    if (how == BY_TEST || how == BY_VARIANTS)
        CHECK(MPI_Irecv(msg, 2, MPI_INT32_T, left, POLL_TAG, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    while (!flag) {
        polls++;
        switch (how) {
        case BY_IPROBE:
            CHECK(MPI_Iprobe(left, POLL_TAG, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS);
            if (flag) {
                CHECK(st.MPI_SOURCE == left && st.MPI_TAG == POLL_TAG);
                CHECK(MPI_Recv(msg, 2, MPI_INT32_T, left, POLL_TAG, MPI_COMM_WORLD, &st) ==
                      MPI_SUCCESS);
            }
            break;
        case BY_IMPROBE:
            CHECK(MPI_Improbe(left, POLL_TAG, MPI_COMM_WORLD, &flag, &m, &st) == MPI_SUCCESS);
            if (flag)
                CHECK(MPI_Mrecv(msg, 2, MPI_INT32_T, &m, &st) == MPI_SUCCESS);
            else
                CHECK(m == MPI_MESSAGE_NULL);
            break;
        case BY_TEST:
            CHECK(MPI_Test(&req, &flag, &st) == MPI_SUCCESS);
            break;
        default:
            switch ((lap + polls) % 4) {
            case 0:
                CHECK(MPI_Testany(1, &req, &idx, &flag, &st) == MPI_SUCCESS);
                CHECK(flag ? idx == 0 : idx == MPI_UNDEFINED);
                break;
            case 1:
                CHECK(MPI_Testsome(1, &req, &n, &idx, &st) == MPI_SUCCESS);
                CHECK(n == 0 || (n == 1 && idx == 0));
                flag = n == 1;
                break;
            case 2:
                CHECK(MPI_Testall(1, &req, &flag, &st) == MPI_SUCCESS);
                break;
            default:
                CHECK(MPI_Request_get_status(req, &flag, &st) == MPI_SUCCESS);
                if (flag) /* it stays: free it */
                    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
                break;
            }
            break;
        }
    }
    CHECK(req == MPI_REQUEST_NULL);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == POLL_TAG);
    CHECK(MPI_Get_count(&st, MPI_INT32_T, &n) == MPI_SUCCESS && n == 2);
}

static void ring(int how)
{
    int right = (rank + 1) % size;
    int32_t msg[2];

    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) {
            msg[0] = lap;
            msg[1] = 0;
            CHECK(MPI_Send(msg, 2, MPI_INT32_T, right, POLL_TAG, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
        msg[0] = msg[1] = -1;
        poll_recv(how, lap, msg);
        if (msg[0] != lap || msg[1] != (rank == 0 ? size - 1 : rank - 1))
            FAIL("lap %d: got (lap %d, hop %d) from the left, expected (lap %d, hop %d)", lap,
                 msg[0], msg[1], lap, rank == 0 ? size - 1 : rank - 1);
        if (rank != 0) {
            msg[1] = rank;
            CHECK(MPI_Send(msg, 2, MPI_INT32_T, right, POLL_TAG, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
    }
}

static void t_iprobe(void)
{
    ring(BY_IPROBE);
}

static void t_improbe(void)
{
    ring(BY_IMPROBE);
}

static void t_test(void)
{
    ring(BY_TEST);
}

static void t_test_variants(void)
{
    ring(BY_VARIANTS);
}

int main(int argc, char **argv)
{
    static const mpitest_t tests[] = {
        {"iprobe", t_iprobe},
        {"improbe", t_improbe},
        {"test", t_test},
        {"test_variants", t_test_variants},
    };
    const char *l = getenv("POLL_LAPS");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (l != NULL && atoi(l) > 0)
        laps = atoi(l);
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    if (argc < 2)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), "all");
    MPI_Finalize();
    return 0;
}
