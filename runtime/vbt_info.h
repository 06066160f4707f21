/* Info objects: the runtime object behind MPI_Info, an ordered list of (key, value) strings.
 *
 * A handle is the object's address, dereferenced only once it is found in the list of live
 * objects and its magic matches, so a freed or made-up handle is refused, never followed.
 * MPI_INFO_ENV is one predefined object (see vbt_info_env.c); MPI_INFO_NULL names none.
 * Keys keep the order they were first set in (MPI_Info_get_nthkey); setting a key again
 * replaces its value in place. Lengths are not checked here: the MPI entry points refuse keys
 * and values longer than MPI_MAX_INFO_KEY - 1 and MPI_MAX_INFO_VAL - 1 characters. */
#ifndef VBT_INFO_H
#define VBT_INFO_H

#include <mpi.h>

#include "vbt_status.h"

#define VBT_INFO_MAGIC 0x5642494eu /* "VBIN" */

typedef struct vbt_info_entry {
    struct vbt_info_entry *next;
    char *key;
    char *value;
} vbt_info_entry_t;

typedef struct vbt_info {
    uint32_t magic;
    int predefined; /* MPI_INFO_ENV: read-only for the user, never freed */
    int session;    /* made while the library was up: freed at its teardown if leaked */
    int nkeys;
    vbt_info_entry_t *head;       /* in insertion order */
    vbt_info_entry_t **tail_p;    /* where the next new key goes */
    struct vbt_info *prev, *next; /* the list of live objects */
} vbt_info_t;

/* The object behind h (MPI_INFO_ENV included), or NULL for MPI_INFO_NULL, a freed handle or
 * anything else. */
vbt_info_t *vbt_info_get(MPI_Info h);

/* The handle of an object (MPI_INFO_ENV for the predefined one). */
MPI_Info vbt_info_handle(vbt_info_t *info);

/* A new empty object, live until vbt_info_release(). */
vbt_status_t vbt_info_create(vbt_info_t **info_p);

/* A new object with the same keys, values and order as info. */
vbt_status_t vbt_info_dup(const vbt_info_t *info, vbt_info_t **info_p);

/* Set key to value (both copied): a new key goes last, an existing one keeps its place. */
vbt_status_t vbt_info_set(vbt_info_t *info, const char *key, const char *value);

/* 1 and *value_p set (valid until the key is set, deleted or the object freed) when key is
 * there, else 0 and *value_p untouched. value_p may be NULL to ask only whether it is there. */
int vbt_info_lookup(const vbt_info_t *info, const char *key, const char **value_p);

/* Remove key: VBT_ERR_NOT_FOUND when it is not there. */
vbt_status_t vbt_info_delete(vbt_info_t *info, const char *key);

int vbt_info_nkeys(const vbt_info_t *info);

/* The n-th key in insertion order (0-based), or NULL when n is out of range. */
const char *vbt_info_nthkey(const vbt_info_t *info, int n);

/* Remove every key (the object stays live). */
void vbt_info_clear(vbt_info_t *info);

/* Free the object; its handle is invalid from now on. Nothing for the predefined one or NULL. */
void vbt_info_release(vbt_info_t *info);

/* Free every object made while MPI was initialised that the user did not free (MPI_Finalize).
 * Those made before MPI_Init or after MPI_Finalize, which the standard allows, stay. */
void vbt_info_cleanup(void);

/* ---- MPI_INFO_ENV (vbt_info_env.c) ----------------------------------------------------------- */

/* The predefined object behind MPI_INFO_ENV (empty until vbt_info_env_init). */
extern vbt_info_t vbt_info_env;

/* Fill info with the keys of MPI_INFO_ENV (MPI-4.1 Sec. 11.2.3) that this process knows:
 * command and argv from argc/argv (or /proc/self/cmdline when argv is NULL), wdir, host, arch,
 * and, once MPI is initialised, maxprocs and thread_level. */
vbt_status_t vbt_info_env_fill(vbt_info_t *info, int argc, char **argv);

/* Fill MPI_INFO_ENV at MPI_Init from its arguments, and empty it at MPI_Finalize. */
vbt_status_t vbt_info_env_init(int argc, char **argv);
void vbt_info_env_cleanup(void);

#endif
