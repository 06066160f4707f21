/* What a window carries besides its memory: group, name, error handler, attributes (the
 * predefined MPI_WIN_BASE & co, and keyvals of MPI_Win_create_keyval). */
#include "vbt_api_comm.h"
#include "vbt_api_win.h"
#include "vbt_attr.h"
#include "vbt_errhandler.h"

#include <stdio.h>
#include <string.h>

VBT_PMPI_ALIAS(Win_get_group)
VBT_PMPI_ALIAS(Win_set_name)
VBT_PMPI_ALIAS(Win_get_name)
VBT_PMPI_ALIAS(Win_create_errhandler)
VBT_PMPI_ALIAS(Win_set_errhandler)
VBT_PMPI_ALIAS(Win_get_errhandler)
VBT_PMPI_ALIAS(Win_call_errhandler)
VBT_PMPI_ALIAS(Win_create_keyval)
VBT_PMPI_ALIAS(Win_free_keyval)
VBT_PMPI_ALIAS(Win_set_attr)
VBT_PMPI_ALIAS(Win_get_attr)
VBT_PMPI_ALIAS(Win_delete_attr)

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    VBT_API_ENTER("MPI_Win_get_group");
    VBT_API_WIN(w, win, "MPI_Win_get_group");
    if (group == NULL)
        return vbt_api_win_raise(w, "MPI_Win_get_group", MPI_ERR_ARG,
                                 "argument group is NULL; pass a valid address");
    vbt_group_retain(w->comm->group);
    *group = vbt_group_handle(w->comm->group);
    return MPI_SUCCESS;
}

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    VBT_API_ENTER("MPI_Win_set_name");
    VBT_API_WIN(w, win, "MPI_Win_set_name");
    if (win_name == NULL)
        return vbt_api_win_raise(w, "MPI_Win_set_name", MPI_ERR_ARG,
                                 "argument win_name is NULL; pass a string");
    /* Longer names are cut at MPI_MAX_OBJECT_NAME - 1, as the standard allows. */
    snprintf(w->name, sizeof(w->name), "%s", win_name);
    w->named = 1;
    return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    VBT_API_ENTER("MPI_Win_get_name");
    /* MPI-4.1 (7.8 / 12.2.7): the null handle is named too. */
    if (win == MPI_WIN_NULL) {
        VBT_API_PTR(NULL, "MPI_Win_get_name", win_name, "win_name");
        VBT_API_PTR(NULL, "MPI_Win_get_name", resultlen, "resultlen");
        strcpy(win_name, "MPI_WIN_NULL");
        *resultlen = (int)strlen(win_name);
        return MPI_SUCCESS;
    }
    VBT_API_WIN(w, win, "MPI_Win_get_name");
    if (win_name == NULL || resultlen == NULL)
        return vbt_api_win_raise(w, "MPI_Win_get_name", MPI_ERR_ARG,
                                 "argument %s is NULL; pass a valid address",
                                 win_name == NULL ? "win_name" : "resultlen");
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->named ? w->name : "");
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    vbt_status_t st;

    VBT_API_ENTER("MPI_Win_create_errhandler");
    if (win_errhandler_fn == NULL || errhandler == NULL)
        return vbt_error_raise(NULL, "MPI_Win_create_errhandler", MPI_ERR_ARG,
                               "argument %s is NULL",
                               errhandler == NULL ? "errhandler" : "win_errhandler_fn");
    st = vbt_errhandler_create_win(win_errhandler_fn, errhandler);
    if (st != VBT_OK)
        return vbt_error_raise(NULL, "MPI_Win_create_errhandler", MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    VBT_API_ENTER("MPI_Win_set_errhandler");
    VBT_API_WIN(w, win, "MPI_Win_set_errhandler");
    if (!vbt_errhandler_valid(errhandler))
        return vbt_api_win_raise(w, "MPI_Win_set_errhandler", MPI_ERR_ERRHANDLER,
                                 "argument errhandler (handle %#lx) is not a valid error handler "
                                 "(MPI_ERRHANDLER_NULL, freed, or never created)",
                                 (unsigned long)(uintptr_t)errhandler);
    if (!vbt_errhandler_fits(errhandler, VBT_ERRH_WIN))
        return vbt_api_win_raise(w, "MPI_Win_set_errhandler", MPI_ERR_ARG,
                                 "argument errhandler was made by MPI_Comm_create_errhandler, for "
                                 "communicators; use one from MPI_Win_create_errhandler");
    vbt_errhandler_retain(errhandler);
    vbt_errhandler_release(w->errhandler);
    w->errhandler = errhandler;
    return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    VBT_API_ENTER("MPI_Win_get_errhandler");
    VBT_API_WIN(w, win, "MPI_Win_get_errhandler");
    if (errhandler == NULL)
        return vbt_api_win_raise(w, "MPI_Win_get_errhandler", MPI_ERR_ARG,
                                 "argument errhandler is NULL");
    vbt_errhandler_retain(w->errhandler);
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    char detail[96];

    VBT_API_ENTER("MPI_Win_call_errhandler");
    VBT_API_WIN(w, win, "MPI_Win_call_errhandler");
    if (vbt_error_class_of(errorcode) < 0)
        return vbt_api_win_raise(w, "MPI_Win_call_errhandler", MPI_ERR_ARG,
                                 "argument errorcode %d is not a valid error code", errorcode);
    snprintf(detail, sizeof(detail), "the application raised error code %d", errorcode);
    vbt_error_invoke_win(w->errhandler, win, w->name, "MPI_Win_call_errhandler", errorcode, detail);
    return MPI_SUCCESS;
}

/* The predefined window attributes; the pointer handed out points into the window. */
static int predefined(vbt_win_t *w, int keyval, void **value_p)
{
    switch (keyval) {
    case MPI_WIN_BASE:
        *value_p = w->base; /* the base itself, not a pointer to it (MPI-4.1 Sec. 12.2.6) */
        return 1;
    case MPI_WIN_SIZE:
        *value_p = &w->attr_size;
        return 1;
    case MPI_WIN_DISP_UNIT:
        *value_p = &w->attr_disp_unit;
        return 1;
    case MPI_WIN_CREATE_FLAVOR:
        *value_p = &w->attr_flavor;
        return 1;
    case MPI_WIN_MODEL:
        *value_p = &w->attr_model;
        return 1;
    }
    return 0;
}

static int is_predefined_key(int keyval)
{
    return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
           keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

static int bad_keyval(vbt_win_t *w, const char *call, int keyval)
{
    if (is_predefined_key(keyval))
        return w != NULL ? vbt_api_win_raise(w, call, MPI_ERR_KEYVAL,
                                             "argument win_keyval %d is a predefined window "
                                             "attribute, which can be read but not set, "
                                             "deleted or freed",
                                             keyval)
                         : vbt_error_raise(NULL, call, MPI_ERR_KEYVAL,
                                           "argument win_keyval %d is a predefined window "
                                           "attribute, which cannot be freed",
                                           keyval);
    if (w == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_KEYVAL,
                               "argument win_keyval %d is not a window keyval (from "
                               "MPI_Win_create_keyval; freed already?)",
                               keyval);
    return vbt_api_win_raise(w, call, MPI_ERR_KEYVAL,
                             "argument win_keyval %d is not a window keyval (from "
                             "MPI_Win_create_keyval; freed already?)",
                             keyval);
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    VBT_API_ENTER("MPI_Win_create_keyval");
    VBT_API_PTR(NULL, "MPI_Win_create_keyval", win_keyval, "win_keyval");
    if (vbt_keyval_create_win(win_copy_attr_fn, win_delete_attr_fn, extra_state, win_keyval) !=
        VBT_OK)
        return vbt_error_raise(NULL, "MPI_Win_create_keyval", MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

int PMPI_Win_free_keyval(int *win_keyval)
{
    vbt_keyval_t *kv;

    VBT_API_ENTER("MPI_Win_free_keyval");
    VBT_API_PTR(NULL, "MPI_Win_free_keyval", win_keyval, "win_keyval");
    kv = vbt_keyval_get_win(*win_keyval);
    if (kv == NULL)
        return bad_keyval(NULL, "MPI_Win_free_keyval", *win_keyval);
    vbt_keyval_free(kv);
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    vbt_keyval_t *kv;
    int rc;

    VBT_API_ENTER("MPI_Win_set_attr");
    VBT_API_WIN(w, win, "MPI_Win_set_attr");
    kv = vbt_keyval_get_win(win_keyval);
    if (kv == NULL)
        return bad_keyval(w, "MPI_Win_set_attr", win_keyval);
    rc = vbt_attr_list_set(&w->attrs, win, kv, attribute_val);
    if (rc != MPI_SUCCESS)
        return vbt_api_win_raise(w, "MPI_Win_set_attr", rc == MPI_ERR_NO_MEM ? rc : MPI_ERR_OTHER,
                                 "replacing the value of keyval %d: its delete callback "
                                 "returned error code %d",
                                 win_keyval, rc);
    return MPI_SUCCESS;
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    VBT_API_ENTER("MPI_Win_get_attr");
    VBT_API_WIN(w, win, "MPI_Win_get_attr");
    if (attribute_val == NULL || flag == NULL)
        return vbt_api_win_raise(w, "MPI_Win_get_attr", MPI_ERR_ARG,
                                 "argument %s is NULL; pass a valid address",
                                 flag == NULL ? "flag" : "attribute_val");
    /* attribute_val is really a void **. */
    if (predefined(w, win_keyval, (void **)attribute_val)) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (vbt_keyval_get_win(win_keyval) == NULL)
        return bad_keyval(w, "MPI_Win_get_attr", win_keyval);
    *flag = vbt_attr_list_get(w->attrs, win_keyval, (void **)attribute_val);
    return MPI_SUCCESS;
}

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    vbt_keyval_t *kv;
    int rc;

    VBT_API_ENTER("MPI_Win_delete_attr");
    VBT_API_WIN(w, win, "MPI_Win_delete_attr");
    kv = vbt_keyval_get_win(win_keyval);
    if (kv == NULL)
        return bad_keyval(w, "MPI_Win_delete_attr", win_keyval);
    rc = vbt_attr_list_delete(&w->attrs, win, kv);
    if (rc != MPI_SUCCESS)
        return vbt_api_win_raise(w, "MPI_Win_delete_attr", MPI_ERR_OTHER,
                                 "the delete callback of keyval %d returned error code %d; the "
                                 "attribute stays",
                                 win_keyval, rc);
    return MPI_SUCCESS;
}
