/* MPI_Init and friends: bring the library up and down. */
#include "vbt_api.h"
#include "vbt_api_p2p.h"
#include "vbt_win.h"
#include "vbt_attr.h"
#include "vbt_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

VBT_PMPI_ALIAS(Init)
VBT_PMPI_ALIAS(Init_thread)
VBT_PMPI_ALIAS(Finalize)
VBT_PMPI_ALIAS(Initialized)
VBT_PMPI_ALIAS(Finalized)
VBT_PMPI_ALIAS(Query_thread)
VBT_PMPI_ALIAS(Is_thread_main)
VBT_PMPI_ALIAS(Abort)

static int init_common(const char *call, int *argc, char ***argv, int required, int *provided)
{
    vbt_status_t status;
    int ignored;

    if (vbt_rt.state != VBT_RT_UNINITIALIZED)
        return vbt_error_raise(NULL, call, MPI_ERR_OTHER,
                               vbt_rt.state == VBT_RT_FINALIZED
                                   ? "MPI cannot be initialised again after MPI_Finalize (the "
                                     "World model is once per process; MPI_Session_init may "
                                     "still be called)"
                                   : "MPI is already initialised; call MPI_Init only once");
    if (provided != NULL && (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE))
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument required is %d; pass one of MPI_THREAD_SINGLE, "
                               "MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE",
                               required);
    status = vbt_runtime_init(required, provided ? provided : &ignored);
    if (status != VBT_OK)
        return vbt_error_raise(NULL, call, vbt_status_to_errclass(status),
                               "initialisation failed: %s (the lines above say why)",
                               vbt_status_string(status));
    /* MPI_INFO_ENV from the arguments; MPI_Init(NULL, NULL) reads /proc/self/cmdline. */
    status = vbt_info_env_init(argc != NULL && argv != NULL ? *argc : 0,
                               argc != NULL && argv != NULL ? *argv : NULL);
    if (status != VBT_OK)
        return vbt_error_raise(NULL, call, vbt_status_to_errclass(status),
                               "MPI_INFO_ENV could not be filled: %s", vbt_status_string(status));
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    return init_common("MPI_Init", argc, argv, -1, NULL); /* -1: VBT_THREAD_LEVEL's level */
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (provided == NULL)
        return vbt_error_raise(NULL, "MPI_Init_thread", MPI_ERR_ARG,
                               "argument provided is NULL; pass the address of an int");
    return init_common("MPI_Init_thread", argc, argv, required, provided);
}

int PMPI_Finalize(void)
{
    vbt_status_t status;
    int rc;

    VBT_API_ENTER("MPI_Finalize");
    /* First, as if MPI_COMM_SELF were freed (MPI-4.1 Sec. 11.2.2): its attributes' delete
     * callbacks run, newest first, while MPI is still fully usable. */
    rc = vbt_attr_delete_all(&vbt_comm_self);
    if (rc != MPI_SUCCESS)
        return vbt_error_raise(NULL, "MPI_Finalize", MPI_ERR_OTHER,
                               "a delete callback of an attribute on MPI_COMM_SELF returned "
                               "error code %d",
                               rc);
    /* Windows the application did not free go without communication (freeing is collective,
     * and the others may have freed theirs), when nothing else uses the library: sessions
     * still open keep theirs. */
    if (vbt_rt.users == 1)
        vbt_win_cleanup();
    /* Buffered messages are delivered: those in the process's buffer and the predefined
     * communicators', whose buffers are then detached (others went with MPI_Comm_free). */
    rc = vbt_api_finalize_buffers("MPI_Finalize", 1, vbt_rt.users == 1);
    if (rc != MPI_SUCCESS)
        return rc;
    status = vbt_runtime_finalize();
    if (status != VBT_OK)
        return vbt_error_raise(NULL, "MPI_Finalize", vbt_status_to_errclass(status),
                               "finalisation failed: %s", vbt_status_string(status));
    return MPI_SUCCESS;
}

int PMPI_Initialized(int *flag)
{
    if (flag == NULL)
        return vbt_error_raise(NULL, "MPI_Initialized", MPI_ERR_ARG, "argument flag is NULL");
    /* True after MPI_Init, and still true after MPI_Finalize, as the standard says. */
    *flag = vbt_rt.state != VBT_RT_UNINITIALIZED;
    return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag)
{
    if (flag == NULL)
        return vbt_error_raise(NULL, "MPI_Finalized", MPI_ERR_ARG, "argument flag is NULL");
    *flag = vbt_rt.state == VBT_RT_FINALIZED;
    return MPI_SUCCESS;
}

int PMPI_Query_thread(int *provided)
{
    VBT_API_ENTER("MPI_Query_thread");
    if (provided == NULL)
        return vbt_error_raise(NULL, "MPI_Query_thread", MPI_ERR_ARG, "argument provided is NULL");
    *provided = vbt_rt.thread_level;
    return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int *flag)
{
    VBT_API_ENTER("MPI_Is_thread_main");
    if (flag == NULL)
        return vbt_error_raise(NULL, "MPI_Is_thread_main", MPI_ERR_ARG, "argument flag is NULL");
    *flag = pthread_equal(pthread_self(), vbt_rt.main_thread);
    return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[128];

    if (vbt_rt.users == 0) {
        /* Nobody else to tell: just end this process with the code asked for. */
        fflush(stdout);
        _exit(errorcode != 0 ? errorcode : 1);
    }
    /* Any communicator aborts the whole job: we cannot end a subset cleanly. */
    (void)comm;
    snprintf(msg, sizeof(msg), "MPI_Abort(errorcode %d) called by rank %d", errorcode,
             vbt_rt.proc.rank);
    fflush(stdout);
    fflush(stderr);
    vbt_pmix_abort(errorcode, msg);
}
