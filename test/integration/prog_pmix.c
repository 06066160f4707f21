/* What mpirun's PMIx server tells a rank, printed in one line:
 *   rank R size N local_rank L node_rank L local_size N peers 0,1,.. appnum A host H argv1 X
 * A PMIx client on purpose, not an MPI program: it checks the launcher's side of the contract
 * (the keys it registers) whatever the MPI runtime reads of them today. */
#include <pmix.h>
#include <stdio.h>
#include <string.h>

static int get_u32(const pmix_proc_t *proc, const char *key, unsigned *out)
{
    pmix_value_t *val;

    if (PMIx_Get(proc, key, NULL, 0, &val) != PMIX_SUCCESS)
        return -1;
    switch (val->type) {
    case PMIX_UINT32:
        *out = val->data.uint32;
        break;
    case PMIX_UINT16:
        *out = val->data.uint16;
        break;
    case PMIX_PROC_RANK:
        *out = val->data.rank;
        break;
    case PMIX_INT: /* Slurm's PMIx plugin gives PMIX_APPNUM as an int */
        *out = (unsigned)val->data.integer;
        break;
    default:
        PMIX_VALUE_RELEASE(val);
        return -1;
    }
    PMIX_VALUE_RELEASE(val);
    return 0;
}

static int get_str(const pmix_proc_t *proc, const char *key, char *out, size_t len)
{
    pmix_value_t *val;

    if (PMIx_Get(proc, key, NULL, 0, &val) != PMIX_SUCCESS)
        return -1;
    if (val->type != PMIX_STRING) {
        PMIX_VALUE_RELEASE(val);
        return -1;
    }
    snprintf(out, len, "%s", val->data.string);
    PMIX_VALUE_RELEASE(val);
    return 0;
}

int main(int argc, char **argv)
{
    pmix_proc_t me, wild;
    unsigned size, lsize, lrank, nrank, appnum;
    char peers[4096], host[256];
    int rc;

    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "prog_pmix: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (get_u32(&wild, PMIX_JOB_SIZE, &size) || get_u32(&wild, PMIX_LOCAL_SIZE, &lsize) ||
        get_str(&wild, PMIX_LOCAL_PEERS, peers, sizeof(peers)) ||
        get_u32(&me, PMIX_LOCAL_RANK, &lrank) || get_u32(&me, PMIX_NODE_RANK, &nrank) ||
        get_u32(&me, PMIX_APPNUM, &appnum) || get_str(&me, PMIX_HOSTNAME, host, sizeof(host))) {
        fprintf(stderr, "prog_pmix: rank %u: a job key is missing\n", me.rank);
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    printf("rank %u size %u local_rank %u node_rank %u local_size %u peers %s appnum %u host %s "
           "argv1 %s\n",
           me.rank, size, lrank, nrank, lsize, peers, appnum, host, argc > 1 ? argv[1] : "-");
    fflush(stdout);
    rc = PMIx_Fence(&wild, 1, NULL, 0);
    PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : 1;
}
