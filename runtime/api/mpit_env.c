/* MPI_T_init_thread, MPI_T_finalize and the enumerations (MPI-4.1 Sec. 15.3.4, 15.3.5). */
#include "vbt_api_mpit.h"

VBT_PMPI_ALIAS(T_init_thread)
VBT_PMPI_ALIAS(T_finalize)
VBT_PMPI_ALIAS(T_enum_get_info)
VBT_PMPI_ALIAS(T_enum_get_item)

/* Allowed at any time, before MPI_Init and after MPI_Finalize too; reference-counted. */
int PMPI_T_init_thread(int required, int *provided)
{
    int rc;

    VBT_MPIT_NONNULL("MPI_T_init_thread", provided);
    vbt_runtime_threads(vbt_runtime_thread_level(required)); /* MULTIPLE: locks on */
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    rc = vbt_mpit_init();
    if (rc == MPI_SUCCESS)
        *provided = vbt_runtime_thread_level(required);
    return rc;
}

int PMPI_T_finalize(void)
{
    VBT_MPIT_ENTER("MPI_T_finalize");
    (void)t;
    return vbt_mpit_finalize();
}

static const vbt_mpit_enum_t *enum_get(const vbt_mpit_t *t, MPI_T_enum enumtype, const char *call,
                                       int *rc_p)
{
    const vbt_mpit_enum_t *e = vbt_mpit_enum_check(t, enumtype);

    if (e == NULL)
        *rc_p = vbt_mpit_error(call, MPI_T_ERR_INVALID_HANDLE,
                               "argument enumtype %p is not an enumeration of MPI_T_cvar_get_info "
                               "(or it was returned before the last MPI_T_finalize)",
                               (void *)enumtype);
    return e;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    const vbt_mpit_enum_t *e;
    int rc;

    VBT_MPIT_ENTER("MPI_T_enum_get_info");
    e = enum_get(t, enumtype, "MPI_T_enum_get_info", &rc);
    if (e == NULL)
        return rc;
    VBT_MPIT_NONNULL("MPI_T_enum_get_info", num);
    *num = e->n;
    vbt_mpit_strcpy(name, name_len, e->name);
    return MPI_SUCCESS;
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    const vbt_mpit_enum_t *e;
    int rc;

    VBT_MPIT_ENTER("MPI_T_enum_get_item");
    e = enum_get(t, enumtype, "MPI_T_enum_get_item", &rc);
    if (e == NULL)
        return rc;
    VBT_MPIT_INDEX("MPI_T_enum_get_item", "item", indx, e->n, "MPI_T_enum_get_info");
    VBT_MPIT_NONNULL("MPI_T_enum_get_item", value);
    *value = indx;
    vbt_mpit_strcpy(name, name_len, e->items[indx]);
    return MPI_SUCCESS;
}
