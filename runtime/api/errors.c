/* Error classes, strings and the predefined error handlers. */
#include "vbt_api.h"

#include <stdio.h>

VBT_PMPI_ALIAS(Error_string)
VBT_PMPI_ALIAS(Error_class)
VBT_PMPI_ALIAS(Comm_set_errhandler)
VBT_PMPI_ALIAS(Comm_get_errhandler)

/* Error_string and Error_class may be called at any time, even before MPI_Init. */
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *name = vbt_errclass_name(errorcode);
    int len;

    if (string == NULL || resultlen == NULL)
        return vbt_error_raise(NULL, "MPI_Error_string", MPI_ERR_ARG, "argument %s is NULL",
                               string == NULL ? "string" : "resultlen");
    if (name == NULL)
        return vbt_error_raise(NULL, "MPI_Error_string", MPI_ERR_ARG,
                               "argument errorcode %d is not a valid error code", errorcode);
    len =
        snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name, vbt_errclass_description(errorcode));
    if (len >= MPI_MAX_ERROR_STRING)
        len = MPI_MAX_ERROR_STRING - 1;
    *resultlen = len;
    return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (errorclass == NULL)
        return vbt_error_raise(NULL, "MPI_Error_class", MPI_ERR_ARG, "argument errorclass is NULL");
    if (vbt_errclass_name(errorcode) == NULL)
        return vbt_error_raise(NULL, "MPI_Error_class", MPI_ERR_ARG,
                               "argument errorcode %d is not a valid error code", errorcode);
    /* Every code we hand out is its own class until MPI_Add_error_code exists. */
    *errorclass = errorcode;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    VBT_API_ENTER("MPI_Comm_set_errhandler");
    VBT_API_COMM(c, comm, "MPI_Comm_set_errhandler");
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN &&
        errhandler != MPI_ERRORS_ABORT)
        return vbt_error_raise(c, "MPI_Comm_set_errhandler", MPI_ERR_ARG,
                               "argument errhandler is not MPI_ERRORS_ARE_FATAL, "
                               "MPI_ERRORS_ABORT or MPI_ERRORS_RETURN (user-defined handlers "
                               "are not supported yet)");
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    VBT_API_ENTER("MPI_Comm_get_errhandler");
    VBT_API_COMM(c, comm, "MPI_Comm_get_errhandler");
    if (errhandler == NULL)
        return vbt_error_raise(c, "MPI_Comm_get_errhandler", MPI_ERR_ARG,
                               "argument errhandler is NULL");
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
