/* Every rank publishes a distinct blob (its length and bytes depend on the rank), fences once,
 * and reads and verifies every peer's blob byte for byte. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vbt_pmix.h"

static size_t blob_len(int rank)
{
    return 1 + (size_t)rank * 37 % 3000 + (size_t)rank * 7; /* distinct, some > 1 KiB */
}

static void blob_fill(int rank, unsigned char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)(rank * 131 + i * 7 + (i >> 8));
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    unsigned char *mine, *expect;
    void *got;
    size_t len;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    mine = malloc(blob_len(rank));
    blob_fill(rank, mine, blob_len(rank));
    if (vbt_modex_put("test.blob", mine, blob_len(rank)) != VBT_OK ||
        vbt_modex_put("test.empty", "", 0) != VBT_OK) {
        fprintf(stderr, "rank %d: put failed\n", rank);
        return 1;
    }
    if (vbt_modex_fence() != VBT_OK) {
        fprintf(stderr, "rank %d: fence failed\n", rank);
        return 1;
    }
    for (int peer = 0; peer < size; peer++) {
        size_t want = blob_len(peer);
        if (vbt_modex_get(peer, "test.blob", &got, &len) != VBT_OK) {
            fprintf(stderr, "rank %d: get from %d failed\n", rank, peer);
            errors++;
            continue;
        }
        expect = malloc(want);
        blob_fill(peer, expect, want);
        if (len != want || memcmp(got, expect, want) != 0) {
            fprintf(stderr, "rank %d: blob of rank %d wrong (%zu bytes, expected %zu)\n", rank,
                    peer, len, want);
            errors++;
        }
        free(expect);
        free(got);
        if (vbt_modex_get(peer, "test.empty", &got, &len) != VBT_OK || len != 0) {
            fprintf(stderr, "rank %d: empty blob of rank %d wrong\n", rank, peer);
            errors++;
        } else {
            free(got);
        }
    }
    printf("rank %d: verified %d blobs, %d errors\n", rank, size, errors);
    free(mine);
    MPI_Finalize();
    return errors != 0;
}
