/* The two small collectives communicator creation needs (an AND of bitmaps and an allgather),
 * over any subset of a parent communicator, with point-to-point on the parent's collective
 * context under tags of their own. Kept apart from collectives/ so creating a communicator
 * depends on nothing but point-to-point. */
#ifndef VBT_COMM_AGREE_H
#define VBT_COMM_AGREE_H

#include <stddef.h>
#include <stdint.h>

#include "vbt_comm.h"
#include "vbt_status.h"

/* n members; member i is rank ranks[i] of parent (ranks NULL: rank i); this process is member
 * me. tag distinguishes agreements that may be in flight at once between the same processes
 * (MPI_Comm_create_group's tag). */
typedef struct {
    vbt_comm_t *parent;
    int n;
    int me;
    const int *ranks;
    int tag;
} vbt_agree_t;

/* Tags on the parent's collective context: above any that collectives/ uses. */
#define VBT_AGREE_TAG_BASE 0x7f000000
#define VBT_AGREE_TAG_MASK 0xffff

/* bits[0..nwords) becomes the AND of every member's bits. */
vbt_status_t vbt_agree_and(const vbt_agree_t *a, uint64_t *bits, size_t nwords);
/* buf[0..bytes) becomes member 0's. */
vbt_status_t vbt_agree_bcast(const vbt_agree_t *a, void *buf, size_t bytes);
/* all[i * bytes ..] becomes member i's mine (all holds n * bytes). */
vbt_status_t vbt_agree_allgather(const vbt_agree_t *a, const void *mine, size_t bytes, void *all);
/* Every member sends sendbytes[i] bytes at sendbufs[i] to member i; recvbufs[i] (malloc'ed, the
 * caller frees them) gets recvbytes[i] bytes from member i. Direct exchanges with every member:
 * for rare calls (MPI_Dist_graph_create). */
vbt_status_t vbt_agree_alltoallv(const vbt_agree_t *a, const size_t *sendbytes,
                                 const void *const *sendbufs, size_t *recvbytes, void **recvbufs);

#endif
