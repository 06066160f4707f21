/* Schedules: a nonblocking or persistent collective as a list of steps in rounds. A step is a
 * send or a receive on the communicator's collective context, a local copy, a local reduction
 * (the runtime's op kernels) or a call of a function of the collective's own (MPI_Comm_idup
 * decides there). The steps of a round are started in order (a copy or a reduction is done when
 * it is started), and a round starts when every step of the one before completed; so a step
 * may use what an earlier round received, and a send may follow the copy that fills its buffer
 * in the same round, but never a receive of its round.
 *
 * A blocking collective may run a schedule too (vbt_sched_run: the long-message algorithms are
 * written once so). A schedule runs from the progress engine: while any is active, a hook of the
 * runtime's progress (vbt_p2p_hook_add) advances every active one, so any MPI call that progresses
 * (a Test of another request, a Wait, an Iprobe) moves collectives on. A persistent collective's
 * schedule is built once (MPI_*_init) and replayed by every MPI_Start.
 *
 * Tags. Every message of a schedule carries the tag VBT_SCHED_TAG_BASE + (seq mod 2^24), seq
 * being the communicator's count of schedules (nonblocking and persistent collectives, and the
 * blocking ones that run a schedule: vbt_sched_run) when this one was started (or, persistent,
 * initialised): every member counts them in the same order (MPI
 * requires them to be called in the same order), so the messages of concurrent collectives on
 * one communicator never match each other, and being on the collective context they never
 * match user messages. The tag layout of the collective context is:
 *   1 .. 63                        blocking collectives, one tag each (vbt_coll_int.h);
 *   0x40000000 .. 0x41ffffff       schedules (this file): + 0x01000000 for a message on the
 *                                  schedule's second tag (vbt_sched_alt_tag);
 *   0x7e000000 .. 0x7e800000       intercommunicator leaders (runtime/vbt_comm_inter.h);
 *   0x7f000000 .. 0x7f01ffff       communicator agreements (runtime/vbt_comm_agree.h).
 * Inside one schedule two ranks exchange their messages in the same order on both sides
 * (every algorithm here is written so), and MPI's in-order matching keeps them apart. A
 * persistent schedule replays its tag, which is safe because a request is restarted only
 * after it completed locally, and the next start's messages queue behind this one's.
 *
 * Schedules come from a free list that keeps their step arrays, so the steady state allocates
 * only the temporary buffers a collective needs (at build). */
#ifndef VBT_SCHED_H
#define VBT_SCHED_H

#include "vbt_coll_int.h"
#include "vbt_datatype.h"

#include <stdint.h>

#define VBT_SCHED_TAG_BASE 0x40000000
#define VBT_SCHED_TAG_MASK 0x00ffffff
#define VBT_SCHED_TAG_ALT  0x01000000

typedef struct vbt_sched vbt_sched_t;
/* A step's function: VBT_OK, or a failure that ends the schedule with it. It may append steps
 * (vbt_sched_*), which run after the steps already there. */
typedef vbt_status_t(vbt_sched_fn)(vbt_sched_t *s, void *arg);

/* A new empty schedule on comm (the tag is the next of comm's sequence), or NULL (out of
 * memory, logged). */
vbt_sched_t *vbt_sched_create(vbt_comm_t *comm);
/* Throw away a schedule that was never handed to a request (a build failed). */
void vbt_sched_destroy(vbt_sched_t *s);

/* The steps. Buffers, datatypes and ops must stay valid until the schedule is destroyed: the
 * schedule holds references on the datatypes and the op it is given (vbt_sched_hold*), so an
 * MPI_Type_free or MPI_Op_free meanwhile is fine. peer MPI_PROC_NULL: nothing is added. Each
 * returns VBT_OK or VBT_ERR_NO_MEMORY. */
vbt_status_t vbt_sched_send(vbt_sched_t *s, const void *buf, size_t count, MPI_Datatype dt,
                            int peer);
vbt_status_t vbt_sched_recv(vbt_sched_t *s, void *buf, size_t count, MPI_Datatype dt, int peer);
vbt_status_t vbt_sched_copy(vbt_sched_t *s, const void *src, size_t scount, MPI_Datatype sdt,
                            void *dst, size_t rcount, MPI_Datatype rdt);
/* inout = in op inout (in is the left operand). */
vbt_status_t vbt_sched_reduce(vbt_sched_t *s, const vbt_op_t *op, const void *in, void *inout,
                              size_t count, MPI_Datatype dt);
vbt_status_t vbt_sched_call(vbt_sched_t *s, vbt_sched_fn *fn, void *arg);
/* The send or receive just added goes on the schedule's second tag (a Cartesian neighbourhood
 * tells apart the two directions to one neighbour so: vbt_coll_neighbor.c). */
void vbt_sched_alt_tag(vbt_sched_t *s);
/* on: the sends and receives added from now on go on s's communicator's local one, an
 * intercommunicator's hidden intracommunicator of its local group (its ranks are local ranks);
 * off: on the communicator itself. The intracommunicator builders (vbt_sched_build) so make
 * the local parts of an intercommunicator's collectives (vbt_coll_inter.c). */
void vbt_sched_local(vbt_sched_t *s, int on);
/* End the current round (nothing if it is empty). */
void vbt_sched_round(vbt_sched_t *s);

/* A temporary buffer for count elements of dt laid out as vbt_coll_tmp_alloc says, freed with
 * the schedule; NULL when out of memory. Raw bytes: dt MPI_BYTE. */
void *vbt_sched_tmp(vbt_sched_t *s, size_t count, MPI_Datatype dt);
/* Memory freed with the schedule (free()), for copies of the caller's arrays. */
void *vbt_sched_alloc(vbt_sched_t *s, size_t bytes);
/* State of the builder, freed with the schedule by free_fn (may be NULL). */
void vbt_sched_set_state(vbt_sched_t *s, void *state, void (*free_fn)(void *state));

/* The steps of an allreduce of count elements of dt (vbt_coll_nb.c), for schedules of more
 * than one collective (MPI_Comm_idup's). sbuf may be MPI_IN_PLACE. */
vbt_status_t vbt_sched_allreduce(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, void *rbuf,
                                 size_t count, MPI_Datatype dt, const vbt_op_t *op);

/* The steps of collective kind on intracommunicator c (vbt_coll_nb.c); with vbt_sched_local,
 * c is the schedule's intercommunicator's local one. */
vbt_status_t vbt_sched_build(vbt_sched_t *s, vbt_coll_kind_t kind, vbt_comm_t *c,
                             const vbt_coll_args_t *a);
/* The steps of collective kind on intercommunicator c (vbt_coll_inter.c). Scans and
 * neighbourhood collectives are not defined there: VBT_ERR_INVALID_PARAM. */
vbt_status_t vbt_sched_build_inter(vbt_sched_t *s, vbt_coll_kind_t kind, vbt_comm_t *c,
                                   const vbt_coll_args_t *a);
/* The steps that make bits[0..nwords) the AND of every member's, both groups of
 * intercommunicator c (MPI_Comm_idup's agreement there). */
vbt_status_t vbt_sched_and_both(vbt_sched_t *s, vbt_comm_t *c, uint64_t *bits, size_t nwords);

/* Hand the schedule to a new request (VBT_REQ_COLL). persistent: inactive until
 * vbt_coll_start; else started now. VBT_ERR_NO_MEMORY (the schedule is destroyed then). */
vbt_status_t vbt_sched_commit(vbt_sched_t *s, int persistent, vbt_request_t **req_p);
/* A blocking collective: run the schedule to its end (driving progress) and destroy it; VBT_OK
 * or its first failure. */
vbt_status_t vbt_sched_run(vbt_sched_t *s);

/* The long-message algorithms, written once for the blocking and the nonblocking calls
 * (vbt_coll.c and vbt_coll_nb.c pick them as vbt_coll_select.c says). sbuf may be MPI_IN_PLACE
 * and count is not 0. Commutative ops only (the blocks are combined out of rank order). */
vbt_status_t vbt_sched_allreduce_rabenseifner(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf,
                                              void *rbuf, size_t count, MPI_Datatype dt,
                                              const vbt_op_t *op);
vbt_status_t vbt_sched_allreduce_ring(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, void *rbuf,
                                      size_t count, MPI_Datatype dt, const vbt_op_t *op);
/* A broadcast of count elements of dt at buf from root, of more than 0 bytes. */
vbt_status_t vbt_sched_bcast_scatter_allgather(vbt_sched_t *s, vbt_comm_t *c, void *buf,
                                               size_t count, MPI_Datatype dt, int root);

/* Folding a group that is not a power of two for an allreduce (vbt_coll_nb.c), as
 * vbt_coll_pof2_fold/unfold do it for the blocking ones: the fold's steps into s, and
 * *newrank_p the rank's place in the folded group or -1. rbuf holds our vector, tmp has room
 * for count elements. */
vbt_status_t vbt_sched_pof2_fold(vbt_sched_t *s, vbt_comm_t *c, void *rbuf, void *tmp, size_t count,
                                 MPI_Datatype dt, const vbt_op_t *op, int *newrank_p);
vbt_status_t vbt_sched_pof2_unfold(vbt_sched_t *s, vbt_comm_t *c, void *rbuf, size_t count,
                                   MPI_Datatype dt);

#endif
