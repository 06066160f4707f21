/* PMIx client side of the runtime: the only file that includes <pmix.h>. */
#include "vbt_pmix.h"
#include "vbt_log.h"

#include <pmix.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VBT_MODEX_PREFIX "vbt."

/* PMIx_Init waits for the server's answer to its handshake forever by default: a server that
 * accepts the connection but never answers (hung, stopped, or not a PMIx server at all) would
 * hang MPI_Init. This bounds the wait; a launcher answers in milliseconds. */
#define VBT_PMIX_HANDSHAKE_VAR "PMIX_MCA_ptl_base_handshake_wait_time"
#define VBT_PMIX_HANDSHAKE_S   "10"

static pmix_proc_t my_proc;
static int pmix_up;
/* Connected, with no MPI user left (after MPI_Finalize, between sessions): the connection is
 * closed at exit, not at teardown. PMIx 4.2's server counts a client's orderly PMIx_Finalize
 * as the loss of a participant, so a rank that disconnected and connected again while a peer
 * already fenced anew made that fence end early with PARTIAL SUCCESS (a session after
 * MPI_Finalize, at 5 to 7 ranks, about 1 run in 20). Fixed in later PMIx; kept for 4.2. */
static int pmix_idle;
/* How many times the library came up on this connection: the modex keys of each generation
 * are distinct, so no stale value of a previous one can be read from PMIx's client cache. */
static unsigned modex_generation;

/* Singleton mode keeps what it "publishes" here: with a world of one, the only reader is us. */
typedef struct singleton_blob {
    struct singleton_blob *next;
    char *key;
    void *data;
    size_t len;
} singleton_blob_t;
static singleton_blob_t *singleton_blobs;

static int started_by_pmix(void)
{
    return getenv("PMIX_NAMESPACE") != NULL || getenv("PMIX_SERVER_URI41") != NULL ||
           getenv("PMIX_SERVER_URI4") != NULL || getenv("PMIX_SERVER_URI3") != NULL ||
           getenv("PMIX_SERVER_URI2") != NULL;
}

/* The server address PMIx_Init tries first, for the message when it fails. */
static const char *server_uri(void)
{
    const char *vars[] = {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3",
                          "PMIX_SERVER_URI21", "PMIX_SERVER_URI2"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v != '\0')
            return v;
    }
    return NULL;
}

static int value_to_int(const pmix_value_t *v, int *out_p)
{
    switch (v->type) {
    case PMIX_UINT32:
        *out_p = (int)v->data.uint32;
        return 0;
    case PMIX_UINT16:
        *out_p = (int)v->data.uint16;
        return 0;
    case PMIX_UINT8:
        *out_p = (int)v->data.uint8;
        return 0;
    case PMIX_INT:
        *out_p = v->data.integer;
        return 0;
    case PMIX_INT32:
        *out_p = (int)v->data.int32;
        return 0;
    case PMIX_UINT:
        *out_p = (int)v->data.uint;
        return 0;
    case PMIX_UINT64:
        *out_p = (int)v->data.uint64;
        return 0;
    case PMIX_PROC_RANK:
        *out_p = (int)v->data.rank;
        return 0;
    default:
        return -1;
    }
}

/* A job-information key (PMIX_LOCAL_RANK, ...) from what the server registered at start-up.
 * PMIX_OPTIONAL: a key this process manager does not provide is NOT-FOUND at once instead of
 * a request to the server that may wait (process managers differ: mpirun registers every key
 * read here, Slurm's PMIx plugin all but some of them, others fewer). */
static pmix_status_t get_job_info(const pmix_proc_t *proc, const char *key, pmix_value_t **val_p)
{
    pmix_info_t info;
    bool optional = true;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    rc = PMIx_Get(proc, key, &info, 1, val_p);
    PMIX_INFO_DESTRUCT(&info);
    if (rc == PMIX_SUCCESS && *val_p == NULL)
        rc = PMIX_ERR_NOT_FOUND;
    return rc;
}

/* Fetch an integer key; missing keys leave *out_p unchanged so callers can preset a fallback. */
static int get_int(pmix_rank_t rank, const char *key, int *out_p)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    int ret;

    PMIX_LOAD_PROCID(&proc, my_proc.nspace, rank);
    rc = get_job_info(&proc, key, &val);
    if (rc != PMIX_SUCCESS) {
        vbt_debug("PMIx_Get(%s) failed: %s", key, PMIx_Error_string(rc));
        return -1;
    }
    ret = value_to_int(val, out_p);
    if (ret != 0)
        vbt_debug("PMIx key %s has unexpected type %d", key, (int)val->type);
    PMIX_VALUE_RELEASE(val);
    return ret;
}

static vbt_status_t parse_local_peers(const char *list, vbt_proc_info_t *info)
{
    int n = 1;
    const char *p;
    char *end;

    for (p = list; *p; p++)
        n += (*p == ',');
    info->local_peers = calloc((size_t)n, sizeof(int));
    if (info->local_peers == NULL)
        return VBT_ERR_NO_MEMORY;
    n = 0;
    for (p = list; *p;) {
        long r = strtol(p, &end, 10);
        if (end == p || r < 0 || r >= info->size) {
            vbt_error("PMIx gave a malformed local peer list \"%s\"", list);
            return VBT_ERR_PMIX;
        }
        info->local_peers[n++] = (int)r;
        p = (*end == ',') ? end + 1 : end;
    }
    info->local_size = n;
    return VBT_OK;
}

static vbt_status_t init_singleton(vbt_proc_info_t *info)
{
    info->singleton = 1;
    info->rank = 0;
    info->size = 1;
    info->local_rank = 0;
    info->local_size = 1;
    info->node_rank = 0;
    info->appnum = 0;
    info->local_peers = calloc(1, sizeof(int));
    if (info->local_peers == NULL)
        return VBT_ERR_NO_MEMORY;
    vbt_debug("no process manager in the environment: running as a singleton");
    return VBT_OK;
}

/* The library set up again after a teardown (a session after MPI_Finalize): what the job
 * looks like has not changed, and PMIx 4 does not hand a client that connects a second time
 * the job information again, so only the connection is made anew. */
static vbt_status_t reconnect(const vbt_proc_info_t *info)
{
    pmix_status_t rc;

    if (info->singleton)
        return VBT_OK;
    if (pmix_up && pmix_idle) {
        pmix_idle = 0;
        modex_generation++;
        vbt_debug("PMIx: connection kept since the last teardown, modex generation %u",
                  modex_generation);
        return VBT_OK;
    }
    rc = PMIx_Init(&my_proc, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        vbt_error("cannot connect again to the PMIx server of the launcher (PMIx_Init: %s)",
                  PMIx_Error_string(rc));
        return VBT_ERR_PMIX;
    }
    pmix_up = 1;
    if ((int)my_proc.rank != info->rank) {
        vbt_error("PMIx gave rank %u on connecting again, %d before", (unsigned)my_proc.rank,
                  info->rank);
        return VBT_ERR_PMIX;
    }
    vbt_debug("PMIx: connected again as rank %d of %d", info->rank, info->size);
    return VBT_OK;
}

vbt_status_t vbt_pmix_init(vbt_proc_info_t *info)
{
    pmix_proc_t wildcard;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    vbt_status_t status;

    if (info->size > 0)
        return reconnect(info);
    memset(info, 0, sizeof(*info));
    if (gethostname(info->hostname, sizeof(info->hostname) - 1) != 0)
        strcpy(info->hostname, "localhost");

    if (!started_by_pmix())
        return init_singleton(info);

    /* Not overwritten: whoever set it knows better. */
    (void)setenv(VBT_PMIX_HANDSHAKE_VAR, VBT_PMIX_HANDSHAKE_S, 0);
    rc = PMIx_Init(&my_proc, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        const char *uri = server_uri();
        vbt_error("cannot connect to the PMIx server of the launcher %s%s%s(PMIx_Init: %s); "
                  "start the program with mpirun, or srun --mpi=pmix under Slurm",
                  uri != NULL ? "at " : "", uri != NULL ? uri : "", uri != NULL ? " " : "",
                  PMIx_Error_string(rc));
        return VBT_ERR_PMIX;
    }
    pmix_up = 1;
    info->rank = (int)my_proc.rank;

    PMIX_LOAD_PROCID(&wildcard, my_proc.nspace, PMIX_RANK_WILDCARD);
    if (get_int(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &info->size) != 0 || info->size <= 0) {
        vbt_error("the process manager did not say how many ranks the job has (PMIX_JOB_SIZE)");
        return VBT_ERR_PMIX;
    }
    if (info->rank < 0 || info->rank >= info->size) {
        vbt_error("PMIx rank %d is outside the job size %d", info->rank, info->size);
        return VBT_ERR_PMIX;
    }

    rc = get_job_info(&wildcard, PMIX_LOCAL_PEERS, &val);
    if (rc == PMIX_SUCCESS && val->type == PMIX_STRING && val->data.string) {
        status = parse_local_peers(val->data.string, info);
        PMIX_VALUE_RELEASE(val);
        if (status != VBT_OK)
            return status;
    } else {
        /* Without the list, assume we are alone on the node: the safe choice for transports. */
        if (val != NULL)
            PMIX_VALUE_RELEASE(val);
        vbt_debug("PMIX_LOCAL_PEERS not available: assuming no peers on this node");
        info->local_peers = calloc(1, sizeof(int));
        if (info->local_peers == NULL)
            return VBT_ERR_NO_MEMORY;
        info->local_peers[0] = info->rank;
        info->local_size = 1;
    }

    /* Where a key is missing, what it would have said follows from the peer list. */
    if (get_int(my_proc.rank, PMIX_LOCAL_RANK, &info->local_rank) != 0) {
        info->local_rank = 0;
        for (int i = 0; i < info->local_size; i++) {
            if (info->local_peers[i] == info->rank)
                info->local_rank = i;
        }
        vbt_debug("PMIX_LOCAL_RANK not available: %d, our place in the local peer list",
                  info->local_rank);
    }
    if (get_int(my_proc.rank, PMIX_NODE_RANK, &info->node_rank) != 0) {
        info->node_rank = info->local_rank;
        vbt_debug("PMIX_NODE_RANK not available: taking the local rank, %d", info->node_rank);
    }
    if (get_int(my_proc.rank, PMIX_APPNUM, &info->appnum) != 0) {
        info->appnum = 0;
        vbt_debug("PMIX_APPNUM not available: taking 0 (one program)");
    }

    val = NULL;
    rc = get_job_info(&my_proc, PMIX_HOSTNAME, &val);
    if (rc == PMIX_SUCCESS && val->type == PMIX_STRING && val->data.string)
        snprintf(info->hostname, sizeof(info->hostname), "%s", val->data.string);
    else
        vbt_debug("PMIX_HOSTNAME not available: taking gethostname's %s", info->hostname);
    if (val != NULL)
        PMIX_VALUE_RELEASE(val);

    vbt_debug("PMIx: nspace %s rank %d of %d, local rank %d of %d, node rank %d, app %d",
              my_proc.nspace, info->rank, info->size, info->local_rank, info->local_size,
              info->node_rank, info->appnum);
    return VBT_OK;
}

vbt_status_t vbt_pmix_barrier(void)
{
    pmix_proc_t wildcard;
    pmix_status_t rc;

    if (!pmix_up)
        return VBT_OK;
    PMIX_LOAD_PROCID(&wildcard, my_proc.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Fence(&wildcard, 1, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        vbt_error("PMIx fence failed: %s (did a peer exit early?)", PMIx_Error_string(rc));
        return VBT_ERR_PMIX;
    }
    return VBT_OK;
}

vbt_status_t vbt_pmix_barrier_local(const int *ranks, int n)
{
    pmix_proc_t *procs;
    pmix_status_t rc;

    if (!pmix_up || n < 2)
        return VBT_OK;
    procs = calloc((size_t)n, sizeof(*procs));
    if (procs == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < n; i++)
        PMIX_LOAD_PROCID(&procs[i], my_proc.nspace, (pmix_rank_t)ranks[i]);
    rc = PMIx_Fence(procs, (size_t)n, NULL, 0);
    free(procs);
    if (rc != PMIX_SUCCESS) {
        vbt_error("PMIx fence of this node's ranks failed: %s (did a peer exit early?)",
                  PMIx_Error_string(rc));
        return VBT_ERR_PMIX;
    }
    return VBT_OK;
}

static int close_at_exit_registered;

static void close_at_exit(void)
{
    if (pmix_up && pmix_idle) {
        pmix_status_t rc = PMIx_Finalize(NULL, 0);
        if (rc != PMIX_SUCCESS)
            vbt_error("PMIx_Finalize at exit failed: %s", PMIx_Error_string(rc));
        pmix_up = 0;
        pmix_idle = 0;
    }
}

vbt_status_t vbt_pmix_finalize(int keep)
{
    pmix_proc_t wildcard;
    pmix_status_t rc;
    vbt_status_t status = VBT_OK;

    while (singleton_blobs != NULL) {
        singleton_blob_t *b = singleton_blobs;
        singleton_blobs = b->next;
        free(b->key);
        free(b->data);
        free(b);
    }
    if (!pmix_up)
        return VBT_OK;

    /* MPI_Finalize is collective: nobody leaves while a peer may still need it. */
    PMIX_LOAD_PROCID(&wildcard, my_proc.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Fence(&wildcard, 1, NULL, 0);
    if (rc == PMIX_SUCCESS && keep) {
        /* The launcher learns of the finalize when the connection closes, at exit. */
        if (!close_at_exit_registered) {
            if (atexit(close_at_exit) == 0)
                close_at_exit_registered = 1;
        }
        if (close_at_exit_registered) {
            pmix_idle = 1;
            return VBT_OK;
        }
    } else if (rc != PMIX_SUCCESS) {
        vbt_error("final PMIx fence failed: %s", PMIx_Error_string(rc));
        status = VBT_ERR_PMIX;
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        vbt_error("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
        status = VBT_ERR_PMIX;
    }
    pmix_up = 0;
    return status;
}

void vbt_pmix_abort(int code, const char *msg)
{
    if (pmix_up) {
        pmix_status_t rc = PMIx_Abort(code, msg, NULL, 0);
        if (rc != PMIX_SUCCESS)
            vbt_error("PMIx_Abort failed (%s): exiting alone", PMIx_Error_string(rc));
    }
    /* The launcher ends the others; this process must not run on either way. */
    _exit(code != 0 ? code : 1);
}

static vbt_status_t make_key(const char *key, char *out, size_t outlen)
{
    int n = modex_generation == 0
                ? snprintf(out, outlen, VBT_MODEX_PREFIX "%s", key)
                : snprintf(out, outlen, VBT_MODEX_PREFIX "%u.%s", modex_generation, key);

    if (n < 0 || (size_t)n >= outlen) {
        vbt_error("modex key \"%s\" is too long", key);
        return VBT_ERR_INVALID_PARAM;
    }
    return VBT_OK;
}

vbt_status_t vbt_modex_put(const char *key, const void *data, size_t len)
{
    char pkey[PMIX_MAX_KEYLEN + 1];
    pmix_value_t value;
    pmix_status_t rc;
    vbt_status_t status;

    status = make_key(key, pkey, sizeof(pkey));
    if (status != VBT_OK)
        return status;
    vbt_debug("modex: published %s (%zu bytes)", pkey, len);

    if (!pmix_up) {
        singleton_blob_t *b = calloc(1, sizeof(*b));
        if (b == NULL || (b->key = strdup(pkey)) == NULL || (len && !(b->data = malloc(len)))) {
            if (b)
                free(b->key);
            free(b);
            return VBT_ERR_NO_MEMORY;
        }
        if (len)
            memcpy(b->data, data, len);
        b->len = len;
        b->next = singleton_blobs;
        singleton_blobs = b;
        return VBT_OK;
    }

    /* PMIx copies the byte object, so pointing it at the caller's buffer is enough. */
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = (char *)data;
    value.data.bo.size = len;
    rc = PMIx_Put(PMIX_GLOBAL, pkey, &value);
    value.data.bo.bytes = NULL;
    value.data.bo.size = 0;
    if (rc != PMIX_SUCCESS) {
        vbt_error("PMIx_Put(%s, %zu bytes) failed: %s", pkey, len, PMIx_Error_string(rc));
        return VBT_ERR_PMIX;
    }
    return VBT_OK;
}

vbt_status_t vbt_modex_fence(void)
{
    pmix_proc_t wildcard;
    pmix_info_t info;
    bool collect = true;
    pmix_status_t rc;

    if (!pmix_up)
        return VBT_OK;
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        vbt_error("PMIx_Commit failed: %s", PMIx_Error_string(rc));
        return VBT_ERR_PMIX;
    }
    PMIX_LOAD_PROCID(&wildcard, my_proc.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wildcard, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        vbt_error("PMIx fence for the modex failed: %s (did a peer exit early?)",
                  PMIx_Error_string(rc));
        return VBT_ERR_PMIX;
    }
    return VBT_OK;
}

vbt_status_t vbt_modex_get(int rank, const char *key, void **data_p, size_t *len_p)
{
    char pkey[PMIX_MAX_KEYLEN + 1];
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    vbt_status_t status;
    void *copy;

    status = make_key(key, pkey, sizeof(pkey));
    if (status != VBT_OK)
        return status;

    if (!pmix_up) {
        for (singleton_blob_t *b = singleton_blobs; b != NULL; b = b->next) {
            if (rank == 0 && strcmp(b->key, pkey) == 0) {
                copy = malloc(b->len ? b->len : 1);
                if (copy == NULL)
                    return VBT_ERR_NO_MEMORY;
                memcpy(copy, b->data, b->len);
                *data_p = copy;
                *len_p = b->len;
                return VBT_OK;
            }
        }
        return VBT_ERR_NOT_FOUND;
    }

    PMIX_LOAD_PROCID(&proc, my_proc.nspace, (pmix_rank_t)rank);
    rc = PMIx_Get(&proc, pkey, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL) {
        vbt_error("rank %d published no \"%s\" in the modex: %s", rank, pkey,
                  PMIx_Error_string(rc));
        return rc == PMIX_ERR_NOT_FOUND ? VBT_ERR_NOT_FOUND : VBT_ERR_PMIX;
    }
    if (val->type != PMIX_BYTE_OBJECT) {
        vbt_error("modex key %s of rank %d has type %d, expected bytes", pkey, rank,
                  (int)val->type);
        PMIX_VALUE_RELEASE(val);
        return VBT_ERR_PMIX;
    }
    copy = malloc(val->data.bo.size ? val->data.bo.size : 1);
    if (copy == NULL) {
        PMIX_VALUE_RELEASE(val);
        return VBT_ERR_NO_MEMORY;
    }
    memcpy(copy, val->data.bo.bytes, val->data.bo.size);
    *data_p = copy;
    *len_p = val->data.bo.size;
    PMIX_VALUE_RELEASE(val);
    return VBT_OK;
}
