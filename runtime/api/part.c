/* Partitioned communication (MPI-4.1 chapter 4): MPI_Psend_init, MPI_Precv_init, MPI_Pready,
 * MPI_Pready_range, MPI_Pready_list, MPI_Parrived. Started with MPI_Start(all), completed with
 * the Wait and Test calls; the protocol is in vbt_part.c. */
#include "vbt_api_p2p.h"
#include "vbt_info.h"
#include "vbt_part.h"

#include <stdio.h>

VBT_PMPI_ALIAS(Psend_init)
VBT_PMPI_ALIAS(Precv_init)
VBT_PMPI_ALIAS(Pready)
VBT_PMPI_ALIAS(Pready_range)
VBT_PMPI_ALIAS(Pready_list)
VBT_PMPI_ALIAS(Parrived)

static int part_init(const char *call, void *buf, int partitions, MPI_Count count,
                     MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, MPI_Info info,
                     int is_send, MPI_Request *request)
{
    vbt_dtype_t *t;
    vbt_request_t *req;
    vbt_status_t st;
    size_t part_bytes;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_PTR(c, call, request, "request");
    if (partitions < 0)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument partitions is %d; it must be 0 or more", partitions);
    if (count < 0)
        return vbt_error_raise(c, call, MPI_ERR_COUNT,
                               "argument count is %lld; it must be 0 or more", (long long)count);
    t = vbt_dtype_get(datatype);
    if (t == NULL || !t->committed)
        return vbt_api_bad_buffer(c, call, buf, 0, datatype);
    if (vbt_api_buf_null_bad(buf, partitions > 0 && count > 0, t))
        return vbt_api_bad_buffer(c, call, buf, 1, datatype);
    if ((uint64_t)count > (1ull << 40) / (t->size ? t->size : 1))
        return vbt_error_raise(c, call, MPI_ERR_COUNT,
                               "argument count is %lld: a partition of more than 1 TiB",
                               (long long)count);
    /* Pairs are matched by (communicator, rank, tag): no wildcards. */
    if (!((peer >= 0 && peer < c->remote_size) || peer == MPI_PROC_NULL))
        return vbt_api_bad_rank(c, call, is_send ? "dest" : "source", peer, 0);
    VBT_API_CHECK(vbt_api_check_tag(c, call, tag, 0));
    if (info != MPI_INFO_NULL && vbt_info_get(info) == NULL)
        return vbt_error_raise(c, call, MPI_ERR_INFO,
                               "argument info is not a valid info object (freed?); pass one "
                               "or MPI_INFO_NULL");
    part_bytes = (size_t)count * t->size;
    st = vbt_part_create(c, is_send, t->contig ? (char *)buf + t->true_lb : buf, partitions,
                         (size_t)count, part_bytes, t->contig ? NULL : t, (ptrdiff_t)t->extent,
                         peer, tag, &req);
    if (st != VBT_OK)
        return vbt_api_failed(c, call, st);
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Psend_init", (void *)(uintptr_t)buf, partitions, count, datatype, dest,
                     tag, comm, info, 1, request);
}

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Precv_init", buf, partitions, count, datatype, source, tag, comm, info, 0,
                     request);
}

/* The partitioned request of handle, on the side wanted and active; NULL after raising. */
static vbt_request_t *get_part(const char *call, MPI_Request handle, int want_send, int *rc)
{
    vbt_request_t *req = vbt_request_get(handle);

    if (req == NULL || req->kind != VBT_REQ_PART || req->x.part->is_send != want_send) {
        *rc = vbt_error_raise(req != NULL ? req->comm : NULL, call, MPI_ERR_REQUEST,
                              "argument request is not a partitioned %s request (made by %s)",
                              want_send ? "send" : "receive",
                              want_send ? "MPI_Psend_init" : "MPI_Precv_init");
        return NULL;
    }
    return req;
}

static int check_partition(const char *call, vbt_request_t *req, int p, const char *what)
{
    vbt_part_t *part = req->x.part;

    if (p < 0 || p >= part->partitions)
        return vbt_error_raise(req->comm, call, MPI_ERR_ARG,
                               "%s is %d, but the request has %d partitions: use 0..%d", what, p,
                               part->partitions, part->partitions - 1);
    if (part->is_send && part->ready[p])
        return vbt_error_raise(req->comm, call, MPI_ERR_ARG,
                               "partition %d (%s) is ready already in this epoch: mark each "
                               "partition ready once between MPI_Start and MPI_Wait",
                               p, what);
    return MPI_SUCCESS;
}

static vbt_request_t *get_ready_target(const char *call, MPI_Request handle, int *rc)
{
    vbt_request_t *req = get_part(call, handle, 1, rc);

    if (req != NULL && !(req->flags & VBT_REQF_ACTIVE)) {
        *rc = vbt_error_raise(req->comm, call, MPI_ERR_REQUEST,
                              "the partitioned send request is not active: call MPI_Start "
                              "before marking partitions ready");
        return NULL;
    }
    return req;
}

int PMPI_Pready(int partition, MPI_Request request)
{
    vbt_request_t *req;
    int rc;

    VBT_API_ENTER("MPI_Pready");
    req = get_ready_target("MPI_Pready", request, &rc);
    if (req == NULL)
        return rc;
    VBT_API_CHECK(check_partition("MPI_Pready", req, partition, "argument partition"));
    vbt_part_ready(req, partition);
    return MPI_SUCCESS;
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    vbt_request_t *req;
    int rc;

    VBT_API_ENTER("MPI_Pready_range");
    req = get_ready_target("MPI_Pready_range", request, &rc);
    if (req == NULL)
        return rc;
    if (partition_low > partition_high)
        return vbt_error_raise(req->comm, "MPI_Pready_range", MPI_ERR_ARG,
                               "partition_low (%d) is above partition_high (%d)", partition_low,
                               partition_high);
    /* Every partition is checked before any is marked: an error marks none. */
    VBT_API_CHECK(check_partition("MPI_Pready_range", req, partition_low, "partition_low"));
    VBT_API_CHECK(check_partition("MPI_Pready_range", req, partition_high, "partition_high"));
    for (int p = partition_low; p <= partition_high; p++)
        VBT_API_CHECK(check_partition("MPI_Pready_range", req, p, "a partition of the range"));
    for (int p = partition_low; p <= partition_high; p++)
        vbt_part_ready(req, p);
    return MPI_SUCCESS;
}

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    vbt_request_t *req;
    vbt_part_t *part;
    int rc, i;

    VBT_API_ENTER("MPI_Pready_list");
    req = get_ready_target("MPI_Pready_list", request, &rc);
    if (req == NULL)
        return rc;
    if (length < 0)
        return vbt_error_raise(req->comm, "MPI_Pready_list", MPI_ERR_ARG,
                               "argument length is %d; it must be 0 or more", length);
    if (length > 0 && array_of_partitions == NULL)
        return vbt_error_raise(req->comm, "MPI_Pready_list", MPI_ERR_ARG,
                               "argument array_of_partitions is NULL with length %d", length);
    part = req->x.part;
    /* Checked whole first (a partition listed twice included); ready[] marks the list's
     * partitions with 2 meanwhile and is restored on an error. */
    for (i = 0; i < length; i++) {
        char what[48];
        snprintf(what, sizeof(what), "array_of_partitions[%d]", i);
        rc = check_partition("MPI_Pready_list", req, array_of_partitions[i], what);
        if (rc != MPI_SUCCESS)
            break;
        part->ready[array_of_partitions[i]] = 2;
    }
    for (int j = 0; j < i; j++)
        part->ready[array_of_partitions[j]] = 0;
    if (i < length)
        return rc;
    for (i = 0; i < length; i++)
        vbt_part_ready(req, array_of_partitions[i]);
    return MPI_SUCCESS;
}

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    vbt_request_t *req;
    int rc;

    VBT_API_ENTER("MPI_Parrived");
    if (request == MPI_REQUEST_NULL) { /* MPI-4.1 4.2.4: a null request's flag is true */
        VBT_API_PTR(NULL, "MPI_Parrived", flag, "flag");
        *flag = 1;
        return MPI_SUCCESS;
    }
    req = get_part("MPI_Parrived", request, 0, &rc);
    if (req == NULL)
        return rc;
    VBT_API_PTR(req->comm, "MPI_Parrived", flag, "flag");
    VBT_API_CHECK(check_partition("MPI_Parrived", req, partition, "argument partition"));
    /* Inactive: true, as the standard says (its last epoch's data is all there). */
    *flag = !(req->flags & VBT_REQF_ACTIVE) || vbt_part_arrived(req, partition);
    return MPI_SUCCESS;
}
