/* The PMIx server embedded in mpirun: job registration, the server module's upcalls, and the
 * event pipe that carries them to the main loop. The only launcher file that includes
 * <pmix_server.h>; nothing of PMIx leaks through this header.
 *
 * Threads: every upcall runs on PMIx's progress thread. An upcall only copies its arguments
 * into an event and writes the event's address to a pipe; the main loop reads the pipe
 * (vbt_pmix_host_progress) and does the work, including the replies, there. */
#ifndef VBT_PMIX_HOST_H
#define VBT_PMIX_HOST_H

#include "vbt_opts.h"
#include "vbt_status.h"

typedef enum {
    VBT_PMIX_EV_CONNECTED, /* the rank's PMIx_Init reached us */
    VBT_PMIX_EV_FINALIZED, /* the rank called PMIx_Finalize */
    VBT_PMIX_EV_ABORT,     /* the rank called PMIx_Abort (MPI_Abort) */
} vbt_pmix_event_type_t;

typedef struct {
    vbt_pmix_event_type_t type;
    int rank;
    int status;    /* ABORT: the error code */
    char msg[512]; /* ABORT: the message */
} vbt_pmix_event_t;

typedef void (*vbt_pmix_event_fn_t)(void *arg, const vbt_pmix_event_t *event);

/* Start the server with its rendezvous files in tmpdir (private to this job). */
vbt_status_t vbt_pmix_host_init(const char *tmpdir);
/* The descriptor the main loop polls for upcalls. */
int vbt_pmix_host_event_fd(void);
const char *vbt_pmix_host_nspace(void);
/* Register the job's namespace and every rank, waiting for each callback (a child forked
 * before its registration completes fails PMIx_Init with UNREACHABLE). */
vbt_status_t vbt_pmix_host_register_job(const vbt_opts_t *opts);
/* Add the PMIx variables for rank to *env, a malloc'd NULL-terminated array of malloc'd
 * strings (PMIx may realloc the array and free replaced strings). */
vbt_status_t vbt_pmix_host_setup_fork(int rank, char ***env);
/* Handle every upcall posted so far: fences are completed here; connect, finalize and abort
 * are passed to fn, and the client waiting on an abort is answered after fn returns. */
void vbt_pmix_host_progress(vbt_pmix_event_fn_t fn, void *arg);
/* Deregister the ranks and the namespace and stop the server. From the main thread only. */
void vbt_pmix_host_finalize(void);

#endif
