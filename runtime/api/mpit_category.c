/* Categories (MPI-4.1 Sec. 15.3.8): runtime/mpit/vbt_mpit_category.c. */
#include "vbt_api_mpit.h"

#include <string.h>

VBT_PMPI_ALIAS(T_category_get_num)
VBT_PMPI_ALIAS(T_category_get_info)
VBT_PMPI_ALIAS(T_category_get_num_events)
VBT_PMPI_ALIAS(T_category_get_index)
VBT_PMPI_ALIAS(T_category_get_cvars)
VBT_PMPI_ALIAS(T_category_get_pvars)
VBT_PMPI_ALIAS(T_category_get_events)
VBT_PMPI_ALIAS(T_category_get_categories)
VBT_PMPI_ALIAS(T_category_changed)

/* The members of category cat, in index order, into indices[0 .. len) (NULL: only counted).
 * kind: 'c' cvars, 'p' pvars, 's' subcategories. Returns how many it has. */
static int members(const vbt_mpit_t *t, int cat, char kind, int len, int *indices)
{
    int n = 0, npvars;
    const vbt_mpit_pvar_t *pvars = vbt_mpit_pvars(&npvars);

    if (kind == 'c') {
        for (int i = 0; i < t->ncvars; i++)
            if (t->cvars[i].category == cat && n++ < len)
                indices[n - 1] = i;
    } else if (kind == 'p') {
        for (int i = 0; i < npvars; i++)
            if (pvars[i].category == cat && n++ < len)
                indices[n - 1] = i;
    } else if (cat == VBT_MPIT_CAT_ROOT) {
        for (int i = 0; i < VBT_MPIT_NCATS; i++)
            if (i != VBT_MPIT_CAT_ROOT && n++ < len)
                indices[n - 1] = i;
    }
    return n;
}

int PMPI_T_category_get_num(int *num_cat)
{
    VBT_MPIT_ENTER("MPI_T_category_get_num");
    (void)t;
    VBT_MPIT_NONNULL("MPI_T_category_get_num", num_cat);
    *num_cat = VBT_MPIT_NCATS;
    return MPI_SUCCESS;
}

/* Any output argument may be NULL: it is not returned. */
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    VBT_MPIT_ENTER("MPI_T_category_get_info");
    VBT_MPIT_INDEX("MPI_T_category_get_info", "category", cat_index, VBT_MPIT_NCATS,
                   "MPI_T_category_get_num");
    vbt_mpit_strcpy(name, name_len, vbt_mpit_categories[cat_index].name);
    vbt_mpit_strcpy(desc, desc_len, vbt_mpit_categories[cat_index].desc);
    if (num_cvars != NULL)
        *num_cvars = members(t, cat_index, 'c', 0, NULL);
    if (num_pvars != NULL)
        *num_pvars = members(t, cat_index, 'p', 0, NULL);
    if (num_categories != NULL)
        *num_categories = members(t, cat_index, 's', 0, NULL);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    VBT_MPIT_ENTER("MPI_T_category_get_num_events");
    (void)t;
    VBT_MPIT_INDEX("MPI_T_category_get_num_events", "category", cat_index, VBT_MPIT_NCATS,
                   "MPI_T_category_get_num");
    VBT_MPIT_NONNULL("MPI_T_category_get_num_events", num_events);
    *num_events = 0; /* no event types (runtime/api/mpit_event.c) */
    return MPI_SUCCESS;
}

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    VBT_MPIT_ENTER("MPI_T_category_get_index");
    (void)t;
    VBT_MPIT_NONNULL("MPI_T_category_get_index", name);
    VBT_MPIT_NONNULL("MPI_T_category_get_index", cat_index);
    for (int i = 0; i < VBT_MPIT_NCATS; i++) {
        if (strcmp(vbt_mpit_categories[i].name, name) == 0) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    }
    return vbt_mpit_error("MPI_T_category_get_index", MPI_T_ERR_INVALID_NAME,
                          "no category is named \"%s\"", name);
}

static int get_members(int cat_index, int len, int indices[], char kind, const char *call)
{
    VBT_MPIT_ENTER(call);
    VBT_MPIT_INDEX(call, "category", cat_index, VBT_MPIT_NCATS, "MPI_T_category_get_num");
    if (len < 0)
        return vbt_mpit_error(call, MPI_T_ERR_INVALID, "argument len %d is negative", len);
    if (len > 0)
        VBT_MPIT_NONNULL(call, indices);
    members(t, cat_index, kind, len, indices);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, len, indices, 'c', "MPI_T_category_get_cvars");
}

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, len, indices, 'p', "MPI_T_category_get_pvars");
}

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return get_members(cat_index, len, indices, 's', "MPI_T_category_get_categories");
}

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    /* No category has events: nothing is stored (kind 'e' matches nothing). */
    return get_members(cat_index, len, indices, 'e', "MPI_T_category_get_events");
}

/* The categories never change: the number is always the same. */
int PMPI_T_category_changed(int *update_number)
{
    VBT_MPIT_ENTER("MPI_T_category_changed");
    (void)t;
    VBT_MPIT_NONNULL("MPI_T_category_changed", update_number);
    *update_number = 0;
    return MPI_SUCCESS;
}
