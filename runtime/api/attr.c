/* Keyvals and communicator attributes, and the predefined attributes (MPI_TAG_UB & co). */
#include "vbt_api_comm.h"
#include "vbt_api_p2p.h"
#include "vbt_attr.h"

VBT_PMPI_ALIAS(Comm_create_keyval)
VBT_PMPI_ALIAS(Comm_free_keyval)
VBT_PMPI_ALIAS(Comm_set_attr)
VBT_PMPI_ALIAS(Comm_get_attr)
VBT_PMPI_ALIAS(Comm_delete_attr)
VBT_PMPI_ALIAS(Keyval_create)
VBT_PMPI_ALIAS(Keyval_free)
VBT_PMPI_ALIAS(Attr_put)
VBT_PMPI_ALIAS(Attr_get)
VBT_PMPI_ALIAS(Attr_delete)

/* The predefined attributes: the application gets a pointer to one of these ints. The standard
 * attaches them to MPI_COMM_WORLD; we answer on every communicator (a superset), since libraries
 * commonly ask their own communicator for MPI_TAG_UB. */
static int attr_tag_ub, attr_host, attr_io, attr_wtime_is_global, attr_appnum, attr_universe_size,
    attr_lastusedcode;

static int *predefined(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB:
        attr_tag_ub = VBT_TAG_UB;
        return &attr_tag_ub;
    case MPI_HOST:
        attr_host = MPI_PROC_NULL; /* no process is "the host" */
        return &attr_host;
    case MPI_IO:
        attr_io = MPI_ANY_SOURCE; /* every process can do I/O */
        return &attr_io;
    case MPI_WTIME_IS_GLOBAL:
        attr_wtime_is_global = 0; /* MPI_Wtime reads each node's own clock */
        return &attr_wtime_is_global;
    case MPI_APPNUM:
        attr_appnum = vbt_rt.proc.appnum;
        return &attr_appnum;
    case MPI_UNIVERSE_SIZE:
        attr_universe_size = vbt_rt.proc.size; /* no MPI_Comm_spawn: the world is all */
        return &attr_universe_size;
    case MPI_LASTUSEDCODE:
        attr_lastusedcode = vbt_error_last_used(); /* grows with MPI_Add_error_class/code */
        return &attr_lastusedcode;
    }
    return NULL;
}

static int bad_keyval(vbt_comm_t *c, const char *call, int keyval)
{
    if (predefined(keyval) != NULL)
        return vbt_error_raise(c, call, MPI_ERR_KEYVAL,
                               "argument keyval %d is a predefined attribute key, which can be "
                               "read but not set, deleted or freed",
                               keyval);
    if (keyval == MPI_KEYVAL_INVALID)
        return vbt_error_raise(c, call, MPI_ERR_KEYVAL,
                               "argument keyval is MPI_KEYVAL_INVALID; create one with "
                               "MPI_Comm_create_keyval");
    return vbt_error_raise(c, call, MPI_ERR_KEYVAL,
                           "argument keyval %d is not a communicator keyval (freed already?)",
                           keyval);
}

/* The keyval behind handle keyval, or the error raised from call. */
static int get_keyval(vbt_comm_t *c, const char *call, int keyval, vbt_keyval_t **kv_p)
{
    *kv_p = vbt_keyval_get(keyval);
    if (*kv_p == NULL)
        return bad_keyval(c, call, keyval);
    return MPI_SUCCESS;
}

/* The five calls below are shared by their MPI-2 names (MPI_Comm_*) and the MPI-1 names that
 * MPI-4.1 still lists as deprecated (MPI_Keyval_*, MPI_Attr_*): same semantics, each error
 * naming the call the program made. */
static int create_keyval(const char *call, MPI_Comm_copy_attr_function *copy_fn,
                         MPI_Comm_delete_attr_function *delete_fn, int *keyval, void *extra_state)
{
    vbt_status_t status;

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, keyval, "keyval");
    status = vbt_keyval_create(copy_fn, delete_fn, extra_state, keyval);
    if (status != VBT_OK)
        return vbt_api_comm_failed(NULL, call, status);
    return MPI_SUCCESS;
}

static int free_keyval(const char *call, int *keyval)
{
    vbt_keyval_t *kv;

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, keyval, "keyval");
    VBT_API_CHECK(get_keyval(NULL, call, *keyval, &kv));
    vbt_keyval_free(kv);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static int set_attr(const char *call, MPI_Comm comm, int keyval, void *attribute_val)
{
    vbt_keyval_t *kv;
    int rc;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(get_keyval(c, call, keyval, &kv));
    rc = vbt_attr_set(c, kv, attribute_val);
    if (rc != MPI_SUCCESS)
        return vbt_error_raise(c, call, rc == MPI_ERR_NO_MEM ? rc : MPI_ERR_OTHER,
                               "replacing the value of keyval %d: its delete callback returned "
                               "error code %d",
                               keyval, rc);
    return MPI_SUCCESS;
}

static int get_attr(const char *call, MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    int *pre;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_PTR(c, call, attribute_val, "attribute_val");
    VBT_API_PTR(c, call, flag, "flag");
    /* attribute_val is really a void **: the value (for predefined keys, a pointer to int)
     * is stored there. */
    pre = predefined(keyval);
    if (pre != NULL) {
        *(void **)attribute_val = pre;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (vbt_keyval_get(keyval) == NULL)
        return bad_keyval(c, call, keyval);
    *flag = vbt_attr_get(c, keyval, (void **)attribute_val);
    return MPI_SUCCESS;
}

static int delete_attr(const char *call, MPI_Comm comm, int keyval)
{
    vbt_keyval_t *kv;
    int rc;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(get_keyval(c, call, keyval, &kv));
    rc = vbt_attr_delete(c, kv);
    if (rc != MPI_SUCCESS)
        return vbt_error_raise(c, call, MPI_ERR_OTHER,
                               "the delete callback of keyval %d returned error code %d; the "
                               "attribute stays",
                               keyval, rc);
    return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    return create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn, comm_delete_attr_fn,
                         comm_keyval, extra_state);
}

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return free_keyval("MPI_Comm_free_keyval", comm_keyval);
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}

/* MPI-1's forms (deprecated since MPI-2.0, still in MPI-4.1, not in the MPI-5.0 ABI). Their
 * callbacks have the MPI_Comm_* callbacks' signatures, and MPI_NULL_COPY_FN, MPI_DUP_FN and
 * MPI_NULL_DELETE_FN are the same sentinels as MPI_COMM_NULL_COPY_FN & co. */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}

int PMPI_Keyval_free(int *keyval)
{
    return free_keyval("MPI_Keyval_free", keyval);
}

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return delete_attr("MPI_Attr_delete", comm, keyval);
}
