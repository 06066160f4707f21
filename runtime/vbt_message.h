/* MPI_Message: a message MPI_Mprobe / MPI_Improbe took off the unexpected queue, held until
 * MPI_Mrecv / MPI_Imrecv receives it. The handle is the address of a small pooled object
 * (vbt_objpool.h), so a made-up or already received message is refused without being read. */
#ifndef VBT_MESSAGE_H
#define VBT_MESSAGE_H

#include <mpi.h>
#include <stdint.h>

#include "vbt_objpool.h"

struct vbt_comm;
struct vbt_unexp;

#define VBT_MESSAGE_HANDLE_MAGIC 0x5642484du /* "VBHM" */

typedef struct vbt_message {
    uint32_t magic;
    struct vbt_comm *comm;   /* MPI_Mrecv takes no communicator */
    struct vbt_unexp *unexp; /* the free-list link once received */
} vbt_message_t;

extern vbt_objpool_t vbt_message_pool;

/* A message object, not yet valid as a handle (magic 0), or NULL (logged). Taken before the
 * probe, so that a message off the queue always has somewhere to go. */
static inline vbt_message_t *vbt_message_alloc(void)
{
    vbt_message_t *m = vbt_objpool_alloc(&vbt_message_pool);

    if (m != NULL)
        m->magic = 0;
    return m;
}

/* Make m the live message of u on comm; its handle is m's address. */
static inline MPI_Message vbt_message_set(vbt_message_t *m, struct vbt_comm *comm,
                                          struct vbt_unexp *u)
{
    m->comm = comm;
    m->unexp = u;
    m->magic = VBT_MESSAGE_HANDLE_MAGIC;
    return (MPI_Message)m;
}

/* The live message behind a handle, or NULL (MPI_MESSAGE_NULL, received already, made up). */
static inline vbt_message_t *vbt_message_get(MPI_Message handle)
{
    return vbt_objpool_get(&vbt_message_pool, handle, sizeof(vbt_message_t),
                           VBT_MESSAGE_HANDLE_MAGIC);
}

/* Received (or never used): the handle is invalid from now on. */
static inline void vbt_message_free(vbt_message_t *m)
{
    vbt_objpool_free(&vbt_message_pool, m);
}

/* MPI_Finalize: messages never received go with their handles. */
void vbt_message_cleanup(void);

#endif
