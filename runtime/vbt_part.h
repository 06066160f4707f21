/* Partitioned communication (MPI-4.1 chapter 4) over the point-to-point protocols.
 *
 * A send and a receive pair up at initialization, by (communicator, source, tag) and then in the
 * order of the initialization calls (MPI-4.1 4.2): MPI_Psend_init sends a SETUP message (its
 * partitions, their size, and the index of the sending request, which makes its data tags unique).
 * Every epoch then moves the sender's partitions as one message each, sent from MPI_Pready itself
 * (so data moves without the sender waiting), in the order they are readied. The receiver posts
 * one receive per sender partition; partition u travels on lane u mod 128, one tag each, so that
 * the receiver knows where a message lands from its tag and, within a lane, from the order of the
 * messages: a partition readied before one 128, 256, ... below it waits for that one (with up to
 * 128 partitions, none ever waits). The first epoch's data may arrive
 * before the receiver has seen the SETUP: it waits as unexpected messages do. Partition counts may
 * differ between the sides: the receiver maps its partitions onto the sender's by byte range. When
 * the sizes disagree the receiver drains the sender's messages into nothing and fails with
 * MPI_ERR_TRUNCATE.
 *
 * Reserved tags, all on the point-to-point context and all negative, so that no user receive
 * (tags 0..MPI_TAG_UB; MPI_ANY_TAG accepts tags >= 0 only) or probe can see them and the
 * collective context is untouched:
 *   SETUP  -16 - tag          for the user's tag 0..0x3fffffff
 *   DATA   -16 - 2^30 - 128 i - (u mod 128)
 *                             i: the index of the sender's request in the request pool, u the
 *                             partition
 * (the pool holds at most 2^22 requests, so the ranges are disjoint and fit an int; tags -1
 * to -15 stay free: MPI_ANY_TAG is -2). */
#ifndef VBT_PART_H
#define VBT_PART_H

#include "vbt_comm.h"
#include "vbt_request.h"

#include <stddef.h>
#include <stdint.h>

struct vbt_dtype;

typedef struct vbt_part {
    int is_send;
    int partitions;          /* ours */
    size_t part_bytes;       /* packed bytes in one of our partitions */
    size_t count;            /* elements of dtype in one partition */
    void *buf;               /* contiguous: where the data starts (true_lb applied) */
    struct vbt_dtype *dtype; /* NULL: contiguous */
    ptrdiff_t extent;        /* dtype's extent */
    int state;               /* VBT_PART_NEW, _SETUP, _MATCHED */
    vbt_request_t *setup;    /* send: the SETUP send; receive: its receive */
    uint64_t setup_msg[3];   /* partitions, bytes of one, sender's request index */
    int data_index;          /* the sender's request index: its data tags (vbt_part.c) */
    int drain; /* receive: the sizes disagree; take the sender's messages into nothing */
    /* Units: the sender's partitions, one message each. */
    int units;
    size_t unit_bytes;
    vbt_request_t **unit_req; /* the unit's send or receive while it is under way */
    uint8_t *unit_done;
    uint8_t *ready; /* send: MPI_Pready'd in this epoch */
    uint8_t *sent;  /* send: gone in this epoch */
    void *staging;  /* receive of a non-contiguous type: the packed data lands here */
    int error;      /* of this epoch (MPI error class) */
    int pair_error; /* receive: the pairing failed (MPI error class): every epoch fails */
} vbt_part_t;

enum { VBT_PART_NEW, VBT_PART_SETUP, VBT_PART_MATCHED };

/* A partitioned request on comm (MPI_Psend_init, MPI_Precv_init); data as the API checked it. */
vbt_status_t vbt_part_create(vbt_comm_t *comm, int is_send, void *buf, int partitions, size_t count,
                             size_t part_bytes, struct vbt_dtype *dtype, ptrdiff_t extent, int peer,
                             int tag, vbt_request_t **req_p);
/* Begin an epoch (MPI_Start). The request is inactive. */
vbt_status_t vbt_part_start(vbt_request_t *req);
/* Move what can move (after a progress call); returns complete. */
int vbt_part_poll(vbt_request_t *req);
/* Mark our partition p ready (MPI_Pready): checked by the caller. */
void vbt_part_ready(vbt_request_t *req, int p);
/* Has the receiver's partition p arrived (MPI_Parrived)? */
int vbt_part_arrived(vbt_request_t *req, int p);
/* Release everything of an inactive request (MPI_Request_free). */
void vbt_part_destroy(vbt_request_t *req);

#endif
