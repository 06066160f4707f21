/* White-box test of the runtime's defences against a peer that sends malformed protocol
 * messages (runtime/vbt_p2p_wire.h, vbt_p2p.c), under the real mpirun, 2 ranks. Rank 0 hands
 * hand-made messages straight to its transport to rank 1: a wrong version, an unknown type,
 * lengths that do not agree, a source rank that is not the sender's, request ids that name nothing
 * (one shaped like an address: ids are looked up, never dereferenced), a fragment with no message,
 * a new message in the middle of a fragmented one, a piece past the end, an unknown communicator.
 * Rank 1 must drop each with an error naming rank 0 and the field (hostile.sh checks stderr), and
 * go on: the fragmented message completed by its genuine last piece, then ordinary eager and
 * rendezvous messages, arrive intact, byte for byte. Exit: 0 pass, 1 fail. */
#define MPITEST_NAME "hostile"
#include "mpitest.h"

#include "vbt_comm.h"
#include "vbt_p2p.h"
#include "vbt_tl.h"

#define BIG (1u << 20) /* above every rendezvous threshold */

static void raw(const vbt_p2p_hdr_t *hdr, size_t hdr_len, const void *payload, size_t len)
{
    vbt_status_t st;

    /* The ring may be full: the receiver drains it once it is in MPI calls. */
    while ((st = vbt_tl_send(vbt_tl_of(vbt_p2p_tl(), 1), 1, hdr, hdr_len, payload, len)) ==
           VBT_ERR_NO_RESOURCE)
        MPI_Iprobe(1, 0, MPI_COMM_WORLD, &(int){0}, MPI_STATUS_IGNORE);
    if (st != VBT_OK)
        FAIL("raw send: status %d", (int)st);
}

static vbt_p2p_hdr_t hdr_of(uint8_t type, uint32_t context, int tag, uint64_t len, uint64_t id)
{
    vbt_p2p_hdr_t h = {.version = VBT_P2P_WIRE_VERSION,
                       .type = type,
                       .context_id = context,
                       .src = 0,
                       .tag = tag,
                       .len = len,
                       .id = id};
    return h;
}

static void attack(uint32_t ctx)
{
    unsigned char junk[128], frag[100];
    vbt_p2p_hdr_t h;
    vbt_p2p_cts_t cts;
    vbt_p2p_rts_t rts;

    memset(junk, 0x5a, sizeof(junk));
    fill(frag, sizeof(frag), 99);
    h = hdr_of(VBT_P2P_EAGER, ctx, 5, 4, 0);
    h.version = VBT_P2P_WIRE_VERSION + 1;
    raw(&h, sizeof(h), junk, 4); /* "wire version" */
    h = hdr_of(42, ctx, 5, 0, 0);
    raw(&h, sizeof(h), NULL, 0); /* "bad type" */
    h = hdr_of(VBT_P2P_EAGER, ctx, 5, 1000, 0);
    raw(&h, sizeof(h), junk, 10); /* "bad len (not the payload's length)" */
    raw(&h, 10, NULL, 0);         /* "bad length (shorter than the header)" */
    h = hdr_of(VBT_P2P_ACK, ctx, 0, 0, 0x00007ffd12345678ull);
    raw(&h, sizeof(h), NULL, 0); /* "field id 0x7ffd12345678 names no synchronous send" */
    h = hdr_of(VBT_P2P_FIN, ctx, 0, 0, 0xdead00000001ull);
    raw(&h, sizeof(h), NULL, 0); /* "rendezvous FIN" */
    h = hdr_of(VBT_P2P_DONE, ctx, 0, 0, 0xdead00000002ull);
    raw(&h, sizeof(h), NULL, 0); /* "rendezvous DONE" */
    h = hdr_of(VBT_P2P_RDATA, ctx, 0, 0, 0xdead00000003ull);
    raw(&h, sizeof(h), junk, 64); /* "rendezvous data" */
    h = hdr_of(VBT_P2P_CTS, ctx, 0, 64, 0xdead00000004ull);
    raw(&h, sizeof(h), NULL, 0); /* "bad length (too short for its type)" */
    memset(&cts, 0, sizeof(cts));
    cts.hdr = hdr_of(VBT_P2P_CTS, ctx, 0, 64, 0xdead00000005ull);
    cts.recv_id = 1;
    raw(&cts.hdr, sizeof(cts), NULL, 0); /* "clear-to-send ... names no rendezvous send" */
    memset(&rts, 0, sizeof(rts));
    rts.hdr = hdr_of(VBT_P2P_RTS, 0xfffffff0u, 5, 64, 1);
    raw(&rts.hdr, sizeof(rts), NULL, 0); /* "field context_id" */
    h = hdr_of(VBT_P2P_EAGER, ctx, 5, 4, 0);
    h.src = 1;
    raw(&h, sizeof(h), junk, 4); /* "field src 1 is not its rank": rank 1 is the receiver */
    h = hdr_of(VBT_P2P_FRAG, ctx, 0, 0, 0);
    raw(&h, sizeof(h), junk, 16); /* "unexpected fragment" */
    h = hdr_of(VBT_P2P_FRAG_FIRST, ctx, 97, 1ull << 40, 0);
    raw(&h, sizeof(h), junk, 16); /* a terabyte to buffer: "above the 64 MiB" */

    /* A fragmented message, a new one in its middle (dropped), then its genuine end, then a
     * piece too many (dropped). */
    h = hdr_of(VBT_P2P_FRAG_FIRST, ctx, 99, sizeof(frag), 0);
    raw(&h, sizeof(h), frag, 40);
    h = hdr_of(VBT_P2P_EAGER, ctx, 98, 4, 0);
    raw(&h, sizeof(h), junk, 4); /* "started before its previous message's fragments" */
    h = hdr_of(VBT_P2P_FRAG, ctx, 0, 0, 0);
    raw(&h, sizeof(h), frag + 40, sizeof(frag) - 40);
    raw(&h, sizeof(h), junk, 8); /* "unexpected fragment" */
}

int main(int argc, char **argv)
{
    static unsigned char big[BIG], small[1000];
    vbt_comm_t *world;

    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2)
        FAIL("needs 2 ranks, not %d", size);
    world = vbt_comm_get(MPI_COMM_WORLD);
    if (rank == 0) {
        attack(world->context_id);
        fill(small, sizeof(small), 1);
        fill(big, sizeof(big), 2);
        MPI_Send(small, (int)sizeof(small), MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Ssend(big, (int)sizeof(big), MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        MPI_Ssend(small, 10, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
    } else {
        unsigned char frag[100];
        MPI_Status st;
        int n, flag;

        MPI_Recv(frag, (int)sizeof(frag), MPI_BYTE, 0, 99, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(n == (int)sizeof(frag));
        for (size_t i = 0; i < sizeof(frag); i++)
            if (frag[i] != pattern(99, i))
                FAIL("fragmented message: byte %zu is %u, not %u", i, frag[i], pattern(99, i));
        MPI_Recv(small, (int)sizeof(small), MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        for (size_t i = 0; i < sizeof(small); i++)
            if (small[i] != pattern(1, i))
                FAIL("eager message: byte %zu is %u, not %u", i, small[i], pattern(1, i));
        MPI_Recv(big, (int)sizeof(big), MPI_BYTE, 0, 2, MPI_COMM_WORLD, &st);
        for (size_t i = 0; i < sizeof(big); i++)
            if (big[i] != pattern(2, i))
                FAIL("rendezvous message: byte %zu is %u, not %u", i, big[i], pattern(2, i));
        MPI_Recv(small, 10, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st);
        /* The messages dropped must not have been delivered either. */
        MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag)
            FAIL("a dropped message was delivered (tag %d)", st.MPI_TAG);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("hostile: rank %d ok\n", rank);
    MPI_Finalize();
    return 0;
}
