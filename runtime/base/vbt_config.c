#include "vbt_config.h"
#include "vbt_log.h"
#include "vbt_string.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

vbt_config_t vbt_cfg = {
    .log_level = VBT_LOG_WARN,
    .ib_device = "auto",
    .ib_gid_index = -1,
    .eager_limit = 8192,
    .rndv_threshold = 32768,
    .rcache_max = (size_t)1 << 30,
    .ib_write_max = (size_t)1 << 20,
    .transports = "self,shm,ib",
    .progress = "auto",
    .thread_level = "single",
    .vcis = 1,
    .shm_rndv_threshold = 16384,
    .shm_cma = 1,
    .shm_membarrier = 1,
    .win_allocate_shm = 1,
    .rma_nic_atomics = 1,
    .coll_bcast = "auto",
    .coll_allreduce = "auto",
    .coll_gather = "auto",
    .coll_scatter = "auto",
    .coll_allgather = "auto",
    .coll_alltoall = "auto",
    .coll_reduce_scatter = "auto",
    .coll_tmp_cache = 16777216,
};

static const vbt_knob_t knobs[] = {
    {"VBT_LOG",
     "warn",
     VBT_KNOB_LOG_LEVEL,
     {.i = &vbt_cfg.log_level},
     "log level: error, warn, info, debug (trace with --enable-debug)"},
    {"VBT_IB_DEVICE",
     "auto",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.ib_device},
     "RDMA device and port to use, as device[:port] (e.g. mlx5_0:1, rxe0); auto: the first "
     "port in state ACTIVE (verbatim-info lists them)"},
    {"VBT_IB_GID_INDEX",
     "-1",
     VBT_KNOB_INT,
     {.i = &vbt_cfg.ib_gid_index},
     "RoCE: GID table index to address this port by; -1 picks a RoCE v2 GID automatically "
     "(IPv4-mapped first, then link-local)"},
    {"VBT_EAGER_LIMIT",
     "8k",
     VBT_KNOB_SIZE,
     {.size = &vbt_cfg.eager_limit},
     "largest message (runtime header + payload) sent eagerly in one InfiniBand SEND; must be "
     "the same on every rank (256 to 1m)"},
    {"VBT_RNDV_THRESHOLD",
     "32k",
     VBT_KNOB_SIZE,
     {.size = &vbt_cfg.rndv_threshold},
     "messages larger than this go by rendezvous: the receiver's buffer is registered and the "
     "sender RDMA WRITEs straight into it, no copies; smaller ones are copied through eager "
     "buffers. May differ between ranks (the sender decides); at most 64m"},
    {"VBT_RCACHE_MAX",
     "1g",
     VBT_KNOB_SIZE,
     {.size = &vbt_cfg.rcache_max},
     "bytes of registered (pinned) memory the registration cache keeps; above it the least "
     "recently used registrations not in use are dropped. Lowered to what RLIMIT_MEMLOCK "
     "allows"},
    {"VBT_IB_WRITE_MAX",
     "1m",
     VBT_KNOB_SIZE,
     {.size = &vbt_cfg.ib_write_max},
     "largest RDMA WRITE of a rendezvous (4k to 1g; the port's max_msg_sz caps it): a message "
     "is cut into WRITEs of this size. Smaller helps Soft-RoCE (rxe) on a lossy link, whose "
     "retries run out within one long WRITE; see README"},
    {"VBT_TRANSPORTS",
     "self,shm,ib",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.transports},
     "transports a rank may use, comma-separated: self (its own messages), shm (shared memory "
     "with ranks of the same node), ib (verbs). Each peer gets the first that reaches it in "
     "the order self, shm, ib; e.g. self,ib sends to on-node ranks over the NIC"},
    {"VBT_PROGRESS",
     "auto",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.progress},
     "how a waiting rank waits: spin (poll without pause), hybrid (poll a short while, then "
     "sleep until the NIC or a local peer wakes it), block (sleep at once); auto: hybrid, "
     "but on a node with more ranks than cores it does not spin: it yields the core for up "
     "to 1 ms, then sleeps. There, every mode but spin also makes "
     "a program's polling loop (MPI_Iprobe, MPI_Test...) yield the core after 4 empty polls"},
    {"VBT_THREAD_LEVEL",
     "single",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.thread_level},
     "the thread level MPI_Init asks for (MPI_Init_thread and sessions ask for their own): "
     "single, funneled, serialized or multiple. Below multiple the library takes no lock"},
    {"VBT_VCIS",
     "1",
     VBT_KNOB_INT,
     {.i = &vbt_cfg.vcis},
     "virtual communication interfaces per rank (1 to 64): each is its own set of transport "
     "instances (shared-memory rings, queue pairs) and matching state, and communicators are "
     "spread over them by context id (MPI_COMM_WORLD on the first, each new one on the next), "
     "so that threads communicating on different communicators do not share one. Must be the "
     "same on every rank"},
    {"VBT_UNEXP_MAX",
     "0",
     VBT_KNOB_SIZE,
     {.size = &vbt_cfg.unexp_max},
     "bytes of memory a rank may take to keep messages that arrived before their receive was "
     "posted (each takes about its size); past it the rank fails with an error saying so. 0: "
     "no bound but the memory itself, as in Open MPI and MPICH"},
    {"VBT_SHM_RNDV_THRESHOLD",
     "16k",
     VBT_KNOB_SIZE,
     {.size = &vbt_cfg.shm_rndv_threshold},
     "on-node messages larger than this are read by the receiver straight from the sender's "
     "buffer with one copy (CMA, process_vm_readv), or streamed through the rings into the "
     "matched receive where CMA is not permitted; smaller ones are copied in and out of the "
     "rings eagerly; at most 64m"},
    {"VBT_SHM_CMA",
     "1",
     VBT_KNOB_BOOL,
     {.i = &vbt_cfg.shm_cma},
     "1: large on-node messages are read with one copy (CMA) where the kernel permits it; 0: "
     "never, they are streamed through the rings (two copies) as where CMA is refused"},
    {"VBT_SHM_MEMBARRIER",
     "1",
     VBT_KNOB_BOOL,
     {.i = &vbt_cfg.shm_membarrier},
     "1: an on-node send takes no memory fence; a rank about to sleep makes its senders' "
     "processors order their stores with one membarrier(2) system call instead (where the "
     "kernel offers MEMBARRIER_CMD_GLOBAL_EXPEDITED); 0: every send takes a full fence, so "
     "that a sleeping receiver is never missed"},
    {"VBT_WIN_ALLOCATE_SHM",
     "1",
     VBT_KNOB_BOOL,
     {.i = &vbt_cfg.win_allocate_shm},
     "1: the memory of an MPI_Win_allocate window is one shared-memory segment per node, and "
     "operations between ranks of a node are loads and stores by the origin; 0: this rank's "
     "part is private memory, reached by messages from every rank as if it were alone on its "
     "node, as also when VBT_TRANSPORTS leaves out shm (ranks may differ; "
     "MPI_Win_allocate_shared is not affected)"},
    {"VBT_RMA_NIC_ATOMICS",
     "1",
     VBT_KNOB_BOOL,
     {.i = &vbt_cfg.rma_nic_atomics},
     "1: a window whose ranks all reach each other through a transport with 64-bit atomics "
     "(ib) does its 64-bit integer MPI_SUM, MPI_NO_OP, MPI_REPLACE accumulates and "
     "MPI_Compare_and_swap with the NIC's atomics; 0: every accumulate is a message the "
     "target applies"},
    {"VBT_COLL_BCAST",
     "auto",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.coll_bcast},
     "MPI_Bcast algorithm: binomial, scatter_allgather, or auto (binomial below 12 KiB or 8 "
     "ranks)"},
    {"VBT_COLL_ALLREDUCE",
     "auto",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.coll_allreduce},
     "MPI_Allreduce algorithm: recursive_doubling, rabenseifner, ring, or auto (see README); "
     "non-commutative ops always use recursive_doubling"},
    {"VBT_COLL_GATHER",
     "auto",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.coll_gather},
     "MPI_Gather algorithm: linear, binomial, or auto (binomial for blocks below 4 KiB)"},
    {"VBT_COLL_SCATTER",
     "auto",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.coll_scatter},
     "MPI_Scatter algorithm: linear, binomial, or auto (binomial for blocks below 4 KiB)"},
    {"VBT_COLL_ALLGATHER",
     "auto",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.coll_allgather},
     "MPI_Allgather algorithm: bruck, recursive_doubling, ring, or auto (see README)"},
    {"VBT_COLL_ALLTOALL",
     "auto",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.coll_alltoall},
     "MPI_Alltoall algorithm: bruck, pairwise, or auto (bruck for blocks up to 256 bytes on 8 "
     "ranks or more)"},
    {"VBT_COLL_REDUCE_SCATTER",
     "auto",
     VBT_KNOB_STRING,
     {.str = &vbt_cfg.coll_reduce_scatter},
     "MPI_Reduce_scatter(_block) algorithm: ring, reduce_scatterv, or auto (ring at 2 ranks, "
     "else reduce_scatterv up to 2 KiB); non-commutative ops always use reduce_scatterv"},
    {"VBT_COLL_TMP_CACHE",
     "16m",
     VBT_KNOB_SIZE,
     {.size = &vbt_cfg.coll_tmp_cache},
     "collectives keep up to 4 freed temporary buffers of at most this size for the next call, "
     "since fresh memory costs a page fault per page on every call; 0: allocate and free them "
     "each call"},
    {"VBT_CC",
     "cc",
     VBT_KNOB_STRING,
     {NULL},
     "C compiler used by mpicc (MPICH_CC and OMPI_CC are honoured too)"},
    {"VBT_CXX",
     "c++",
     VBT_KNOB_STRING,
     {NULL},
     "C++ compiler used by mpicxx (MPICH_CXX and OMPI_CXX are honoured too)"},
    {"VBT_ALLOW_NO_RDMA",
     "0",
     VBT_KNOB_BOOL,
     {NULL},
     "make check: skip the verbs tests, instead of failing, where neither an RDMA device nor "
     "the Soft-RoCE VM is available"},
    {"VBT_RXEVM_TIMEOUT",
     "1200",
     VBT_KNOB_INT,
     {NULL},
     "test/rxevm: seconds before the Soft-RoCE VM is killed"},
    {"VBT_RXEVM_VERBOSE", "0", VBT_KNOB_BOOL, {NULL}, "test/rxevm: show the VM's console"},
    {"VBT_RXEVM_SMP",
     "2",
     VBT_KNOB_INT,
     {NULL},
     "test/rxevm: virtual CPUs per VM (test/integration/verbs2.sh sets 1 for its two VMs)"},
    {"VBT_RXEVM_MEM",
     "4G",
     VBT_KNOB_STRING,
     {NULL},
     "test/rxevm: guest memory per VM, as qemu's -m takes it (test/integration/"
     "verbs_largecount.sh asks for 7G)"},
    {"VBT_RXEVM_LINK",
     "dgram",
     VBT_KNOB_STRING,
     {NULL},
     "test/rxevm --nodes 2: how the two VMs are joined: dgram (qemu's datagram netdev over "
     "unix sockets, ~0.5 ms per round trip) or tcp (the socket netdev, ~25 ms)"},
    {"VBT_RXEVM_KEEP",
     "0",
     VBT_KNOB_BOOL,
     {NULL},
     "test/rxevm: keep the run directory and the whole console logs"},
    {"VBT_RXEVM_CACHE",
     "",
     VBT_KNOB_STRING,
     {NULL},
     "test/rxevm: where the built initramfs is kept between runs (default: under $HOME/.cache)"},
    {"VBT_FUZZ_SECONDS",
     "15",
     VBT_KNOB_INT,
     {NULL},
     "test/integration/fuzz.sh: seconds each libFuzzer target runs"},
    {"VBT_FUZZ_TARGETS",
     "ib_hdr ib_cm p2p shm_cell opts",
     VBT_KNOB_STRING,
     {NULL},
     "test/integration/fuzz.sh: the targets to build and run (test/fuzz/fuzz_<name>.c)"},
    {"VBT_VERBS2_PARTS",
     "base fault",
     VBT_KNOB_STRING,
     {NULL},
     "test/integration/verbs2.sh: the parts of the two-node test to run: base (verbs2_slurm.sh), "
     "fault (verbs2_fault.sh: ranks that die), loss (verbs2_loss.sh: netem drops packets; "
     "verbs2_long.sh, in make check-long)"},
    {"VBT_VERBS_TESTS",
     "",
     VBT_KNOB_STRING,
     {NULL},
     "test/integration/verbs.sh: the verbs tests to run in one boot, e.g. rndv,p2p (with or "
     "without verbs_ and .sh); empty: all of them"},
};

const vbt_knob_t *vbt_config_knobs(size_t *count_p)
{
    *count_p = sizeof(knobs) / sizeof(knobs[0]);
    return knobs;
}

vbt_status_t vbt_config_parse_value(vbt_knob_type_t type, const char *text, int64_t *value_p)
{
    char *end;
    long long v;

    switch (type) {
    case VBT_KNOB_STRING:
        return VBT_OK;
    case VBT_KNOB_LOG_LEVEL:
        v = vbt_log_level_parse(text);
        if (v < 0)
            return VBT_ERR_INVALID_PARAM;
        break;
    case VBT_KNOB_BOOL:
        if (!strcmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "true") ||
            !strcasecmp(text, "on"))
            v = 1;
        else if (!strcmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "false") ||
                 !strcasecmp(text, "off"))
            v = 0;
        else
            return VBT_ERR_INVALID_PARAM;
        break;
    case VBT_KNOB_INT:
    case VBT_KNOB_SIZE:
        errno = 0;
        v = strtoll(text, &end, 0);
        if (errno != 0 || end == text)
            return VBT_ERR_INVALID_PARAM;
        if (type == VBT_KNOB_SIZE && *end != '\0') {
            int shift = 0;
            switch (tolower((unsigned char)*end)) {
            case 'k':
                shift = 10;
                break;
            case 'm':
                shift = 20;
                break;
            case 'g':
                shift = 30;
                break;
            default:
                return VBT_ERR_INVALID_PARAM;
            }
            end++;
            if (*end == 'b' || *end == 'B')
                end++;
            if (v < 0 || v > (INT64_MAX >> shift))
                return VBT_ERR_INVALID_PARAM;
            v <<= shift;
        }
        if (*end != '\0' || (type == VBT_KNOB_SIZE && v < 0))
            return VBT_ERR_INVALID_PARAM;
        break;
    default:
        return VBT_ERR_INVALID_PARAM;
    }
    *value_p = v;
    return VBT_OK;
}

static const char *type_hint(vbt_knob_type_t type)
{
    switch (type) {
    case VBT_KNOB_LOG_LEVEL:
        return "one of error, warn, info, debug, trace";
    case VBT_KNOB_BOOL:
        return "0 or 1";
    case VBT_KNOB_INT:
        return "an integer";
    case VBT_KNOB_SIZE:
        return "a size in bytes such as 4096, 64k or 1m";
    default:
        return "a string";
    }
}

static void store(const vbt_knob_t *k, int64_t v, const char *text)
{
    switch (k->type) {
    case VBT_KNOB_SIZE:
        *k->dest.size = (size_t)v;
        break;
    case VBT_KNOB_STRING:
        *k->dest.str = text;
        break;
    default:
        *k->dest.i = (int)v;
        break;
    }
}

const char *vbt_config_closest(const char *name)
{
    const char *best = NULL;
    unsigned best_d = 4; /* farther than this is no suggestion at all */
    for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
        unsigned d = vbt_edit_distance(name, knobs[i].name);
        if (d < best_d) {
            best_d = d;
            best = knobs[i].name;
        }
    }
    return best;
}

static const vbt_knob_t *find_knob(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
        if (strlen(knobs[i].name) == len && strncmp(knobs[i].name, name, len) == 0)
            return &knobs[i];
    }
    return NULL;
}

vbt_status_t vbt_config_load(void)
{
    vbt_status_t status = VBT_OK;

    for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
        const vbt_knob_t *k = &knobs[i];
        const char *text = getenv(k->name);
        int64_t v = 0;

        if (k->dest.i == NULL)
            continue;
        if (text == NULL || *text == '\0')
            text = k->default_value;
        if (vbt_config_parse_value(k->type, text, &v) != VBT_OK) {
            vbt_error("%s=\"%s\" is not valid: expected %s (default %s)", k->name, text,
                      type_hint(k->type), k->default_value);
            status = VBT_ERR_INVALID_PARAM;
            continue;
        }
        store(k, v, text);
        if (k->dest.i == &vbt_cfg.log_level)
            vbt_log_level = (vbt_log_level_t)v;
    }

    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        char name[128];
        const char *hint;

        if (strncmp(*e, "VBT_", 4) != 0 || find_knob(*e, len) != NULL)
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)len, *e);
        hint = vbt_config_closest(name);
        if (hint != NULL)
            vbt_warn("unknown environment variable %s ignored: did you mean %s?", name, hint);
        else
            vbt_warn("unknown environment variable %s ignored (verbatim-info lists the knobs)",
                     name);
    }
    return status;
}
