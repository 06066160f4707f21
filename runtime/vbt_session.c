#include "vbt_session.h"
#include "vbt_errhandler.h"
#include "vbt_runtime.h"

#include <stdlib.h>
#include <string.h>

static const char *const pset_names[VBT_PSET_COUNT] = {VBT_PSET_WORLD, VBT_PSET_SELF};

vbt_status_t vbt_session_create(int thread_level, MPI_Errhandler errhandler,
                                vbt_session_t **session_p)
{
    vbt_session_t *s = calloc(1, sizeof(*s));
    vbt_status_t status;

    if (s == NULL)
        return VBT_ERR_NO_MEMORY;
    status = vbt_runtime_acquire();
    if (status != VBT_OK) {
        free(s);
        return status;
    }
    s->magic = VBT_SESSION_MAGIC;
    s->thread_level = thread_level;
    vbt_runtime_threads(thread_level);
    s->errhandler = errhandler;
    vbt_errhandler_retain(errhandler);
    s->next = vbt_rt.sessions;
    vbt_rt.sessions = s;
    *session_p = s;
    return VBT_OK;
}

vbt_status_t vbt_session_destroy(vbt_session_t *s)
{
    for (vbt_session_t **pp = &vbt_rt.sessions; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    vbt_errhandler_release(s->errhandler);
    s->magic = 0;
    free(s);
    return vbt_runtime_release();
}

vbt_session_t *vbt_session_get(MPI_Session handle)
{
    if ((uintptr_t)handle <= 4095) /* MPI_SESSION_NULL and the other predefined values */
        return NULL;
    for (vbt_session_t *s = vbt_rt.sessions; s != NULL; s = s->next) {
        if ((MPI_Session)s == handle)
            return s->magic == VBT_SESSION_MAGIC ? s : NULL;
    }
    return NULL;
}

const char *vbt_session_pset_name(int n)
{
    return n >= 0 && n < VBT_PSET_COUNT ? pset_names[n] : NULL;
}

int vbt_session_pset_size(const char *name)
{
    if (strcmp(name, VBT_PSET_WORLD) == 0)
        return vbt_rt.proc.size;
    if (strcmp(name, VBT_PSET_SELF) == 0)
        return 1;
    return -1;
}

vbt_status_t vbt_session_pset_group(const char *name, vbt_group_t **group_p)
{
    vbt_status_t status;
    int *ranks;

    if (strcmp(name, VBT_PSET_SELF) == 0)
        return vbt_group_create(1, &vbt_rt.proc.rank, group_p);
    if (strcmp(name, VBT_PSET_WORLD) != 0)
        return VBT_ERR_NOT_FOUND;
    ranks = malloc((size_t)vbt_rt.proc.size * sizeof(int));
    if (ranks == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < vbt_rt.proc.size; i++)
        ranks[i] = i;
    status = vbt_group_create(vbt_rt.proc.size, ranks, group_p);
    free(ranks);
    return status;
}
