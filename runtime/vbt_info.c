/* Info objects: see vbt_info.h. */
#include "vbt_info.h"
#include "vbt_runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The live objects the user made. Info objects are few and never on a data path, so a list
 * searched from the newest is enough to validate a handle before reading it. */
static vbt_info_t *live;

vbt_info_t vbt_info_env = {
    .magic = VBT_INFO_MAGIC,
    .predefined = 1,
    .tail_p = &vbt_info_env.head,
};

vbt_info_t *vbt_info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV)
        return &vbt_info_env;
    if ((uintptr_t)h <= 4095)
        return NULL;
    for (vbt_info_t *i = live; i != NULL; i = i->next)
        if ((void *)i == (void *)h)
            return i->magic == VBT_INFO_MAGIC ? i : NULL;
    return NULL;
}

MPI_Info vbt_info_handle(vbt_info_t *info)
{
    if (info == &vbt_info_env)
        return MPI_INFO_ENV;
    return (MPI_Info)info;
}

vbt_status_t vbt_info_create(vbt_info_t **info_p)
{
    vbt_info_t *info = calloc(1, sizeof(*info));

    if (info == NULL)
        return VBT_ERR_NO_MEMORY;
    info->magic = VBT_INFO_MAGIC;
    info->session = vbt_rt.users > 0;
    info->tail_p = &info->head;
    info->next = live;
    if (live != NULL)
        live->prev = info;
    live = info;
    *info_p = info;
    return VBT_OK;
}

static vbt_info_entry_t *find(const vbt_info_t *info, const char *key)
{
    for (vbt_info_entry_t *e = info->head; e != NULL; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

vbt_status_t vbt_info_set(vbt_info_t *info, const char *key, const char *value)
{
    vbt_info_entry_t *e = find(info, key);
    char *copy = strdup(value);

    if (copy == NULL)
        return VBT_ERR_NO_MEMORY;
    if (e != NULL) {
        free(e->value);
        e->value = copy;
        return VBT_OK;
    }
    e = calloc(1, sizeof(*e));
    if (e == NULL)
        goto err_free_copy;
    e->key = strdup(key);
    if (e->key == NULL)
        goto err_free_entry;
    e->value = copy;
    *info->tail_p = e;
    info->tail_p = &e->next;
    info->nkeys++;
    return VBT_OK;

err_free_entry:
    free(e);
err_free_copy:
    free(copy);
    return VBT_ERR_NO_MEMORY;
}

vbt_status_t vbt_info_dup(const vbt_info_t *info, vbt_info_t **info_p)
{
    vbt_info_t *copy;
    vbt_status_t status = vbt_info_create(&copy);

    if (status != VBT_OK)
        return status;
    for (const vbt_info_entry_t *e = info->head; e != NULL; e = e->next) {
        status = vbt_info_set(copy, e->key, e->value);
        if (status != VBT_OK) {
            vbt_info_release(copy);
            return status;
        }
    }
    *info_p = copy;
    return VBT_OK;
}

int vbt_info_lookup(const vbt_info_t *info, const char *key, const char **value_p)
{
    const vbt_info_entry_t *e = find(info, key);

    if (e == NULL)
        return 0;
    if (value_p != NULL)
        *value_p = e->value;
    return 1;
}

static void entry_free(vbt_info_entry_t *e)
{
    free(e->key);
    free(e->value);
    free(e);
}

vbt_status_t vbt_info_delete(vbt_info_t *info, const char *key)
{
    vbt_info_entry_t **pp;

    for (pp = &info->head; *pp != NULL; pp = &(*pp)->next) {
        vbt_info_entry_t *e = *pp;
        if (strcmp(e->key, key) != 0)
            continue;
        *pp = e->next;
        if (info->tail_p == &e->next)
            info->tail_p = pp;
        info->nkeys--;
        entry_free(e);
        return VBT_OK;
    }
    return VBT_ERR_NOT_FOUND;
}

int vbt_info_nkeys(const vbt_info_t *info)
{
    return info->nkeys;
}

const char *vbt_info_nthkey(const vbt_info_t *info, int n)
{
    const vbt_info_entry_t *e = info->head;

    if (n < 0)
        return NULL;
    for (; e != NULL && n > 0; n--)
        e = e->next;
    return e != NULL ? e->key : NULL;
}

void vbt_info_clear(vbt_info_t *info)
{
    while (info->head != NULL) {
        vbt_info_entry_t *e = info->head;
        info->head = e->next;
        entry_free(e);
    }
    info->tail_p = &info->head;
    info->nkeys = 0;
}

void vbt_info_release(vbt_info_t *info)
{
    if (info == NULL || info->predefined)
        return;
    vbt_info_clear(info);
    if (info->prev != NULL)
        info->prev->next = info->next;
    else
        live = info->next;
    if (info->next != NULL)
        info->next->prev = info->prev;
    info->magic = 0;
    free(info);
}

void vbt_info_cleanup(void)
{
    vbt_info_t *i = live;

    while (i != NULL) {
        vbt_info_t *next = i->next;
        if (i->session)
            vbt_info_release(i);
        i = next;
    }
}
