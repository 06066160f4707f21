/* The tools interface's object: MPI_T_init_thread/MPI_T_finalize reference counting, the
 * registries that tell a live handle from a stale one, and the helpers the MPI_T calls share.
 * See vbt_mpit.h. */
#include "vbt_mpit.h"
#include "vbt_log.h"
#include "vbt_runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vbt_mpit_error(const char *call, int code, const char *fmt, ...)
{
    static const char *const names[] = {
        "MPI_T_ERR_CANNOT_INIT",
        "MPI_T_ERR_NOT_ACCESSIBLE",
        "MPI_T_ERR_NOT_INITIALIZED",
        "MPI_T_ERR_NOT_SUPPORTED",
        "MPI_T_ERR_MEMORY",
        "MPI_T_ERR_INVALID",
        "MPI_T_ERR_INVALID_INDEX",
        "MPI_T_ERR_INVALID_ITEM",
        "MPI_T_ERR_INVALID_SESSION",
        "MPI_T_ERR_INVALID_HANDLE",
        "MPI_T_ERR_INVALID_NAME",
        "MPI_T_ERR_OUT_OF_HANDLES",
        "MPI_T_ERR_OUT_OF_SESSIONS",
        "MPI_T_ERR_CVAR_SET_NOT_NOW",
        "MPI_T_ERR_CVAR_SET_NEVER",
        "MPI_T_ERR_PVAR_NO_WRITE",
        "MPI_T_ERR_PVAR_NO_STARTSTOP",
        "MPI_T_ERR_PVAR_NO_ATOMIC",
    };
    char cause[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cause, sizeof(cause), fmt, ap);
    va_end(ap);
    vbt_debug("%s returns %s: %s", call,
              code >= MPI_T_ERR_CANNOT_INIT && code <= MPI_T_ERR_PVAR_NO_ATOMIC
                  ? names[code - MPI_T_ERR_CANNOT_INIT]
                  : "MPI_ERR_ARG",
              cause);
    return code;
}

void vbt_mpit_strcpy(char *buf, int *len_p, const char *src)
{
    size_t n = strlen(src);

    if (len_p == NULL)
        return;
    if (buf == NULL || *len_p <= 0) {
        *len_p = (int)n + 1;
        return;
    }
    if (n > (size_t)*len_p - 1)
        n = (size_t)*len_p - 1;
    memcpy(buf, src, n);
    buf[n] = '\0';
    *len_p = (int)n + 1;
}

static void destroy(vbt_mpit_t *t)
{
    while (t->sessions != NULL) {
        vbt_mpit_session_t *s = t->sessions;
        t->sessions = s->next;
        vbt_mpit_session_destroy(s);
    }
    while (t->cvar_handles != NULL) {
        vbt_mpit_cvar_handle_t *h = t->cvar_handles;
        t->cvar_handles = h->next;
        free(h);
    }
    free(t->cvars);
    free(t->enums);
    free(t);
}

int vbt_mpit_init(void)
{
    vbt_mpit_t *t = vbt_rt.mpit;
    int rc;

    if (t != NULL) {
        t->refs++;
        return MPI_SUCCESS;
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL)
        return vbt_mpit_error("MPI_T_init_thread", MPI_T_ERR_MEMORY, "out of memory");
    rc = vbt_mpit_cvars_build(t);
    if (rc != MPI_SUCCESS) {
        destroy(t);
        return rc;
    }
    t->refs = 1;
    vbt_rt.mpit = t;
    return MPI_SUCCESS;
}

int vbt_mpit_finalize(void)
{
    vbt_mpit_t *t = vbt_rt.mpit;

    if (--t->refs > 0)
        return MPI_SUCCESS;
    vbt_rt.mpit = NULL;
    destroy(t);
    return MPI_SUCCESS;
}

void vbt_mpit_library_down(void)
{
    vbt_mpit_t *t = vbt_rt.mpit;
    int n;
    const vbt_mpit_pvar_t *pvars = vbt_mpit_pvars(&n);

    if (t == NULL)
        return;
    for (int i = 0; i < n; i++) {
        uint64_t live = pvars[i].get(pvars[i].arg);
        switch (pvars[i].var_class) {
        case MPI_T_PVAR_CLASS_COUNTER:
        case MPI_T_PVAR_CLASS_TIMER:
            t->carry[i] += live;
            break;
        case MPI_T_PVAR_CLASS_HIGHWATERMARK:
            if (live > t->carry[i])
                t->carry[i] = live;
            break;
        default: /* levels: nothing is held once the library is down */
            break;
        }
    }
}

vbt_mpit_session_t *vbt_mpit_session_check(const vbt_mpit_t *t, MPI_T_pvar_session handle)
{
    for (vbt_mpit_session_t *s = t->sessions; s != NULL; s = s->next)
        if ((MPI_T_pvar_session)s == handle)
            return s;
    return NULL;
}

vbt_mpit_pvar_handle_t *vbt_mpit_pvar_handle_check(const vbt_mpit_session_t *s,
                                                   MPI_T_pvar_handle handle)
{
    for (vbt_mpit_pvar_handle_t *h = s->handles; h != NULL; h = h->next)
        if ((MPI_T_pvar_handle)h == handle)
            return h;
    return NULL;
}

vbt_mpit_cvar_handle_t *vbt_mpit_cvar_handle_check(const vbt_mpit_t *t, MPI_T_cvar_handle handle)
{
    for (vbt_mpit_cvar_handle_t *h = t->cvar_handles; h != NULL; h = h->next)
        if ((MPI_T_cvar_handle)h == handle)
            return h;
    return NULL;
}

void vbt_mpit_session_destroy(vbt_mpit_session_t *s)
{
    while (s->handles != NULL) {
        vbt_mpit_pvar_handle_t *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}
