#include "vbt_errhandler.h"

#include <stdint.h>
#include <stdlib.h>

#define VBT_ERRHANDLER_MAGIC 0x56424548u /* "VBEH" */

/* Few handlers exist in a program (usually one or two), so a list is the right registry. */
static vbt_errhandler_t *live;

vbt_errhandler_t *vbt_errhandler_get(MPI_Errhandler h)
{
    if ((uintptr_t)h <= 4095)
        return NULL;
    for (vbt_errhandler_t *e = live; e != NULL; e = e->next) {
        if ((MPI_Errhandler)e == h)
            return e->magic == VBT_ERRHANDLER_MAGIC ? e : NULL;
    }
    return NULL;
}

int vbt_errhandler_valid(MPI_Errhandler h)
{
    return vbt_errhandler_is_predefined(h) || vbt_errhandler_get(h) != NULL;
}

vbt_status_t vbt_errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *h_p)
{
    vbt_errhandler_t *e = malloc(sizeof(*e));

    if (e == NULL)
        return VBT_ERR_NO_MEMORY;
    e->magic = VBT_ERRHANDLER_MAGIC;
    e->refcount = 1;
    e->kind = VBT_ERRH_COMM;
    e->fn = fn;
    e->win_fn = NULL;
    e->session_fn = NULL;
    e->next = live;
    live = e;
    *h_p = (MPI_Errhandler)e;
    return VBT_OK;
}

vbt_status_t vbt_errhandler_create_win(MPI_Win_errhandler_function *fn, MPI_Errhandler *h_p)
{
    vbt_status_t st = vbt_errhandler_create(NULL, h_p);

    if (st != VBT_OK)
        return st;
    ((vbt_errhandler_t *)*h_p)->kind = VBT_ERRH_WIN;
    ((vbt_errhandler_t *)*h_p)->win_fn = fn;
    return VBT_OK;
}

vbt_status_t vbt_errhandler_create_session(MPI_Session_errhandler_function *fn, MPI_Errhandler *h_p)
{
    vbt_status_t st = vbt_errhandler_create(NULL, h_p);

    if (st != VBT_OK)
        return st;
    ((vbt_errhandler_t *)*h_p)->kind = VBT_ERRH_SESSION;
    ((vbt_errhandler_t *)*h_p)->session_fn = fn;
    return VBT_OK;
}

const char *vbt_errhandler_maker(MPI_Errhandler h)
{
    const vbt_errhandler_t *e = vbt_errhandler_get(h);

    if (e == NULL)
        return "the library (predefined)";
    return e->kind == VBT_ERRH_WIN       ? "MPI_Win_create_errhandler"
           : e->kind == VBT_ERRH_SESSION ? "MPI_Session_create_errhandler"
                                         : "MPI_Comm_create_errhandler";
}

int vbt_errhandler_fits(MPI_Errhandler h, int kind)
{
    const vbt_errhandler_t *e = vbt_errhandler_get(h);

    return e == NULL || e->kind == kind;
}

void vbt_errhandler_retain(MPI_Errhandler h)
{
    vbt_errhandler_t *e = (uintptr_t)h > 4095 ? (vbt_errhandler_t *)h : NULL;

    if (e != NULL)
        e->refcount++;
}

void vbt_errhandler_release(MPI_Errhandler h)
{
    vbt_errhandler_t *e = (uintptr_t)h > 4095 ? (vbt_errhandler_t *)h : NULL;

    if (e == NULL || --e->refcount > 0)
        return;
    for (vbt_errhandler_t **pp = &live; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == e) {
            *pp = e->next;
            break;
        }
    }
    e->magic = 0;
    free(e);
}
