/* Keyvals live in a table indexed by id - VBT_KEYVAL_BASE; a slot is reused once its keyval is
 * gone (freed by the application and no attribute left). Attributes are a short list per
 * communicator, newest first. */
#include "vbt_attr.h"

#include <stdint.h>
#include <stdlib.h>

static vbt_keyval_t **keyvals;
static int nkeyvals;

vbt_status_t vbt_keyval_create(MPI_Comm_copy_attr_function *copy_fn,
                               MPI_Comm_delete_attr_function *delete_fn, void *extra_state,
                               int *keyval_p)
{
    vbt_keyval_t *kv = malloc(sizeof(*kv));
    int slot;

    if (kv == NULL)
        return VBT_ERR_NO_MEMORY;
    for (slot = 0; slot < nkeyvals && keyvals[slot] != NULL; slot++)
        ;
    if (slot == nkeyvals) {
        int n = nkeyvals ? 2 * nkeyvals : 16;
        vbt_keyval_t **t = realloc(keyvals, (size_t)n * sizeof(*t));
        if (t == NULL) {
            free(kv);
            return VBT_ERR_NO_MEMORY;
        }
        for (int i = nkeyvals; i < n; i++)
            t[i] = NULL;
        keyvals = t;
        nkeyvals = n;
    }
    *kv = (vbt_keyval_t){.id = VBT_KEYVAL_BASE + slot,
                         .refcount = 1,
                         .copy_fn = copy_fn,
                         .delete_fn = delete_fn,
                         .extra_state = extra_state};
    keyvals[slot] = kv;
    *keyval_p = kv->id;
    return VBT_OK;
}

static vbt_status_t keyval_create_kind(int kind, void *extra_state, int *keyval_p,
                                       vbt_keyval_t **kv_p)
{
    vbt_status_t st = vbt_keyval_create(NULL, NULL, extra_state, keyval_p);

    if (st != VBT_OK)
        return st;
    *kv_p = keyvals[*keyval_p - VBT_KEYVAL_BASE];
    (*kv_p)->kind = kind;
    return VBT_OK;
}

vbt_status_t vbt_keyval_create_type(MPI_Type_copy_attr_function *copy_fn,
                                    MPI_Type_delete_attr_function *delete_fn, void *extra_state,
                                    int *keyval_p)
{
    vbt_keyval_t *kv;
    vbt_status_t st = keyval_create_kind(VBT_KEYVAL_TYPE, extra_state, keyval_p, &kv);

    if (st != VBT_OK)
        return st;
    kv->type_copy_fn = copy_fn;
    kv->type_delete_fn = delete_fn;
    return VBT_OK;
}

vbt_status_t vbt_keyval_create_win(MPI_Win_copy_attr_function *copy_fn,
                                   MPI_Win_delete_attr_function *delete_fn, void *extra_state,
                                   int *keyval_p)
{
    vbt_status_t st = vbt_keyval_create(NULL, NULL, extra_state, keyval_p);
    vbt_keyval_t *kv;

    if (st != VBT_OK)
        return st;
    kv = keyvals[*keyval_p - VBT_KEYVAL_BASE];
    kv->kind = VBT_KEYVAL_WIN;
    kv->win_copy_fn = copy_fn;
    kv->win_delete_fn = delete_fn;
    return VBT_OK;
}

static vbt_keyval_t *keyval_lookup(int keyval, int kind)
{
    int slot = keyval - VBT_KEYVAL_BASE;

    if (slot < 0 || slot >= nkeyvals || keyvals[slot] == NULL || keyvals[slot]->freed ||
        keyvals[slot]->kind != kind)
        return NULL;
    return keyvals[slot];
}

vbt_keyval_t *vbt_keyval_get(int keyval)
{
    return keyval_lookup(keyval, VBT_KEYVAL_COMM);
}

vbt_keyval_t *vbt_keyval_get_win(int keyval)
{
    return keyval_lookup(keyval, VBT_KEYVAL_WIN);
}

vbt_keyval_t *vbt_keyval_get_type(int keyval)
{
    return keyval_lookup(keyval, VBT_KEYVAL_TYPE);
}

static void keyval_release(vbt_keyval_t *kv)
{
    if (--kv->refcount > 0)
        return;
    keyvals[kv->id - VBT_KEYVAL_BASE] = NULL;
    free(kv);
}

void vbt_keyval_free(vbt_keyval_t *kv)
{
    kv->freed = 1;
    keyval_release(kv);
}

static vbt_attr_t **find(vbt_attr_t **list, const vbt_keyval_t *kv)
{
    vbt_attr_t **pp;

    for (pp = list; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->keyval == kv)
            return pp;
    }
    return NULL;
}

static int call_delete(void *handle, vbt_attr_t *a)
{
    vbt_keyval_t *kv = a->keyval;

    if (kv->kind == VBT_KEYVAL_TYPE)
        return kv->type_delete_fn == MPI_TYPE_NULL_DELETE_FN
                   ? MPI_SUCCESS
                   : kv->type_delete_fn((MPI_Datatype)handle, kv->id, a->value, kv->extra_state);
    if (kv->kind == VBT_KEYVAL_WIN)
        return kv->win_delete_fn == MPI_WIN_NULL_DELETE_FN
                   ? MPI_SUCCESS
                   : kv->win_delete_fn((MPI_Win)handle, kv->id, a->value, kv->extra_state);
    if (kv->delete_fn == MPI_COMM_NULL_DELETE_FN)
        return MPI_SUCCESS;
    return kv->delete_fn((MPI_Comm)handle, kv->id, a->value, kv->extra_state);
}

int vbt_attr_set(vbt_comm_t *comm, vbt_keyval_t *kv, void *value)
{
    return vbt_attr_list_set(&comm->attrs, comm->handle, kv, value);
}

int vbt_attr_list_set(vbt_attr_t **list, void *handle, vbt_keyval_t *kv, void *value)
{
    vbt_attr_t **pp = find(list, kv), *a;
    int rc;

    if (pp != NULL) {
        /* As if MPI_Comm_delete_attr came first: the old value's delete callback runs. */
        rc = call_delete(handle, *pp);
        if (rc != MPI_SUCCESS)
            return rc;
        (*pp)->value = value;
        return MPI_SUCCESS;
    }
    a = malloc(sizeof(*a));
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    a->keyval = kv;
    a->value = value;
    a->next = *list;
    *list = a;
    kv->refcount++;
    return MPI_SUCCESS;
}

int vbt_attr_get(const vbt_comm_t *comm, int keyval, void **value_p)
{
    return vbt_attr_list_get(comm->attrs, keyval, value_p);
}

int vbt_attr_list_get(const vbt_attr_t *list, int keyval, void **value_p)
{
    for (const vbt_attr_t *a = list; a != NULL; a = a->next) {
        if (a->keyval->id == keyval) {
            *value_p = a->value;
            return 1;
        }
    }
    return 0;
}

static void unlink_attr(vbt_attr_t **pp)
{
    vbt_attr_t *a = *pp;

    *pp = a->next;
    keyval_release(a->keyval);
    free(a);
}

int vbt_attr_delete(vbt_comm_t *comm, vbt_keyval_t *kv)
{
    return vbt_attr_list_delete(&comm->attrs, comm->handle, kv);
}

int vbt_attr_list_delete(vbt_attr_t **list, void *handle, vbt_keyval_t *kv)
{
    vbt_attr_t **pp = find(list, kv);
    int rc;

    if (pp == NULL)
        return MPI_SUCCESS;
    rc = call_delete(handle, *pp);
    if (rc != MPI_SUCCESS)
        return rc;
    unlink_attr(pp);
    return MPI_SUCCESS;
}

/* Run the copy callback of a's keyval: 1 when the copy keeps the attribute (value in *out_p),
 * 0 when not; *rc_p is what the callback returned (an error means 0). */
static int call_copy(void *handle, const vbt_attr_t *a, void **out_p, int *rc_p)
{
    vbt_keyval_t *kv = a->keyval;
    uintptr_t fn;
    int flag = 0;

    *rc_p = MPI_SUCCESS;
    fn = kv->kind == VBT_KEYVAL_TYPE  ? (uintptr_t)kv->type_copy_fn
         : kv->kind == VBT_KEYVAL_WIN ? (uintptr_t)kv->win_copy_fn
                                      : (uintptr_t)kv->copy_fn;
    /* The predefined callbacks are the integers 0 (NULL_COPY_FN) and 1 (DUP_FN) for every
     * object kind (mpi.h). */
    if (fn == (uintptr_t)MPI_COMM_NULL_COPY_FN)
        return 0;
    if (fn == (uintptr_t)MPI_COMM_DUP_FN) {
        *out_p = a->value;
        return 1;
    }
    if (kv->kind == VBT_KEYVAL_TYPE)
        *rc_p =
            kv->type_copy_fn((MPI_Datatype)handle, kv->id, kv->extra_state, a->value, out_p, &flag);
    else if (kv->kind == VBT_KEYVAL_WIN)
        *rc_p = kv->win_copy_fn((MPI_Win)handle, kv->id, kv->extra_state, a->value, out_p, &flag);
    else
        *rc_p = kv->copy_fn((MPI_Comm)handle, kv->id, kv->extra_state, a->value, out_p, &flag);
    return *rc_p == MPI_SUCCESS && flag;
}

int vbt_attr_copy_all(vbt_comm_t *from, vbt_comm_t *to)
{
    return vbt_attr_list_copy(from->attrs, from->handle, &to->attrs);
}

int vbt_attr_list_copy(const vbt_attr_t *from, void *handle, vbt_attr_t **to)
{
    vbt_attr_t **tail = to;

    while (*tail != NULL)
        tail = &(*tail)->next;
    /* Same order as on from: newest first. */
    for (const vbt_attr_t *a = from; a != NULL; a = a->next) {
        void *out = NULL;
        int rc;
        vbt_attr_t *copy;

        if (!call_copy(handle, a, &out, &rc)) {
            if (rc != MPI_SUCCESS)
                return rc;
            continue;
        }
        copy = malloc(sizeof(*copy));
        if (copy == NULL)
            return MPI_ERR_NO_MEM;
        copy->keyval = a->keyval;
        copy->value = out;
        copy->next = NULL;
        *tail = copy;
        tail = &copy->next;
        a->keyval->refcount++;
    }
    return MPI_SUCCESS;
}

int vbt_attr_delete_all(vbt_comm_t *comm)
{
    return vbt_attr_list_delete_all(&comm->attrs, comm->handle);
}

int vbt_attr_list_delete_all(vbt_attr_t **list, void *handle)
{
    while (*list != NULL) {
        int rc = call_delete(handle, *list);
        if (rc != MPI_SUCCESS)
            return rc;
        unlink_attr(list);
    }
    return MPI_SUCCESS;
}

void vbt_attr_delete_all_quiet(vbt_comm_t *comm)
{
    vbt_attr_list_delete_quiet(&comm->attrs);
}

void vbt_attr_list_delete_quiet(vbt_attr_t **list)
{
    while (*list != NULL)
        unlink_attr(list);
}
