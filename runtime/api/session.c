/* Sessions (MPI-4.1 Sec. 11.3): MPI_Session_init/finalize, the process-set queries, the group of
 * a process set, and the session error handlers. Errors about a live session go to its handler;
 * MPI_Session_init's to the handler it was given; an invalid session handle has no handler, so
 * its error goes where errors without an object go (vbt_error_raise with no communicator). */
#include "vbt_api.h"
#include "vbt_api_comm.h"
#include "vbt_api_info.h"
#include "vbt_api_p2p.h"
#include "vbt_bsend.h"
#include "vbt_errhandler.h"
#include "vbt_session.h"
#include "vbt_win.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

VBT_PMPI_ALIAS(Session_init)
VBT_PMPI_ALIAS(Session_finalize)
VBT_PMPI_ALIAS(Session_get_num_psets)
VBT_PMPI_ALIAS(Session_get_nth_pset)
VBT_PMPI_ALIAS(Session_get_info)
VBT_PMPI_ALIAS(Session_get_pset_info)
VBT_PMPI_ALIAS(Group_from_session_pset)
VBT_PMPI_ALIAS(Session_create_errhandler)
VBT_PMPI_ALIAS(Session_set_errhandler)
VBT_PMPI_ALIAS(Session_get_errhandler)
VBT_PMPI_ALIAS(Session_call_errhandler)
VBT_PMPI_ALIAS(Session_attach_buffer)
VBT_PMPI_ALIAS(Session_detach_buffer)
VBT_PMPI_ALIAS(Session_flush_buffer)
VBT_PMPI_ALIAS(Session_iflush_buffer)
VBT_PMPI_ALIAS(Session_attach_buffer_c)
VBT_PMPI_ALIAS(Session_detach_buffer_c)

/* The info key of MPI_Session_init and MPI_Session_get_info for the thread level. */
#define THREAD_LEVEL_KEY "thread_level"

static const struct {
    const char *name;
    int level;
} thread_levels[] = {
    {"MPI_THREAD_SINGLE", MPI_THREAD_SINGLE},
    {"MPI_THREAD_FUNNELED", MPI_THREAD_FUNNELED},
    {"MPI_THREAD_SERIALIZED", MPI_THREAD_SERIALIZED},
    {"MPI_THREAD_MULTIPLE", MPI_THREAD_MULTIPLE},
};

/* Raise errclass from call on the handler h of session handle (MPI_SESSION_NULL while it is
 * being made). */
static int __attribute__((format(printf, 5, 6), noinline, cold))
session_raise(MPI_Errhandler h, MPI_Session handle, const char *call, int errclass, const char *fmt,
              ...)
{
    char detail[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    return vbt_error_invoke_session(h, handle, call, errclass, detail);
}

#define RAISE(_s, _call, _class, ...)                                                              \
    session_raise((_s)->errhandler, (MPI_Session)(_s), _call, _class, __VA_ARGS__)

static int __attribute__((noinline, cold)) bad_session(const char *call, MPI_Session handle)
{
    if (handle == MPI_SESSION_NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_SESSION,
                               "argument session is MPI_SESSION_NULL; pass a session from "
                               "MPI_Session_init");
    return vbt_error_raise(NULL, call, MPI_ERR_SESSION,
                           "argument session (handle %#lx) is not a live session (finalized by "
                           "MPI_Session_finalize, or never returned by MPI_Session_init)",
                           (unsigned long)(uintptr_t)handle);
}

/* Every call on a session holds the runtime's critical section (a no-op unless a session or
 * MPI_Init_thread granted MPI_THREAD_MULTIPLE): the session table, the buffers and the handlers
 * are shared by the threads. */
#define SESSION(_var, _handle, _call)                                                              \
    VBT_RLOCK_SCOPE(&vbt_rt.cs);                                                                   \
    vbt_session_t *_var = vbt_session_get(_handle);                                                \
    if (unlikely(_var == NULL))                                                                    \
        return bad_session(_call, _handle);

#define PTR(_s, _call, _ptr, _name)                                                                \
    do {                                                                                           \
        if (unlikely((_ptr) == NULL))                                                              \
            return RAISE(_s, _call, MPI_ERR_ARG, "argument %s is NULL", _name);                    \
    } while (0)

static int failed(vbt_session_t *s, const char *call, vbt_status_t status)
{
    return RAISE(s, call, vbt_status_to_errclass(status), "%s", vbt_status_string(status));
}

/* info is MPI_INFO_NULL or a live info object (raised on s's handler otherwise). */
static int check_info(vbt_session_t *s, const char *call, MPI_Info info)
{
    if (info == MPI_INFO_NULL || vbt_info_get(info) != NULL)
        return MPI_SUCCESS;
    return RAISE(s, call, MPI_ERR_INFO,
                 "argument info (%p) is no info object: it was freed or never made by "
                 "MPI_Info_create; pass a live one or MPI_INFO_NULL",
                 (void *)info);
}

/* pset_name is a name of a process set this session knows. */
static int check_pset(vbt_session_t *s, const char *call, const char *pset_name)
{
    if (pset_name == NULL)
        return RAISE(s, call, MPI_ERR_ARG, "argument pset_name is NULL");
    if (vbt_session_pset_size(pset_name) < 0)
        return RAISE(s, call, MPI_ERR_ARG,
                     "argument pset_name \"%.200s\" names no process set; the sets are \"%s\" "
                     "and \"%s\" (MPI_Session_get_nth_pset lists them)",
                     pset_name, VBT_PSET_WORLD, VBT_PSET_SELF);
    return MPI_SUCCESS;
}

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    vbt_status_t status;

    /* No VBT_API_ENTER: MPI_Session_init takes the handler, so it is made before. */
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    if (session_errhandler_fn == NULL || errhandler == NULL)
        return vbt_error_raise(NULL, "MPI_Session_create_errhandler", MPI_ERR_ARG,
                               "argument %s is NULL",
                               errhandler == NULL ? "errhandler" : "session_errhandler_fn");
    status = vbt_errhandler_create_session(session_errhandler_fn, errhandler);
    if (status != VBT_OK)
        return vbt_error_raise(NULL, "MPI_Session_create_errhandler", MPI_ERR_NO_MEM,
                               "out of memory");
    return MPI_SUCCESS;
}

/* The thread level info asks for (MPI_THREAD_SINGLE without the key), or -1 with the error
 * raised. */
static int requested_thread_level(MPI_Errhandler h, vbt_info_t *info, int *level_p)
{
    const char *v;

    *level_p = MPI_THREAD_SINGLE;
    if (info == NULL || !vbt_info_lookup(info, THREAD_LEVEL_KEY, &v))
        return MPI_SUCCESS;
    for (size_t i = 0; i < sizeof(thread_levels) / sizeof(thread_levels[0]); i++) {
        if (strcmp(v, thread_levels[i].name) == 0) {
            *level_p = thread_levels[i].level;
            return MPI_SUCCESS;
        }
    }
    return session_raise(h, MPI_SESSION_NULL, "MPI_Session_init", MPI_ERR_INFO_VALUE,
                         "info key \"" THREAD_LEVEL_KEY "\" has the value \"%.200s\"; use "
                         "MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED or "
                         "MPI_THREAD_MULTIPLE",
                         v);
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    vbt_session_t *s;
    vbt_info_t *i = NULL;
    vbt_status_t status;
    int level;

    /* No VBT_API_ENTER: this call may bring the library up. Until the handler is known to be
     * good, errors go where errors without an object go. The critical section is held where a
     * session already granted MULTIPLE (turned on inside, it is dropped by its scope's end). */
    VBT_RLOCK_SCOPE(&vbt_rt.cs);
    if (!vbt_errhandler_valid(errhandler))
        return vbt_error_raise(NULL, "MPI_Session_init", MPI_ERR_ERRHANDLER,
                               "argument errhandler (handle %#lx) is not a valid error handler; "
                               "pass MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, MPI_ERRORS_RETURN "
                               "or one from MPI_Session_create_errhandler",
                               (unsigned long)(uintptr_t)errhandler);
    if (!vbt_errhandler_fits(errhandler, VBT_ERRH_SESSION))
        return vbt_error_raise(NULL, "MPI_Session_init", MPI_ERR_ERRHANDLER,
                               "argument errhandler was made by %s, not for sessions; use one "
                               "from MPI_Session_create_errhandler",
                               vbt_errhandler_maker(errhandler));
    if (session == NULL)
        return session_raise(errhandler, MPI_SESSION_NULL, "MPI_Session_init", MPI_ERR_ARG,
                             "argument session is NULL");
    if (info != MPI_INFO_NULL && (i = vbt_info_get(info)) == NULL)
        return session_raise(errhandler, MPI_SESSION_NULL, "MPI_Session_init", MPI_ERR_INFO,
                             "argument info (%p) is no info object: it was freed or never made "
                             "by MPI_Info_create; pass a live one or MPI_INFO_NULL",
                             (void *)info);
    VBT_API_CHECK(requested_thread_level(errhandler, i, &level));
    status = vbt_session_create(vbt_runtime_thread_level(level), errhandler, &s);
    if (status != VBT_OK)
        return session_raise(errhandler, MPI_SESSION_NULL, "MPI_Session_init",
                             vbt_status_to_errclass(status),
                             "the library could not be set up: %s (the lines above say why)",
                             vbt_status_string(status));
    *session = (MPI_Session)s;
    return MPI_SUCCESS;
}

int PMPI_Session_finalize(MPI_Session *session)
{
    MPI_Errhandler h;
    vbt_status_t status;

    if (session == NULL)
        return vbt_error_raise(NULL, "MPI_Session_finalize", MPI_ERR_ARG,
                               "argument session is NULL");
    SESSION(s, *session, "MPI_Session_finalize");
    /* Its buffered messages are delivered and its buffer detached; at the library's end, the
     * process's too. */
    if (s->bsend.attached) {
        void *buf;
        size_t sz;

        status = vbt_bsend_detach(&s->bsend, &buf, &sz);
        if (status != VBT_OK)
            return failed(s, "MPI_Session_finalize", status);
    }
    if (vbt_rt.users == 1)
        VBT_API_CHECK(vbt_api_finalize_buffers("MPI_Session_finalize", 0, 1));
    /* Kept for an error of the teardown, after the session is gone. */
    h = s->errhandler;
    vbt_errhandler_retain(h);
    /* The last user of the library: windows go without communication, as in MPI_Finalize. */
    if (vbt_rt.users == 1)
        vbt_win_cleanup();
    status = vbt_session_destroy(s);
    *session = MPI_SESSION_NULL;
    if (status != VBT_OK) {
        int rc = session_raise(h, MPI_SESSION_NULL, "MPI_Session_finalize",
                               vbt_status_to_errclass(status), "finalisation failed: %s",
                               vbt_status_string(status));
        vbt_errhandler_release(h);
        return rc;
    }
    vbt_errhandler_release(h);
    return MPI_SUCCESS;
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    SESSION(s, session, "MPI_Session_get_num_psets");
    VBT_API_CHECK(check_info(s, "MPI_Session_get_num_psets", info));
    PTR(s, "MPI_Session_get_num_psets", npset_names, "npset_names");
    *npset_names = VBT_PSET_COUNT;
    return MPI_SUCCESS;
}

/* With *pset_len 0, the length of the name with its terminating null is returned in it;
 * otherwise up to *pset_len - 1 characters of the name and a null are copied (MPI-4.1
 * Sec. 11.3.2). */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    const char *name;
    size_t len;

    SESSION(s, session, "MPI_Session_get_nth_pset");
    VBT_API_CHECK(check_info(s, "MPI_Session_get_nth_pset", info));
    PTR(s, "MPI_Session_get_nth_pset", pset_len, "pset_len");
    name = vbt_session_pset_name(n);
    if (name == NULL)
        return RAISE(s, "MPI_Session_get_nth_pset", MPI_ERR_ARG,
                     "argument n is %d; this session has %d process sets, numbered 0 to %d", n,
                     VBT_PSET_COUNT, VBT_PSET_COUNT - 1);
    if (*pset_len < 0)
        return RAISE(s, "MPI_Session_get_nth_pset", MPI_ERR_ARG,
                     "argument pset_len is %d; pass 0 to ask for the length, or the size of "
                     "pset_name",
                     *pset_len);
    len = strlen(name);
    if (*pset_len == 0) {
        *pset_len = (int)len + 1;
        return MPI_SUCCESS;
    }
    PTR(s, "MPI_Session_get_nth_pset", pset_name, "pset_name");
    if (len > (size_t)*pset_len - 1)
        len = (size_t)*pset_len - 1;
    memcpy(pset_name, name, len);
    pset_name[len] = '\0';
    return MPI_SUCCESS;
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    vbt_info_t *i;
    vbt_status_t status;

    SESSION(s, session, "MPI_Session_get_info");
    PTR(s, "MPI_Session_get_info", info_used, "info_used");
    status = vbt_info_create(&i);
    if (status != VBT_OK)
        return failed(s, "MPI_Session_get_info", status);
    for (size_t k = 0; k < sizeof(thread_levels) / sizeof(thread_levels[0]); k++) {
        if (thread_levels[k].level == s->thread_level)
            status = vbt_info_set(i, THREAD_LEVEL_KEY, thread_levels[k].name);
    }
    if (status != VBT_OK) {
        vbt_info_release(i);
        return failed(s, "MPI_Session_get_info", status);
    }
    *info_used = vbt_info_handle(i);
    return MPI_SUCCESS;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    char size[16];
    vbt_info_t *i;
    vbt_status_t status;

    SESSION(s, session, "MPI_Session_get_pset_info");
    VBT_API_CHECK(check_pset(s, "MPI_Session_get_pset_info", pset_name));
    PTR(s, "MPI_Session_get_pset_info", info, "info");
    status = vbt_info_create(&i);
    if (status != VBT_OK)
        return failed(s, "MPI_Session_get_pset_info", status);
    snprintf(size, sizeof(size), "%d", vbt_session_pset_size(pset_name));
    status = vbt_info_set(i, "mpi_size", size);
    if (status != VBT_OK) {
        vbt_info_release(i);
        return failed(s, "MPI_Session_get_pset_info", status);
    }
    *info = vbt_info_handle(i);
    return MPI_SUCCESS;
}

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    vbt_group_t *g;
    vbt_status_t status;

    SESSION(s, session, "MPI_Group_from_session_pset");
    VBT_API_CHECK(check_pset(s, "MPI_Group_from_session_pset", pset_name));
    PTR(s, "MPI_Group_from_session_pset", newgroup, "newgroup");
    status = vbt_session_pset_group(pset_name, &g);
    if (status != VBT_OK)
        return failed(s, "MPI_Group_from_session_pset", status);
    if (g != &vbt_group_empty)
        g->session = session; /* its communicators' buffered sends may use s's buffer */
    *newgroup = vbt_group_handle(g);
    return MPI_SUCCESS;
}

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    SESSION(s, session, "MPI_Session_set_errhandler");
    if (!vbt_errhandler_valid(errhandler))
        return RAISE(s, "MPI_Session_set_errhandler", MPI_ERR_ERRHANDLER,
                     "argument errhandler (handle %#lx) is not a valid error handler; pass "
                     "MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, MPI_ERRORS_RETURN or one from "
                     "MPI_Session_create_errhandler",
                     (unsigned long)(uintptr_t)errhandler);
    if (!vbt_errhandler_fits(errhandler, VBT_ERRH_SESSION))
        return RAISE(s, "MPI_Session_set_errhandler", MPI_ERR_ARG,
                     "argument errhandler was made by %s, not for sessions; use one from "
                     "MPI_Session_create_errhandler",
                     vbt_errhandler_maker(errhandler));
    vbt_errhandler_retain(errhandler);
    vbt_errhandler_release(s->errhandler);
    s->errhandler = errhandler;
    return MPI_SUCCESS;
}

/* A new reference, freed by the application with MPI_Errhandler_free (as for communicators). */
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    SESSION(s, session, "MPI_Session_get_errhandler");
    PTR(s, "MPI_Session_get_errhandler", errhandler, "errhandler");
    vbt_errhandler_retain(s->errhandler);
    *errhandler = s->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    SESSION(s, session, "MPI_Session_call_errhandler");
    if (vbt_error_class_of(errorcode) < 0)
        return RAISE(s, "MPI_Session_call_errhandler", MPI_ERR_ARG,
                     "argument errorcode %d is not a valid error code", errorcode);
    /* MPI_SUCCESS once the handler returned, whatever it was (MPI-4.1 Sec. 9.3.5). */
    RAISE(s, "MPI_Session_call_errhandler", errorcode, "the application raised error code %d",
          errorcode);
    return MPI_SUCCESS;
}

/* ---- The session's buffer for buffered sends (MPI-4.1 Sec. 3.6; vbt_bsend.h) ---------------- */

static int attach_buffer(const char *call, MPI_Session session, void *buffer, MPI_Count size)
{
    SESSION(s, session, call);
    if (buffer != MPI_BUFFER_AUTOMATIC && size < 0)
        return RAISE(s, call, MPI_ERR_ARG,
                     "argument size is %lld; pass the buffer's size in bytes (0 or more), or "
                     "MPI_BUFFER_AUTOMATIC as buffer",
                     (long long)size);
    if (buffer == NULL && size > 0)
        return RAISE(s, call, MPI_ERR_BUFFER,
                     "argument buffer is NULL with size %lld; pass the buffer's address",
                     (long long)size);
    if (s->bsend.attached)
        return RAISE(s, call, MPI_ERR_BUFFER,
                     "a buffer (%s) is attached already: call MPI_Session_detach_buffer first",
                     s->bsend.automatic ? "MPI_BUFFER_AUTOMATIC" : "the user's");
    vbt_bsend_attach(&s->bsend, buffer, (size_t)(size > 0 ? size : 0));
    return MPI_SUCCESS;
}

/* The size comes out in *size, or in *csize for MPI_Session_detach_buffer_c (size NULL). */
static int detach_buffer(const char *call, MPI_Session session, void *buffer_addr, int *size,
                         MPI_Count *csize)
{
    void *buf;
    size_t sz;
    vbt_status_t status;

    SESSION(s, session, call);
    PTR(s, call, buffer_addr, "buffer_addr");
    if (size == NULL && csize == NULL)
        return RAISE(s, call, MPI_ERR_ARG, "argument size is NULL");
    if (!s->bsend.attached)
        return RAISE(s, call, MPI_ERR_BUFFER, "no buffer is attached to the session");
    status = vbt_bsend_detach(&s->bsend, &buf, &sz);
    if (status != VBT_OK)
        return failed(s, call, status);
    *(void **)buffer_addr = buf;
    if (size != NULL) /* INT_MAX only when attached by the _c call with more */
        *size = sz > INT_MAX ? INT_MAX : (int)sz;
    else
        *csize = (MPI_Count)sz;
    return MPI_SUCCESS;
}

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return attach_buffer("MPI_Session_attach_buffer", session, buffer, size);
}

int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return attach_buffer("MPI_Session_attach_buffer_c", session, buffer, size);
}

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    return detach_buffer("MPI_Session_detach_buffer", session, buffer_addr, size, NULL);
}

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    return detach_buffer("MPI_Session_detach_buffer_c", session, buffer_addr, NULL, size);
}

int PMPI_Session_flush_buffer(MPI_Session session)
{
    vbt_status_t status;

    SESSION(s, session, "MPI_Session_flush_buffer");
    status = vbt_bsend_flush(&s->bsend);
    return status == VBT_OK ? MPI_SUCCESS : failed(s, "MPI_Session_flush_buffer", status);
}

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    vbt_request_t *req;
    vbt_status_t status;

    SESSION(s, session, "MPI_Session_iflush_buffer");
    PTR(s, "MPI_Session_iflush_buffer", request, "request");
    status = vbt_bsend_iflush(&s->bsend, NULL, &req);
    if (status != VBT_OK)
        return failed(s, "MPI_Session_iflush_buffer", status);
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}
