/* Sessions (MPI-4.1 Sec. 11.3): the object behind an MPI_Session handle. Each live session holds
 * one reference to the library (vbt_runtime_acquire), so it works with or without MPI_Init.
 * Live sessions are listed in vbt_rt.sessions and a handle is looked up there before it is
 * read: a finalized or made-up handle is refused, not followed. A session knows the process
 * sets of the library: "mpi://WORLD" (every process of the job) and "mpi://SELF" (this one). */
#ifndef VBT_SESSION_H
#define VBT_SESSION_H

#include <mpi.h>
#include <stdint.h>

#include "vbt_bsend.h"
#include "vbt_group.h"
#include "vbt_status.h"

#define VBT_SESSION_MAGIC 0x56425353u /* "VBSS" */

typedef struct vbt_session {
    uint32_t magic;
    MPI_Errhandler errhandler; /* retained */
    int thread_level;          /* MPI_THREAD_* granted to this session */
    struct vbt_session *next;  /* vbt_rt.sessions */
    vbt_bsend_buf_t bsend;     /* MPI_Session_attach_buffer: for its communicators' bsends */
} vbt_session_t;

/* The process sets every session knows, in the order MPI_Session_get_nth_pset numbers them. */
#define VBT_PSET_WORLD "mpi://WORLD"
#define VBT_PSET_SELF  "mpi://SELF"
enum { VBT_PSET_COUNT = 2 };

/* A new session (the library set up if it was not), with errhandler (retained). */
vbt_status_t vbt_session_create(int thread_level, MPI_Errhandler errhandler,
                                vbt_session_t **session_p);
/* Drop it (the library torn down when nothing else uses it; collective then). */
vbt_status_t vbt_session_destroy(vbt_session_t *s);

/* The live session behind a handle, or NULL. */
vbt_session_t *vbt_session_get(MPI_Session handle);

/* Name of process set n (0 .. VBT_PSET_COUNT - 1). */
const char *vbt_session_pset_name(int n);
/* The number of processes in the set named name, or -1 when no set has that name. */
int vbt_session_pset_size(const char *name);
/* A new group (one reference) of the set named name; VBT_ERR_NOT_FOUND for an unknown name. */
vbt_status_t vbt_session_pset_group(const char *name, vbt_group_t **group_p);

#endif
