#include "config.h"

#include "vbt_pmix_host.h"
#include "vbt_log.h"
#include "vbt_msg.h"

#include <errno.h>
#include <fcntl.h>
/* pmix.h for the common calls (PMIx_Error_string, PMIx_Info_list_*); pmix_server.h for the
 * server API. */
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long a registration may take before mpirun gives up instead of hanging. */
#define VBT_PMIX_HOST_SYNC_TIMEOUT 30

typedef enum {
    HOST_EV_PUBLIC, /* connected, finalized, abort: handed to the main loop's handler */
    HOST_EV_FENCE,
} host_event_kind_t;

typedef struct {
    host_event_kind_t kind;
    vbt_pmix_event_t pub;
    pmix_op_cbfunc_t op_cb; /* abort: answer the client after the job is being ended */
    void *op_cbdata;
    pmix_modex_cbfunc_t modex_cb; /* fence */
    void *modex_cbdata;
    char *data; /* fence: the collected data, owned by us until release_fence_data */
    size_t ndata;
} host_event_t;

/* Waiting in the main thread for a PMIx callback. Heap-allocated: after a timeout the
 * callback may still come, so the object is then leaked instead of freed under it. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int pending;
    pmix_status_t status;
} host_sync_t;

static struct {
    int initialized;
    int registered;
    int ev_pipe[2];
    int nprocs;
    char nspace[PMIX_MAX_NSLEN + 1];
} host = {.ev_pipe = {-1, -1}};

static host_sync_t *host_sync_create(int pending)
{
    host_sync_t *sync = calloc(1, sizeof(*sync));

    if (sync == NULL)
        return NULL;
    pthread_mutex_init(&sync->lock, NULL);
    pthread_cond_init(&sync->cond, NULL);
    sync->pending = pending;
    sync->status = PMIX_SUCCESS;
    return sync;
}

static void host_sync_done(pmix_status_t status, void *cbdata)
{
    host_sync_t *sync = cbdata;

    pthread_mutex_lock(&sync->lock);
    if (status != PMIX_SUCCESS && sync->status == PMIX_SUCCESS)
        sync->status = status;
    sync->pending--;
    pthread_cond_signal(&sync->cond);
    pthread_mutex_unlock(&sync->lock);
}

/* Wait for the callbacks, then free the sync object. */
static vbt_status_t host_sync_wait(host_sync_t *sync, const char *what)
{
    struct timespec deadline;
    pmix_status_t status;
    int rc = 0;

    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += VBT_PMIX_HOST_SYNC_TIMEOUT;
    pthread_mutex_lock(&sync->lock);
    while (sync->pending > 0 && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&sync->cond, &sync->lock, &deadline);
    status = sync->status;
    pthread_mutex_unlock(&sync->lock);
    if (sync->pending > 0) {
        vbt_error("the PMIx server did not complete %s within %d seconds", what,
                  VBT_PMIX_HOST_SYNC_TIMEOUT);
        return VBT_ERR_TIMED_OUT;
    }
    pthread_mutex_destroy(&sync->lock);
    pthread_cond_destroy(&sync->cond);
    free(sync);
    if (status != PMIX_SUCCESS) {
        vbt_error("%s failed: %s", what, PMIx_Error_string(status));
        return VBT_ERR_PMIX;
    }
    return VBT_OK;
}

/* On PMIx's thread: hand the event to the main loop. */
static void host_post(host_event_t *ev)
{
    ssize_t w;

    do {
        w = write(host.ev_pipe[1], &ev, sizeof(ev));
    } while (w < 0 && errno == EINTR);
    if (w != (ssize_t)sizeof(ev))
        vbt_error("cannot pass a PMIx upcall to the main loop: %m");
}

static host_event_t *host_event_create(host_event_kind_t kind, vbt_pmix_event_type_t type,
                                       const pmix_proc_t *proc)
{
    host_event_t *ev = calloc(1, sizeof(*ev));

    if (ev == NULL)
        return NULL;
    ev->kind = kind;
    ev->pub.type = type;
    ev->pub.rank = proc != NULL ? (int)proc->rank : -1;
    return ev;
}

static pmix_status_t host_client_connected2(const pmix_proc_t *proc, void *server_object,
                                            pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    host_event_t *ev = host_event_create(HOST_EV_PUBLIC, VBT_PMIX_EV_CONNECTED, proc);

    if (ev == NULL)
        return PMIX_ERR_NOMEM;
    host_post(ev);
    /* Answered at once: the client may go on; nothing to decide here. */
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t host_client_finalized(const pmix_proc_t *proc, void *server_object,
                                           pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    host_event_t *ev = host_event_create(HOST_EV_PUBLIC, VBT_PMIX_EV_FINALIZED, proc);

    if (ev == NULL)
        return PMIX_ERR_NOMEM;
    /* Posted before the client is released, so the main loop reads "finalized" before it can
     * see the exit that follows. */
    host_post(ev);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t host_abort(const pmix_proc_t *proc, void *server_object, int status,
                                const char msg[], pmix_proc_t procs[], size_t nprocs,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    host_event_t *ev = host_event_create(HOST_EV_PUBLIC, VBT_PMIX_EV_ABORT, proc);

    if (ev == NULL)
        return PMIX_ERR_NOMEM;
    ev->pub.status = status;
    snprintf(ev->pub.msg, sizeof(ev->pub.msg), "%s", msg != NULL ? msg : "");
    ev->op_cb = cbfunc;
    ev->op_cbdata = cbdata;
    /* The client stays blocked in PMIx_Abort until the main loop has recorded the abort and
     * answers, so its exit cannot be seen before its abort. (Holding the answer longer, until
     * the job is ended, makes PMIx 4.2.2 crash in PMIx_server_finalize.) */
    host_post(ev);
    return PMIX_SUCCESS;
}

static pmix_status_t host_fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t info[], size_t ninfo, char *data, size_t ndata,
                                   pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    host_event_t *ev = host_event_create(HOST_EV_FENCE, VBT_PMIX_EV_CONNECTED, NULL);

    if (ev == NULL)
        return PMIX_ERR_NOMEM;
    /* The data belongs to PMIx and may go away when we return: keep a copy. */
    if (ndata > 0) {
        ev->data = malloc(ndata);
        if (ev->data == NULL) {
            free(ev);
            return PMIX_ERR_NOMEM;
        }
        memcpy(ev->data, data, ndata);
    }
    ev->ndata = ndata;
    ev->modex_cb = cbfunc;
    ev->modex_cbdata = cbdata;
    host_post(ev);
    return PMIX_SUCCESS;
}

static pmix_status_t host_direct_modex(const pmix_proc_t *proc, const pmix_info_t info[],
                                       size_t ninfo, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    /* One node: PMIx answers from its own store; anything it asks us for does not exist. */
    return PMIX_ERR_NOT_FOUND;
}

static pmix_server_module_t host_module = {
    .client_connected2 = host_client_connected2,
    .client_finalized = host_client_finalized,
    .abort = host_abort,
    .fence_nb = host_fence_nb,
    .direct_modex = host_direct_modex,
};

static void host_release_fence_data(void *cbdata)
{
    free(cbdata);
}

vbt_status_t vbt_pmix_host_init(const char *tmpdir)
{
    pmix_info_t info[2];
    pmix_status_t rc;

    if (pipe2(host.ev_pipe, O_CLOEXEC) != 0) {
        vbt_error("pipe2 for PMIx upcalls failed: %m");
        return VBT_ERR_IO;
    }
    if (fcntl(host.ev_pipe[0], F_SETFL, O_NONBLOCK) != 0) {
        vbt_error("fcntl O_NONBLOCK failed: %m");
        goto err_close_pipe;
    }
    snprintf(host.nspace, sizeof(host.nspace), "vbt-mpirun.%s.%d", vbt_msg_host(), (int)getpid());

    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    rc = PMIx_server_init(&host_module, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) {
        vbt_msg_print("cannot start the PMIx server: %s", PMIx_Error_string(rc));
        goto err_close_pipe;
    }
    host.initialized = 1;
    vbt_debug("PMIx server %s started, rendezvous in %s", PMIx_Get_version(), tmpdir);
    return VBT_OK;

err_close_pipe:
    close(host.ev_pipe[0]);
    close(host.ev_pipe[1]);
    host.ev_pipe[0] = host.ev_pipe[1] = -1;
    return VBT_ERR_PMIX;
}

int vbt_pmix_host_event_fd(void)
{
    return host.ev_pipe[0];
}

const char *vbt_pmix_host_nspace(void)
{
    return host.nspace;
}

#define HOST_ADD(_rc, _list, _key, _val, _type)                                                    \
    do {                                                                                           \
        if ((_rc) == PMIX_SUCCESS)                                                                 \
            (_rc) = PMIx_Info_list_add((_list), (_key), (_val), (_type));                          \
    } while (0)

/* Add a nested array (PMIX_PROC_INFO_ARRAY, PMIX_APP_INFO_ARRAY) built in sub to list. */
static pmix_status_t host_add_array(void *list, const char *key, void *sub)
{
    pmix_data_array_t darray;
    pmix_status_t rc;

    rc = PMIx_Info_list_convert(sub, &darray);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = PMIx_Info_list_add(list, key, &darray, PMIX_DATA_ARRAY); /* copies */
    PMIx_Data_array_destruct(&darray);
    return rc;
}

static char *host_join_argv(char **argv)
{
    size_t len = 1;
    char *out;

    for (int i = 0; argv[i] != NULL; i++)
        len += strlen(argv[i]) + 1;
    out = calloc(1, len);
    if (out == NULL)
        return NULL;
    for (int i = 0; argv[i] != NULL; i++) {
        if (i > 0)
            strcat(out, " ");
        strcat(out, argv[i]);
    }
    return out;
}

/* "0,1,...,n-1" */
static char *host_rank_list(int n)
{
    size_t cap = (size_t)n * 8 + 16, off = 0;
    char *out = malloc(cap);

    if (out == NULL)
        return NULL;
    out[0] = '\0';
    for (int r = 0; r < n; r++)
        off += (size_t)snprintf(out + off, cap - off, r > 0 ? ",%d" : "%d", r);
    return out;
}

static pmix_status_t host_add_app_info(void *list, const vbt_opts_t *opts, int appnum,
                                       const char *wdir)
{
    const vbt_app_t *app = &opts->apps[appnum];
    uint32_t num = (uint32_t)appnum, size = (uint32_t)app->nprocs;
    pmix_rank_t leader = (pmix_rank_t)app->first_rank;
    pmix_status_t rc = PMIX_SUCCESS;
    char *argv = host_join_argv(app->argv);
    void *sub = PMIx_Info_list_start();

    if (sub == NULL || argv == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto out_release;
    }
    HOST_ADD(rc, sub, PMIX_APPNUM, &num, PMIX_UINT32); /* first: it names the app */
    HOST_ADD(rc, sub, PMIX_APP_SIZE, &size, PMIX_UINT32);
    HOST_ADD(rc, sub, PMIX_APPLDR, &leader, PMIX_PROC_RANK);
    HOST_ADD(rc, sub, PMIX_APP_ARGV, argv, PMIX_STRING);
    if (wdir != NULL)
        HOST_ADD(rc, sub, PMIX_WDIR, wdir, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = host_add_array(list, PMIX_APP_INFO_ARRAY, sub);

out_release:
    if (sub != NULL)
        PMIx_Info_list_release(sub);
    free(argv);
    return rc;
}

static pmix_status_t host_add_proc_info(void *list, int rank, int appnum, int app_rank)
{
    pmix_rank_t r = (pmix_rank_t)rank, ar = (pmix_rank_t)app_rank;
    uint16_t local = (uint16_t)rank; /* one node: local rank = node rank = rank */
    uint32_t num = (uint32_t)appnum, nodeid = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    void *sub = PMIx_Info_list_start();

    if (sub == NULL)
        return PMIX_ERR_NOMEM;
    HOST_ADD(rc, sub, PMIX_RANK, &r, PMIX_PROC_RANK); /* first: it names the process */
    HOST_ADD(rc, sub, PMIX_LOCAL_RANK, &local, PMIX_UINT16);
    HOST_ADD(rc, sub, PMIX_NODE_RANK, &local, PMIX_UINT16);
    HOST_ADD(rc, sub, PMIX_APPNUM, &num, PMIX_UINT32);
    HOST_ADD(rc, sub, PMIX_APP_RANK, &ar, PMIX_PROC_RANK);
    HOST_ADD(rc, sub, PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
    HOST_ADD(rc, sub, PMIX_HOSTNAME, vbt_msg_host(), PMIX_STRING);
    HOST_ADD(rc, sub, PMIX_NODEID, &nodeid, PMIX_UINT32);
    /* PMIX_PROC_INFO_ARRAY is the current name of PMIX_PROC_DATA ("pmix.pdata"). */
    if (rc == PMIX_SUCCESS)
        rc = host_add_array(list, PMIX_PROC_INFO_ARRAY, sub);
    PMIx_Info_list_release(sub);
    return rc;
}

/* The job-level, app-level and per-rank information clients read with PMIx_Get. */
static pmix_status_t host_job_info(const vbt_opts_t *opts, pmix_data_array_t *darray)
{
    uint32_t n = (uint32_t)opts->nprocs, napps = (uint32_t)opts->napps, one = 1, zero = 0;
    pmix_rank_t leader = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    bool spawned = false;
    char *peers = host_rank_list(opts->nprocs);
    char *nodes = NULL, *ppn = NULL;
    char cwd[4096];
    const char *wdir = opts->wdir;
    void *list = PMIx_Info_list_start();

    if (list == NULL || peers == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto out_free;
    }
    if (wdir == NULL && getcwd(cwd, sizeof(cwd)) != NULL)
        wdir = cwd;
    rc = PMIx_generate_regex(vbt_msg_host(), &nodes);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn(peers, &ppn);
    if (rc != PMIX_SUCCESS) {
        vbt_error("PMIx cannot encode the node and process maps: %s", PMIx_Error_string(rc));
        goto out_free;
    }

    HOST_ADD(rc, list, PMIX_JOBID, host.nspace, PMIX_STRING);
    HOST_ADD(rc, list, PMIX_SPAWNED, &spawned, PMIX_BOOL);
    HOST_ADD(rc, list, PMIX_UNIV_SIZE, &n, PMIX_UINT32);
    HOST_ADD(rc, list, PMIX_JOB_SIZE, &n, PMIX_UINT32);
    HOST_ADD(rc, list, PMIX_MAX_PROCS, &n, PMIX_UINT32);
    HOST_ADD(rc, list, PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    HOST_ADD(rc, list, PMIX_NUM_NODES, &one, PMIX_UINT32);
    HOST_ADD(rc, list, PMIX_NODE_MAP, nodes, PMIX_REGEX);
    HOST_ADD(rc, list, PMIX_PROC_MAP, ppn, PMIX_REGEX);
    HOST_ADD(rc, list, PMIX_LOCAL_SIZE, &n, PMIX_UINT32);
    HOST_ADD(rc, list, PMIX_NODE_SIZE, &n, PMIX_UINT32);
    HOST_ADD(rc, list, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    HOST_ADD(rc, list, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    HOST_ADD(rc, list, PMIX_NODEID, &zero, PMIX_UINT32);
    HOST_ADD(rc, list, PMIX_HOSTNAME, vbt_msg_host(), PMIX_STRING);
    /* With several apps a job-wide PMIX_APPNUM would be wrong for most ranks: each rank has
     * its own below. */
    if (opts->napps == 1)
        HOST_ADD(rc, list, PMIX_APPNUM, &zero, PMIX_UINT32);
    for (int a = 0; a < opts->napps && rc == PMIX_SUCCESS; a++)
        rc = host_add_app_info(list, opts, a, wdir);
    for (int a = 0; a < opts->napps && rc == PMIX_SUCCESS; a++) {
        const vbt_app_t *app = &opts->apps[a];
        for (int i = 0; i < app->nprocs && rc == PMIX_SUCCESS; i++)
            rc = host_add_proc_info(list, app->first_rank + i, a, i);
    }
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_list_convert(list, darray);
    if (rc != PMIX_SUCCESS)
        vbt_error("building the PMIx job information failed: %s", PMIx_Error_string(rc));

out_free:
    if (list != NULL)
        PMIx_Info_list_release(list);
    free(nodes);
    free(ppn);
    free(peers);
    return rc;
}

vbt_status_t vbt_pmix_host_register_job(const vbt_opts_t *opts)
{
    pmix_data_array_t darray;
    host_sync_t *sync;
    vbt_status_t status;
    pmix_status_t rc;

    if (host_job_info(opts, &darray) != PMIX_SUCCESS)
        return VBT_ERR_PMIX;
    sync = host_sync_create(1);
    if (sync == NULL) {
        status = VBT_ERR_NO_MEMORY;
        goto out_destruct_info;
    }
    /* The info must stay valid until the callback: we wait for it before destructing. */
    rc = PMIx_server_register_nspace(host.nspace, opts->nprocs, darray.array, darray.size,
                                     host_sync_done, sync);
    if (rc != PMIX_SUCCESS) {
        vbt_error("PMIx_server_register_nspace failed: %s", PMIx_Error_string(rc));
        free(sync);
        status = VBT_ERR_PMIX;
        goto out_destruct_info;
    }
    status = host_sync_wait(sync, "registering the job's namespace");
    if (status != VBT_OK)
        goto out_destruct_info;
    host.registered = 1;
    host.nprocs = opts->nprocs;

    sync = host_sync_create(opts->nprocs);
    if (sync == NULL) {
        status = VBT_ERR_NO_MEMORY;
        goto out_destruct_info;
    }
    for (int r = 0; r < opts->nprocs; r++) {
        pmix_proc_t proc;

        PMIX_LOAD_PROCID(&proc, host.nspace, (pmix_rank_t)r);
        rc = PMIx_server_register_client(&proc, getuid(), getgid(), NULL, host_sync_done, sync);
        if (rc != PMIX_SUCCESS) {
            /* Count the ones never issued as done, so the wait covers the issued ones. */
            vbt_error("PMIx_server_register_client for rank %d failed: %s", r,
                      PMIx_Error_string(rc));
            pthread_mutex_lock(&sync->lock);
            sync->pending -= opts->nprocs - r;
            sync->status = rc;
            pthread_mutex_unlock(&sync->lock);
            break;
        }
    }
    status = host_sync_wait(sync, "registering the ranks with the PMIx server");

out_destruct_info:
    PMIx_Data_array_destruct(&darray);
    return status;
}

vbt_status_t vbt_pmix_host_setup_fork(int rank, char ***env)
{
    pmix_proc_t proc;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&proc, host.nspace, (pmix_rank_t)rank);
    rc = PMIx_server_setup_fork(&proc, env);
    if (rc != PMIX_SUCCESS) {
        vbt_error("PMIx_server_setup_fork for rank %d failed: %s", rank, PMIx_Error_string(rc));
        return VBT_ERR_PMIX;
    }
    return VBT_OK;
}

/* Handle one posted event; with fn == NULL (shutdown) pending requests are refused. */
static void host_event_handle(host_event_t *ev, vbt_pmix_event_fn_t fn, void *arg)
{
    if (!host.initialized) {
        /* After PMIx_server_finalize nobody is left to answer. */
        free(ev->data);
        free(ev);
        return;
    }
    switch (ev->kind) {
    case HOST_EV_FENCE:
        vbt_debug("fence upcall with %zu bytes of data", ev->ndata);
        /* One node: the local contribution is the whole result. The data is ours until PMIx
         * calls host_release_fence_data. */
        if (ev->modex_cb == NULL) {
            free(ev->data);
        } else if (fn == NULL) {
            free(ev->data);
            ev->modex_cb(PMIX_ERR_TIMEOUT, NULL, 0, ev->modex_cbdata, NULL, NULL);
        } else {
            ev->modex_cb(PMIX_SUCCESS, ev->data, ev->ndata, ev->modex_cbdata,
                         host_release_fence_data, ev->data);
        }
        break;
    case HOST_EV_PUBLIC:
        if (fn != NULL)
            fn(arg, &ev->pub);
        if (ev->op_cb != NULL)
            ev->op_cb(PMIX_SUCCESS, ev->op_cbdata);
        break;
    }
    free(ev);
}

void vbt_pmix_host_progress(vbt_pmix_event_fn_t fn, void *arg)
{
    host_event_t *evs[64];
    ssize_t n;

    if (host.ev_pipe[0] < 0)
        return;
    for (;;) {
        n = read(host.ev_pipe[0], evs, sizeof(evs));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        /* Pointer-sized writes are atomic on a pipe: n is a whole number of events. */
        for (size_t i = 0; i < (size_t)n / sizeof(evs[0]); i++)
            host_event_handle(evs[i], fn, arg);
    }
}

void vbt_pmix_host_finalize(void)
{
    host_sync_t *sync;
    pmix_status_t rc;

    if (!host.initialized)
        goto out_close_pipe;
    /* Upcalls still queued (a fence the job died in, an abort) get their answers now. */
    vbt_pmix_host_progress(NULL, NULL);
    if (host.registered) {
        for (int r = 0; r < host.nprocs; r++) {
            pmix_proc_t proc;

            sync = host_sync_create(1);
            if (sync == NULL)
                break;
            PMIX_LOAD_PROCID(&proc, host.nspace, (pmix_rank_t)r);
            PMIx_server_deregister_client(&proc, host_sync_done, sync);
            if (host_sync_wait(sync, "deregistering a rank") != VBT_OK)
                break;
        }
        sync = host_sync_create(1);
        if (sync != NULL) {
            PMIx_server_deregister_nspace(host.nspace, host_sync_done, sync);
            (void)host_sync_wait(sync, "deregistering the namespace");
        }
        host.registered = 0;
    }
    vbt_pmix_host_progress(NULL, NULL);
    rc = PMIx_server_finalize();
    if (rc != PMIX_SUCCESS)
        vbt_warn("PMIx_server_finalize: %s", PMIx_Error_string(rc));
    host.initialized = 0;
    /* A straggling upcall during finalize would have posted after the last drain. */
    vbt_pmix_host_progress(NULL, NULL);

out_close_pipe:
    if (host.ev_pipe[0] >= 0) {
        close(host.ev_pipe[0]);
        close(host.ev_pipe[1]);
    }
    host.ev_pipe[0] = host.ev_pipe[1] = -1;
}
