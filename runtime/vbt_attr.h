/* Attribute caching on communicators: keyvals with their copy and delete callbacks, and the
 * attributes set on each communicator. Callbacks are called as MPI-4.1 Sec. 7.7 says: the copy
 * callback by MPI_Comm_dup (for the attributes it keeps), the delete callback when an attribute
 * is deleted, replaced, or its communicator freed. */
#ifndef VBT_ATTR_H
#define VBT_ATTR_H

#include <mpi.h>

#include "vbt_comm.h"
#include "vbt_status.h"

/* Keyvals handed out are VBT_KEYVAL_BASE and up: clear of MPI_KEYVAL_INVALID and of the
 * predefined attribute keys of mpi.h. */
#define VBT_KEYVAL_BASE 0x10000

/* A keyval is for communicators, for windows (MPI_Win_create_keyval) or for datatypes
 * (MPI_Type_create_keyval), never two of them. */
enum { VBT_KEYVAL_COMM = 0, VBT_KEYVAL_WIN = 1, VBT_KEYVAL_TYPE = 2 };

typedef struct vbt_keyval {
    int id;
    int kind;
    int refcount; /* the application's (until MPI_Comm_free_keyval) and one per attribute */
    int freed;
    MPI_Comm_copy_attr_function *copy_fn;
    MPI_Comm_delete_attr_function *delete_fn;
    MPI_Win_copy_attr_function *win_copy_fn;
    MPI_Win_delete_attr_function *win_delete_fn;
    MPI_Type_copy_attr_function *type_copy_fn;
    MPI_Type_delete_attr_function *type_delete_fn;
    void *extra_state;
} vbt_keyval_t;

typedef struct vbt_attr {
    struct vbt_attr *next;
    vbt_keyval_t *keyval;
    void *value;
} vbt_attr_t;

vbt_status_t vbt_keyval_create(MPI_Comm_copy_attr_function *copy_fn,
                               MPI_Comm_delete_attr_function *delete_fn, void *extra_state,
                               int *keyval_p);
vbt_status_t vbt_keyval_create_win(MPI_Win_copy_attr_function *copy_fn,
                                   MPI_Win_delete_attr_function *delete_fn, void *extra_state,
                                   int *keyval_p);
vbt_status_t vbt_keyval_create_type(MPI_Type_copy_attr_function *copy_fn,
                                    MPI_Type_delete_attr_function *delete_fn, void *extra_state,
                                    int *keyval_p);
/* The keyval behind an id, or NULL (unknown, already freed by the application, or a window or
 * datatype keyval: vbt_keyval_get_win and vbt_keyval_get_type find those). */
vbt_keyval_t *vbt_keyval_get(int keyval);
vbt_keyval_t *vbt_keyval_get_win(int keyval);
vbt_keyval_t *vbt_keyval_get_type(int keyval);
/* MPI_Comm_free_keyval: attributes set with it keep it alive until they are deleted. */
void vbt_keyval_free(vbt_keyval_t *kv);

/* These return MPI_SUCCESS or the error code a callback returned. */
int vbt_attr_set(vbt_comm_t *comm, vbt_keyval_t *kv, void *value);
int vbt_attr_delete(vbt_comm_t *comm, vbt_keyval_t *kv);
/* Every attribute of from whose copy callback says so goes to to. */
int vbt_attr_copy_all(vbt_comm_t *from, vbt_comm_t *to);
/* Delete every attribute, newest first; stops at the first callback that fails. */
int vbt_attr_delete_all(vbt_comm_t *comm);
/* Drop what is left without calling callbacks (destruction at MPI_Finalize). */
void vbt_attr_delete_all_quiet(vbt_comm_t *comm);

/* Is an attribute set for keyval on comm? Its value in *value_p if so. */
int vbt_attr_get(const vbt_comm_t *comm, int keyval, void **value_p);

/* The same on any object's list of attributes, the object's handle passed to the callbacks
 * (windows: runtime/api/win_attr.c). */
int vbt_attr_list_set(vbt_attr_t **list, void *handle, vbt_keyval_t *kv, void *value);
int vbt_attr_list_delete(vbt_attr_t **list, void *handle, vbt_keyval_t *kv);
int vbt_attr_list_delete_all(vbt_attr_t **list, void *handle);
void vbt_attr_list_delete_quiet(vbt_attr_t **list);
int vbt_attr_list_get(const vbt_attr_t *list, int keyval, void **value_p);
/* Every attribute of from (on the object handle) whose copy callback says so is appended to
 * *to, in from's order (MPI_Comm_dup, MPI_Type_dup). On error *to keeps what was copied. */
int vbt_attr_list_copy(const vbt_attr_t *from, void *handle, vbt_attr_t **to);

#endif
