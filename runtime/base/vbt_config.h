/* Every VBT_* environment knob is declared once, in the table in vbt_config.c (name, default,
 * type, help). verbatim-info prints the table, README documents it, and an unknown VBT_*
 * variable in the environment gets a warning naming the closest known knob. */
#ifndef VBT_CONFIG_H
#define VBT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "vbt_status.h"

typedef enum {
    VBT_KNOB_STRING,
    VBT_KNOB_INT,
    VBT_KNOB_SIZE, /* bytes, with an optional k/m/g suffix (powers of 1024) */
    VBT_KNOB_BOOL,
    VBT_KNOB_LOG_LEVEL,
} vbt_knob_type_t;

/* Where a knob's parsed value goes: the member matching its type, or all NULL for knobs that
 * only scripts read (they are listed so verbatim-info, README and the typo check know them). */
typedef union {
    int *i; /* INT, BOOL, LOG_LEVEL */
    size_t *size;
    const char **str;
} vbt_knob_dest_t;

typedef struct {
    const char *name;
    const char *default_value;
    vbt_knob_type_t type;
    vbt_knob_dest_t dest;
    const char *help;
} vbt_knob_t;

/* Parsed values of the knobs the C code reads. */
typedef struct {
    int log_level;
    const char *ib_device;     /* VBT_IB_DEVICE: "auto" or device[:port] */
    int ib_gid_index;          /* VBT_IB_GID_INDEX: -1 picks automatically */
    size_t eager_limit;        /* VBT_EAGER_LIMIT: largest runtime header + payload of one send */
    size_t rndv_threshold;     /* VBT_RNDV_THRESHOLD: larger messages go by rendezvous */
    size_t rcache_max;         /* VBT_RCACHE_MAX: registered bytes the registration cache keeps */
    size_t ib_write_max;       /* VBT_IB_WRITE_MAX: bytes per RDMA WRITE of a rendezvous */
    const char *transports;    /* VBT_TRANSPORTS: comma list of self, shm, ib */
    const char *progress;      /* VBT_PROGRESS: auto, spin, hybrid, block */
    const char *thread_level;  /* VBT_THREAD_LEVEL: MPI_Init's level, single .. multiple */
    int vcis;                  /* VBT_VCIS: virtual communication interfaces per rank */
    size_t shm_rndv_threshold; /* VBT_SHM_RNDV_THRESHOLD: larger on-node messages: one copy */
    size_t unexp_max;          /* VBT_UNEXP_MAX: bytes unexpected messages may take; 0: no bound */
    int shm_cma;               /* VBT_SHM_CMA: 0 never reads a peer's memory with CMA */
    int shm_membarrier;        /* VBT_SHM_MEMBARRIER: 0 fences every on-node send instead */
    int win_allocate_shm;      /* VBT_WIN_ALLOCATE_SHM: 0 keeps MPI_Win_allocate memory private */
    int rma_nic_atomics;       /* VBT_RMA_NIC_ATOMICS: 0 keeps every accumulate a message */
    /* VBT_COLL_<NAME>: "auto" or the algorithm that collective always uses (vbt_coll_select.c) */
    const char *coll_bcast;
    const char *coll_allreduce;
    const char *coll_gather;
    const char *coll_scatter;
    const char *coll_allgather;
    const char *coll_alltoall;
    const char *coll_reduce_scatter;
    size_t coll_tmp_cache; /* VBT_COLL_TMP_CACHE: largest temporary buffer kept for reuse */
} vbt_config_t;

extern vbt_config_t vbt_cfg;

/* Parse every knob from the environment (defaults for unset ones), warn about unknown VBT_*
 * names. Fails with VBT_ERR_INVALID_PARAM, after logging which knob and why, on a bad value. */
vbt_status_t vbt_config_load(void);

const vbt_knob_t *vbt_config_knobs(size_t *count_p);

/* Parse one value of the given type; exposed for the unit tests. */
vbt_status_t vbt_config_parse_value(vbt_knob_type_t type, const char *text, int64_t *value_p);

/* The known knob closest in spelling to name, or NULL when none is close. */
const char *vbt_config_closest(const char *name);

#endif
