/* Clocks, versions and names: calls that describe the environment. */
#include "vbt_api.h"
#include "vbt_clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config.h"

VBT_PMPI_ALIAS(Wtime)
VBT_PMPI_ALIAS(Wtick)
VBT_PMPI_ALIAS(Get_processor_name)
VBT_PMPI_ALIAS(Get_version)
VBT_PMPI_ALIAS(Get_library_version)
VBT_PMPI_ALIAS(Pcontrol)

/* Wtime and Wtick are cheap and allowed at any time, so they check nothing. */
double PMPI_Wtime(void)
{
    return (double)vbt_now_ns() * 1e-9;
}

double PMPI_Wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    int len;

    VBT_API_ENTER("MPI_Get_processor_name");
    if (name == NULL || resultlen == NULL)
        return vbt_error_raise(NULL, "MPI_Get_processor_name", MPI_ERR_ARG,
                               "argument %s is NULL; pass a buffer of MPI_MAX_PROCESSOR_NAME "
                               "chars and the address of an int",
                               name == NULL ? "name" : "resultlen");
    len = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", vbt_rt.proc.hostname);
    if (len >= MPI_MAX_PROCESSOR_NAME)
        len = MPI_MAX_PROCESSOR_NAME - 1;
    *resultlen = len;
    return MPI_SUCCESS;
}

/* Allowed before MPI_Init and after MPI_Finalize. */
int PMPI_Get_version(int *version, int *subversion)
{
    if (version == NULL || subversion == NULL)
        return vbt_error_raise(NULL, "MPI_Get_version", MPI_ERR_ARG, "argument %s is NULL",
                               version == NULL ? "version" : "subversion");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
    int len;

    if (version == NULL || resultlen == NULL)
        return vbt_error_raise(NULL, "MPI_Get_library_version", MPI_ERR_ARG, "argument %s is NULL",
                               version == NULL ? "version" : "resultlen");
    len = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                   "Verbatim %s (MPI %d.%d, standard ABI), over InfiniBand verbs and shared memory",
                   PACKAGE_VERSION, MPI_VERSION, MPI_SUBVERSION);
    if (len >= MPI_MAX_LIBRARY_VERSION_STRING)
        len = MPI_MAX_LIBRARY_VERSION_STRING - 1;
    *resultlen = len;
    return MPI_SUCCESS;
}

/* MPI-4.1 Sec. 15.2.4: a hook for profiling libraries, which intercept MPI_Pcontrol and read
 * level (and whatever follows); the MPI library itself has nothing to profile and returns at
 * once, at any time, with any level. */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
