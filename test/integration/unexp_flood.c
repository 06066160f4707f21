/* A flood of unexpected messages: every rank but 0 (rank 0 itself when alone) sends its share
 * of UNEXP_TOTAL messages (default 200000) of mixed sizes (0, 1, 8, 100, 4000 bytes, the
 * largest eager payload, one byte more, and now and then messages that go in fragments or by
 * rendezvous) on three communicators (world, a duplicate, and a split with the ranks reversed)
 * and five tags, then a last empty message; rank 0 receives those last messages first, so the
 * whole flood waits in its unexpected queues, then receives every message in each sender's
 * order (some with MPI_ANY_TAG: the oldest from that sender on that communicator must be the
 * next one), checking size, tag and every byte.
 *
 * Rank 0 prints the growth of its peak resident set (VmHWM in /proc/self/status) over the
 * flood, and with UNEXP_RSS_CHECK=1 fails when that growth is above twice the payload bytes
 * plus 256 bytes a message plus 32 MiB: storage sized by the message stays well under it, a
 * 16 KiB buffer per message did not. */
#define MPITEST_NAME "unexp_flood"
#include "mpitest.h"

#include <stdint.h>

#define NCOMMS    3
#define NTAGS     5
#define DONE_TAG  99
#define EAGER_MAX 8160 /* the 8 KiB eager send of shm and ib less the 32-byte runtime header */
#define BIGGEST   40000

static size_t msg_size(long i)
{
    static const size_t small[4] = {0, 1, 8, 100};

    if (i % 512 == 511)
        return BIGGEST; /* rendezvous on shm and ib */
    if (i % 256 == 255)
        return 20000; /* rendezvous on shm, fragments on ib */
    if (i % 128 == 127)
        return EAGER_MAX + 1; /* two fragments */
    if (i % 128 == 63)
        return EAGER_MAX;
    if (i % 32 == 7)
        return 4000;
    return small[i % 4];
}

static int msg_tag(long i)
{
    return (int)((i / NCOMMS) % NTAGS);
}

static unsigned msg_seed(int sender, long i)
{
    return (unsigned)sender * 1000003u + (unsigned)i;
}

/* World rank w's rank in communicator c (c 2 has the ranks reversed). */
static int rank_in(int c, int w)
{
    return c == 2 ? size - 1 - w : w;
}

static long vm_hwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/* Send this rank's n messages to rank 0, then the empty DONE_TAG one. The ones that may go by
 * rendezvous are sent nonblocking (they complete only once rank 0 receives them): their
 * requests and buffers are left in *sends_p for send_wait. */
typedef struct {
    MPI_Request *reqs;
    char *bufs;
    int n;
} sends_t;

static void send_flood(MPI_Comm *comms, long n, sends_t *sends_p)
{
    char *buf = xmalloc(BIGGEST);
    sends_t s = {xmalloc(sizeof(MPI_Request) * (size_t)(n / 256 + 2)),
                 xmalloc((size_t)(n / 256 + 2) * BIGGEST), 0};

    for (long i = 0; i < n; i++) {
        size_t len = msg_size(i);
        int c = (int)(i % NCOMMS);
        if (len > 16384) {
            char *b = s.bufs + (size_t)s.n * BIGGEST;
            fill(b, len, msg_seed(rank, i));
            CHECK(MPI_Isend(b, (int)len, MPI_BYTE, rank_in(c, 0), msg_tag(i), comms[c],
                            &s.reqs[s.n++]) == MPI_SUCCESS);
        } else {
            fill(buf, len, msg_seed(rank, i));
            CHECK(MPI_Send(buf, (int)len, MPI_BYTE, rank_in(c, 0), msg_tag(i), comms[c]) ==
                  MPI_SUCCESS);
        }
    }
    CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, DONE_TAG, MPI_COMM_WORLD) == MPI_SUCCESS);
    free(buf);
    *sends_p = s;
}

static void send_wait(sends_t *s)
{
    CHECK(MPI_Waitall(s->n, s->reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    free(s->reqs);
    free(s->bufs);
}

/* Rank 0: the DONE_TAG messages of senders first..last (so all of the flood has arrived),
 * then every message, each communicator's in turn: MPI_Probe with MPI_ANY_SOURCE and
 * MPI_ANY_TAG names the oldest (a linear unexpected queue makes any other order quadratic),
 * which must be the next of its sender on that communicator; MPI_Recv by that source and tag
 * (every fifth MPI_ANY_TAG) must receive exactly it. */
static void recv_flood(MPI_Comm *comms, long n, int first, int last, long hwm0, int rss_check)
{
    char *rbuf = xmalloc(BIGGEST);
    long *next = xmalloc(sizeof(long) * (size_t)size * NCOMMS);
    double t0 = MPI_Wtime(), t1;
    size_t payload = 0;
    MPI_Status st;
    long hwm1, msgs = n * (last - first + 1), got = 0;
    int count;

    for (int s = first; s <= last; s++)
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, s, DONE_TAG, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    t1 = MPI_Wtime();
    for (int s = 0; s < size; s++)
        for (int c = 0; c < NCOMMS; c++)
            next[s * NCOMMS + c] = c;
    while (got < msgs) {
        for (int c = 0; c < NCOMMS; c++) {
            int s, tag;
            long i;
            size_t len;
            if (c >= n || got == msgs)
                continue;
            /* Is anything left on c? Each sender's last message on it has the index below. */
            int left = 0;
            for (s = first; s <= last; s++)
                left |= next[s * NCOMMS + c] < n;
            if (!left)
                continue;
            CHECK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comms[c], &st) == MPI_SUCCESS);
            s = c == 2 ? size - 1 - st.MPI_SOURCE : st.MPI_SOURCE;
            if (s < first || s > last || next[s * NCOMMS + c] >= n)
                FAIL("communicator %d: a message from rank %d (tag %d), which sent no more", c,
                     st.MPI_SOURCE, st.MPI_TAG);
            i = next[s * NCOMMS + c];
            len = msg_size(i);
            if (st.MPI_TAG != msg_tag(i))
                FAIL("communicator %d: probed tag %d from rank %d; its message %ld has tag %d", c,
                     st.MPI_TAG, s, i, msg_tag(i));
            tag = got % 5 == 2 ? MPI_ANY_TAG : st.MPI_TAG;
            CHECK(MPI_Recv(rbuf, BIGGEST, MPI_BYTE, st.MPI_SOURCE, tag, comms[c], &st) ==
                  MPI_SUCCESS);
            MPI_Get_count(&st, MPI_BYTE, &count);
            if (st.MPI_TAG != msg_tag(i) || (size_t)count != len || st.MPI_SOURCE != rank_in(c, s))
                FAIL("message %ld from rank %d on communicator %d: source %d, tag %d, %d bytes; "
                     "expected source %d, tag %d, %zu bytes",
                     i, s, c, st.MPI_SOURCE, st.MPI_TAG, count, rank_in(c, s), msg_tag(i), len);
            verify(rbuf, len, msg_seed(s, i), "flood message");
            payload += len;
            next[s * NCOMMS + c] += NCOMMS;
            got++;
        }
    }
    free(next);
    hwm1 = vm_hwm_kib();
    printf("unexp_flood: %d ranks: %ld messages (%zu payload bytes) from %d senders: flood "
           "%.2f s, receives %.2f s; peak RSS grew by %ld KiB (VmHWM %ld -> %ld KiB)\n",
           size, msgs, payload, last - first + 1, t1 - t0, MPI_Wtime() - t1, hwm1 - hwm0, hwm0,
           hwm1);
    if (rss_check && hwm0 >= 0 && hwm1 >= 0) {
        long bound = (long)(2 * payload / 1024) + msgs / 4 + 32 * 1024;
        if (hwm1 - hwm0 > bound)
            FAIL("peak RSS grew by %ld KiB over a flood of %ld messages of %zu payload bytes: "
                 "more than the bound of %ld KiB (2 x payload + 256 B a message + 32 MiB)",
                 hwm1 - hwm0, msgs, payload, bound);
    }
    free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Comm comms[NCOMMS];
    const char *e_total = getenv("UNEXP_TOTAL"), *e_rss = getenv("UNEXP_RSS_CHECK");
    long total = e_total != NULL ? atol(e_total) : 200000;
    int rss_check = e_rss != NULL && atoi(e_rss) != 0;
    sends_t sends;
    long n, hwm0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    comms[0] = MPI_COMM_WORLD;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]) == MPI_SUCCESS);
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[2]) == MPI_SUCCESS);
    n = total / (size > 1 ? size - 1 : 1);
    MPI_Barrier(MPI_COMM_WORLD);
    hwm0 = vm_hwm_kib();

    if (size == 1) {
        /* Alone: the flood goes to ourselves. */
        send_flood(comms, n, &sends);
        recv_flood(comms, n, 0, 0, hwm0, rss_check);
        send_wait(&sends);
    } else if (rank != 0) {
        send_flood(comms, n, &sends);
        send_wait(&sends);
    } else {
        recv_flood(comms, n, 1, size - 1, hwm0, rss_check);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    if (rank == 0)
        printf("unexp_flood: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
