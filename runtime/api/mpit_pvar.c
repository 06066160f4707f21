/* Performance variables, sessions and handles (MPI-4.1 Sec. 15.3.7): the variables are in
 * runtime/mpit/vbt_mpit_pvar.c. A handle of a counter or timer keeps its own count (started,
 * stopped, reset, written), so tools and sessions never disturb each other. */
#include "vbt_api_mpit.h"

#include <stdlib.h>
#include <string.h>

VBT_PMPI_ALIAS(T_pvar_get_num)
VBT_PMPI_ALIAS(T_pvar_get_info)
VBT_PMPI_ALIAS(T_pvar_get_index)
VBT_PMPI_ALIAS(T_pvar_session_create)
VBT_PMPI_ALIAS(T_pvar_session_free)
VBT_PMPI_ALIAS(T_pvar_handle_alloc)
VBT_PMPI_ALIAS(T_pvar_handle_free)
VBT_PMPI_ALIAS(T_pvar_start)
VBT_PMPI_ALIAS(T_pvar_stop)
VBT_PMPI_ALIAS(T_pvar_read)
VBT_PMPI_ALIAS(T_pvar_write)
VBT_PMPI_ALIAS(T_pvar_reset)
VBT_PMPI_ALIAS(T_pvar_readreset)

int PMPI_T_pvar_get_num(int *num_pvar)
{
    int n;

    VBT_MPIT_ENTER("MPI_T_pvar_get_num");
    (void)t;
    VBT_MPIT_NONNULL("MPI_T_pvar_get_num", num_pvar);
    vbt_mpit_pvars(&n);
    *num_pvar = n;
    return MPI_SUCCESS;
}

/* Any output argument may be NULL: it is not returned. */
int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous, int *atomic)
{
    int n;
    const vbt_mpit_pvar_t *p = vbt_mpit_pvars(&n);

    VBT_MPIT_ENTER("MPI_T_pvar_get_info");
    (void)t;
    VBT_MPIT_INDEX("MPI_T_pvar_get_info", "performance variable", pvar_index, n,
                   "MPI_T_pvar_get_num");
    p += pvar_index;
    vbt_mpit_strcpy(name, name_len, p->name);
    vbt_mpit_strcpy(desc, desc_len, p->desc);
    if (verbosity != NULL)
        *verbosity = p->verbosity;
    if (var_class != NULL)
        *var_class = p->var_class;
    if (datatype != NULL)
        *datatype = vbt_mpit_pvar_datatype(p);
    if (enumtype != NULL)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind != NULL)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly != NULL)
        *readonly = p->readonly;
    if (continuous != NULL)
        *continuous = p->continuous;
    if (atomic != NULL)
        *atomic = 0; /* MPI_T_pvar_readreset is not atomic */
    return MPI_SUCCESS;
}

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    int n;
    const vbt_mpit_pvar_t *p = vbt_mpit_pvars(&n);

    VBT_MPIT_ENTER("MPI_T_pvar_get_index");
    (void)t;
    VBT_MPIT_NONNULL("MPI_T_pvar_get_index", name);
    VBT_MPIT_NONNULL("MPI_T_pvar_get_index", pvar_index);
    for (int i = 0; i < n; i++) {
        if (p[i].var_class == var_class && strcmp(p[i].name, name) == 0) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    }
    return vbt_mpit_error("MPI_T_pvar_get_index", MPI_T_ERR_INVALID_NAME,
                          "no performance variable of class %d is named \"%s\" (verbatim-info "
                          "--mpit lists them with their classes)",
                          var_class, name);
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    vbt_mpit_session_t *s;

    VBT_MPIT_ENTER("MPI_T_pvar_session_create");
    VBT_MPIT_NONNULL("MPI_T_pvar_session_create", session);
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return vbt_mpit_error("MPI_T_pvar_session_create", MPI_T_ERR_OUT_OF_SESSIONS,
                              "out of memory");
    s->next = t->sessions;
    t->sessions = s;
    *session = (MPI_T_pvar_session)s;
    return MPI_SUCCESS;
}

static vbt_mpit_session_t *session_get(const vbt_mpit_t *t, MPI_T_pvar_session session,
                                       const char *call, int *rc_p)
{
    vbt_mpit_session_t *s = vbt_mpit_session_check(t, session);

    if (s == NULL)
        *rc_p = vbt_mpit_error(call, MPI_T_ERR_INVALID_SESSION,
                               "argument session %p is not a live session (freed, "
                               "MPI_T_PVAR_SESSION_NULL, or from before MPI_T_finalize)",
                               (void *)session);
    return s;
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    vbt_mpit_session_t *s, **pp;
    int rc;

    VBT_MPIT_ENTER("MPI_T_pvar_session_free");
    VBT_MPIT_NONNULL("MPI_T_pvar_session_free", session);
    s = session_get(t, *session, "MPI_T_pvar_session_free", &rc);
    if (s == NULL)
        return rc;
    for (pp = &t->sessions; *pp != s; pp = &(*pp)->next)
        ;
    *pp = s->next;
    vbt_mpit_session_destroy(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

/* Every variable is bound to no object: obj_handle is ignored. A continuous variable's handle
 * counts from its allocation; another's once started. */
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    int n, rc;
    const vbt_mpit_pvar_t *p = vbt_mpit_pvars(&n);
    vbt_mpit_session_t *s;
    vbt_mpit_pvar_handle_t *h;

    (void)obj_handle;
    VBT_MPIT_ENTER("MPI_T_pvar_handle_alloc");
    s = session_get(t, session, "MPI_T_pvar_handle_alloc", &rc);
    if (s == NULL)
        return rc;
    VBT_MPIT_INDEX("MPI_T_pvar_handle_alloc", "performance variable", pvar_index, n,
                   "MPI_T_pvar_get_num");
    VBT_MPIT_NONNULL("MPI_T_pvar_handle_alloc", handle);
    VBT_MPIT_NONNULL("MPI_T_pvar_handle_alloc", count);
    h = calloc(1, sizeof(*h));
    if (h == NULL)
        return vbt_mpit_error("MPI_T_pvar_handle_alloc", MPI_T_ERR_OUT_OF_HANDLES, "out of memory");
    h->session = s;
    h->index = pvar_index;
    h->started = p[pvar_index].continuous;
    h->base = vbt_mpit_pvar_raw(t, pvar_index);
    h->next = s->handles;
    s->handles = h;
    *handle = (MPI_T_pvar_handle)h;
    *count = 1;
    return MPI_SUCCESS;
}

/* The handle in session, or NULL with *rc_p set. all: MPI_T_PVAR_ALL_HANDLES is allowed (then
 * NULL with *rc_p MPI_SUCCESS). */
static vbt_mpit_pvar_handle_t *handle_get(const vbt_mpit_t *t, MPI_T_pvar_session session,
                                          MPI_T_pvar_handle handle, int all, const char *call,
                                          vbt_mpit_session_t **s_p, int *rc_p)
{
    vbt_mpit_session_t *s = session_get(t, session, call, rc_p);
    vbt_mpit_pvar_handle_t *h;

    *s_p = s;
    if (s == NULL)
        return NULL;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        *rc_p = all ? MPI_SUCCESS
                    : vbt_mpit_error(call, MPI_T_ERR_INVALID_HANDLE,
                                     "MPI_T_PVAR_ALL_HANDLES is only for MPI_T_pvar_start, "
                                     "MPI_T_pvar_stop and MPI_T_pvar_reset");
        return NULL;
    }
    h = vbt_mpit_pvar_handle_check(s, handle);
    if (h == NULL)
        *rc_p = vbt_mpit_error(call, MPI_T_ERR_INVALID_HANDLE,
                               "argument handle %p is not a live handle of this session (freed, "
                               "MPI_T_PVAR_HANDLE_NULL, or allocated in another session)",
                               (void *)handle);
    return h;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    vbt_mpit_session_t *s;
    vbt_mpit_pvar_handle_t *h, **pp;
    int rc;

    VBT_MPIT_ENTER("MPI_T_pvar_handle_free");
    VBT_MPIT_NONNULL("MPI_T_pvar_handle_free", handle);
    h = handle_get(t, session, *handle, 0, "MPI_T_pvar_handle_free", &s, &rc);
    if (h == NULL)
        return rc;
    for (pp = &s->handles; *pp != h; pp = &(*pp)->next)
        ;
    *pp = h->next;
    free(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

typedef enum { OP_START, OP_STOP, OP_RESET } handle_op_t;

/* Apply op to one handle. MPI_SUCCESS, or the class of why it does not apply (not logged). */
static int apply(const vbt_mpit_t *t, vbt_mpit_pvar_handle_t *h, handle_op_t op)
{
    int n;
    const vbt_mpit_pvar_t *p = vbt_mpit_pvars(&n) + h->index;
    uint64_t raw;

    if (op != OP_RESET && p->continuous)
        return MPI_T_ERR_PVAR_NO_STARTSTOP;
    if (op == OP_RESET && p->readonly)
        return MPI_T_ERR_PVAR_NO_WRITE;
    raw = vbt_mpit_pvar_raw(t, h->index);
    switch (op) {
    case OP_START:
        if (!h->started) {
            h->base = raw;
            h->started = 1;
        }
        break;
    case OP_STOP:
        if (h->started) {
            h->accum += raw - h->base;
            h->started = 0;
        }
        break;
    case OP_RESET:
        h->accum = 0;
        h->base = raw;
        break;
    }
    return MPI_SUCCESS;
}

static int handle_op(MPI_T_pvar_session session, MPI_T_pvar_handle handle, handle_op_t op,
                     const char *call)
{
    vbt_mpit_session_t *s;
    vbt_mpit_pvar_handle_t *h;
    int rc, n;

    VBT_MPIT_ENTER(call);
    h = handle_get(t, session, handle, 1, call, &s, &rc);
    if (h == NULL) {
        if (rc != MPI_SUCCESS)
            return rc;
        /* MPI_T_PVAR_ALL_HANDLES: those it applies to (not continuous; not read-only). */
        for (h = s->handles; h != NULL; h = h->next)
            apply(t, h, op);
        return MPI_SUCCESS;
    }
    rc = apply(t, h, op);
    if (rc == MPI_T_ERR_PVAR_NO_STARTSTOP)
        return vbt_mpit_error(call, rc,
                              "%s is continuous: it counts from MPI_T_pvar_handle_alloc and "
                              "cannot be started or stopped",
                              vbt_mpit_pvars(&n)[h->index].name);
    if (rc == MPI_T_ERR_PVAR_NO_WRITE)
        return vbt_mpit_error(call, rc, "%s is read-only: it cannot be reset or written",
                              vbt_mpit_pvars(&n)[h->index].name);
    return rc;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return handle_op(session, handle, OP_START, "MPI_T_pvar_start");
}

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return handle_op(session, handle, OP_STOP, "MPI_T_pvar_stop");
}

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return handle_op(session, handle, OP_RESET, "MPI_T_pvar_reset");
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    vbt_mpit_session_t *s;
    vbt_mpit_pvar_handle_t *h;
    int n, rc;

    VBT_MPIT_ENTER("MPI_T_pvar_read");
    h = handle_get(t, session, handle, 0, "MPI_T_pvar_read", &s, &rc);
    if (h == NULL)
        return rc;
    VBT_MPIT_NONNULL("MPI_T_pvar_read", buf);
    vbt_mpit_pvar_store(vbt_mpit_pvars(&n) + h->index, vbt_mpit_pvar_value(t, h), buf);
    return MPI_SUCCESS;
}

/* A counter or timer handle reads buf's value from now on, plus what it counts later. */
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    vbt_mpit_session_t *s;
    vbt_mpit_pvar_handle_t *h;
    const vbt_mpit_pvar_t *p;
    int n, rc;

    VBT_MPIT_ENTER("MPI_T_pvar_write");
    h = handle_get(t, session, handle, 0, "MPI_T_pvar_write", &s, &rc);
    if (h == NULL)
        return rc;
    VBT_MPIT_NONNULL("MPI_T_pvar_write", buf);
    p = vbt_mpit_pvars(&n) + h->index;
    if (p->readonly)
        return vbt_mpit_error("MPI_T_pvar_write", MPI_T_ERR_PVAR_NO_WRITE,
                              "%s is read-only: it cannot be written", p->name);
    h->accum = vbt_mpit_pvar_load(p, buf);
    h->base = vbt_mpit_pvar_raw(t, h->index);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    vbt_mpit_session_t *s;
    vbt_mpit_pvar_handle_t *h;
    const vbt_mpit_pvar_t *p;
    int n, rc;

    VBT_MPIT_ENTER("MPI_T_pvar_readreset");
    h = handle_get(t, session, handle, 0, "MPI_T_pvar_readreset", &s, &rc);
    if (h == NULL)
        return rc;
    VBT_MPIT_NONNULL("MPI_T_pvar_readreset", buf);
    p = vbt_mpit_pvars(&n) + h->index;
    if (p->readonly)
        return vbt_mpit_error("MPI_T_pvar_readreset", MPI_T_ERR_PVAR_NO_WRITE,
                              "%s is read-only: it cannot be reset", p->name);
    vbt_mpit_pvar_store(p, vbt_mpit_pvar_value(t, h), buf);
    apply(t, h, OP_RESET);
    return MPI_SUCCESS;
}
