/* Control variables (MPI-4.1 Sec. 15.3.6): the VBT_* knobs (runtime/mpit/vbt_mpit_cvar.c). */
#include "vbt_api_mpit.h"

#include <stdlib.h>
#include <string.h>

VBT_PMPI_ALIAS(T_cvar_get_num)
VBT_PMPI_ALIAS(T_cvar_get_info)
VBT_PMPI_ALIAS(T_cvar_get_index)
VBT_PMPI_ALIAS(T_cvar_handle_alloc)
VBT_PMPI_ALIAS(T_cvar_handle_free)
VBT_PMPI_ALIAS(T_cvar_read)
VBT_PMPI_ALIAS(T_cvar_write)

int PMPI_T_cvar_get_num(int *num_cvar)
{
    VBT_MPIT_ENTER("MPI_T_cvar_get_num");
    VBT_MPIT_NONNULL("MPI_T_cvar_get_num", num_cvar);
    *num_cvar = t->ncvars;
    return MPI_SUCCESS;
}

/* Any output argument may be NULL: it is not returned. */
int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    const vbt_mpit_cvar_t *c;

    VBT_MPIT_ENTER("MPI_T_cvar_get_info");
    VBT_MPIT_INDEX("MPI_T_cvar_get_info", "control variable", cvar_index, t->ncvars,
                   "MPI_T_cvar_get_num");
    c = &t->cvars[cvar_index];
    vbt_mpit_strcpy(name, name_len, c->knob->name);
    vbt_mpit_strcpy(desc, desc_len, c->knob->help);
    if (verbosity != NULL)
        *verbosity = c->verbosity;
    if (datatype != NULL)
        *datatype = c->datatype;
    if (enumtype != NULL)
        *enumtype = c->enum_index >= 0 ? (MPI_T_enum)&t->enums[c->enum_index] : MPI_T_ENUM_NULL;
    if (bind != NULL)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope != NULL)
        *scope = c->scope;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    VBT_MPIT_ENTER("MPI_T_cvar_get_index");
    VBT_MPIT_NONNULL("MPI_T_cvar_get_index", name);
    VBT_MPIT_NONNULL("MPI_T_cvar_get_index", cvar_index);
    for (int i = 0; i < t->ncvars; i++) {
        if (strcmp(t->cvars[i].knob->name, name) == 0) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    }
    return vbt_mpit_error("MPI_T_cvar_get_index", MPI_T_ERR_INVALID_NAME,
                          "no control variable is named \"%s\" (verbatim-info --mpit lists them)",
                          name);
}

/* Every variable is bound to no object: obj_handle is ignored. */
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    vbt_mpit_cvar_handle_t *h;

    (void)obj_handle;
    VBT_MPIT_ENTER("MPI_T_cvar_handle_alloc");
    VBT_MPIT_INDEX("MPI_T_cvar_handle_alloc", "control variable", cvar_index, t->ncvars,
                   "MPI_T_cvar_get_num");
    VBT_MPIT_NONNULL("MPI_T_cvar_handle_alloc", handle);
    VBT_MPIT_NONNULL("MPI_T_cvar_handle_alloc", count);
    h = calloc(1, sizeof(*h));
    if (h == NULL)
        return vbt_mpit_error("MPI_T_cvar_handle_alloc", MPI_T_ERR_OUT_OF_HANDLES, "out of memory");
    h->index = cvar_index;
    h->next = t->cvar_handles;
    t->cvar_handles = h;
    *handle = (MPI_T_cvar_handle)h;
    *count = t->cvars[cvar_index].count;
    return MPI_SUCCESS;
}

static vbt_mpit_cvar_handle_t *handle_get(const vbt_mpit_t *t, MPI_T_cvar_handle handle,
                                          const char *call, int *rc_p)
{
    vbt_mpit_cvar_handle_t *h = vbt_mpit_cvar_handle_check(t, handle);

    if (h == NULL)
        *rc_p = vbt_mpit_error(call, MPI_T_ERR_INVALID_HANDLE,
                               "argument handle %p is not a live control-variable handle (freed, "
                               "MPI_T_CVAR_HANDLE_NULL, or from before MPI_T_finalize)",
                               (void *)handle);
    return h;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    vbt_mpit_cvar_handle_t *h, **pp;
    int rc;

    VBT_MPIT_ENTER("MPI_T_cvar_handle_free");
    VBT_MPIT_NONNULL("MPI_T_cvar_handle_free", handle);
    h = handle_get(t, *handle, "MPI_T_cvar_handle_free", &rc);
    if (h == NULL)
        return rc;
    for (pp = &t->cvar_handles; *pp != h; pp = &(*pp)->next)
        ;
    *pp = h->next;
    free(h);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    vbt_mpit_cvar_handle_t *h;
    int rc;

    VBT_MPIT_ENTER("MPI_T_cvar_read");
    h = handle_get(t, handle, "MPI_T_cvar_read", &rc);
    if (h == NULL)
        return rc;
    VBT_MPIT_NONNULL("MPI_T_cvar_read", buf);
    return vbt_mpit_cvar_read(t, h->index, buf);
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    vbt_mpit_cvar_handle_t *h;
    int rc;

    VBT_MPIT_ENTER("MPI_T_cvar_write");
    h = handle_get(t, handle, "MPI_T_cvar_write", &rc);
    if (h == NULL)
        return rc;
    VBT_MPIT_NONNULL("MPI_T_cvar_write", buf);
    return vbt_mpit_cvar_write(t, h->index, buf, "MPI_T_cvar_write");
}
