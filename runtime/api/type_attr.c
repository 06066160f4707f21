/* Datatype attributes: MPI_Type_create_keyval & co (MPI-4.1 Sec. 7.7.4). The keyvals and the
 * attribute lists are runtime/vbt_attr.c's, as for communicators and windows; MPI_Type_dup runs
 * the copy callbacks and MPI_Type_free the delete callbacks (runtime/api/type_create.c). */
#include "vbt_api.h"
#include "vbt_api_p2p.h"
#include "vbt_attr.h"
#include "vbt_datatype.h"

#include <stdint.h>

VBT_PMPI_ALIAS(Type_create_keyval)
VBT_PMPI_ALIAS(Type_free_keyval)
VBT_PMPI_ALIAS(Type_set_attr)
VBT_PMPI_ALIAS(Type_get_attr)
VBT_PMPI_ALIAS(Type_delete_attr)

/* Predefined types carry attributes too: the standard allows caching on any datatype. */
static int get_type(const char *call, MPI_Datatype dt, vbt_dtype_t **t_p)
{
    *t_p = vbt_dtype_get(dt);
    if (likely(*t_p != NULL))
        return MPI_SUCCESS;
    if (dt == MPI_DATATYPE_NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                               "argument datatype is MPI_DATATYPE_NULL; pass a datatype");
    return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                           "argument datatype (handle %#lx) is not a valid datatype (freed, or "
                           "never returned by a datatype constructor)",
                           (unsigned long)(uintptr_t)dt);
}

static int get_keyval(const char *call, int keyval, vbt_keyval_t **kv_p)
{
    *kv_p = vbt_keyval_get_type(keyval);
    if (likely(*kv_p != NULL))
        return MPI_SUCCESS;
    if (keyval == MPI_KEYVAL_INVALID)
        return vbt_error_raise(NULL, call, MPI_ERR_KEYVAL,
                               "argument type_keyval is MPI_KEYVAL_INVALID; create one with "
                               "MPI_Type_create_keyval");
    return vbt_error_raise(NULL, call, MPI_ERR_KEYVAL,
                           "argument type_keyval %d is not a datatype keyval (one from "
                           "MPI_Type_create_keyval, not a communicator or window keyval; freed "
                           "already?)",
                           keyval);
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    const char *call = "MPI_Type_create_keyval";

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, type_keyval, "type_keyval");
    if (vbt_keyval_create_type(type_copy_attr_fn, type_delete_attr_fn, extra_state, type_keyval) !=
        VBT_OK)
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM, "out of memory for a new keyval");
    return MPI_SUCCESS;
}

int PMPI_Type_free_keyval(int *type_keyval)
{
    const char *call = "MPI_Type_free_keyval";
    vbt_keyval_t *kv;

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, type_keyval, "type_keyval");
    VBT_API_CHECK(get_keyval(call, *type_keyval, &kv));
    /* Attributes still set with it keep it alive until they are deleted. */
    vbt_keyval_free(kv);
    *type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    const char *call = "MPI_Type_set_attr";
    vbt_dtype_t *t;
    vbt_keyval_t *kv;
    int rc;

    VBT_API_ENTER(call);
    VBT_API_CHECK(get_type(call, datatype, &t));
    VBT_API_CHECK(get_keyval(call, type_keyval, &kv));
    rc = vbt_attr_list_set(&t->attrs, datatype, kv, attribute_val);
    if (rc != MPI_SUCCESS)
        return vbt_error_raise(NULL, call, rc == MPI_ERR_NO_MEM ? rc : MPI_ERR_OTHER,
                               "replacing the value of keyval %d: its delete callback returned "
                               "error code %d",
                               type_keyval, rc);
    return MPI_SUCCESS;
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    const char *call = "MPI_Type_get_attr";
    vbt_dtype_t *t;
    vbt_keyval_t *kv;

    VBT_API_ENTER(call);
    VBT_API_CHECK(get_type(call, datatype, &t));
    VBT_API_PTR(NULL, call, attribute_val, "attribute_val");
    VBT_API_PTR(NULL, call, flag, "flag");
    VBT_API_CHECK(get_keyval(call, type_keyval, &kv));
    /* attribute_val is really a void **. */
    *flag = vbt_attr_list_get(t->attrs, type_keyval, (void **)attribute_val);
    return MPI_SUCCESS;
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    const char *call = "MPI_Type_delete_attr";
    vbt_dtype_t *t;
    vbt_keyval_t *kv;
    int rc;

    VBT_API_ENTER(call);
    VBT_API_CHECK(get_type(call, datatype, &t));
    VBT_API_CHECK(get_keyval(call, type_keyval, &kv));
    rc = vbt_attr_list_delete(&t->attrs, datatype, kv);
    if (rc != MPI_SUCCESS)
        return vbt_error_raise(NULL, call, MPI_ERR_OTHER,
                               "the delete callback of keyval %d returned error code %d; the "
                               "attribute stays",
                               type_keyval, rc);
    return MPI_SUCCESS;
}
