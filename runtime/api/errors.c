/* Error classes, codes and strings (predefined and added by the application) and error handlers
 * on communicators (predefined and user-defined). */
#include "vbt_api.h"
#include "vbt_errhandler.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

VBT_PMPI_ALIAS(Error_string)
VBT_PMPI_ALIAS(Error_class)
VBT_PMPI_ALIAS(Add_error_class)
VBT_PMPI_ALIAS(Add_error_code)
VBT_PMPI_ALIAS(Add_error_string)
VBT_PMPI_ALIAS(Remove_error_class)
VBT_PMPI_ALIAS(Remove_error_code)
VBT_PMPI_ALIAS(Remove_error_string)
VBT_PMPI_ALIAS(Comm_create_errhandler)
VBT_PMPI_ALIAS(Comm_set_errhandler)
VBT_PMPI_ALIAS(Comm_get_errhandler)
VBT_PMPI_ALIAS(Comm_call_errhandler)
VBT_PMPI_ALIAS(Errhandler_free)

/* Error_string and Error_class may be called at any time, even before MPI_Init. */
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *name = vbt_errclass_name(errorcode);
    const char *user = vbt_error_user_string(errorcode);
    int len;

    if (string == NULL || resultlen == NULL)
        return vbt_error_raise(NULL, "MPI_Error_string", MPI_ERR_ARG, "argument %s is NULL",
                               string == NULL ? "string" : "resultlen");
    if (name == NULL && user == NULL)
        return vbt_error_raise(NULL, "MPI_Error_string", MPI_ERR_ARG,
                               "argument errorcode %d is not a valid error code", errorcode);
    if (user != NULL)
        len = snprintf(string, MPI_MAX_ERROR_STRING, "%s", user);
    else
        len = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name,
                       vbt_errclass_description(errorcode));
    if (len >= MPI_MAX_ERROR_STRING)
        len = MPI_MAX_ERROR_STRING - 1;
    *resultlen = len;
    return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    int cls = vbt_error_class_of(errorcode);

    if (errorclass == NULL)
        return vbt_error_raise(NULL, "MPI_Error_class", MPI_ERR_ARG, "argument errorclass is NULL");
    if (cls < 0)
        return vbt_error_raise(NULL, "MPI_Error_class", MPI_ERR_ARG,
                               "argument errorcode %d is not a valid error code", errorcode);
    *errorclass = cls;
    return MPI_SUCCESS;
}

static int add_failed(const char *call, vbt_status_t status)
{
    return vbt_error_raise(NULL, call, vbt_status_to_errclass(status), "out of memory");
}

int PMPI_Add_error_class(int *errorclass)
{
    vbt_status_t status;

    VBT_API_ENTER("MPI_Add_error_class");
    if (errorclass == NULL)
        return vbt_error_raise(NULL, "MPI_Add_error_class", MPI_ERR_ARG,
                               "argument errorclass is NULL");
    status = vbt_error_add(-1, errorclass);
    return status == VBT_OK ? MPI_SUCCESS : add_failed("MPI_Add_error_class", status);
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    vbt_status_t status;

    VBT_API_ENTER("MPI_Add_error_code");
    if (errorcode == NULL)
        return vbt_error_raise(NULL, "MPI_Add_error_code", MPI_ERR_ARG,
                               "argument errorcode is NULL");
    if (errorclass == MPI_SUCCESS || !vbt_error_is_class(errorclass))
        return vbt_error_raise(NULL, "MPI_Add_error_code", MPI_ERR_ARG,
                               "argument errorclass %d is not an error class (a predefined "
                               "MPI_ERR_ class or one from MPI_Add_error_class)",
                               errorclass);
    status = vbt_error_add(errorclass, errorcode);
    return status == VBT_OK ? MPI_SUCCESS : add_failed("MPI_Add_error_code", status);
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
    vbt_status_t status;

    VBT_API_ENTER("MPI_Add_error_string");
    if (string == NULL)
        return vbt_error_raise(NULL, "MPI_Add_error_string", MPI_ERR_ARG,
                               "argument string is NULL");
    if (vbt_error_user_string(errorcode) == NULL)
        return vbt_error_raise(NULL, "MPI_Add_error_string", MPI_ERR_ARG,
                               "argument errorcode %d was not returned by MPI_Add_error_class "
                               "or MPI_Add_error_code (predefined strings cannot be changed)",
                               errorcode);
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return vbt_error_raise(NULL, "MPI_Add_error_string", MPI_ERR_ARG,
                               "argument string is %zu characters long; at most %d fit",
                               strlen(string), MPI_MAX_ERROR_STRING - 1);
    status = vbt_error_set_string(errorcode, string);
    return status == VBT_OK ? MPI_SUCCESS : add_failed("MPI_Add_error_string", status);
}

/* MPI-4.1 9.5: a class goes after its codes, a code after its string; removing what
 * MPI_Add_error_class/code/string did not add is erroneous. The values are not reused. */
int PMPI_Remove_error_class(int errorclass)
{
    const char *call = "MPI_Remove_error_class";
    int code;

    VBT_API_ENTER(call);
    if (errorclass <= MPI_ERR_LASTCODE || !vbt_error_is_class(errorclass))
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument errorclass %d is not a class from MPI_Add_error_class "
                               "(predefined classes cannot be removed; removed ones are gone)",
                               errorclass);
    code = vbt_error_first_code_of(errorclass);
    if (code >= 0)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "error class %d still has error code %d: remove its codes with "
                               "MPI_Remove_error_code first",
                               errorclass, code);
    return vbt_error_remove(errorclass, 1) == VBT_OK
               ? MPI_SUCCESS
               : vbt_error_raise(NULL, call, MPI_ERR_INTERN, "error class %d not removed",
                                 errorclass);
}

int PMPI_Remove_error_code(int errorcode)
{
    const char *call = "MPI_Remove_error_code";

    VBT_API_ENTER(call);
    if (errorcode <= MPI_ERR_LASTCODE || vbt_error_class_of(errorcode) < 0 ||
        vbt_error_is_class(errorcode))
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument errorcode %d is not a code from MPI_Add_error_code%s",
                               errorcode,
                               vbt_error_is_class(errorcode) && errorcode > MPI_ERR_LASTCODE
                                   ? " (it is a class: use MPI_Remove_error_class)"
                                   : "");
    if (vbt_error_has_string(errorcode))
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "error code %d still has a string: remove it with "
                               "MPI_Remove_error_string first",
                               errorcode);
    return vbt_error_remove(errorcode, 0) == VBT_OK
               ? MPI_SUCCESS
               : vbt_error_raise(NULL, call, MPI_ERR_INTERN, "error code %d not removed",
                                 errorcode);
}

int PMPI_Remove_error_string(int errorcode)
{
    const char *call = "MPI_Remove_error_string";

    VBT_API_ENTER(call);
    if (!vbt_error_has_string(errorcode))
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument errorcode %d has no string from MPI_Add_error_string",
                               errorcode);
    return vbt_error_remove_string(errorcode) == VBT_OK
               ? MPI_SUCCESS
               : vbt_error_raise(NULL, call, MPI_ERR_INTERN, "string of %d not removed", errorcode);
}

int vbt_api_bad_comm(const char *call, MPI_Comm handle)
{
    if (handle == MPI_COMM_NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_COMM,
                               "argument comm is MPI_COMM_NULL, not a valid communicator");
    if (handle == MPI_COMM_WORLD || handle == MPI_COMM_SELF)
        return vbt_error_raise(NULL, call, MPI_ERR_COMM,
                               "argument comm is %s, which is valid only between MPI_Init and "
                               "MPI_Finalize (the World model); with sessions, make a "
                               "communicator with MPI_Group_from_session_pset and "
                               "MPI_Comm_create_from_group",
                               handle == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    return vbt_error_raise(NULL, call, MPI_ERR_COMM,
                           "argument comm (handle %#lx) is not a valid communicator (freed, or "
                           "never returned by a communicator constructor)",
                           (unsigned long)(uintptr_t)handle);
}

static int bad_errhandler(vbt_comm_t *c, const char *call, MPI_Errhandler h)
{
    if (h == MPI_ERRHANDLER_NULL)
        return vbt_error_raise(c, call, MPI_ERR_ERRHANDLER,
                               "argument errhandler is MPI_ERRHANDLER_NULL; pass "
                               "MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, MPI_ERRORS_RETURN or one "
                               "from MPI_Comm_create_errhandler");
    return vbt_error_raise(c, call, MPI_ERR_ERRHANDLER,
                           "argument errhandler (handle %#lx) is not a valid error handler "
                           "(freed, or never returned by MPI_Comm_create_errhandler)",
                           (unsigned long)(uintptr_t)h);
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    vbt_status_t status;

    VBT_API_ENTER("MPI_Comm_create_errhandler");
    if (comm_errhandler_fn == NULL || errhandler == NULL)
        return vbt_error_raise(NULL, "MPI_Comm_create_errhandler", MPI_ERR_ARG,
                               "argument %s is NULL",
                               errhandler == NULL ? "errhandler" : "comm_errhandler_fn");
    status = vbt_errhandler_create(comm_errhandler_fn, errhandler);
    return status == VBT_OK ? MPI_SUCCESS : add_failed("MPI_Comm_create_errhandler", status);
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    VBT_API_ENTER("MPI_Comm_set_errhandler");
    VBT_API_COMM(c, comm, "MPI_Comm_set_errhandler");
    if (!vbt_errhandler_valid(errhandler))
        return bad_errhandler(c, "MPI_Comm_set_errhandler", errhandler);
    if (!vbt_errhandler_fits(errhandler, VBT_ERRH_COMM))
        return vbt_error_raise(c, "MPI_Comm_set_errhandler", MPI_ERR_ARG,
                               "argument errhandler was made by %s, not for communicators; use "
                               "one from MPI_Comm_create_errhandler",
                               vbt_errhandler_maker(errhandler));
    vbt_errhandler_retain(errhandler);
    vbt_errhandler_release(c->errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}

/* The handle returned is a new reference (MPI-4.1 Sec. 9.3.1): the application frees it with
 * MPI_Errhandler_free, which is a no-op for the predefined handlers. */
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    VBT_API_ENTER("MPI_Comm_get_errhandler");
    VBT_API_COMM(c, comm, "MPI_Comm_get_errhandler");
    if (errhandler == NULL)
        return vbt_error_raise(c, "MPI_Comm_get_errhandler", MPI_ERR_ARG,
                               "argument errhandler is NULL");
    vbt_errhandler_retain(c->errhandler);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    char detail[96];

    VBT_API_ENTER("MPI_Comm_call_errhandler");
    VBT_API_COMM(c, comm, "MPI_Comm_call_errhandler");
    if (vbt_error_class_of(errorcode) < 0)
        return vbt_error_raise(c, "MPI_Comm_call_errhandler", MPI_ERR_ARG,
                               "argument errorcode %d is not a valid error code", errorcode);
    snprintf(detail, sizeof(detail), "the application raised error code %d", errorcode);
    /* MPI_SUCCESS once the handler returned, whatever it was (MPI-4.1 Sec. 9.3.5). */
    vbt_error_invoke(c, "MPI_Comm_call_errhandler", errorcode, detail);
    return MPI_SUCCESS;
}

/* Follows MPICH: freeing a predefined handler only nulls the handle (applications free what
 * MPI_Comm_get_errhandler returned, predefined or not). */
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    VBT_API_ENTER("MPI_Errhandler_free");
    if (errhandler == NULL)
        return vbt_error_raise(NULL, "MPI_Errhandler_free", MPI_ERR_ARG,
                               "argument errhandler is NULL");
    if (!vbt_errhandler_valid(*errhandler))
        return bad_errhandler(NULL, "MPI_Errhandler_free", *errhandler);
    vbt_errhandler_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
